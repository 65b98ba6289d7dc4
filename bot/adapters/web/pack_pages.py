"""The admin's desk: the workspace's team packs (``/packs``), as chat's /quiz-pack manages them.

Upload (one multipart form, read bounded by the front: ``app.UPLOAD``), the sandbox's report
line by line, the version history, remove (after a confirmation page) and export. Each route
asks ``WebPacks`` once; a member gets 403, a pack the workspace does not see 404.
"""

from __future__ import annotations

import re

from aiohttp import web

from bot.adapters.web.app import UPLOAD, WebFront, grant_of
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone

PACK = r"{pack:[a-z0-9][a-z0-9-]{0,39}}"
# Where a problem is in the file, as the validation says it ("line 12, column 3").
_PLACE = re.compile(r"line (\d{1,7}), column (\d{1,7})\W*(.*)", re.DOTALL)


def report_lines(result: Message | None) -> list[tuple[str, str, str]]:
    """Return a report's problems as (line, column, what) rows ("" where none is known)."""
    if result is None:
        return []
    rows = []
    for _label, text in result.quotes:
        found = _PLACE.search(text)
        if found is not None:
            rows.append((found.group(1), found.group(2), found.group(3) or text))
        else:
            rows.append(("", "", text))
    return rows


class PackPages:
    """Render the packs pages over one front."""

    def __init__(self, front: WebFront) -> None:
        self.front = front

    def add_routes(self, app: web.Application) -> None:
        """Add the list and upload, a pack's history, its export and its removal."""
        router = app.router
        router.add_get("/packs", self.listing)
        router.add_post("/packs", self.upload)
        router.add_get(f"/packs/{PACK}", self.history)
        router.add_get(f"/packs/{PACK}/export", self.export)
        router.add_get(f"/packs/{PACK}/remove", self.remove_form)
        router.add_post(f"/packs/{PACK}/remove", self.remove)

    async def listing(self, request: web.Request) -> web.StreamResponse:
        """List the workspace's packs and the shared ones, with the upload form."""
        return await self._listing(request, None)

    async def _listing(self, request: web.Request, result: Message | None,
                       status: int = 200) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        lines = await front.call(front.packs.listing, grant)
        stored = result is not None and result.tone is Tone.SUCCESS
        return front.render(request, "packs.html", status=status, lines=lines, result=result,
                            problems=[] if stored else report_lines(result),
                            available=front.packs.available)

    async def upload(self, request: web.Request) -> web.StreamResponse:
        """Check an uploaded pack in the sandbox and store it (the middleware checked CSRF)."""
        front = self.front
        grant = grant_of(request)
        if not grant.is_admin:
            raise web.HTTPForbidden
        uploaded = request.get(UPLOAD)
        if uploaded is None:
            return await self._listing(request, Message(
                body=t(front.language(request), "pack.no_file"), tone=Tone.WARNING), 422)
        filename, data, size = uploaded
        language = front.language(request)
        refused = await front.call(front.packs.upload_refusal, grant, filename, size,
                                   language)
        if refused is not None or data is None:
            return await self._listing(request, refused, 413 if data is None else 422)
        result = await front.call(front.packs.add, grant, filename, data, language)
        return await self._listing(request, result,
                                   200 if result.tone is Tone.SUCCESS else 422)

    async def history(self, request: web.Request) -> web.StreamResponse:
        """Show every stored version of a pack the workspace sees."""
        front = self.front
        grant = grant_of(request)
        found = await front.call(front.packs.versions, grant, request.match_info["pack"])
        if found is None:
            raise web.HTTPNotFound
        return front.render(request, "pack.html", history=found)

    async def export(self, request: web.Request) -> web.StreamResponse:
        """Download the newest version of the workspace's own pack, as /quiz-pack export."""
        front = self.front
        grant = grant_of(request)
        found = await front.call(front.packs.export, grant, request.match_info["pack"])
        if found is None:
            raise web.HTTPNotFound
        return web.Response(body=found.file_data, content_type="application/x-yaml",
                            charset="utf-8", headers={
                                "Content-Disposition": f'attachment; filename="{found.file_name}"'})

    async def remove_form(self, request: web.Request) -> web.StreamResponse:
        """Ask before removing the workspace's own pack (the button below POSTs)."""
        front = self.front
        grant = grant_of(request)
        found = await front.call(front.packs.versions, grant, request.match_info["pack"])
        if found is None or not found.own or found.removed:
            raise web.HTTPNotFound
        return front.render(request, "pack_remove.html", history=found)

    async def remove(self, request: web.Request) -> web.StreamResponse:
        """Remove the pack once confirmed (the middleware checked CSRF)."""
        front = self.front
        grant = grant_of(request)
        form = await front.form(request)
        if form.get("confirm") != "yes":
            raise web.HTTPBadRequest
        result = await front.call(front.packs.remove, grant, request.match_info["pack"],
                                  front.language(request))
        if result is None:
            raise web.HTTPNotFound
        return await self._listing(request, result)
