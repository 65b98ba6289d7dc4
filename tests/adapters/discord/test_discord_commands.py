"""Discord's own side of commands and interactions: registration and its scope, autocomplete,
the share option, and how each kind of interaction is answered (deferred, modal, message).

What members see in both platforms is in tests/adapters/chat/.
"""

from __future__ import annotations

from bot.core.kernel.i18n import t
from bot.core.kernel.sentences import described
from tests.fake_discord import APP_ID, GUILD_ID, custom_ids
from tests.packs.scoped import store_packs
from tests.support.prose import english_words


def test_commands_are_registered_with_their_options_and_admin_default(discord_run):
    async def scenario(h):
        names = {c["name"] for c in h.fake.commands}
        assert names == {"explain", "quiz", "leaderboard", "stats", "quiz-settings",
                         "quiz-forget-me", "quiz-reports", "quiz-insights",
                         "quiz-privacy", "quiz-remind", "quiz-pack", "quiz-web",
                         "quiz-live", "quiz-speed"}
        for admin_only in ("quiz-settings", "quiz-reports", "quiz-insights", "quiz-pack"):
            command = next(c for c in h.fake.commands if c["name"] == admin_only)
            assert int(command["default_member_permissions"]) == 1 << 5  # Manage Server
        settings = next(c for c in h.fake.commands if c["name"] == "quiz-settings")
        options = {o["name"] for o in settings["options"]}
        assert options == {"channel", "time", "timezone", "language", "topics", "difficulty",
                           "leaderboard_day", "leaderboard_hour", "enabled", "packs", "live_hosts",
                           "live_on_board", "kinds"}
        packs = next(c for c in h.fake.commands if c["name"] == "quiz-pack")
        subcommands = {o["name"]: o for o in packs["options"]}
        assert set(subcommands) == {"add", "list", "remove", "export"}
        assert [(o["name"], o["type"], o["required"])
                for o in subcommands["add"]["options"]] == [("file", 11, True)]

    discord_run(scenario)


def _described(options, path):
    """Yield (where, payload) for every option, subcommand and choice below a command."""
    for option in options:
        where = f"{path} {option['name']}"
        yield where, option
        for choice in option.get("choices") or []:
            yield f"{where}={choice['value']}", choice
        yield from _described(option.get("options") or [], where)


def test_every_command_option_and_choice_is_described_in_chinese(discord_run):
    async def scenario(h):
        assert len(h.fake.commands) == 14
        missing, english, seen = [], [], 0
        for command in h.fake.commands:
            for where, part in [(command["name"], command),
                                *_described(command.get("options") or [], command["name"])]:
                field = "name" if "value" in part else "description"
                localized = (part.get(f"{field}_localizations") or {}).get("zh-CN")
                if "value" in part and part["value"] in ("en", "zh-CN"):
                    continue  # a language's own name, as each language calls itself
                seen += 1
                if not localized:
                    missing.append(where)
                elif english_words(localized, names=described.TYPED):
                    english.append(f"{where}: {localized}")
        assert missing == [] and english == []
        assert seen > 60
        explain = next(c for c in h.fake.commands if c["name"] == "explain")
        assert explain["description_localizations"] == {"zh-CN": "讲解一个 PyTorch 概念，附示例"}
        assert explain["description"] == "Explain a PyTorch concept, with an example"

    discord_run(scenario)


def test_chinese_descriptions_say_what_the_english_ones_say():
    # The English text of every described sentence is the one Discord gets as the default.
    from bot.adapters.discord.translator import sentence_key  # noqa: F401 - the key scheme
    from bot.core.desk.catalog import REGISTRY

    for spec in REGISTRY.on("discord"):
        assert t("en", f"discord.describe.{spec.key}") == spec.describe["discord"], spec.key
        for option in spec.options:
            if option.kind != "file" and spec.key != "pack":
                key = f"discord.describe.{spec.key}.{option.name}"
                assert t("en", key) == option.description, key
            for label, value in option.choices:
                if value not in ("en", "zh-CN"):
                    assert t("en", f"discord.choice.{value}") == label, value


def test_commands_sync_to_one_server_when_a_guild_id_is_set(discord_run):
    async def scenario(h):
        assert h.fake.command_scope == "global"
        await h.restart(guild_id=GUILD_ID)
        assert h.fake.command_scope == "guild"
        puts = [c.path for c in h.fake.calls if c.method == "PUT"]
        assert puts[-1] == f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands"
        reply = await h.done(await h.fake.slash("explain", topic="detach"))
        assert "detach" in reply.text().lower()

    discord_run(scenario)


def test_explain_and_timezone_autocomplete_offer_matching_choices(discord_run):
    async def scenario(h):
        topics = await h.done(await h.fake.autocomplete("explain", "topic", "deta"))
        offered = [c["value"] for c in topics.callbacks[0]["data"]["choices"]]
        assert offered and offered[0] == "detach"
        zones = await h.done(await h.fake.autocomplete("quiz-settings", "timezone", "shang",
                                                       "admin"))
        assert "Asia/Shanghai" in [c["value"] for c in zones.callbacks[0]["data"]["choices"]]

    discord_run(scenario)


def test_leaderboard_and_stats_are_posted_for_everyone_when_shared(discord_run):
    async def scenario(h):
        await h.enable_channel()
        shared = await h.done(await h.fake.slash("leaderboard", period="all", share=True))
        assert not shared.ephemeral and "all time" in shared.text()
        theirs = await h.done(await h.fake.slash("stats", "bob", member="alice", share=True))
        assert not theirs.ephemeral and "Alice" in theirs.text()

    discord_run(scenario)


def test_an_answer_is_deferred_privately_and_a_share_is_a_message_at_once(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        click = await h.done(await h.fake.click(post.key, post.choice("B")))
        assert click.callback_type == 5 and click.ephemeral  # deferred, privately
        assert click.followups and "Correct" in click.text()
        card = await h.done(await h.fake.slash("explain", topic="detach"))
        shared = await h.done(await h.fake.click_ephemeral(card.replies()[0],
                                                           "tq:share:detach:card"))
        assert shared.callback_type == 4 and not shared.ephemeral
        assert custom_ids(shared.replies()[0]) == []

    discord_run(scenario)


def test_autocomplete_offers_our_packs_topics_and_cards_never_another_workspaces(discord_run):
    async def scenario(h):
        store_packs(h)
        # Autocomplete answers from what is loaded (never waits): a request loads the packs.
        await h.done(await h.fake.slash("explain", topic="detach"))
        topics = await h.done(await h.fake.autocomplete("quiz", "topic", "team"))
        assert [c["value"] for c in topics.callbacks[0]["data"]["choices"]] == ["team-ours"]
        cards = await h.done(await h.fake.autocomplete("explain", "topic", "card"))
        offered = [c["value"] for c in cards.callbacks[0]["data"]["choices"]]
        assert "p.ours.card" in offered and "p.theirs.card" not in offered

    discord_run(scenario)
