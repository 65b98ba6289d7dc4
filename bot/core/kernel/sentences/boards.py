"""Sentences of leaderboards, stats, charts, the weekly recap and privacy.

English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    "leaderboard.title.week": {"en": "Leaderboard · this week", "zh-CN": "排行榜 · 本周"},
    "leaderboard.title.all": {"en": "Leaderboard · all time", "zh-CN": "排行榜 · 总榜"},
    "leaderboard.empty": {
        "en": "No points yet. Answer today's question to get on the board!",
        "zh-CN": "还没有人得分。答对今天的题目就能上榜！",
    },
    "leaderboard.only_hidden": {
        "en": "Only {count} {count|member|members} hidden from the boards "
              "{count|has|have} scored so far.",
        "zh-CN": "目前只有 {count} 名已隐藏的成员得分。",
    },
    "leaderboard.header": {
        "en": "#   Name                 Points  Solved  Streak",
        "zh-CN": "#   成员                 积分    答对    连续",
    },
    "leaderboard.bad_period": {
        "en": "Use {/leaderboard} week or {/leaderboard} all.",
        "zh-CN": "请使用 `{/leaderboard} week` 或 `{/leaderboard} all`。",
    },
    "leaderboard.weekly": {
        "en": "Weekly leaderboard · {week}", "zh-CN": "每周排行榜 · {week}",
    },
    "chart.bar": {"en": "{points} pts · {solved} solved", "zh-CN": "{points} 分 · 答对 {solved}"},
    "chart.x_label": {"en": "Points this week", "zh-CN": "本周积分"},
    "chart.y_label": {"en": "Member", "zh-CN": "成员"},
    "chart.alt": {
        "en": "Bar chart of points this week, {week}: {bars}",
        "zh-CN": "本周积分条形图（{week}）：{bars}",
    },
    "chart.alt.bar": {
        "en": "{rank}. {name}, {points} points", "zh-CN": "{rank}. {name} {points} 分",
    },
    "chart.alt.empty": {
        "en": "Bar chart of points this week, {week}: nobody scored yet",
        "zh-CN": "本周积分条形图（{week}）：还没有人得分",
    },
    "stats.title": {"en": "Stats · {name}", "zh-CN": "个人统计 · {name}"},
    "stats.summary": {
        "en": "{points} points · {solved}/{attempted} solved · streak {streak} (best {best})",
        "zh-CN": "{points} 分 · 答对 {solved}/{attempted} · 连续 {streak} 天（最佳 {best}）",
    },
    "stats.mastery": {
        "en": "Mastery by topic: the share answered right on the first try "
              "(a solve after a miss counts as solved, not as mastered)",
        "zh-CN": "各主题掌握度：首次作答即答对的比例（答错后再答对只算答对，不算掌握）",
    },
    "stats.none": {
        "en": "No answers yet. Try today's question or {/quiz}.",
        "zh-CN": "还没有作答记录。试试今天的题目或 {/quiz}。",
    },
    "stats.more": {
        "en": "Freezes held: {freezes} · reviews due: {due}\n"
              "Rank this week: {week} · all time: {all}",
        "zh-CN": "持有补签卡：{freezes} · 待复习：{due}\n本周排名：{week} · 总排名：{all}",
    },
    "stats.rank": {"en": "#{rank} of {of}", "zh-CN": "第 {rank} 名（共 {of} 人）"},
    "stats.unranked": {"en": "no points yet", "zh-CN": "暂无积分"},
    "stats.hidden_note": {
        "en": "You are hidden from the boards; your rank is among the visible members.",
        "zh-CN": "你已在排行榜上隐藏；排名按可见成员计算。",
    },
    "stats.private": {
        "en": "This member keeps their stats private.",
        "zh-CN": "该成员设置了不公开个人统计。",
    },
    "stats.mastery.header": {
        # Column labels, "|"-separated: the table pads them by display width.
        "en": "Topic|First try|1st/Right/All|Due",
        "zh-CN": "主题|首次正确率|首次/答对/作答|待复习",
    },
    "stats.chart.title": {"en": "Mastery by topic · {name}", "zh-CN": "各主题掌握度 · {name}"},
    "stats.chart.x_label": {"en": "Right on the first try (%)", "zh-CN": "首次作答正确率（%）"},
    "stats.chart.bar": {
        "en": "{pct}% · {first}/{attempted} first try · {due} due",
        "zh-CN": "{pct}% · 首次答对 {first}/{attempted} · 待复习 {due}",
    },
    "stats.chart.bar.team": {
        "en": "{pct}% · {first}/{attempted} first try",
        "zh-CN": "{pct}% · 首次答对 {first}/{attempted}",
    },
    "stats.chart.alt.team": {
        "en": "{topic} {pct}% ({first} of {attempted} on the first try, "
              "{solved} solved in the end)",
        "zh-CN": "{topic} {pct}%（{attempted} 次作答中首次答对 {first}，最终答对 {solved}）",
    },
    "stats.chart.alt": {
        "en": "Bar chart of the share answered right on the first try per topic: {bars}",
        "zh-CN": "各主题首次作答正确率条形图：{bars}",
    },
    "stats.chart.alt.bar": {
        "en": "{topic} {pct}% ({first} of {attempted} on the first try, {solved} solved in the "
              "end, {due} {due|review|reviews} due)",
        "zh-CN": "{topic} {pct}%（{attempted} 题中首次答对 {first}，最终答对 {solved}，"
                 "待复习 {due}）",
    },
    "stats.team.title": {"en": "Team mastery · weakest first", "zh-CN": "团队掌握度 · 由弱到强"},
    "stats.team.none": {
        "en": "Nobody has answered a question in this channel yet.",
        "zh-CN": "本频道还没有人作答。",
    },
    "stats.team.summary": {
        "en": "Answers by every member of this channel, per topic, weakest first: the share "
              "answered right on the first try.",
        "zh-CN": "本频道全体成员的作答，按主题统计首次作答即答对的比例，由弱到强。",
    },
    "stats.team.cards": {
        "en": "To review together: {cards}", "zh-CN": "建议一起复习：{cards}",
    },
    "stats.team.denied": {
        "en": "Only admins can see the team's stats.", "zh-CN": "只有管理员可以查看团队统计。",
    },
    "stats.chart_dm": {
        "en": "The chart is in your direct messages with the app.",
        "zh-CN": "图表已发到你与本应用的私信中。",
    },
    "leaderboard.freezes": {
        "en": "❄ a streak freeze held: it covers one missed day",
        "zh-CN": "❄ 持有的连续保护：可抵消一天未作答",
    },
    "leaderboard.hidden": {
        "en": "+{count} {count|member|members} hidden", "zh-CN": "另有 {count} 名成员已隐藏",
    },
    "privacy.hidden": {
        "en": "You are now hidden from the leaderboards, the weekly post and its chart. You "
              "are still scored; {/stats} shows your rank to you. {/privacy} visible undoes it.",
        "zh-CN": "你已在排行榜、每周榜单和图表中隐藏。你的得分照常计算；"
                 "{/stats} 只向你显示你的排名。使用 `{/privacy} visible` 取消隐藏。",
    },
    "privacy.visible": {
        "en": "You are visible on the leaderboards again.", "zh-CN": "你已重新显示在排行榜上。",
    },
    "privacy.status.hidden": {
        "en": "You are hidden from the boards. {/privacy} visible shows you again.",
        "zh-CN": "你目前在排行榜上隐藏。使用 `{/privacy} visible` 重新显示。",
    },
    "privacy.status.visible": {
        "en": "You are visible on the boards. {/privacy} hidden keeps you off them.",
        "zh-CN": "你目前显示在排行榜上。使用 `{/privacy} hidden` 隐藏。",
    },
    "privacy.usage": {
        "en": "Use {/privacy} hidden or {/privacy} visible.",
        "zh-CN": "请使用 `{/privacy} hidden` 或 `{/privacy} visible`。",
    },
    "stats.bad_member": {
        "en": "Name one member, like `{/stats} @alice`, or nobody for your own stats.",
        "zh-CN": "请指定一位成员，例如 `{/stats} @alice`；不写则查看自己的统计。",
    },
    "weekly.misconception": {"en": "Misconception of the week", "zh-CN": "本周易错点"},
    "weekly.misconception.text": {
        "en": "{n} {n|member|members} first picked “{option}” for: {prompt}",
        "zh-CN": "{n} 位成员首次作答时在「{prompt}」中选了「{option}」",
    },
    "weekly.misconception.why": {"en": "Why it is wrong: {why}", "zh-CN": "错在哪里：{why}"},
    "weekly.hardest": {"en": "Hardest question of the week", "zh-CN": "本周最难的题"},
    "weekly.hardest.text": {
        "en": "{prompt} · {share}% right on the first try ({n} answered)",
        "zh-CN": "{prompt} · 首次作答正确率 {share}%（{n} 人作答）",
    },
    "weekly.hardest.more": {
        "en": "Learn more: {/explain} {card}", "zh-CN": "延伸阅读：{/explain} {card}",
    },
}
