"""Sentences of the team's web page and of /quiz-web: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
    "help.web": {
        "en": "a private one-time link to the team's web page (boards, your progress)",
        "zh-CN": "获取团队网页的私人一次性链接（排行榜、你的进度）",
    },
    "web.link.title": {"en": "Your link to the web page", "zh-CN": "你的网页登录链接"},
    "web.link": {
        "en": "Open {url} to sign in. The link is yours alone: it works once, within "
            "{minutes} minutes, and the session lasts at most {hours} hours.",
        "zh-CN": "打开 {url} 登录。此链接只属于你：只能使用一次，{minutes} 分钟内有效，"
            "登录后最长保持 {hours} 小时。",
    },
    "web.too_many": {
        "en": "You asked for {count} links in the last {minutes} minutes; wait a little and "
            "ask again.",
        "zh-CN": "你在最近 {minutes} 分钟内已申请了 {count} 个链接，请稍后再试。",
    },
    "web.title": {"en": "torchquiz", "zh-CN": "torchquiz"},
    "web.skip": {"en": "Skip to the content", "zh-CN": "跳到正文"},
    "web.nav": {"en": "Main", "zh-CN": "主导航"},
    "web.nav.channels": {"en": "Channels", "zh-CN": "频道"},
    "web.nav.cards": {"en": "Concept cards", "zh-CN": "概念卡片"},
    "web.cards.title": {"en": "Concept cards", "zh-CN": "概念卡片"},
    "web.cards.none": {"en": "There are no concept cards yet.", "zh-CN": "还没有概念卡片。"},
    "web.cards.example": {"en": "Example", "zh-CN": "示例"},
    "web.nav.logout": {"en": "Sign out", "zh-CN": "退出登录"},
    "web.signed_in_as": {"en": "Signed in as {name}", "zh-CN": "已登录：{name}"},
    "web.language": {"en": "Language", "zh-CN": "语言"},
    "web.language.apply": {"en": "Switch", "zh-CN": "切换"},
    "web.admin": {"en": "admin", "zh-CN": "管理员"},
    "web.login.title": {"en": "Sign in to torchquiz", "zh-CN": "登录 torchquiz"},
    "web.login.explain": {
        "en": "This link signs in {name} ({platform}). It works once.",
        "zh-CN": "此链接将以 {name}（{platform}）的身份登录，只能使用一次。",
    },
    "web.login.button": {"en": "Sign in", "zh-CN": "登录"},
    "web.login.invalid": {
        "en": "This sign-in link is not valid any more: it was used, it expired, or it was "
            "copied wrong. Ask for a new one with {/web} in the chat.",
        "zh-CN": "此登录链接已失效：它已被使用、已过期或复制有误。请在聊天中使用 {/web} "
            "申请新的链接。",
    },
    "web.signed_out": {
        "en": "You are signed out. Ask for a link with {/web} in the chat to sign in.",
        "zh-CN": "你已退出登录。在聊天中使用 {/web} 申请链接即可登录。",
    },
    "web.channels.title": {"en": "Quiz channels", "zh-CN": "答题频道"},
    "web.channels.none": {
        "en": "This workspace has no quiz channel yet.",
        "zh-CN": "这个工作区还没有答题频道。",
    },
    "web.channels.board": {"en": "Leaderboard", "zh-CN": "排行榜"},
    "web.channels.progress": {"en": "My progress", "zh-CN": "我的进度"},
    "web.channels.settings": {"en": "Settings", "zh-CN": "设置"},
    "web.board.title": {"en": "Leaderboard of #{channel}", "zh-CN": "#{channel} 排行榜"},
    "web.board.period": {"en": "Period", "zh-CN": "时间范围"},
    "web.board.week": {"en": "This week", "zh-CN": "本周"},
    "web.board.all": {"en": "All time", "zh-CN": "总榜"},
    "web.board.rank": {"en": "Rank", "zh-CN": "名次"},
    "web.board.name": {"en": "Member", "zh-CN": "成员"},
    "web.board.points": {"en": "Points", "zh-CN": "积分"},
    "web.board.solved": {"en": "Solved", "zh-CN": "答对"},
    "web.board.accuracy": {"en": "Accuracy", "zh-CN": "正确率"},
    "web.board.streak": {"en": "Streak", "zh-CN": "连续天数"},
    "web.board.freezes": {"en": "{count} streak {count|freeze|freezes}",
                          "zh-CN": "{count} 次连续保护"},
    "web.board.you": {"en": "you", "zh-CN": "你"},
    "web.board.empty": {"en": "Nobody has points yet.", "zh-CN": "还没有人得分。"},
    "web.board.updated": {"en": "Updated at {time}", "zh-CN": "更新于 {time}"},
    "web.board.pages": {"en": "Pages", "zh-CN": "分页"},
    "web.board.page": {"en": "Page {page} of {pages}", "zh-CN": "第 {page} 页，共 {pages} 页"},
    "web.board.previous": {"en": "Previous page", "zh-CN": "上一页"},
    "web.board.next": {"en": "Next page", "zh-CN": "下一页"},
    "web.progress.title": {"en": "My progress in #{channel}", "zh-CN": "我在 #{channel} 的进度"},
    "web.progress.points": {"en": "Points", "zh-CN": "积分"},
    "web.progress.streak": {"en": "Streak", "zh-CN": "连续天数"},
    "web.progress.best": {"en": "Best streak", "zh-CN": "最长连续"},
    "web.progress.freezes": {"en": "Streak freezes", "zh-CN": "连续保护"},
    "web.progress.solved": {"en": "Rounds solved", "zh-CN": "答对轮数"},
    "web.progress.due": {"en": "Reviews due", "zh-CN": "待复习"},
    "web.progress.due_hint": {
        "en": "Type {/quiz} in the chat to review them.",
        "zh-CN": "在聊天中输入 {/quiz} 开始复习。",
    },
    "web.progress.mastery": {"en": "Mastery by topic", "zh-CN": "各主题掌握程度"},
    "web.progress.topic": {"en": "Topic", "zh-CN": "主题"},
    "web.progress.first": {"en": "Right on the first try", "zh-CN": "首次答对"},
    "web.progress.chart_alt": {
        "en": "Mastery chart by topic; the table above lists the same numbers.",
        "zh-CN": "各主题掌握程度图表；上表列出了相同的数据。",
    },
    "web.progress.attempted": {"en": "Answered", "zh-CN": "已作答"},
    "web.progress.none": {
        "en": "You have not answered in this channel yet.",
        "zh-CN": "你还没有在这个频道作答。",
    },
    "web.progress.hidden": {
        "en": "You are hidden from the boards ({/privacy}); only you see these numbers.",
        "zh-CN": "你已在排行榜上隐藏（{/privacy}），这些数据只有你能看到。",
    },
    "web.settings.title": {"en": "Settings of #{channel}", "zh-CN": "#{channel} 的设置"},
    "web.settings.setting": {"en": "Setting", "zh-CN": "设置项"},
    "web.settings.value": {"en": "Value", "zh-CN": "当前值"},
    "web.settings.change": {
        "en": "Change them with {/settings} in the chat; editing them here comes later.",
        "zh-CN": "请在聊天中使用 {/settings} 修改；稍后将支持在此处编辑。",
    },
    "web.error.title": {"en": "Something is not right", "zh-CN": "出了点问题"},
    "web.error.not_found": {"en": "There is no such page here.", "zh-CN": "这里没有这个页面。"},
    "web.error.forbidden": {
        "en": "Only the workspace's admins may open this page.",
        "zh-CN": "只有工作区管理员可以打开此页面。",
    },
    "web.error.bad_request": {
        "en": "The page could not read that request.",
        "zh-CN": "无法处理这个请求。",
    },
    "web.error.csrf": {
        "en": "This form is out of date (or was not sent from this site); reload the page and "
            "try again.",
        "zh-CN": "此表单已过期（或并非从本站提交），请刷新页面后重试。",
    },
    "web.error.internal": {
        "en": "Sorry, something went wrong on our side. Try again in a moment.",
        "zh-CN": "抱歉，我们这边出了问题，请稍后再试。",
    },
    "web.error.busy": {
        "en": "Too many sign-in attempts from here; wait a minute and try again.",
        "zh-CN": "此处登录尝试过多，请等一分钟后再试。",
    },
}
