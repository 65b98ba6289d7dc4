"""How Discord's command picker describes each slash command, its options and its choices.

Discord shows a command's description in the member's client language: the English one is
the registry's (``describe["discord"]``, ``Option.description``), and Discord takes the others
as ``description_localizations`` when the commands are synced
(``bot/adapters/discord/translator.py``). Keys: ``discord.describe.<command>[.<option>]``, a
pack subcommand as ``discord.describe.pack.<sub>[.<option>]``, a choice as
``discord.choice.<value>``. Discord allows 100 characters. Slack's manifest has one description
per command, in English: Slack has no per-locale descriptions.
English and Simplified Chinese.
"""

# What members type as it is, left so in the Chinese descriptions: Discord shows them as plain
# text, where code font cannot be marked.
TYPED = ("detach", "view-vs-reshape", "no_grad", "HH", "MM", "Asia/Shanghai", "all", "bank",
         "list", "questions", "seconds", "lobby", "topics", "N", "S", "a", "b", "yaml")

STRINGS: dict[str, dict[str, str]] = {
    "discord.describe.explain": {"en": "Explain a PyTorch concept, with an example",
                                 "zh-CN": "讲解一个 PyTorch 概念，附示例"},
    "discord.describe.explain.topic": {"en": "e.g. detach, view-vs-reshape, no_grad",
                                       "zh-CN": "例如 detach、view-vs-reshape、no_grad"},
    "discord.describe.quiz": {"en": "A private practice question, from what you missed",
                              "zh-CN": "一道私人练习题，优先出你答错过的"},
    "discord.describe.quiz.topic": {"en": "only questions on this topic",
                                    "zh-CN": "只出这个主题的题"},
    "discord.describe.leaderboard": {"en": "This channel's leaderboard",
                                     "zh-CN": "本频道的排行榜"},
    "discord.describe.leaderboard.period": {"en": "this week or all time",
                                            "zh-CN": "本周或全部时间"},
    "discord.describe.leaderboard.share": {"en": "post it for everyone",
                                           "zh-CN": "公开发到频道里"},
    "discord.describe.stats": {"en": "Points, streaks and mastery by topic",
                               "zh-CN": "积分、连续答对天数和各主题掌握度"},
    "discord.describe.stats.member": {"en": "whose stats (you by default)",
                                      "zh-CN": "查看谁的统计（默认是你自己）"},
    "discord.describe.stats.share": {"en": "post it for everyone", "zh-CN": "公开发到频道里"},
    "discord.describe.stats.team": {
        "en": "the team's mastery by topic, weakest first (admins)",
        "zh-CN": "团队各主题掌握度，最弱的在前（管理员）",
    },
    "discord.describe.settings": {
        "en": "Show or change this channel's daily quiz (Manage Server)",
        "zh-CN": "查看或修改本频道的每日一题（需要管理服务器权限）",
    },
    "discord.describe.settings.channel": {"en": "the channel to set up (this one by default)",
                                          "zh-CN": "要设置的频道（默认是当前频道）"},
    "discord.describe.settings.time": {"en": "daily post time, HH:MM",
                                       "zh-CN": "每日发题时间，格式为 HH:MM"},
    "discord.describe.settings.timezone": {"en": "IANA time zone, e.g. Asia/Shanghai",
                                           "zh-CN": "IANA 时区，例如 Asia/Shanghai"},
    "discord.describe.settings.language": {"en": "language of the posts", "zh-CN": "发帖语言"},
    "discord.describe.settings.topics": {"en": "comma-separated topics, or all",
                                         "zh-CN": "以逗号分隔的主题，或 all"},
    "discord.describe.settings.difficulty": {"en": "e.g. 1,2 or all",
                                             "zh-CN": "例如 1,2 或 all"},
    "discord.describe.settings.leaderboard_day": {"en": "weekday of the weekly leaderboard",
                                                  "zh-CN": "每周排行榜在星期几发布"},
    "discord.describe.settings.leaderboard_hour": {"en": "hour of the weekly leaderboard",
                                                   "zh-CN": "每周排行榜在几点发布"},
    "discord.describe.settings.enabled": {"en": "post daily questions", "zh-CN": "是否每日发题"},
    "discord.describe.settings.packs": {
        "en": "packs to draw from, comma-separated; bank is the shipped bank",
        "zh-CN": "出题用的题包，以逗号分隔；bank 是自带题库",
    },
    "discord.describe.forget-me": {"en": "See and delete everything the quiz keeps about you",
                                   "zh-CN": "查看并删除测验保存的关于你的全部数据"},
    "discord.describe.reports": {
        "en": "Open reports of faulty questions; close one (Manage Server)",
        "zh-CN": "查看未处理的题目问题报告，或关闭一条（需要管理服务器权限）",
    },
    "discord.describe.reports.close": {"en": "the number of a report to close",
                                       "zh-CN": "要关闭的报告编号"},
    "discord.describe.reports.reason": {"en": "why it is closed (needed to close one)",
                                        "zh-CN": "关闭原因（关闭时必填）"},
    "discord.describe.insights": {
        "en": "Question quality: flagged and paused questions (Manage Server)",
        "zh-CN": "题目质量：被标记和已暂停的题目（需要管理服务器权限）",
    },
    "discord.describe.privacy": {"en": "Hide yourself from the boards, or show again",
                                 "zh-CN": "在排行榜上隐藏自己，或重新显示"},
    "discord.describe.privacy.mode": {
        "en": "hidden or visible (empty: say which you are)",
        "zh-CN": "隐藏或显示（留空：告诉你当前状态）",
    },
    "discord.describe.remind": {"en": "A private reminder when reviews are due",
                                "zh-CN": "有待复习的题目时私下提醒你"},
    "discord.describe.remind.state": {"en": "on, off, or skip tomorrow",
                                      "zh-CN": "开启、关闭，或明天暂停一次"},
    "discord.describe.remind.hour": {
        "en": "local hour, 0-23 (the channel's post time by default)",
        "zh-CN": "当地时间的小时数，0-23（默认为频道的发题时间）",
    },
    "discord.describe.pack": {
        "en": "Team question packs: add, list, remove, export (Manage Server)",
        "zh-CN": "团队题包：添加、列出、移除、导出（需要管理服务器权限）",
    },
    "discord.describe.pack.add": {"en": "Check a pack file (.yaml) and add it for this server",
                                  "zh-CN": "检查题包文件（.yaml）并添加到本服务器"},
    "discord.describe.pack.add.file": {"en": "the pack file, one YAML file of at most 1 MiB",
                                       "zh-CN": "题包文件：一个不超过 1 MiB 的 YAML 文件"},
    "discord.describe.pack.list": {"en": "This server's packs, and the shared ones",
                                   "zh-CN": "本服务器的题包，以及共享的题包"},
    "discord.describe.pack.remove": {"en": "Hide one of this server's packs (answers stay)",
                                     "zh-CN": "隐藏本服务器的一个题包（作答记录保留）"},
    "discord.describe.pack.remove.pack": {"en": "the pack's id, as {/pack} list shows it",
                                          "zh-CN": "题包 ID，即 {/pack} list 显示的那个"},
    "discord.describe.pack.export": {"en": "Get one of this server's packs as its YAML file",
                                     "zh-CN": "把本服务器的一个题包导出为 YAML 文件"},
    "discord.describe.pack.export.pack": {"en": "the pack's id, as {/pack} list shows it",
                                          "zh-CN": "题包 ID，即 {/pack} list 显示的那个"},
    "discord.describe.web": {"en": "A private sign-in link to the team's web page",
                             "zh-CN": "一个私人登录链接，打开团队网页"},
    "discord.describe.live": {
        "en": "A live quiz for the team meeting: start, join, skip, pause, end",
        "zh-CN": "团队会议上的实时测验：开始、加入、跳过、暂停、结束",
    },
    "discord.describe.live.action": {"en": "what to do (nothing: the session's state)",
                                     "zh-CN": "要做什么（留空：查看当前状态）"},
    "discord.describe.live.options": {
        "en": "for start: questions=N seconds=S lobby=S topics=a,b",
        "zh-CN": "开始时可选：questions=N seconds=S lobby=S topics=a,b",
    },
    # The choices' labels (the value sent stays the same).
    "discord.choice.week": {"en": "this week", "zh-CN": "本周"},
    "discord.choice.all": {"en": "all time", "zh-CN": "全部时间"},
    "discord.choice.hidden": {"en": "hidden from the boards", "zh-CN": "在排行榜上隐藏"},
    "discord.choice.visible": {"en": "visible on the boards", "zh-CN": "在排行榜上显示"},
    "discord.choice.on": {"en": "on", "zh-CN": "开启"},
    "discord.choice.off": {"en": "off", "zh-CN": "关闭"},
    "discord.choice.snooze": {"en": "snooze a day", "zh-CN": "暂停一天"},
    "discord.choice.start": {"en": "start", "zh-CN": "开始"},
    "discord.choice.join": {"en": "join", "zh-CN": "加入"},
    "discord.choice.skip": {"en": "skip", "zh-CN": "跳过"},
    "discord.choice.pause": {"en": "pause", "zh-CN": "暂停"},
    "discord.choice.resume": {"en": "resume", "zh-CN": "继续"},
    "discord.choice.end": {"en": "end", "zh-CN": "结束"},
    "discord.choice.status": {"en": "status", "zh-CN": "状态"},
    "discord.choice.mon": {"en": "mon", "zh-CN": "周一"},
    "discord.choice.tue": {"en": "tue", "zh-CN": "周二"},
    "discord.choice.wed": {"en": "wed", "zh-CN": "周三"},
    "discord.choice.thu": {"en": "thu", "zh-CN": "周四"},
    "discord.choice.fri": {"en": "fri", "zh-CN": "周五"},
    "discord.choice.sat": {"en": "sat", "zh-CN": "周六"},
    "discord.choice.sun": {"en": "sun", "zh-CN": "周日"},
}
