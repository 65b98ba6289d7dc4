"""The bot's own sentences in English and Simplified Chinese (questions carry their own text)."""

from __future__ import annotations

_STRINGS: dict[str, dict[str, str]] = {
    "round.title": {"en": "Daily PyTorch question · {date}", "zh-CN": "每日 PyTorch 一题 · {date}"},
    "round.how.choice": {
        "en": "Pick an option below, or answer with its letter.",
        "zh-CN": "点击下方选项，或直接回复字母作答。",
    },
    "round.how.text": {"en": "Answer with a short text.", "zh-CN": "请用简短的文字作答。"},
    "round.how.code": {
        "en": "Answer with code: define `{entrypoint}`. Hidden tests run in a sandbox.",
        "zh-CN": "请用代码作答：实现 `{entrypoint}`。代码会在沙箱中运行隐藏测试。",
    },
    "round.meta": {
        "en": "{topic} · difficulty {difficulty}/3 · {points} points · closes {closes}",
        "zh-CN": "{topic} · 难度 {difficulty}/3 · {points} 分 · {closes} 截止",
    },
    "round.tally": {
        "en": "{solved} solved · {attempted} answered",
        "zh-CN": "{solved} 人答对 · {attempted} 人作答",
    },
    "round.examples": {"en": "Examples", "zh-CN": "示例"},
    "round.signature": {"en": "Signature", "zh-CN": "函数签名"},
    "reveal.title": {"en": "Answer · {date}", "zh-CN": "答案揭晓 · {date}"},
    "reveal.answer": {"en": "Answer: {answer}", "zh-CN": "答案：{answer}"},
    "reveal.solution": {"en": "A reference solution:", "zh-CN": "参考解法："},
    "reveal.more": {"en": "More: /explain {topics}", "zh-CN": "延伸阅读：/explain {topics}"},
    "answer.correct": {
        "en": "Correct! +{points} points{bonus}.",
        "zh-CN": "答对了！+{points} 分{bonus}。",
    },
    "answer.first_try": {"en": " (first-try bonus)", "zh-CN": "（首次即对奖励）"},
    "answer.wrong": {
        "en": "Not quite. {left} tries left.",
        "zh-CN": "不太对。还剩 {left} 次机会。",
    },
    "answer.wrong_final": {
        "en": "Not this time. The answer is revealed when the round closes.",
        "zh-CN": "这次没答对。本轮结束后会公布答案。",
    },
    "answer.wrong_closed": {
        "en": "Not this time. The round has closed; its answer is in the round's thread.",
        "zh-CN": "这次没答对。本轮已结束，答案见本轮的讨论串。",
    },
    "answer.why": {"en": "Why not {option}: {why}", "zh-CN": "为什么不是 {option}：{why}"},
    "answer.already_solved": {
        "en": "You already solved today's question. Nothing was recorded.",
        "zh-CN": "你今天已经答对了，本次不计入。",
    },
    "answer.no_tries": {
        "en": "You have used all your tries for this round. Nothing was recorded.",
        "zh-CN": "本轮的作答次数已用完，本次不计入。",
    },
    "answer.duplicate": {
        "en": "That answer arrived twice; it was recorded once.",
        "zh-CN": "这个答案收到了两次，只记录了一次。",
    },
    "answer.closed": {
        "en": "This round is closed. Try /quiz for practice.",
        "zh-CN": "本轮已结束。可以用 /quiz 练习。",
    },
    "answer.no_round": {
        "en": "There is no open question in this channel right now.",
        "zh-CN": "本频道当前没有进行中的题目。",
    },
    "answer.empty": {"en": "Your answer is empty.", "zh-CN": "你的答案是空的。"},
    "answer.too_long": {
        "en": "That answer is too long ({size} characters; the limit is {limit}).",
        "zh-CN": "答案太长（{size} 个字符，上限 {limit}）。",
    },
    "answer.control": {
        "en": "Your answer contains control characters; please send plain text.",
        "zh-CN": "答案中含有控制字符，请发送纯文本。",
    },
    "answer.unreadable_choice": {
        "en": "Answer with one of the letters {keys}.",
        "zh-CN": "请用字母 {keys} 之一作答。",
    },
    "answer.needs_code": {
        "en": "This question needs code: send a function named `{entrypoint}`.",
        "zh-CN": "本题需要提交代码：请实现名为 `{entrypoint}` 的函数。",
    },
    "answer.not_code": {
        "en": "This question is answered by text or a button, not code.",
        "zh-CN": "本题请用文字或按钮作答，不需要代码。",
    },
    "answer.typo": {"en": "(Accepted: {note}.)", "zh-CN": "（已接受：{note}。）"},
    "code.unavailable": {
        "en": "Code grading is not available here: {reason}. Your answer was not recorded.",
        "zh-CN": "当前无法评测代码：{reason}。本次作答未被记录。",
    },
    "code.no_executor": {
        "en": "no sandboxed executor is configured", "zh-CN": "未配置沙箱执行器",
    },
    "code.passed": {
        "en": "All {total} hidden tests passed in {ms} ms.",
        "zh-CN": "全部 {total} 个隐藏测试通过，用时 {ms} 毫秒。",
    },
    "code.result": {
        "en": "{status}: {passed}/{total} hidden tests passed.",
        "zh-CN": "{status}：通过 {passed}/{total} 个隐藏测试。",
    },
    "code.rejected": {
        "en": "Not run, and this did not use a try:",
        "zh-CN": "代码未运行，本次不消耗作答次数：",
    },
    "code.fault": {
        "en": "The grader failed on our side. This did not use a try; please send it again.",
        "zh-CN": "评测在我们这边出错了。本次不消耗作答次数，请重新提交。",
    },
    "code.output": {"en": "Your output", "zh-CN": "你的输出"},
    "code.pending": {
        "en": "Grading is delayed; you will get your result here. Your answer is kept and "
              "counts from the time you sent it.",
        "zh-CN": "评测暂时延迟，结果会在这里发给你。你的答案已保存，按提交时间计算。",
    },
    "code.pending_result": {
        "en": "The result of the code you sent for the {date} question:",
        "zh-CN": "你为 {date} 的题目提交的代码，评测结果如下：",
    },
    "code.busy_practice": {
        "en": "Code grading is unavailable for a moment. This did not use a try; please send "
              "it again in a minute.",
        "zh-CN": "代码评测暂时不可用。本次不消耗作答次数，请稍后再提交。",
    },
    "error.internal": {
        "en": "Sorry, something went wrong on our side. Nothing was recorded; please try again.",
        "zh-CN": "抱歉，我们这边出了问题。本次未记录，请稍后再试。",
    },
    "explain.unknown": {
        "en": "No card for '{query}'. Did you mean: {suggestions}?",
        "zh-CN": "没有找到「{query}」。你是不是想找：{suggestions}？",
    },
    "explain.unknown_none": {
        "en": "No card for '{query}'. Try one of: {topics}.",
        "zh-CN": "没有找到「{query}」。可以试试：{topics}。",
    },
    "explain.example": {"en": "Example", "zh-CN": "示例"},
    "explain.see_also": {"en": "See also: {topics}", "zh-CN": "另见：{topics}"},
    "explain.list": {"en": "Concept cards", "zh-CN": "概念卡片"},
    "explain.share": {"en": "Share in channel", "zh-CN": "分享到频道"},
    "explain.gone": {
        "en": "That card is no longer in the bank.", "zh-CN": "这张卡片已不在题库中。",
    },
    "channel.no_quiz": {
        "en": "This channel has no daily quiz yet. An admin can start one with /quiz-settings.",
        "zh-CN": "本频道还没有开启每日一题。管理员可以用 /quiz-settings 开启。",
    },
    "practice.title": {"en": "Practice · {topic}", "zh-CN": "练习 · {topic}"},
    "practice.how": {
        "en": "Unscored. Answer with /practice <answer>{code_hint}.",
        "zh-CN": "不计分。用 /practice <答案> 作答{code_hint}。",
    },
    "practice.code_hint": {
        "en": " (code: /practice followed by the code)",
        "zh-CN": "（代码题：/practice 后接代码）",
    },
    "practice.kind.review": {
        "en": "Review · due since {since}",
        "zh-CN": "复习 · 已到期 {since}",
    },
    "practice.kind.review_now": {"en": "Review · due now", "zh-CN": "复习 · 现在到期"},
    "practice.kind.new_weak": {
        "en": "New · your weakest topic: {topic}",
        "zh-CN": "新题 · 你最薄弱的主题：{topic}",
    },
    "practice.kind.new_untried": {
        "en": "New · a topic you have not tried yet: {topic}",
        "zh-CN": "新题 · 你还没练过的主题：{topic}",
    },
    "practice.kind.ahead": {
        "en": "Review ahead of time · due in {when} (nothing else is due or new)",
        "zh-CN": "提前复习 · {when}后到期（没有其他到期题或新题）",
    },
    "time.day": {"en": "1 day", "zh-CN": "1 天"},
    "time.hour": {"en": "1 hour", "zh-CN": "1 小时"},
    "time.minute": {"en": "1 minute", "zh-CN": "1 分钟"},
    "time.days": {"en": "{n} days", "zh-CN": "{n} 天"},
    "time.hours": {"en": "{n} hours", "zh-CN": "{n} 小时"},
    "time.minutes": {"en": "{n} minutes", "zh-CN": "{n} 分钟"},
    "practice.none": {
        "en": "No practice question matches '{topic}'. Topics: {topics}.",
        "zh-CN": "没有与「{topic}」匹配的练习题。可选主题：{topics}。",
    },
    "practice.nothing_pending": {
        "en": "You have no practice question open. Start one with /quiz [topic].",
        "zh-CN": "你当前没有练习题。用 /quiz [主题] 开始一题。",
    },
    "practice.correct": {
        "en": "Correct! Next review of this one in {when}.",
        "zh-CN": "答对了！{when}后会再复习这道题。",
    },
    "practice.wrong": {
        "en": "Not quite. {left} tries left.",
        "zh-CN": "不太对。还剩 {left} 次机会。",
    },
    "practice.wrong_final": {
        "en": "Not this time; it comes back soon for review.",
        "zh-CN": "这次没答对；这道题很快会再出现供你复习。",
    },
    "leaderboard.title.week": {"en": "Leaderboard · this week", "zh-CN": "排行榜 · 本周"},
    "leaderboard.title.all": {"en": "Leaderboard · all time", "zh-CN": "排行榜 · 总榜"},
    "leaderboard.empty": {
        "en": "No points yet. Answer today's question to get on the board!",
        "zh-CN": "还没有人得分。答对今天的题目就能上榜！",
    },
    "leaderboard.header": {
        "en": "#   Name                 Points  Solved  Streak",
        "zh-CN": "#   成员                 积分    答对    连续",
    },
    "leaderboard.bad_period": {
        "en": "Use /leaderboard week or /leaderboard all.",
        "zh-CN": "请使用 /leaderboard week 或 /leaderboard all。",
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
    "form.open": {"en": "Answer", "zh-CN": "作答"},
    "form.title.text": {"en": "Your answer", "zh-CN": "你的答案"},
    "form.title.code": {"en": "Your code", "zh-CN": "你的代码"},
    "form.field.text": {"en": "Answer (a word, a number or a shape)",
                        "zh-CN": "答案（一个词、一个数或一个形状）"},
    "form.field.code": {"en": "Python code defining the function",
                        "zh-CN": "定义该函数的 Python 代码"},
    "stats.title": {"en": "Stats · {name}", "zh-CN": "个人统计 · {name}"},
    "stats.summary": {
        "en": "{points} points · {solved}/{attempted} solved · streak {streak} (best {best})",
        "zh-CN": "{points} 分 · 答对 {solved}/{attempted} · 连续 {streak} 天（最佳 {best}）",
    },
    "stats.mastery": {"en": "Mastery by topic", "zh-CN": "各主题掌握度"},
    "stats.none": {
        "en": "No answers yet. Try today's question or /quiz.",
        "zh-CN": "还没有作答记录。试试今天的题目或 /quiz。",
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
        "en": "Topic|Right|Right/Answered|Due",
        "zh-CN": "主题|正确率|答对/作答|待复习",
    },
    "stats.chart.title": {"en": "Mastery by topic · {name}", "zh-CN": "各主题掌握度 · {name}"},
    "stats.chart.x_label": {"en": "Answered right (%)", "zh-CN": "正确率（%）"},
    "stats.chart.bar": {
        "en": "{pct}% · {solved}/{attempted} · {due} due",
        "zh-CN": "{pct}% · {solved}/{attempted} · 待复习 {due}",
    },
    "stats.chart.bar.team": {
        "en": "{pct}% · {solved}/{attempted}", "zh-CN": "{pct}% · {solved}/{attempted}",
    },
    "stats.chart.alt.team": {
        "en": "{topic} {pct}% ({solved} of {attempted})",
        "zh-CN": "{topic} {pct}%（{attempted} 次作答答对 {solved}）",
    },
    "stats.chart.alt": {
        "en": "Bar chart of the share answered right per topic: {bars}",
        "zh-CN": "各主题正确率条形图：{bars}",
    },
    "stats.chart.alt.bar": {
        "en": "{topic} {pct}% ({solved} of {attempted}, {due} reviews due)",
        "zh-CN": "{topic} {pct}%（{attempted} 题答对 {solved}，待复习 {due}）",
    },
    "stats.team.title": {"en": "Team mastery · weakest first", "zh-CN": "团队掌握度 · 由弱到强"},
    "stats.team.none": {
        "en": "Nobody has answered a question in this channel yet.",
        "zh-CN": "本频道还没有人作答。",
    },
    "stats.team.summary": {
        "en": "Answers by every member of this channel, per topic, weakest first.",
        "zh-CN": "本频道全体成员的作答，按主题统计，由弱到强。",
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
        "en": "+{count} members hidden", "zh-CN": "另有 {count} 名成员已隐藏",
    },
    "privacy.hidden": {
        "en": "You are now hidden from the leaderboards, the weekly post and its chart. You "
              "are still scored; /stats shows your rank to you. /quiz-privacy visible undoes it.",
        "zh-CN": "你已在排行榜、每周榜单和图表中隐藏。你的得分照常计算；/stats 只向你显示你的排名。"
                 "使用 /quiz-privacy visible 取消隐藏。",
    },
    "privacy.visible": {
        "en": "You are visible on the leaderboards again.", "zh-CN": "你已重新显示在排行榜上。",
    },
    "privacy.status.hidden": {
        "en": "You are hidden from the boards. /quiz-privacy visible shows you again.",
        "zh-CN": "你目前在排行榜上隐藏。使用 /quiz-privacy visible 重新显示。",
    },
    "privacy.status.visible": {
        "en": "You are visible on the boards. /quiz-privacy hidden keeps you off them.",
        "zh-CN": "你目前显示在排行榜上。使用 /quiz-privacy hidden 隐藏。",
    },
    "privacy.usage": {
        "en": "Use /quiz-privacy hidden or /quiz-privacy visible.",
        "zh-CN": "请使用 /quiz-privacy hidden 或 /quiz-privacy visible。",
    },
    "settings.denied": {
        "en": "Only admins can change this channel's settings.",
        "zh-CN": "只有管理员可以修改本频道的设置。",
    },
    "settings.saved": {"en": "Settings saved.", "zh-CN": "设置已保存。"},
    "settings.title": {"en": "Channel settings", "zh-CN": "频道设置"},
    # A channel's pack choice (packs=bank,team-conv): shown with its settings.
    "settings.packs_fallback": {
        "en": "The chosen packs leave no question with these topics and difficulties: "
              "the daily question comes from the shipped bank until that changes.",
        "zh-CN": "所选题包在这些主题和难度下没有题目：每日题目暂时从内置题库中抽取。",
    },
    "settings.packs_gone_label": {"en": "packs no longer available", "zh-CN": "已不可用的题包"},

    # Words of the chat platforms' own widgets (forms, the home tab) and of commands.
    "ui.submit": {"en": "Submit", "zh-CN": "提交"},
    # What a screen reader says of a choice button whose label is only its letter.
    "ui.a11y.choice": {"en": "Answer {label}", "zh-CN": "选择答案 {label}"},
    "ui.cancel": {"en": "Cancel", "zh-CN": "取消"},
    "ui.save": {"en": "Save", "zh-CN": "保存"},
    "ui.settings.title": {"en": "Quiz settings", "zh-CN": "每日一题设置"},
    "ui.settings.channel": {"en": "Channel", "zh-CN": "频道"},
    "ui.settings.time": {"en": "Daily post time", "zh-CN": "每日发布时间"},
    "ui.settings.tz": {"en": "Time zone", "zh-CN": "时区"},
    "ui.settings.lang": {"en": "Language", "zh-CN": "语言"},
    "ui.settings.topics": {"en": "Topics (none: every topic)", "zh-CN": "主题（不选：全部主题）"},
    "ui.settings.difficulty": {"en": "Difficulty (none: all)", "zh-CN": "难度（不选：全部）"},
    "ui.settings.day": {"en": "Weekly leaderboard day", "zh-CN": "每周排行榜日期"},
    "ui.settings.hour": {"en": "Weekly leaderboard hour", "zh-CN": "每周排行榜时间（小时）"},
    "ui.settings.enabled": {"en": "Daily question", "zh-CN": "每日一题"},
    "ui.settings.on": {"en": "On", "zh-CN": "开启"},
    "ui.settings.packs": {"en": "Packs to draw from", "zh-CN": "抽题的题包"},
    "ui.settings.packs_hint": {"en": "bank,team-pack (bank: the shipped questions)",
                               "zh-CN": "bank,team-pack（bank：内置题库）"},
    "ui.settings.off": {"en": "Off", "zh-CN": "关闭"},
    "ui.settings.invite": {
        "en": "Make sure the app is in the channel: `/invite @torchquiz` there.",
        "zh-CN": "请确认应用已加入该频道：在频道中输入 `/invite @torchquiz`。",
    },
    "command.too_long": {
        "en": "That command text is {size} characters long; commands take at most {limit}.",
        "zh-CN": "命令文本共 {size} 个字符；命令最多 {limit} 个字符。",
    },
    "limit.code": {
        "en": "You're sending answers faster than they can be graded; try again in {seconds} s.",
        "zh-CN": "你提交答案的速度超过了评测速度；请 {seconds} 秒后再试。",
    },
    "limit.commands": {
        "en": "That's a lot of commands at once; try again in {seconds} s.",
        "zh-CN": "命令发送过于频繁；请 {seconds} 秒后再试。",
    },
    "busy": {
        "en": "The quiz is busy right now and nothing was recorded; please try again in a moment.",
        "zh-CN": "测验当前繁忙，本次未记录任何内容；请稍后再试。",
    },
    "settings.bad_channel": {
        "en": "Nothing was saved: that channel does not exist here or the app is not in it. "
              "Invite the app there first (`/invite @torchquiz`), then pick it again.",
        "zh-CN": "未保存任何设置：该频道不存在，或应用不在该频道中。"
                 "请先在该频道中邀请应用（`/invite @torchquiz`），再重新选择。",
    },
    "stats.bad_member": {
        "en": "Name one member, like `/quiz-stats @alice`, or nobody for your own stats.",
        "zh-CN": "请指定一位成员，例如 `/quiz-stats @alice`；不写则查看自己的统计。",
    },
    "home.title": {"en": "torchquiz", "zh-CN": "torchquiz"},
    "home.intro": {
        "en": "One PyTorch interview question a day in your team's channel, "
            "code answers graded in a sandbox, and concept cards on demand.",
        "zh-CN": "每天在团队频道发布一道 PyTorch 面试题，代码答案在沙箱中评测，概念卡片随时查阅。",
    },
    "home.none": {
        "en": "No channel here has a daily quiz yet. An admin starts one with /quiz-settings.",
        "zh-CN": "这里还没有频道开启每日一题。管理员可以用 /quiz-settings 开启。",
    },
    "home.commands": {"en": "Commands", "zh-CN": "命令"},
    "help.explain": {
        "en": "a concept card, e.g. `/explain detach`",
        "zh-CN": "概念卡片，例如 `/explain detach`",
    },
    "help.quiz": {
        "en": "a private practice question, from what you missed",
        "zh-CN": "私人练习题，优先出你答错过的",
    },
    "help.leaderboard": {
        "en": "this channel's leaderboard (`week` or `all`)",
        "zh-CN": "本频道排行榜（`week` 或 `all`）",
    },
    "help.stats": {
        "en": "your points, streaks and mastery by topic",
        "zh-CN": "你的积分、连续天数和各主题掌握度",
    },
    "help.settings": {
        "en": "the channel's schedule and content (admins)",
        "zh-CN": "频道的发布时间与内容（管理员）",
    },
    "remind.title": {"en": "Time to review", "zh-CN": "该复习了"},
    "remind.due_one": {"en": "1 review due · /quiz", "zh-CN": "1 道复习题到期 · /quiz"},
    "remind.due": {"en": "{n} reviews due · /quiz", "zh-CN": "{n} 道复习题到期 · /quiz"},
    "remind.topics": {"en": "Topics: {topics}", "zh-CN": "主题：{topics}"},
    "remind.start": {"en": "Start", "zh-CN": "开始复习"},
    "remind.snooze": {"en": "Snooze a day", "zh-CN": "推迟一天"},
    "remind.stop": {"en": "Stop reminders", "zh-CN": "停止提醒"},
    "remind.on": {
        "en": "Reminders on: one private message a day at {time} ({zone}), only when reviews "
            "are due. `/quiz-remind off` stops them.",
        "zh-CN": "已开启提醒：每天 {time}（{zone}）私信一次，仅在有复习题到期时发送。"
            "`/quiz-remind off` 可关闭。",
    },
    "remind.off": {
        "en": "Reminders off. `/quiz-remind on [hour]` turns them on again.",
        "zh-CN": "已关闭提醒。`/quiz-remind on [小时]` 可重新开启。",
    },
    "remind.status_off": {
        "en": "Reminders are off. `/quiz-remind on [hour]` sends you one private message a day "
            "when reviews are due.",
        "zh-CN": "提醒未开启。`/quiz-remind on [小时]` 会在有复习题到期时每天私信你一次。",
    },
    "remind.usage": {
        "en": "Use `/quiz-remind on [hour 0-23]`, `/quiz-remind off` or `/quiz-remind snooze`.",
        "zh-CN": "用法：`/quiz-remind on [0-23 点]`、`/quiz-remind off` 或 `/quiz-remind snooze`。",
    },
    "remind.no_channel": {
        "en": "Turn reminders on in a quiz channel: they follow its time zone.",
        "zh-CN": "请在开启了每日一题的频道中开启提醒：提醒按该频道的时区发送。",
    },
    "remind.snoozed": {
        "en": "Snoozed: no reminder on {skipped}; the next one comes on {date} at {time}.",
        "zh-CN": "已推迟：{skipped} 不再提醒；下一次提醒在 {date} {time}。",
    },
    "remind.not_on": {
        "en": "Your reminders are off already.",
        "zh-CN": "你的提醒已经是关闭状态。",
    },
    "remind.dm_closed": {
        "en": "Your review reminders are off: we could not send you a direct message. Allow "
            "direct messages from this server, then `/quiz-remind on` turns them on again.",
        "zh-CN": "你的复习提醒已关闭：我们无法给你发私信。请允许来自本服务器的私信，"
            "然后用 `/quiz-remind on` 重新开启。",
    },
    "home.reviews_due": {
        "en": "*{n} reviews due* · `/quiz` serves the most overdue first",
        "zh-CN": "*{n} 道复习题到期* · `/quiz` 先出最早到期的",
    },
    "home.review_due_one": {
        "en": "*1 review due* · `/quiz` serves it",
        "zh-CN": "*1 道复习题到期* · 用 `/quiz` 开始",
    },
    "home.reviews_none": {"en": "No reviews due now.", "zh-CN": "现在没有到期的复习题。"},
    "help.remind": {
        "en": "a private reminder when reviews are due (`on [hour]` or `off`)",
        "zh-CN": "有复习题到期时私信提醒（`on [小时]` 或 `off`）",
    },
    "forget.title": {"en": "Delete your quiz data?", "zh-CN": "删除你的答题数据？"},
    "forget.preview": {
        "en": "This deletes everything torchquiz keeps about you on this platform, in every "
            "channel: {what}. Leaderboards are recounted without you. This cannot be undone.",
        "zh-CN": "这会删除 torchquiz 在本平台所有频道中保存的关于你的全部数据：{what}。"
            "排行榜将不再计入你。此操作无法撤销。",
    },
    "forget.only_name": {
        "en": "only your name and id, nothing else",
        "zh-CN": "只有你的名字和 ID，没有其他记录",
    },
    "forget.confirm": {"en": "Delete my data", "zh-CN": "删除我的数据"},
    "forget.done_title": {"en": "Your quiz data is deleted", "zh-CN": "你的答题数据已删除"},
    "forget.done": {
        "en": "Deleted {what}, and your name and id. Leaderboards no longer count you.",
        "zh-CN": "已删除{what}，以及你的名字和 ID。排行榜不再计入你。",
    },
    "forget.done_name_only": {
        "en": "Deleted your name and id; nothing else was stored about you.",
        "zh-CN": "已删除你的名字和 ID；除此之外没有保存关于你的数据。",
    },
    "forget.nothing": {
        "en": "Nothing is stored about you: there is nothing to delete.",
        "zh-CN": "没有保存任何关于你的数据，无需删除。",
    },
    "forget.cancelled": {"en": "Nothing was deleted.", "zh-CN": "未删除任何数据。"},
    "forget.not_yours": {
        "en": "This button was offered to someone else; nothing was deleted.",
        "zh-CN": "这个按钮是给其他人的，未删除任何数据。",
    },
    "data.separator": {"en": ", ", "zh-CN": "、"},
    "data.answers.one": {"en": "{n} answer", "zh-CN": "{n} 条答题记录"},
    "data.answers.other": {"en": "{n} answers", "zh-CN": "{n} 条答题记录"},
    "data.pending_answers.one": {
        "en": "{n} code answer waiting to be graded", "zh-CN": "{n} 份待评测的代码答案"},
    "data.pending_answers.other": {
        "en": "{n} code answers waiting to be graded", "zh-CN": "{n} 份待评测的代码答案"},
    "data.score_totals.one": {
        "en": "your totals in {n} channel", "zh-CN": "你在 {n} 个频道的总分"},
    "data.score_totals.other": {
        "en": "your totals in {n} channels", "zh-CN": "你在 {n} 个频道的总分"},
    "data.week_totals.one": {"en": "{n} weekly total", "zh-CN": "{n} 条每周总分"},
    "data.week_totals.other": {"en": "{n} weekly totals", "zh-CN": "{n} 条每周总分"},
    "data.practice_session.one": {
        "en": "your practice question in progress", "zh-CN": "进行中的练习题"},
    "data.practice_session.other": {
        "en": "{n} practice questions in progress", "zh-CN": "{n} 道进行中的练习题"},
    "data.practice_results.one": {"en": "{n} practice result", "zh-CN": "{n} 条练习记录"},
    "data.practice_results.other": {"en": "{n} practice results", "zh-CN": "{n} 条练习记录"},
    "data.review_cards.one": {"en": "{n} review card", "zh-CN": "{n} 张复习卡片"},
    "data.review_cards.other": {"en": "{n} review cards", "zh-CN": "{n} 张复习卡片"},
    "data.reminders.one": {"en": "your review reminder", "zh-CN": "你的复习提醒设置"},
    "data.reminders.other": {"en": "{n} review reminders", "zh-CN": "{n} 条复习提醒设置"},
    "data.reports.one": {"en": "{n} question report", "zh-CN": "{n} 条题目报告"},
    "data.reports.other": {"en": "{n} question reports", "zh-CN": "{n} 条题目报告"},
    # Reports of faulty questions (bot/core/quality/reports.py).
    "report.button": {"en": "Report", "zh-CN": "报告问题"},
    "report.title": {"en": "Report this question", "zh-CN": "报告题目问题"},
    "report.reason": {"en": "What is wrong?", "zh-CN": "哪里有问题？"},
    "report.note": {
        "en": "Note (optional, up to {limit} characters)",
        "zh-CN": "补充说明（可选，最多 {limit} 个字符）",
    },
    "report.reason.incorrect": {"en": "The marked answer is incorrect",
                                "zh-CN": "标注的答案不正确"},
    "report.reason.ambiguous": {"en": "The question is ambiguous", "zh-CN": "题目有歧义"},
    "report.reason.several_correct": {"en": "More than one answer is correct",
                                      "zh-CN": "不止一个答案正确"},
    "report.reason.outdated": {"en": "Outdated for today's PyTorch",
                               "zh-CN": "对当前的 PyTorch 已过时"},
    "report.reason.translation": {"en": "A translation problem", "zh-CN": "翻译有问题"},
    "report.reason.other": {"en": "Something else", "zh-CN": "其他问题"},
    "report.thanks": {
        "en": "Thank you: your report is recorded and an admin will look at it.",
        "zh-CN": "谢谢！你的报告已记录，管理员会查看。",
    },
    "report.already": {
        "en": "You already reported this version of the question; nothing was changed.",
        "zh-CN": "你已经报告过这道题的这个版本，本次未做任何更改。",
    },
    "report.gone": {
        "en": "That question cannot be reported any more.",
        "zh-CN": "这道题已无法报告。",
    },
    "report.bad_reason": {
        "en": "Pick a reason: {reasons}.", "zh-CN": "请选择一个原因：{reasons}。",
    },
    "report.denied": {
        "en": "Only admins can list and close question reports.",
        "zh-CN": "只有管理员可以查看和关闭题目报告。",
    },
    "report.list.title": {"en": "Open question reports", "zh-CN": "待处理的题目报告"},
    "report.list.empty": {"en": "No open reports.", "zh-CN": "没有待处理的报告。"},
    "report.list.line": {
        "en": "#{id} · {item} v{version} · {reason} · {date}",
        "zh-CN": "#{id} · {item} 第 {version} 版 · {reason} · {date}",
    },
    "report.list.more": {
        "en": "…and {more} more (`torchquiz content reports` lists them all).",
        "zh-CN": "……还有 {more} 条（`torchquiz content reports` 可列出全部）。",
    },
    "report.list.how": {
        "en": "Close one with `/quiz-reports close ID REASON`.",
        "zh-CN": "用 `/quiz-reports close 编号 原因` 关闭一条报告。",
    },
    "report.close.usage": {
        "en": "Use `/quiz-reports` to list, `/quiz-reports close ID REASON` to close one.",
        "zh-CN": "用 `/quiz-reports` 列出报告，用 `/quiz-reports close 编号 原因` 关闭一条。",
    },
    "report.close.none": {
        "en": "There is no open report #{id} here.", "zh-CN": "这里没有编号为 #{id} 的待处理报告。",
    },
    "report.close.done": {"en": "Report #{id} is closed.", "zh-CN": "报告 #{id} 已关闭。"},
    "reveal.distribution": {"en": "First tries", "zh-CN": "首次作答分布"},
    "reveal.wrong_answers": {
        "en": "Most common wrong answers (first tries):",
        "zh-CN": "最常见的错误答案（首次作答）：",
    },
    "weekly.misconception": {"en": "Misconception of the week", "zh-CN": "本周易错点"},
    "weekly.misconception.text": {
        "en": "{n} members first picked “{option}” for: {prompt}",
        "zh-CN": "{n} 位成员首次作答时在「{prompt}」中选了「{option}」",
    },
    "weekly.misconception.why": {"en": "Why it is wrong: {why}", "zh-CN": "错在哪里：{why}"},
    "weekly.hardest": {"en": "Hardest question of the week", "zh-CN": "本周最难的题"},
    "weekly.hardest.text": {
        "en": "{prompt} · {share}% right on the first try ({n} answered)",
        "zh-CN": "{prompt} · 首次作答正确率 {share}%（{n} 人作答）",
    },
    "weekly.hardest.more": {
        "en": "Learn more: /explain {card}", "zh-CN": "延伸阅读：/explain {card}",
    },
    "help.reports": {
        "en": "open reports of faulty questions, and closing them (admins)",
        "zh-CN": "查看并关闭题目问题报告（管理员）",
    },
    "help.forget": {
        "en": "see and delete everything the quiz keeps about you",
        "zh-CN": "查看并删除本机器人保存的关于你的全部数据",
    },
    "insights.title": {"en": "Question quality", "zh-CN": "题目质量"},
    "insights.summary": {
        "en": "{answered} question versions answered; {enough} with enough answerers "
            "(at least {minimum}) for a discrimination.",
        "zh-CN": "共有 {answered} 个题目版本有人作答；其中 {enough} 个的作答人数足够"
            "（至少 {minimum} 人），可计算区分度。",
    },
    "insights.none": {
        "en": "No question is flagged or reported.",
        "zh-CN": "没有被标记或被举报的题目。",
    },
    "insights.line": {
        "en": "`{item}` v{version} · {answered} answered · p {p} · discrimination {disc}"
            " · {reports} open reports",
        "zh-CN": "`{item}` v{version} · {answered} 人作答 · 正确率 {p} · 区分度 {disc}"
            " · {reports} 条未处理举报",
    },
    "insights.no_data": {"en": "not enough data", "zh-CN": "数据不足"},
    "insights.paused": {
        "en": "paused: no daily post picks it", "zh-CN": "已暂停：每日一题不会选它"},
    "insights.flag.too_easy": {"en": "too easy", "zh-CN": "过于简单"},
    "insights.flag.too_hard": {"en": "too hard", "zh-CN": "过难"},
    "insights.flag.weak": {"en": "weak discrimination", "zh-CN": "区分度低"},
    "insights.flag.suspect_key": {"en": "answer key suspect", "zh-CN": "答案可能有误"},
    "insights.footer": {
        "en": "p: share right on the first try in daily rounds. Discrimination: correlation "
            "of being right here with the answerer's accuracy on other questions.",
        "zh-CN": "正确率：每日一题中首次作答即答对的比例。区分度：答对本题与作答者在"
            "其他题目上的正确率之间的相关系数。",
    },
    "insights.unpause": {"en": "Unpause {item}", "zh-CN": "恢复 {item}"},
    "insights.unpaused": {
        "en": "`{item}` (version {versions}) is unpaused: daily posts may pick it again.",
        "zh-CN": "`{item}`（版本 {versions}）已恢复：每日一题可以再次选中它。",
    },
    "insights.not_paused": {
        "en": "`{item}` is not paused; nothing changed.",
        "zh-CN": "`{item}` 没有被暂停，未做任何更改。",
    },
    "insights.denied": {
        "en": "Only admins can see question quality.",
        "zh-CN": "只有管理员可以查看题目质量。",
    },
    "help.insights": {
        "en": "question quality: flagged and paused questions (admins)",
        "zh-CN": "题目质量：被标记和被暂停的题目（管理员）",
    },
    # team packs from chat (bot/core/desk_packs.py)
    "pack.denied": {
        "en": "Only admins can add, list, remove and export team packs.",
        "zh-CN": "只有管理员可以添加、查看、移除和导出团队题包。",
    },
    "pack.off": {
        "en": "Team packs are not available on this deployment.",
        "zh-CN": "此部署未启用团队题包。",
    },
    "pack.no_workspace": {
        "en": "Use this command in your team's workspace or server, not in a direct message.",
        "zh-CN": "请在团队的工作区或服务器中使用此命令，而不是在私信中。",
    },
    "pack.bad_name": {
        "en": "A pack is one YAML file: send a file whose name ends in .yaml or .yml.",
        "zh-CN": "题包是一个 YAML 文件：请发送文件名以 .yaml 或 .yml 结尾的文件。",
    },
    "pack.too_big": {
        "en": "That file is {size:,} bytes; a pack may be at most {limit:,} bytes. Nothing was "
            "stored.",
        "zh-CN": "该文件有 {size:,} 字节；题包最多 {limit:,} 字节。未存储任何内容。",
    },
    "pack.no_file": {
        "en": "Attach one pack file (.yaml or .yml).",
        "zh-CN": "请附上一个题包文件（.yaml 或 .yml）。",
    },
    "pack.download_failed": {
        "en": "The file could not be fetched from the platform; try uploading it again.",
        "zh-CN": "无法从平台获取该文件，请重新上传。",
    },
    "pack.checking": {
        "en": "Checking the pack: its code runs in the sandbox, which can take up to a "
            "minute. The report will follow here.",
        "zh-CN": "正在检查题包：其代码在沙箱中运行，最多可能需要一分钟。报告稍后发到这里。",
    },
    "pack.invalid.title": {"en": "Pack not valid: nothing stored", "zh-CN": "题包无效：未存储"},
    "pack.invalid": {
        "en": "{count} problem(s), each with its place in the file ({items} questions, "
            "{cards} explain cards read):",
        "zh-CN": "共 {count} 个问题，均标明了在文件中的位置（已读取 {items} 道题、{cards} 张"
            "概念卡）：",
    },
    "pack.invalid.more": {
        "en": "…and {more} more. `torchquiz pack validate FILE` lists them all.",
        "zh-CN": "……还有 {more} 个。`torchquiz pack validate 文件` 可列出全部。",
    },
    "pack.invalid.how": {
        "en": "Fix them and upload the file again; `torchquiz pack validate FILE` checks it "
            "locally.",
        "zh-CN": "修正后请重新上传；`torchquiz pack validate 文件` 可在本地检查。",
    },
    "pack.stored.title": {"en": "Pack stored", "zh-CN": "题包已存储"},
    "pack.stored": {
        "en": "Pack `{pack}` version {version} is stored for this workspace only: {items} "
            "questions, {cards} explain cards.",
        "zh-CN": "题包 `{pack}` 第 {version} 版已存储，仅本工作区可见：{items} 道题，{cards} 张"
            "概念卡。",
    },
    "pack.stored.how": {
        "en": "Let a channel draw from it beside the shipped questions with "
              "`/quiz-settings packs:bank,{pack}` (only from it: `packs:{pack}`).",
        "zh-CN": "用 `/quiz-settings packs:bank,{pack}` 让频道在内置题库之外也从中出题"
                 "（只用此题包：`packs:{pack}`）。",
    },
    "pack.title": {"en": "Title:", "zh-CN": "标题："},
    "pack.taken": {
        "en": "The pack id `{pack}` is taken by another workspace; choose another id. Nothing "
            "was stored.",
        "zh-CN": "题包编号 `{pack}` 已被其他工作区使用，请换一个编号。未存储任何内容。",
    },
    "pack.version_low": {
        "en": "Pack `{pack}` already has version {version}: raise `version` in the file above "
            "it. Nothing was stored.",
        "zh-CN": "题包 `{pack}` 已有第 {version} 版：请把文件中的 `version` 调高。未存储任何"
            "内容。",
    },
    "pack.conflict": {
        "en": "Pack `{pack}` changed while it was checked; look at `/quiz-pack list` and try "
            "again. Nothing was stored.",
        "zh-CN": "题包 `{pack}` 在检查期间发生了变化；请查看 `/quiz-pack list` 后重试。未存储"
            "任何内容。",
    },
    "pack.list.title": {"en": "Team packs", "zh-CN": "团队题包"},
    "pack.list.empty": {
        "en": "No packs yet. Add one with `/quiz-pack add`.",
        "zh-CN": "还没有题包。用 `/quiz-pack add` 添加。",
    },
    "pack.list.own": {"en": "`{pack}` v{version}", "zh-CN": "`{pack}` 第 {version} 版"},
    "pack.list.shared": {
        "en": "`{pack}` v{version} (shared, read-only)",
        "zh-CN": "`{pack}` 第 {version} 版（共享，只读）",
    },
    "pack.list.more": {"en": "…and {more} more.", "zh-CN": "……还有 {more} 个。"},
    "pack.list.how": {
        "en": "`/quiz-pack remove ID` hides one (answers stay); `/quiz-pack export ID` sends "
            "its file.",
        "zh-CN": "`/quiz-pack remove 编号` 隐藏题包（答题记录保留）；`/quiz-pack export 编号` "
            "发送其文件。",
    },
    "pack.usage": {
        "en": "Use `/quiz-pack add`, `/quiz-pack list`, `/quiz-pack remove ID` or "
            "`/quiz-pack export ID`.",
        "zh-CN": "用法：`/quiz-pack add`、`/quiz-pack list`、`/quiz-pack remove 编号` 或 "
            "`/quiz-pack export 编号`。",
    },
    "pack.bad_id": {
        "en": "A pack id is 2 to 24 lower-case letters, digits or dashes.",
        "zh-CN": "题包编号为 2 到 24 个小写字母、数字或短横线。",
    },
    "pack.none": {
        "en": "There is no pack `{pack}` here.", "zh-CN": "这里没有题包 `{pack}`。",
    },
    "pack.shared": {
        "en": "Pack `{pack}` is shared by the whole deployment: its operator manages it "
            "(`torchquiz pack`).",
        "zh-CN": "题包 `{pack}` 由整个部署共享，由运维人员管理（`torchquiz pack`）。",
    },
    "pack.not_yours": {
        "en": "Pack `{pack}` is not one of this workspace's packs; you can manage only your "
            "own.",
        "zh-CN": "题包 `{pack}` 不属于本工作区；你只能管理本工作区的题包。",
    },
    "pack.removed": {
        "en": "Pack `{pack}` is removed: no list or draw shows it; answers to it are kept.",
        "zh-CN": "题包 `{pack}` 已移除：不再出现在列表或出题中；相关答题记录保留。",
    },
    "pack.exported": {
        "en": "Pack `{pack}` version {version}: the file `{file}` is attached.",
        "zh-CN": "题包 `{pack}` 第 {version} 版：已附上文件 `{file}`。",
    },
    "pack.exported.dm": {
        "en": "Pack `{pack}` version {version}: the file `{file}` is in your direct messages "
            "with the app.",
        "zh-CN": "题包 `{pack}` 第 {version} 版：文件 `{file}` 已发到你与本应用的私信中。",
    },
    "pack.export_failed": {
        "en": "The file could not be sent to your direct messages; try again later.",
        "zh-CN": "无法把文件发到你的私信中，请稍后重试。",
    },
    "pack.modal.title": {"en": "Add a team pack", "zh-CN": "添加团队题包"},
    "pack.modal.file": {"en": "Pack file (.yaml)", "zh-CN": "题包文件（.yaml）"},
    "pack.modal.submit": {"en": "Check and add", "zh-CN": "检查并添加"},
    "help.packs": {
        "en": "team packs: add a pack file, list, remove, export (admins)",
        "zh-CN": "团队题包：添加题包文件、查看、移除、导出（管理员）",
    },
    "settings.error.packs_long": {
        "en": "packs takes at most {limit} pack ids ({given} characters given).",
        "zh-CN": "packs 最多可填 {limit} 个题包编号（收到 {given} 个字符）。",
    },
    "settings.error.packs_ascii": {
        "en": "packs takes pack ids in ASCII, separated by commas, e.g. packs=bank,team-conv.",
        "zh-CN": "packs 需填写 ASCII 题包编号，用逗号分隔，例如 packs=bank,team-conv。",
    },
    "settings.error.packs_many": {
        "en": "packs takes at most {limit} pack ids.",
        "zh-CN": "packs 最多可填 {limit} 个题包编号。",
    },
    "settings.error.pack_unknown": {
        "en": "Unknown pack {pack}: this workspace has no such pack. Packs: {names}.",
        "zh-CN": "未知题包 {pack}：本工作区没有这个题包。可用题包：{names}。",
    },
    "settings.error.unknown": {
        "en": "Unknown setting {setting}. Settings: {keys}.",
        "zh-CN": "未知设置项 {setting}。可用设置项：{keys}。",
    },
    "settings.error.time": {
        "en": "time must be HH:MM in 24-hour form with digits 0-9, e.g. time=09:30.",
        "zh-CN": "time 须为 24 小时制 HH:MM，只用数字 0-9，例如 time=09:30。",
    },
    "settings.error.tz": {
        "en": "Unknown time zone {zone}; use an IANA name like Asia/Shanghai.",
        "zh-CN": "未知时区 {zone}；请使用 IANA 名称，例如 Asia/Shanghai。",
    },
    "settings.error.lang": {
        "en": "lang must be one of {locales}.",
        "zh-CN": "lang 须为以下之一：{locales}。",
    },
    "settings.error.topic": {
        "en": "Unknown topic {topic}. Topics: {names}.",
        "zh-CN": "未知主题 {topic}。可用主题：{names}。",
    },
    "settings.error.difficulty": {
        "en": "difficulty must be a list of 1, 2 and 3, e.g. difficulty=1,2.",
        "zh-CN": "difficulty 须为 1、2、3 组成的列表，例如 difficulty=1,2。",
    },
    "settings.error.enabled": {
        "en": "enabled must be on or off.",
        "zh-CN": "enabled 须为 on 或 off。",
    },
    "settings.error.leaderboard": {
        "en": "leaderboard takes a weekday and an hour from 0 to 23 in digits 0-9: "
              "leaderboard=fri 16.",
        "zh-CN": "leaderboard 须为星期几加 0 到 23 的小时（数字 0-9），例如 leaderboard=fri 16。",
    },
    "action.unknown": {
        "en": "That button or form is not one of this bot's, or it is out of date.",
        "zh-CN": "这个按钮或表单不属于本机器人，或已经过期。",
    },
}


def t(locale: str, key: str, **values: object) -> str:
    """Return the sentence ``key`` in ``locale`` (English when missing), with values filled in."""
    variants = _STRINGS[key]
    template = variants.get(locale) or variants["en"]
    return template.format(**values)


def all_keys() -> list[str]:
    """Return every sentence key, for the test that both locales are complete."""
    return sorted(_STRINGS)


def locales_of(key: str) -> list[str]:
    """Return the locales a sentence exists in."""
    return sorted(_STRINGS[key])
