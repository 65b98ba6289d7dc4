"""Sentences of a member's own data: export and forget-me: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
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
    "forget.open_rounds": {
        "en": "Your tries at a round still open stay, without your name or your words, so "
            "that the round stays fair: answer it again and you go on from your next try.",
        "zh-CN": "你在仍开放的题目中的作答会保留，但不再带有你的名字或答题内容，以保证这一轮公平："
            "再次作答时将从你的下一次尝试继续。",
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
    "data.topic_totals.one": {"en": "{n} per-topic total", "zh-CN": "{n} 条按主题总分"},
    "data.topic_totals.other": {"en": "{n} per-topic totals", "zh-CN": "{n} 条按主题总分"},
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
}
