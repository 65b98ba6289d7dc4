"""Sentences of the chat widgets, commands, help and home tab every feature shares.

English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    "error.internal": {
        "en": "Sorry, something went wrong on our side. Nothing was recorded; please try again.",
        "zh-CN": "抱歉，我们这边出了问题。本次未记录，请稍后再试。",
    },
    # A label and what it names: Chinese takes the full-width colon.
    "label.colon": {"en": "{label}: {value}", "zh-CN": "{label}：{value}"},
    "form.open": {"en": "Answer", "zh-CN": "作答"},
    "form.title.text": {"en": "Your answer", "zh-CN": "你的答案"},
    "form.title.code": {"en": "Your code", "zh-CN": "你的代码"},
    "form.field.text": {"en": "Answer (a word, a number or a shape)",
                        "zh-CN": "答案（一个词、一个数或一个形状）"},
    "form.field.code": {"en": "Python code defining the function",
                        "zh-CN": "定义该函数的 Python 代码"},

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
    "ui.settings.live_hosts": {"en": "Who may host a live quiz", "zh-CN": "谁可以主持竞答"},
    "ui.settings.live_admins": {"en": "Admins", "zh-CN": "仅管理员"},
    "ui.settings.live_anyone": {"en": "Anyone", "zh-CN": "任何成员"},
    "ui.settings.live_on_board": {"en": "Live quiz points on the weekly board",
                                  "zh-CN": "竞答得分计入每周排行榜"},
    "ui.settings.kinds": {"en": "Kinds of daily question", "zh-CN": "每日题目的题型"},
    "ui.settings.kind.choice": {"en": "Multiple choice", "zh-CN": "选择题"},
    "ui.settings.kind.text": {"en": "Short answer", "zh-CN": "简答题"},
    "ui.settings.kind.code": {"en": "Code", "zh-CN": "编程题"},
    "ui.settings.kind.speed": {"en": "Speed challenge", "zh-CN": "提速挑战"},
    "ui.settings.on": {"en": "On", "zh-CN": "开启"},
    "ui.settings.packs": {"en": "Packs to draw from", "zh-CN": "抽题的题包"},
    "ui.settings.packs_hint": {"en": "bank,team-pack (bank: the shipped questions)",
                               "zh-CN": "`bank,team-pack`（`bank`：内置题库）"},
    "ui.settings.off": {"en": "Off", "zh-CN": "关闭"},
    "ui.settings.invite": {
        "en": "Make sure the app is in the channel: `/invite @torchquiz` there.",
        "zh-CN": "请确认应用已加入该频道：在频道中输入 `/invite @torchquiz`。",
    },
    "command.too_long": {
        "en": "That command text is {size} characters long; commands take at most {limit}.",
        "zh-CN": "命令文本共 {size} 个字符；命令最多 {limit} 个字符。",
    },
    "home.title": {"en": "torchquiz", "zh-CN": "torchquiz"},
    "home.intro": {
        "en": "One PyTorch interview question a day in your team's channel, "
            "code answers graded in a sandbox, and concept cards on demand.",
        "zh-CN": "每天在团队频道发布一道 PyTorch 面试题，代码答案在沙箱中评测，概念卡片随时查阅。",
    },
    "home.none": {
        "en": "No channel here has a daily quiz yet. An admin starts one with {/settings}.",
        "zh-CN": "这里还没有频道开启每日一题。管理员可以用 {/settings} 开启。",
    },
    "home.commands": {"en": "Commands", "zh-CN": "命令"},
    "help.explain": {
        "en": "a concept card, e.g. `{/explain} detach`",
        "zh-CN": "概念卡片，例如 `{/explain} detach`",
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
    "home.reviews_due": {
        "en": "*{n} {n|review|reviews} due* · `{/quiz}` serves the most overdue first",
        "zh-CN": "*{n} 道复习题到期* · `{/quiz}` 先出最早到期的",
    },
    "home.review_due_one": {
        "en": "*1 review due* · `{/quiz}` serves it",
        "zh-CN": "*1 道复习题到期* · 用 `{/quiz}` 开始",
    },
    "home.reviews_none": {"en": "No reviews due now.", "zh-CN": "现在没有到期的复习题。"},
    "help.remind": {
        "en": "a private reminder when reviews are due (`on [hour]` or `off`)",
        "zh-CN": "有复习题到期时私信提醒（`on [小时]` 或 `off`）",
    },
    "help.reports": {
        "en": "open reports of faulty questions, and closing them (admins)",
        "zh-CN": "查看并关闭题目问题报告（管理员）",
    },
    "help.privacy": {
        "en": "keep yourself off the boards, or show again",
        "zh-CN": "在排行榜上隐藏自己，或重新显示",
    },
    "help.forget": {
        "en": "see and delete everything the quiz keeps about you",
        "zh-CN": "查看并删除本机器人保存的关于你的全部数据",
    },
    "help.insights": {
        "en": "question quality: flagged and paused questions (admins)",
        "zh-CN": "题目质量：被标记和被暂停的题目（管理员）",
    },
    "help.packs": {
        "en": "team packs: add a pack file, list, remove, export (admins)",
        "zh-CN": "团队题包：添加题包文件、查看、移除、导出（管理员）",
    },
    "action.unknown": {
        "en": "That button or form is not one of this bot's, or it is out of date.",
        "zh-CN": "这个按钮或表单不属于本机器人，或已经过期。",
    },
}
