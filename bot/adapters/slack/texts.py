"""The Slack app's own words (modal labels, the home tab), in English and Simplified Chinese.

The quiz's sentences live in the core (``bot.core.i18n``); these name Slack's widgets only.
"""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "submit": {"en": "Submit", "zh-CN": "提交"},
    "cancel": {"en": "Cancel", "zh-CN": "取消"},
    "save": {"en": "Save", "zh-CN": "保存"},
    "settings.title": {"en": "Quiz settings", "zh-CN": "每日一题设置"},
    "settings.channel": {"en": "Channel", "zh-CN": "频道"},
    "settings.time": {"en": "Daily post time", "zh-CN": "每日发布时间"},
    "settings.tz": {"en": "Time zone", "zh-CN": "时区"},
    "settings.lang": {"en": "Language", "zh-CN": "语言"},
    "settings.topics": {"en": "Topics (none: every topic)", "zh-CN": "主题（不选：全部主题）"},
    "settings.difficulty": {"en": "Difficulty (none: all)", "zh-CN": "难度（不选：全部）"},
    "settings.day": {"en": "Weekly leaderboard day", "zh-CN": "每周排行榜日期"},
    "settings.hour": {"en": "Weekly leaderboard hour", "zh-CN": "每周排行榜时间（小时）"},
    "settings.enabled": {"en": "Daily question", "zh-CN": "每日一题"},
    "settings.on": {"en": "On", "zh-CN": "开启"},
    "settings.off": {"en": "Off", "zh-CN": "关闭"},
    "settings.invite": {
        "en": "Make sure the app is in the channel: `/invite @torchquiz` there.",
        "zh-CN": "请确认应用已加入该频道：在频道中输入 `/invite @torchquiz`。",
    },
    "command.too_long": {
        "en": "That command text is {size} characters long; commands take at most {limit}.",
        "zh-CN": "命令文本共 {size} 个字符；命令最多 {limit} 个字符。",
    },
    "stats.bad_member": {
        "en": "Name one member, like `/quiz-stats @alice`, or nobody for your own stats.",
        "zh-CN": "请指定一位成员，例如 `/quiz-stats @alice`；不写则查看自己的统计。",
    },
    "home.title": {"en": "torchquiz", "zh-CN": "torchquiz"},
    "home.intro": {
        "en": "One PyTorch interview question a day in your team's channel, code answers graded "
              "in a sandbox, and concept cards on demand.",
        "zh-CN": "每天在团队频道发布一道 PyTorch 面试题，代码答案在沙箱中评测，概念卡片随时查阅。",
    },
    "home.none": {
        "en": "No channel here has a daily quiz yet. An admin starts one with /quiz-settings.",
        "zh-CN": "这里还没有频道开启每日一题。管理员可以用 /quiz-settings 开启。",
    },
    "home.commands": {"en": "Commands", "zh-CN": "命令"},
    "help.explain": {"en": "a concept card, e.g. `/explain detach`",
                     "zh-CN": "概念卡片，例如 `/explain detach`"},
    "help.quiz": {"en": "a private practice question, from what you missed",
                  "zh-CN": "私人练习题，优先出你答错过的"},
    "help.leaderboard": {"en": "this channel's leaderboard (`week` or `all`)",
                         "zh-CN": "本频道排行榜（`week` 或 `all`）"},
    "help.stats": {"en": "your points, streaks and mastery by topic",
                   "zh-CN": "你的积分、连续天数和各主题掌握度"},
    "help.settings": {"en": "the channel's schedule and content (admins)",
                      "zh-CN": "频道的发布时间与内容（管理员）"},
}


def say(locale: str, key: str, **values: object) -> str:
    """Return the Slack app's text ``key`` in ``locale`` (English when missing)."""
    variants = _TEXTS[key]
    return (variants.get(locale) or variants["en"]).format(**values)


def names() -> list[str]:
    """Return every key, for the test that both languages are complete."""
    return sorted(_TEXTS)


def locales_of(key: str) -> list[str]:
    """Return the languages a text exists in."""
    return sorted(_TEXTS[key])
