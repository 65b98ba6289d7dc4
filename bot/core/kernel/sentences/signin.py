"""Signing in to the web page with Slack or Discord: what the member reads on the way."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "signin.with.slack": {"en": "Sign in with Slack", "zh-CN": "使用 Slack 登录"},
    "signin.with.discord": {"en": "Sign in with Discord", "zh-CN": "使用 Discord 登录"},
    "signin.state": {
        "en": "This sign-in did not start here or took too long. Start again from the "
            "sign-in button.",
        "zh-CN": "这次登录不是从本页面发起的，或者耗时过长。请从登录按钮重新开始。",
    },
    "signin.declined": {
        "en": "You did not allow the sign-in on the platform's page, so nothing changed.",
        "zh-CN": "你没有在平台页面上同意登录，因此没有任何改变。",
    },
    "signin.refused": {
        "en": "The platform did not confirm who you are, so you are not signed in. Try again, "
            "or ask for a link with {/web} in the chat.",
        "zh-CN": "平台没有确认你的身份，因此未能登录。请重试，或在聊天中使用 {/web} 申请链接。",
    },
    "signin.unreachable": {
        "en": "The platform did not answer in time. Try again in a minute.",
        "zh-CN": "平台没有及时响应。请一分钟后重试。",
    },
    "signin.not_installed": {
        "en": "torchquiz is not installed in that Slack workspace, so there is nothing to "
            "sign in to.",
        "zh-CN": "torchquiz 没有安装在这个 Slack 工作区，因此无法登录。",
    },
    "signin.no_server": {
        "en": "None of your Discord servers where you have answered a question has torchquiz "
            "any more. Answer a question first, or ask for a link with {/web} in the chat.",
        "zh-CN": "在你答过题的 Discord 服务器中，已经没有安装 torchquiz 的了。请先答一道题，"
            "或在聊天中使用 {/web} 申请链接。",
    },
    "signin.choose.title": {"en": "Choose a server", "zh-CN": "选择服务器"},
    "signin.choose.explain": {
        "en": "You play torchquiz in several servers. Which one's page do you want to open?",
        "zh-CN": "你在多个服务器中参与 torchquiz。要打开哪个服务器的页面？",
    },
}
