"""Slack's own side of /quiz-pack: the modal, the file host the bot token may go to, export."""

from __future__ import annotations

from aiohttp import web

from bot.adapters.slack.packs import PACK_BLOCK, SLACK_FILE_ORIGINS, file_origins
from tests.fake_server import serve_locally, stop_serving
from tests.fake_slack import BOT_TOKEN
from tests.support.packs import choice_pack as pack


def test_the_token_goes_only_to_slacks_file_host_or_the_configured_fake():
    assert file_origins("https://slack.com/api/") == SLACK_FILE_ORIGINS
    assert file_origins("https://slack-gov.com/api/") == SLACK_FILE_ORIGINS
    assert file_origins("http://127.0.0.1:8123/api/") == {("http", "127.0.0.1:8123")}


def test_add_opens_a_modal_with_one_yaml_file_input(slack_run):
    async def scenario(h):
        asked = await h.send.command("/quiz-pack", "add", "admin")
        view = h.fake.views[await h.modal(asked)]
        [block] = view["blocks"]
        assert block["element"]["type"] == "file_input"
        assert block["element"]["max_files"] == 1
        assert set(block["element"]["filetypes"]) == {"yaml", "yml"}

    slack_run(scenario)


def test_a_file_url_on_another_host_never_gets_the_bot_token(slack_run):
    async def scenario(h):
        seen: list[str] = []

        async def elsewhere(request: web.Request) -> web.Response:
            seen.append(request.headers.get("Authorization", ""))
            return web.Response(body=pack())

        app = web.Application()
        app.router.add_get("/{tail:.*}", elsewhere)
        runner, port = await serve_locally(app)
        try:
            # 127.0.0.1 on another port is another origin: as foreign as any other host.
            reply = await h.add_pack("admin", "team.yaml", pack(),
                                     url=f"http://127.0.0.1:{port}/files-pri/x/download/t.yaml")
        finally:
            await stop_serving(runner)
        assert "could not be fetched" in reply.text
        assert seen == [] and h.pack_ids(h.pack_scope()) == []
        assert h.fake.file_downloads == []

    slack_run(scenario)


def test_a_pack_file_is_downloaded_with_the_bot_token_from_the_fakes_file_host(slack_run):
    async def scenario(h):
        stored = await h.add_pack("admin", "team.yaml", pack())
        assert "Pack stored" in stored.text
        assert [token for _, token in h.fake.file_downloads] == [BOT_TOKEN]
        assert len(h.fake.calls_of("files.info")) == 1

    slack_run(scenario)


def test_a_members_forged_pack_submission_is_refused_before_the_file_is_looked_up(slack_run):
    async def scenario(h):
        view_id = await h.modal(await h.send.command("/quiz-pack", "add", "admin"))
        record = h.fake.share_file("team.yaml", pack())
        values = {PACK_BLOCK: {PACK_BLOCK: {"type": "file_input", "files": [record]}}}
        refused = await h.reply(await h.send.submit(view_id, values, who="alice"))
        assert "Only admins" in refused.shown_text
        assert h.fake.calls_of("files.info") == [] and h.fake.file_downloads == []
        assert h.pack_ids(h.pack_scope()) == []

    slack_run(scenario)
