"""Every reply of every command, on Discord and on Slack, in a Simplified Chinese channel.

The walk runs the unmodified clients against their fakes on a small bank whose Chinese texts
are Chinese (tests/support/zh_bank), then reads everything the fake showed anyone: posts and
their edits, private replies, forms, buttons' labels and menus, Slack's home tab. What is
left once code, commands and names are taken out must be Chinese (tests/support/prose.py).
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

from bot.core.desk.catalog import REGISTRY
from tests.support.prose import ZH_BANK, ascii_mark_lines, english_lines

# The members' and the channel's names as the fakes call them: their own words.
NAMES = ("Ada", "admin", "ada", "Alice", "alice", "Olga", "olga", "bob", "mei", "general",
         "random")
# What the walk types that is neither a command nor a value: echoed back as typed.
TYPED_NONSENSE = ("zzzzqqq",)
# What the walk's wrong code raised or returned, shown as the sandbox saw it (code's own words).
RAISED = ("ValueError", "builtins.object")
# Wrong answers to t.code-double, one reason each: values, shape, a missing return, an
# exception, dtype, an error while loading, an ungradable type, an exit, an in-place change,
# the time limit, the output limit, a crash by signal, a dict for a tensor.
FAILING_CODE = {
    "alice": ("def double(x):\n    return x * 3\n",
              "def double(x):\n    return x[:1]\n",
              "def double(x):\n    y = x * 2\n",
              "def double(x):\n    raise ValueError('zzzzqqq')\n"),
    "bob": ("def double(x):\n    return (x * 2).double()\n",
            "raise ValueError('zzzzqqq')\n",
            "def double(x):\n    return object()\n",
            "def double(x):\n    import os\n    os._exit(3)\n"),
    "olga": ("def double(x):\n    x.mul_(2)\n    return x\n",
             "def double(x):\n    while True:\n        pass\n",
             "def double(x):\n    print('z' * 100_000)\n    return x * 2\n",
             "import ctypes\ndef double(x):\n    ctypes.string_at(0)\n",
             "def double(x):\n    return {'a': x}\n"),
}
# A piece of each reason's Chinese sentence (bot/core/kernel/sentences/verdicts.py) that the
# walk must have shown: FAILING_CODE provoked every one of these through the real sandbox.
PROVOKED = {
    "values_differ": "数值不一致", "shape_mismatch": "形状不一致", "type_mismatch": "应返回",
    "exception": "你的代码抛出了异常", "dtype_mismatch": "`dtype` 不一致",
    "load_failed": "你的代码无法加载", "not_gradable": "你的函数返回了无法评测的类型",
    "exit_status": "你的代码以状态码", "input_changed": "你的函数原地修改了输入",
    "timeout": "超出时间限制", "output_limit": "超出输出限制：", "crashed": "你的代码崩溃了",
}


# ---------------------------------------------------------------- what each fake showed

def _discord_message(message: dict[str, Any]) -> Iterator[str]:
    yield message.get("content") or ""
    for embed in message.get("embeds") or []:
        yield embed.get("title") or ""
        yield embed.get("description") or ""
        for field in embed.get("fields") or []:
            yield field.get("name") or ""
            yield field.get("value") or ""
        yield (embed.get("footer") or {}).get("text") or ""
        yield (embed.get("author") or {}).get("name") or ""
    yield from _discord_components(message.get("components") or [])


def _discord_components(components: list[dict[str, Any]]) -> Iterator[str]:
    for component in components:
        for key in ("label", "placeholder", "description", "title"):
            if isinstance(component.get(key), str):
                yield component[key]
        for option in component.get("options") or []:
            yield option.get("label") or ""
            yield option.get("description") or ""
        yield from _discord_components(component.get("components") or [])
        if isinstance(component.get("component"), dict):
            yield from _discord_components([component["component"]])


def discord_shown(fake: Any) -> list[str]:
    """Return every text the fake Discord showed: posts, DMs, replies, modals, buttons."""
    texts = [t for m in fake.messages.values() for t in _discord_message(m)]
    for record in fake.interactions.values():
        for callback in record.callbacks:
            data = callback.get("data") or {}
            if callback["type"] == 9:  # a modal: its title and its inputs' labels
                texts.append(data.get("title") or "")
                texts += list(_discord_components(data.get("components") or []))
            elif callback["type"] in (4, 7):
                texts += list(_discord_message(data))
        for followup in record.followups:
            texts += list(_discord_message(followup))
    return [t for t in texts if t]


_NOT_SHOWN = frozenset({"value", "action_id", "block_id", "url", "initial_value", "callback_id",
                        "private_metadata", "initial_time", "initial_conversation", "type",
                        "style", "image_url", "filter"})


def _slack_text(value: Any) -> Iterator[str]:
    if isinstance(value, list):
        for part in value:
            yield from _slack_text(part)
    elif isinstance(value, dict):
        for key, inner in value.items():
            if key in ("text", "alt_text") and isinstance(inner, str):
                yield html.unescape(inner)  # mrkdwn escapes <, > and &
            elif key not in _NOT_SHOWN:
                yield from _slack_text(inner)


def slack_shown(fake: Any, since: int = 0, views_before: frozenset[str] = frozenset()) -> list[str]:
    """Return every text the fake Slack showed: posts, edits, replies, modals, home tabs.

    ``since`` and ``views_before`` leave out what was shown before the channel had a language.
    """
    shown = fake.shown[since:]
    texts = [html.unescape(s.text) for s in shown if s.text]
    texts += [t for s in shown for t in _slack_text(s.blocks)]
    texts += [t for key, view in fake.views.items() if key not in views_before
              for t in _slack_text(view)]
    texts += [t for view in fake.homes.values() for t in _slack_text(view)]
    return [t for t in texts if t]


# ---------------------------------------------------------------- the walk

async def _remind(d: Any, who: str, words: str) -> Any:
    if d.platform == "discord":
        state, _, hour = words.partition(" ")
        options: dict[str, Any] = {"state": state} if state else {}
        if hour:
            options["hour"] = int(hour)
        return await d.command_raw("quiz-remind", who, **options)
    asked = await d.send.command("/quiz-remind", words, who)
    return d._reply(await d.reply(asked))


def _button(message: Any, prefix: str, end: str = "") -> str:
    found = [b for b in message.buttons if b.startswith(prefix) and b.endswith(end)]
    assert found, (prefix, end, message.buttons, message.text)
    return found[0]


async def _walk(d: Any, ran: set[str]) -> tuple[int, frozenset[str]]:
    """Walk every command in the states that matter, adding each command it ran to ``ran``.

    Return where the fake stood once the channel spoke Chinese (Slack: what it had shown, the
    modals it had opened): the first settings form is in the admin's own language.
    """

    async def command(name: str, who: str = "alice", **args: Any) -> Any:
        ran.add({"forget_me": "forget-me"}.get(name, name))
        return await d.command(name, who, **args)

    # No round yet: the admin turns the quiz on in Chinese, on topics no item has.
    saved = await d.settings("admin", enabled=True, language="zh-CN", topics=["autograd"],
                             difficulties=[3])
    assert "设置已保存" in saved.text, saved.text
    ran.add("settings")
    chinese_from = ((len(d.fake.shown), frozenset(d.fake.views)) if d.platform == "slack"
                    else (0, frozenset()))
    await d.view_settings("bob")
    await command("explain", topic="detach")
    await command("explain", topic="zzzzqqq")
    await command("leaderboard")
    await command("stats")
    await command("stats", "admin", team=True)
    await command("stats", "bob", team=True)  # a member: refused
    await command("forget_me", "bob")  # nothing stored
    await command("privacy", mode="hidden")
    await command("privacy", mode="visible")
    await command("privacy")
    await command("insights", "admin")
    await command("insights", "bob")
    await command("reports", "admin")
    await command("reports", "bob")
    for words in ("", "on 9", "snooze", "off"):
        await _remind(d, "alice", words)
    ran.add("remind")
    await d.pack("admin", "list")
    await d.pack("bob", "list")
    ran.add("pack")
    # Practice: a question with its Skip button, skipped; a text one answered through its form.
    practice = await command("quiz")
    await d.click(practice, _button(practice, "tq:pskip:"), "alice")
    text_practice = await command("quiz", "bob", topic="autograd")
    if any(b.startswith(("tq:pform:", "tq:form:")) for b in text_practice.buttons):
        form = await d.open_form(text_practice, "bob")
        await d.submit(form, "42")
    # An open choice round: a wrong try, a right one, a report through its form, forget-me.
    post = await d.todays_post("t.choice-view")
    await d.click(post, post.choice("A"), "alice")
    await d.click(post, post.choice("B"), "alice")
    right = await d.click(post, post.choice("B"), "bob")
    report = await d.open_form(right, "bob", button=_button(right, "tq:report:"))
    await d.submit(report, "题干不清楚", choice=report.choices[1])
    await d.settle()
    await command("reports", "admin")
    await command("stats", "bob")
    await command("leaderboard", period="all")
    asked = await command("forget_me", "alice")
    await d.click(asked, _button(asked, "tq:forget:", ":no"), "alice")
    await d.click(asked, _button(asked, "tq:forget:", ":yes"), "bob")  # not bob's
    # The reveal, the weekly board, and the next day's code round answered wrong and right.
    d.clock.advance(days=1)
    await d.close_due()
    await d.post_board(d.stored_channel())
    await command("stats", "admin", team=True)
    code_post = await d.todays_post("t.code-double")
    # Wrong code of every kind the real sandbox explains (each member has five tries), then
    # right code: each failure's reason is worded in Chinese, the code's own words shown apart.
    for who, wrong in FAILING_CODE.items():
        form = await d.open_form(code_post, who)
        for code in wrong:
            failed = await d.submit(form, code)
            assert "未通过" in failed.text or "出错" in failed.text or "超" in failed.text, (
                failed.text)
    form = await d.open_form(code_post, "alice")
    await d.submit(form, "def double(x):\n    return x * 2\n")
    form = await d.open_form(code_post, "bob")
    await d.submit(form, "def double(x):\n    return x + x\n")
    # A text round on the day after, through its answer form; reminders come due.
    d.clock.advance(days=1)
    await d.close_due()
    text_post = await d.todays_post("t.text-number")
    form = await d.open_form(text_post, "alice")
    await d.submit(form, "4")
    await d.submit(form, "3")
    # The web page's link; a live session from its lobby through a question to its podium.
    await command("web", "alice")
    await d.enable_channel("t.choice-view")  # the live session draws this choice item
    await command("live", "admin", action="start", options="questions=1 lobby=20")
    await d.advance_live()
    lobby = d.channel_posts()[-1]
    join = lobby.button("tq:ljoin:")
    for who in ("alice", "bob", "alice"):
        await d.click(lobby, join, who)
    d.clock.advance(seconds=20)
    await d.advance_live()
    question = d.live_posts()[-1]
    live = [b for b in question.buttons if b.startswith("tq:live:")]
    await d.click(question, live[0], "alice")
    await d.click(question, live[-1], "bob")
    await d.click(question, live[-1], "alice")  # a second click: already locked in
    d.clock.advance(seconds=60)
    await d.advance_live()
    await d.click(question, live[0], "bob")  # after the close
    await command("live", "alice", action="end")
    # Speed challenges: this bank has none; the list, a board, held verdicts, a forged review.
    await command("speed", "alice")
    await command("speed", "alice", challenge="zzzzqqq")
    await command("speed", "admin", challenge="held")
    await command("speed", "bob", challenge="held")
    await command("quiz", "alice", topic="speed")
    await d.settle()
    if d.platform == "slack":  # a member whose Slack speaks Chinese opens the home tab
        d.acked(await d.send.open_home("mei"))
        await d.fake.wait_for(lambda s: s.kind == "home")
    return chinese_from


def test_every_reply_in_a_chinese_channel_is_chinese(chat):
    chat.bank = ZH_BANK
    base = chat.base_settings
    # The walk sends commands faster than a member may: the rate limits' own refusal is
    # pinned in tests/adapters/test_front_locale.py.
    chat.base_settings = lambda **extra: base(rate_commands_per_10s=0, rate_code_per_minute=0,
                                              **extra)
    chat.config = chat.base_settings()
    ran: set[str] = set()
    chinese_from: list[tuple[int, frozenset[str]]] = []

    async def scenario(d):
        chinese_from.append(await _walk(d, ran))

    chat.run(scenario)
    shown = (discord_shown(chat.fake) if chat.platform == "discord"
             else slack_shown(chat.fake, *chinese_from[0]))
    assert ran >= {c.key for c in REGISTRY.on(chat.platform)}, "walk every command"
    unseen = [code for code, words in PROVOKED.items() if not any(words in t for t in shown)]
    assert unseen == [], "failed code explained by no Chinese sentence"
    english = english_lines(shown, names=(*NAMES, *TYPED_NONSENSE, *RAISED))
    assert english == [], "English in a Chinese channel:\n" + "\n".join(english)
    marks = ascii_mark_lines(shown)
    assert marks == [], "ASCII punctuation in Chinese prose:\n" + "\n".join(marks)


def test_the_walk_would_see_english(chat):
    """The reading of the fakes finds an English sentence where one is shown."""
    chat.config = chat.base_settings()

    async def scenario(d):
        await d.command("explain", "alice", topic="detach")

    chat.run(scenario)
    shown = discord_shown(chat.fake) if chat.platform == "discord" else slack_shown(chat.fake)
    assert english_lines(shown, names=NAMES) != []
