"""The question browser's routes: ``/questions`` (a filtered list) and ``/questions/ID``."""

from __future__ import annotations

import re

from aiohttp import web

from bot.adapters.web.app import WebFront, grant_of
from bot.core.desk import browse

ITEM = r"{item:[A-Za-z0-9][A-Za-z0-9._-]{0,127}}"
_PAGE = re.compile(r"[0-9]{1,4}")
_FILTER = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


class QuestionPages:
    """Render the browser's two pages over one front."""

    def __init__(self, front: WebFront) -> None:
        self.front = front

    def add_routes(self, app: web.Application) -> None:
        """Add the list and the question."""
        app.router.add_get("/questions", self.listing)
        app.router.add_get(f"/questions/{ITEM}", self.question)

    async def listing(self, request: web.Request) -> web.StreamResponse:
        """List the workspace's questions (kind, topic and page from the query, bounded)."""
        front = self.front
        grant = grant_of(request)
        query = request.query

        def word(name: str) -> str:
            value = query.get(name, "")
            return value if _FILTER.fullmatch(value) else ""

        page = int(query["page"]) if _PAGE.fullmatch(query.get("page", "")) else 1
        listed = await front.call(browse.questions, front.desk, grant, front.language(request),
                                  word("kind"), word("topic"), page)
        return front.render(request, "questions.html", listed=listed)

    async def question(self, request: web.Request) -> web.StreamResponse:
        """Show one question; its answer only to admins and members who earned it."""
        front = self.front
        grant = grant_of(request)
        shown = await front.call(browse.question, front.desk, grant, request.match_info["item"],
                                 front.language(request))
        if shown is None:
            raise web.HTTPNotFound
        return front.render(request, "question.html", q=shown)
