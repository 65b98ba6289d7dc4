"""Discord's own side of /quiz-pack: where an attachment may be fetched from."""

from __future__ import annotations

import discord.http
from aiohttp import web

from bot.adapters.discord.packs import CDN_ORIGINS, attachment_origins
from tests.fake_server import serve_locally, stop_serving
from tests.support.packs import choice_pack


def test_attachments_come_only_from_discords_cdn_or_the_configured_fake(monkeypatch):
    monkeypatch.setattr(discord.http.Route, "BASE", "https://discord.com/api/v10")
    assert attachment_origins() == CDN_ORIGINS
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:8123/api/v10")
    assert attachment_origins() == {("http", "127.0.0.1:8123")}


def test_an_attachment_url_on_another_host_is_never_fetched(discord_run):
    async def scenario(h):
        seen: list[str] = []

        async def elsewhere(request: web.Request) -> web.Response:
            seen.append(request.path)
            return web.Response(body=choice_pack())

        app = web.Application()
        app.router.add_get("/{tail:.*}", elsewhere)
        runner, port = await serve_locally(app)
        try:
            attachment = h.fake.attach("team.yaml", choice_pack(),
                                       url=f"http://127.0.0.1:{port}/internal/team.yaml")
            reply = await h.done(await h.fake.slash("quiz-pack", "admin", sub="add",
                                                    file=attachment))
        finally:
            await stop_serving(runner)
        assert "could not be fetched" in reply.text()
        assert seen == [] and h.pack_ids(h.pack_scope()) == []

    discord_run(scenario)
