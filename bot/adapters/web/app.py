"""The web page's aiohttp application: sessions, CSRF, security headers, errors, health.

Every request passes one middleware: it loads the session from its cookie (server-side, in
the database), refuses a POST whose CSRF token is not the session's, answers errors as pages
(never a traceback), and adds the security headers. Core calls run on worker threads; the
pages themselves are in pages.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError
from markupsafe import Markup, escape

from bot.adapters.web import security
from bot.adapters.web.metrics import WebMetrics
from bot.adapters.web.providers import Provider
from bot.core.desk import Desk
from bot.core.desk.web import AdminOnly, WebDesk
from bot.core.desk.web_packs import WebPacks
from bot.core.kernel.i18n import speaking_to, t
from bot.core.kernel.models import SUPPORTED_LOCALES, WebGrant, WebSession
from bot.core.kernel.ports import PackTools
from bot.core.quiz import Quiz
from content.packs import MAX_PACK_BYTES
from safetext.inert import inert

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
DATABASE_TIMEOUT_S = 3.0
MAX_BODY = 64 * 1024  # a form of the page is a few fields; nothing bigger is read
BLOCK_CHARS = 8000  # a card's body or example: longer than any the bank or a pack holds
LOGINS_PER_MINUTE = 30  # sign-in pages opened or posted per client address
SIGN_IN_PATHS = ("/login/", "/signin/")
PUBLIC_BOARD_PATH = "/boards/"  # never cached: a withdrawn link must stop at once

UPLOAD_PATH = "/packs"  # the one form that sends a file (multipart): a team pack
UPLOAD_FIELD = "pack"
UPLOAD_PARTS = 4  # the token, the file and little else
UPLOAD_NAME_CHARS = 200

T = TypeVar("T")
# What the middleware keeps on a request: the session (None: signed out) and the posted form.
SESSION: web.RequestKey[WebSession | None] = web.RequestKey("session")
FORM: web.RequestKey[dict[str, str]] = web.RequestKey("form")
# An uploaded pack: its file name, its bytes (None: past MAX_PACK_BYTES, not kept) and size.
UPLOAD: web.RequestKey[tuple[str, bytes | None, int]] = web.RequestKey("upload")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def member_text(text: object) -> str:
    """Return a member's words made inert (controls and bidi overrides shown, one line).

    Jinja2's autoescape then makes them plain HTML text: nothing a member wrote is markup.
    """
    return inert(str(text), one_line=True, limit=200)


def member_block(text: object) -> str:
    """Return a block of text a member may have written (a pack's card) made inert, lines kept."""
    return inert(str(text), limit=BLOCK_CHARS)


def code_marks(text: object) -> Markup:
    """Return text with chat's `code` marks shown as <code>; every piece is escaped first.

    Unbalanced marks leave the text as it is (escaped), backticks and all.
    """
    parts = str(text).split("`")
    if len(parts) % 2 == 0:
        return escape(str(text))
    return Markup("").join(Markup("<code>%s</code>") % part if n % 2 else escape(part)
                           for n, part in enumerate(parts))


def locale_of(request: web.Request) -> str:
    """Return the language of a page without a session: Chinese when the browser prefers it."""
    accept = request.headers.get("Accept-Language", "")[:200].lower()
    return "zh-CN" if accept.startswith("zh") else "en"


class WebFront:
    """The web front end over one core: build the application, render pages, run core calls."""

    def __init__(self, quiz: Quiz, *, probe: Callable[[], object] | None = None,
                 workers: int = 8, logins_per_minute: int = LOGINS_PER_MINUTE,
                 providers: dict[str, Provider] | None = None,
                 packs: PackTools | None = None) -> None:
        self.quiz = quiz
        # Sign in with Slack / Discord, where the deployment configured them (by platform).
        self.providers: dict[str, Provider] = dict(providers or {})
        self.desk = Desk(quiz, packs)  # packs: /quiz-pack's checker and shelf (None: off)
        self.web = WebDesk(self.desk)
        self.packs = WebPacks(self.desk)
        self.signin = quiz.signin
        self.probe = probe
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="web")
        self.logins = security.Throttle(logins_per_minute, 60.0)
        self.metrics = WebMetrics()
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
            lstrip_blocks=True)
        self.templates.filters["member"] = member_text
        self.templates.filters["member_block"] = member_block
        self.templates.filters["code"] = code_marks

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        """Run a core call on a worker thread (the core and its store are synchronous)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)

    def close(self) -> None:
        """Let the worker threads go."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ rendering
    def render(self, request: web.Request, template: str, *, status: int = 200,
               locale: str | None = None, **values: Any) -> web.Response:
        """Render ``template`` in the session's language (or ``locale``), escaped."""
        session: WebSession | None = request.get(SESSION)
        grant = session.grant if session is not None else None
        language = locale or self.language(request)

        def say(key: str, **fill: object) -> str:
            return t(language, key, **fill)

        with speaking_to(grant.platform if grant is not None else "discord"):
            html = self.templates.get_template(template).render(
                _=say, locale=language, session=session, grant=grant, path=request.path_qs,
                csrf=session.csrf if session is not None else "", **values)
        return web.Response(text=html, status=status, content_type="text/html",
                            charset="utf-8")

    @staticmethod
    def language(request: web.Request) -> str:
        """Return the language chosen on the page, else chat's, else the browser's."""
        chosen = request.cookies.get(security.LANGUAGE_COOKIE, "")
        if chosen in SUPPORTED_LOCALES:
            return chosen
        session: WebSession | None = request.get(SESSION)
        return session.grant.locale if session is not None else locale_of(request)

    def problem(self, request: web.Request, status: int, key: str) -> web.Response:
        """Render an error page: what went wrong, in the member's language, never a trace."""
        return self.render(request, "message.html", status=status,
                           title_key="web.error.title", message_key=key)

    # ------------------------------------------------------------ the middleware
    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Load the session, check CSRF on every POST, answer errors as pages, add headers."""
        started = time.perf_counter()
        try:
            response = await self._guarded(request, handler)
        except Exception:
            log.exception("web: %s %s failed", request.method, request.path[:200])
            response = self.problem(request, 500, "web.error.internal")
        route = request.match_info.route.resource
        self.metrics.request(route.canonical if route is not None else "unmatched",
                             request.method, response.status, time.perf_counter() - started)
        security.harden(response, private=request.get(SESSION) is not None
                        or request.path.startswith((*SIGN_IN_PATHS, PUBLIC_BOARD_PATH)))
        return response

    async def _guarded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        cookie = request.cookies.get(security.SESSION_COOKIE, "")
        session = await self.call(self.signin.session, cookie) if cookie else None
        request[SESSION] = session
        try:
            # A sign-in form has no session yet: its own token is bound to a cookie of its path.
            if request.method == "POST" and not request.path.startswith(SIGN_IN_PATHS):
                form = await self.form(request)
                if session is None:
                    return self.problem(request, 403, "web.error.csrf")
                if not security.same(session.csrf, form.get(security.CSRF_FIELD)):
                    return self.problem(request, 403, "web.error.csrf")
            return await handler(request)
        except web.HTTPNotFound:
            return self.problem(request, 404, "web.error.not_found")
        except (web.HTTPForbidden, AdminOnly):  # the desk refuses a member an admin's work
            return self.problem(request, 403, "web.error.forbidden")
        except web.HTTPMethodNotAllowed:
            return self.problem(request, 405, "web.error.bad_request")
        except web.HTTPRedirection as exc:
            return web.Response(status=exc.status,
                                headers={"Location": exc.headers.get("Location", "/")})
        except web.HTTPClientError:
            return self.problem(request, 400, "web.error.bad_request")

    async def form(self, request: web.Request) -> dict[str, str]:
        """Return a posted form's text fields (400 on a body that is no form)."""
        kept = request.get(FORM)
        if kept is not None:
            return dict(kept)
        if request.content_type == "multipart/form-data" and request.path == UPLOAD_PATH:
            return await self._upload_form(request)
        # The other forms are URL-encoded: no upload parser runs on what they send.
        if request.content_type != "application/x-www-form-urlencoded":
            raise web.HTTPBadRequest
        try:
            posted = await request.post()
        except (ValueError, UnicodeDecodeError, HttpProcessingError) as exc:
            raise web.HTTPBadRequest from exc
        fields = {k: v for k, v in posted.items() if isinstance(v, str)}
        request[FORM] = fields
        return fields

    async def _upload_form(self, request: web.Request) -> dict[str, str]:
        """Read the pack upload's form: its short fields, and the file up to MAX_PACK_BYTES.

        Nothing is read for a reader who is no admin (a 403, as chat checks before fetching a
        byte). The file is kept in memory only up to the limit (past it, only its size is
        known, and nothing after it is read); fields sent after the file are not read.
        """
        session: WebSession | None = request.get(SESSION)
        if session is None or not session.grant.is_admin:
            raise web.HTTPForbidden
        fields: dict[str, str] = {}
        try:
            reader = await request.multipart()
            for _ in range(UPLOAD_PARTS):
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    raise web.HTTPBadRequest
                if part.name == UPLOAD_FIELD and part.filename is not None:
                    data = await _bounded(part, MAX_PACK_BYTES)
                    size = len(data) if data is not None else max(
                        request.content_length or 0, MAX_PACK_BYTES + 1)
                    request[UPLOAD] = (part.filename[:UPLOAD_NAME_CHARS], data, size)
                    break
                value = await _bounded(part, MAX_BODY)
                if value is None or not part.name:
                    raise web.HTTPBadRequest
                fields[part.name[:100]] = value.decode("utf-8")
        except (ValueError, AssertionError, UnicodeDecodeError, HttpProcessingError) as exc:
            raise web.HTTPBadRequest from exc
        request[FORM] = fields
        return dict(fields)

    # ------------------------------------------------------------ health
    async def healthz(self, _request: web.Request) -> web.Response:
        """Answer 200 when the database answers a trivial query, else 503."""
        if self.probe is None:
            return web.json_response({"ok": False, "down": ["database"]}, status=503)
        try:
            await asyncio.wait_for(self.call(self.probe), DATABASE_TIMEOUT_S)
        except Exception as exc:  # a timeout, a refused connection, a missing table
            log.warning("web health: the database does not answer: %s", type(exc).__name__)
            return web.json_response({"ok": False, "down": ["database"]}, status=503)
        return web.json_response({"ok": True})

    async def metrics_page(self, _request: web.Request) -> web.Response:
        """Answer the Prometheus text: counts and times only, no member or id."""
        body, content_type = self.metrics.exposition()
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response

    def add_routes(self, app: web.Application) -> None:
        """Serve health and metrics; let the worker threads go when the app stops."""
        app.router.add_get(HEALTH_PATH, self.healthz)
        app.router.add_get(METRICS_PATH, self.metrics_page)
        app.on_cleanup.append(self._cleanup)

    async def _cleanup(self, _app: web.Application) -> None:
        self.close()


async def _bounded(part: BodyPartReader, limit: int) -> bytes | None:
    """Return a part's bytes, or None as soon as it passes ``limit`` (the rest is not read)."""
    data = bytearray()
    while chunk := await part.read_chunk(64 * 1024):
        data += chunk
        if len(data) > limit:
            return None
    return bytes(data)


def grant_of(request: web.Request) -> WebGrant:
    """Return the session's grant; a page that needs one sends the signed-out reader home."""
    session: WebSession | None = request.get(SESSION)
    if session is None:
        raise web.HTTPSeeOther("/")
    return session.grant
