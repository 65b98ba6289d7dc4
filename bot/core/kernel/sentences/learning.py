"""Sentences of practice, review reminders and /explain: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
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
    "practice.none": {
        "en": "No practice question matches '{topic}'. Topics: {topics}.",
        "zh-CN": "没有与「{topic}」匹配的练习题。可选主题：{topics}。",
    },
    "practice.nothing_pending": {
        "en": "You have no practice question open. Start one with {/quiz} [topic].",
        "zh-CN": "你当前没有练习题。用 {/quiz} [主题] 开始一题。",
    },
    "practice.correct": {
        "en": "Correct! Next review of this one in {when}.",
        "zh-CN": "答对了！{when}后会再复习这道题。",
    },
    "practice.wrong": {
        "en": "Not quite. {left} {left|try|tries} left.",
        "zh-CN": "不太对。还剩 {left} 次机会。",
    },
    "practice.wrong_final": {
        "en": "Not this time; it comes back soon for review.",
        "zh-CN": "这次没答对；这道题很快会再出现供你复习。",
    },
    "practice.skip.button": {"en": "Skip", "zh-CN": "跳过"},
    "practice.still_open": {
        "en": "Still open · {left} {left|try|tries} left",
        "zh-CN": "仍未完成 · 还剩 {left} 次机会",
    },
    "practice.skipped": {
        "en": "Skipped: it counts as a miss and comes back soon for review.",
        "zh-CN": "已跳过：记为答错，这道题很快会再出现供你复习。",
    },
    "practice.replaced": {
        "en": "This question replaces your open one on {topic}, which you had not answered.",
        "zh-CN": "这道题替换了你尚未作答的练习题（{topic}）。",
    },
    "practice.replaced_missed": {
        "en": "This question replaces your open one on {topic}; you had tried it, so it "
              "counts as a miss.",
        "zh-CN": "这道题替换了你未完成的练习题（{topic}）；你已尝试过，记为答错。",
    },
    "practice.moved_to_round": {
        "en": "Your open practice question is in an open daily round now: answer it there, "
              "for points. Practice moves on to another.",
        "zh-CN": "你未完成的练习题现在是正在进行的每日一题：请到频道作答得分。练习换一道题。",
    },
    "practice.moved_to_round_answer": {
        "en": "Your practice question is in an open daily round now, so this answer was not "
              "judged: answer it there, for points. {/quiz} gives another question.",
        "zh-CN": "你的练习题现在是正在进行的每日一题，所以这次作答不评判：请到频道作答得分。"
                 "用 {/quiz} 换一道题。",
    },
    "practice.held": {
        "en": "The questions on '{topic}' are in an open daily round now: answer there, for "
              "points. Practice serves them once the round closes.",
        "zh-CN": "「{topic}」的题目正在每日一题中进行：请到频道作答得分。"
                 "该轮结束后它们才会出现在练习中。",
    },
    "remind.title": {"en": "Time to review", "zh-CN": "该复习了"},
    "remind.due_one": {"en": "1 review due · {/quiz}", "zh-CN": "1 道复习题到期 · {/quiz}"},
    "remind.due": {"en": "{n} reviews due · {/quiz}", "zh-CN": "{n} 道复习题到期 · {/quiz}"},
    "remind.topics": {"en": "Topics: {topics}", "zh-CN": "主题：{topics}"},
    "remind.start": {"en": "Start", "zh-CN": "开始复习"},
    "remind.snooze": {"en": "Snooze a day", "zh-CN": "推迟一天"},
    "remind.stop": {"en": "Stop reminders", "zh-CN": "停止提醒"},
    "remind.on": {
        "en": "Reminders on: one private message a day at {time} ({zone}), only when reviews "
            "are due. `{/remind} off` stops them.",
        "zh-CN": "已开启提醒：每天 {time}（{zone}）私信一次，仅在有复习题到期时发送。"
            "`{/remind} off` 可关闭。",
    },
    "remind.off": {
        "en": "Reminders off. `{/remind} on [hour]` turns them on again.",
        "zh-CN": "已关闭提醒。`{/remind} on [小时]` 可重新开启。",
    },
    "remind.status_off": {
        "en": "Reminders are off. `{/remind} on [hour]` sends you one private message a day "
            "when reviews are due.",
        "zh-CN": "提醒未开启。`{/remind} on [小时]` 会在有复习题到期时每天私信你一次。",
    },
    "remind.usage": {
        "en": "Use `{/remind} on [hour 0-23]`, `{/remind} off` or `{/remind} snooze`.",
        "zh-CN": "用法：`{/remind} on [0-23 点]`、`{/remind} off` 或 `{/remind} snooze`。",
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
            "direct messages from this server, then `{/remind} on` turns them on again.",
        "zh-CN": "你的复习提醒已关闭：我们无法给你发私信。请允许来自本服务器的私信，"
            "然后用 `{/remind} on` 重新开启。",
    },
}
