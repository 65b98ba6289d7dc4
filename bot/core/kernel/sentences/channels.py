"""Sentences of a channel's settings and time zones: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
    "channel.no_quiz": {
        "en": "This channel has no daily quiz yet. An admin can start one with {/settings}.",
        "zh-CN": "本频道还没有开启每日一题。管理员可以用 {/settings} 开启。",
    },
    "time.day": {"en": "1 day", "zh-CN": "1 天"},
    "time.hour": {"en": "1 hour", "zh-CN": "1 小时"},
    "time.minute": {"en": "1 minute", "zh-CN": "1 分钟"},
    "time.days": {"en": "{n} days", "zh-CN": "{n} 天"},
    "time.hours": {"en": "{n} hours", "zh-CN": "{n} 小时"},
    "time.minutes": {"en": "{n} minutes", "zh-CN": "{n} 分钟"},
    "settings.denied": {
        "en": "Only admins can change this channel's settings.",
        "zh-CN": "只有管理员可以修改本频道的设置。",
    },
    "settings.saved": {"en": "Settings saved.", "zh-CN": "设置已保存。"},
    "settings.title": {"en": "Channel settings", "zh-CN": "频道设置"},
    # The settings block: each setting as /setup names it (the Chinese says what it is too).
    "settings.field.time": {"en": "time", "zh-CN": "发布时间 `time`"},
    "settings.field.tz": {"en": "tz", "zh-CN": "时区 `tz`"},
    "settings.field.lang": {"en": "lang", "zh-CN": "语言 `lang`"},
    "settings.field.topics": {"en": "topics", "zh-CN": "主题 `topics`"},
    "settings.field.difficulty": {"en": "difficulty", "zh-CN": "难度 `difficulty`"},
    "settings.field.enabled": {"en": "enabled", "zh-CN": "每日一题 `enabled`"},
    "settings.field.leaderboard": {"en": "leaderboard", "zh-CN": "每周排行榜 `leaderboard`"},
    "settings.field.packs": {"en": "packs", "zh-CN": "题包 `packs`"},
    "settings.field.live_hosts": {"en": "live_hosts", "zh-CN": "竞答主持 `live_hosts`"},
    "settings.field.kinds": {"en": "kinds", "zh-CN": "每日题型 `kinds`"},
    "settings.value.live_admins": {"en": "admins", "zh-CN": "仅管理员"},
    "settings.value.live_anyone": {"en": "anyone", "zh-CN": "任何成员"},
    "settings.field.live_on_board": {"en": "live_on_board",
                                     "zh-CN": "竞答计入周榜 `live_on_board`"},
    "settings.value.all": {"en": "all", "zh-CN": "全部"},
    "settings.value.on": {"en": "on", "zh-CN": "开启"},
    "settings.value.off": {"en": "off", "zh-CN": "关闭"},
    "settings.value.code": {"en": "{value}", "zh-CN": "`{value}`"},
    "settings.value.leaderboard": {"en": "{day} {hour}", "zh-CN": "{day} {hour} 点"},
    "settings.weekdays": {"en": "mon tue wed thu fri sat sun",
                          "zh-CN": "周一 周二 周三 周四 周五 周六 周日"},
    # A channel's pack choice (packs=bank,team-conv): shown with its settings.
    "settings.packs_fallback": {
        "en": "The chosen packs leave no question with these topics and difficulties: "
              "the daily question comes from the shipped bank until that changes.",
        "zh-CN": "所选题包在这些主题和难度下没有题目：每日题目暂时从内置题库中抽取。",
    },
    "settings.packs_gone_label": {"en": "packs no longer available", "zh-CN": "已不可用的题包"},
    "settings.bad_channel": {
        "en": "Nothing was saved: that channel does not exist here or the app is not in it. "
              "Invite the app there first (`/invite @torchquiz`), then pick it again.",
        "zh-CN": "未保存任何设置：该频道不存在，或应用不在该频道中。"
                 "请先在该频道中邀请应用（`/invite @torchquiz`），再重新选择。",
    },
    "settings.error.packs_long": {
        "en": "packs takes at most {limit} pack ids ({given} characters given).",
        "zh-CN": "`packs` 最多可填 {limit} 个题包编号（收到 {given} 个字符）。",
    },
    "settings.error.packs_ascii": {
        "en": "packs takes pack ids in ASCII, separated by commas, e.g. packs=bank,team-conv.",
        "zh-CN": "`packs` 需填写 ASCII 题包编号，用逗号分隔，例如 `packs=bank,team-conv`。",
    },
    "settings.error.packs_many": {
        "en": "packs takes at most {limit} pack ids.",
        "zh-CN": "`packs` 最多可填 {limit} 个题包编号。",
    },
    "settings.error.pack_unknown": {
        "en": "Unknown pack {pack}: this workspace has no such pack. Packs: {names}.",
        "zh-CN": "未知题包 {pack}：本工作区没有这个题包。可用题包：`{names}`。",
    },
    "settings.error.format": {
        "en": "Settings are key=value, e.g. time=09:30 leaderboard=fri 16; got {word}.",
        "zh-CN": "设置须写成 `key=value`，例如 `time=09:30 leaderboard=fri 16`；收到的是 {word}。",
    },
    "settings.error.quotes": {
        "en": "A quote is not closed: close it, or leave the quotes out (leaderboard=fri 16).",
        "zh-CN": "有引号没有闭合：请补上，或者不用引号（`leaderboard=fri 16`）。",
    },
    "settings.error.line_long": {
        "en": "A setup line takes at most {limit} characters ({given} given).",
        "zh-CN": "一行设置最多 {limit} 个字符（收到 {given} 个）。",
    },
    "settings.error.unknown": {
        "en": "Unknown setting {setting}. Settings: {keys}.",
        "zh-CN": "未知设置项 {setting}。可用设置项：`{keys}`。",
    },
    "settings.error.time": {
        "en": "time must be HH:MM in 24-hour form with digits 0-9, e.g. time=09:30.",
        "zh-CN": "`time` 须为 24 小时制的 `HH:MM`，只用数字 0-9，例如 `time=09:30`。",
    },
    "settings.error.tz": {
        "en": "Unknown time zone {zone}; use an IANA name like Asia/Shanghai.",
        "zh-CN": "未知时区 {zone}；请使用 IANA 名称，例如 `Asia/Shanghai`。",
    },
    "settings.error.lang": {
        "en": "lang must be one of {locales}.",
        "zh-CN": "`lang` 须为以下之一：`{locales}`。",
    },
    "settings.error.topic": {
        "en": "Unknown topic {topic}. Did you mean: {suggestions}?",
        "zh-CN": "未知主题 {topic}。你是不是想找：{suggestions}？",
    },
    "settings.error.topic_none": {
        "en": "Unknown topic {topic}; no topic looks like it. {count} topics, such as {names}.",
        "zh-CN": "未知主题 {topic}，没有相近的主题。共有 {count} 个主题，例如 {names}。",
    },
    "settings.error.difficulty": {
        "en": "difficulty must be a list of 1, 2 and 3, e.g. difficulty=1,2.",
        "zh-CN": "`difficulty` 须为 1、2、3 组成的列表，例如 `difficulty=1,2`。",
    },
    "settings.error.enabled": {
        "en": "enabled must be on or off.",
        "zh-CN": "`enabled` 须为 `on` 或 `off`。",
    },
    "settings.error.live_hosts": {
        "en": "live_hosts must be admins or anyone (who may start a live session here).",
        "zh-CN": "`live_hosts` 须为 `admins` 或 `anyone`（谁可以在本频道开启竞答）。",
    },
    "settings.error.live_on_board": {
        "en": "live_on_board must be on or off (whether live sessions' points count on the "
              "weekly board).",
        "zh-CN": "`live_on_board` 须为 `on` 或 `off`（竞答得分是否计入每周排行榜）。",
    },
    "settings.error.kinds": {
        "en": "Unknown kind {kind}: kinds takes a list of {kinds}, or all "
              "(kinds=choice,code,speed).",
        "zh-CN": "未知题型 {kind}：`kinds` 须为 {kinds} 组成的列表，或 `all`"
                 "（例如 `kinds=choice,code,speed`）。",
    },
    "settings.error.leaderboard": {
        "en": "leaderboard takes a weekday and an hour from 0 to 23 in digits 0-9: "
              "leaderboard=fri 16.",
        "zh-CN": "`leaderboard` 须为星期几加 0 到 23 的小时（数字 0-9），"
                 "例如 `leaderboard=fri 16` 或 `leaderboard=周五 16`。",
    },
}
