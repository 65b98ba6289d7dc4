"""The pages: signing in and out, the workspace's channels, a channel's board, my progress.

Each handler parses what the browser sent (bounded: ids are short digit strings, anything else
is not found), asks the desk once on a worker thread, and renders a template. Whatever the
desk does not find in the session's workspace is a 404.
"""

from __future__ import annotations

import json
import re
import secrets
from urllib.parse import quote, urlencode

from aiohttp import web

from bot.adapters.web import security
from bot.adapters.web.app import HERE, MAX_BODY, SESSION, WebFront, grant_of
from bot.adapters.web.pack_pages import PackPages
from bot.adapters.web.question_pages import QuestionPages
from bot.adapters.web.signin_pages import SignInPages
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import SUPPORTED_LOCALES, WebGrant
from bot.core.signin import LINK_TTL

CHANNEL = r"{channel:[0-9]{1,9}}"
CARD = r"{card:[A-Za-z0-9][A-Za-z0-9._-]{0,127}}"
ITEM = r"{item:[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}}"
TOKEN = r"{token:[0-9a-f.]{1,130}}"  # noqa: S105 - a route pattern
PUBLIC = r"{public:[A-Za-z0-9_-]{43}}"  # a published board's token (token_urlsafe(32))
MAX_FIELD = 1000  # a refused form's value shown back: /quiz-settings' line limit
_PAGE = re.compile(r"[0-9]{1,4}")
_TOPIC = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_LOCAL = re.compile(r"/(?![/\\])[A-Za-z0-9/_.?=&%-]{0,300}")
_ID = re.compile(r"[0-9]{1,9}")
MAX_PICKED = 100  # reports one close may name: the desk's own limit
MAX_REASON = 300  # a close reason: chat's limit (bot/core/quality/reports.py)
# The chat a "reviews due" link opens: the channel itself, where the member types /quiz.
_PLATFORM_NAMES = {"discord": "Discord", "slack": "Slack"}


def _page(text: str) -> int:
    return int(text) if _PAGE.fullmatch(text) else 1


def _topic(text: str) -> str:
    """Return a topic as the query named it, or "" (the desk ignores one it does not know)."""
    return text if _TOPIC.fullmatch(text) else ""


def chat_link(grant: WebGrant, channel_external_id: str) -> str:
    """Return a link that opens the channel in the member's chat app; "" on the console.

    Discord opens a channel by its server and channel ids, Slack by app_redirect; neither lets a
    link type a command, so the page says which one to type there.
    """
    if grant.platform == "discord":
        return (f"https://discord.com/channels/{quote(grant.workspace, safe='')}/"
                f"{quote(channel_external_id, safe='')}")
    if grant.platform == "slack":
        return "https://slack.com/app_redirect?" + urlencode(
            {"team": grant.workspace, "channel": channel_external_id})
    return ""


class Pages:
    """Render the page's routes over one front."""

    def __init__(self, front: WebFront) -> None:
        self.front = front

    def add_routes(self, app: web.Application) -> None:
        """Add every page's route."""
        router = app.router
        router.add_get("/", self.home)
        router.add_get(f"/login/{TOKEN}", self.login_form)
        router.add_post(f"/login/{TOKEN}", self.login)
        router.add_post("/logout", self.logout)
        router.add_post("/language", self.language)
        router.add_get(f"/channels/{CHANNEL}/board", self.board)
        router.add_post(f"/channels/{CHANNEL}/publish", self.publish)
        router.add_post(f"/channels/{CHANNEL}/withdraw", self.withdraw)
        router.add_get(f"/boards/{PUBLIC}", self.public_board)
        router.add_get(f"/channels/{CHANNEL}/me", self.progress)
        router.add_get(f"/channels/{CHANNEL}/me/mastery.png", self.mastery_chart)
        router.add_get("/me/export", self.export)
        router.add_get("/me/forget", self.forget_form)
        router.add_post("/me/forget", self.forget)
        router.add_get("/reports", self.reports)
        router.add_post("/reports/close", self.close_reports)
        router.add_get(f"/channels/{CHANNEL}/settings", self.settings)
        router.add_post(f"/channels/{CHANNEL}/settings", self.change_settings)
        router.add_get("/audit", self.audit)
        router.add_get("/items", self.items)
        router.add_post(f"/items/{ITEM}/unpause", self.unpause)
        router.add_post(f"/items/{ITEM}/pause", self.pause)
        router.add_get("/cards", self.cards)
        router.add_get(f"/cards/{CARD}", self.card)
        router.add_get("/static/style.css", self.style)

    # ------------------------------------------------------------ signing in and out
    async def login_form(self, request: web.Request) -> web.StreamResponse:
        """Show the sign-in button of a valid link (opening the link signs nobody in).

        Link previews and scanners fetch links: only the button's POST uses it.
        """
        front = self.front
        if not front.logins.allow(request.remote or ""):
            return front.problem(request, 429, "web.error.busy")
        token = request.match_info["token"]
        grant = await front.call(front.signin.pending, token)
        if grant is None:
            return front.render(request, "message.html", status=410,
                                title_key="web.login.title", message_key="web.login.invalid")
        nonce = secrets.token_hex(16)
        response = front.render(request, "login.html", locale=grant.locale, link_grant=grant,
                                token=token, form_token=front.signin.form_token(nonce))
        security.set_cookie(response, security.LOGIN_COOKIE, nonce,
                            max_age=int(LINK_TTL.total_seconds()), secure=front.signin.secure,
                            path="/login/")
        return response

    async def login(self, request: web.Request) -> web.StreamResponse:
        """Use the link once: open the session, set its cookie, go to the link's channel."""
        front = self.front
        if not front.logins.allow(request.remote or ""):
            return front.problem(request, 429, "web.error.busy")
        form = await front.form(request)
        nonce = request.cookies.get(security.LOGIN_COOKIE, "")
        if not front.signin.form_token_holds(nonce, form.get(security.CSRF_FIELD, "")):
            return front.problem(request, 403, "web.error.csrf")
        redeemed = await front.call(front.signin.redeem, request.match_info["token"])
        front.metrics.sign_in("refused" if redeemed is None else "signed_in")
        if redeemed is None:
            return front.render(request, "message.html", status=410,
                                title_key="web.login.title", message_key="web.login.invalid")
        cookie, session = redeemed
        target = "/"
        channels = await front.call(front.web.channels, session.grant)
        here = next((c for c in channels if c.external_id == session.grant.channel), None)
        if here is not None:
            target = f"/channels/{here.id}/board"
        response = web.Response(status=303, headers={"Location": target})
        lifetime = int((session.expires_at - session.created_at).total_seconds())
        security.set_cookie(response, security.SESSION_COOKIE, cookie, max_age=lifetime,
                            secure=front.signin.secure)
        response.del_cookie(security.LOGIN_COOKIE, path="/login/")
        return response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        """End the session (the middleware checked its CSRF token) and forget the cookie."""
        front = self.front
        await front.call(front.signin.end, request.cookies.get(security.SESSION_COOKIE, ""))
        front.metrics.sign_in("logout")
        request[SESSION] = None
        response = front.render(request, "message.html", title_key="web.nav.logout",
                                message_key="web.signed_out")
        response.del_cookie(security.SESSION_COOKIE, path="/")
        return response

    async def language(self, request: web.Request) -> web.StreamResponse:
        """Switch the page's language (the middleware checked the CSRF token); back to ``next``."""
        form = await self.front.form(request)
        chosen = form.get("lang", "")
        if chosen not in SUPPORTED_LOCALES:
            raise web.HTTPBadRequest
        back = form.get("next", "/")
        # Only a path of this site: never an address elsewhere (//host, scheme:).
        if not _LOCAL.fullmatch(back):
            back = "/"
        response = web.Response(status=303, headers={"Location": back})
        security.set_cookie(response, security.LANGUAGE_COOKIE, chosen,
                            max_age=365 * 24 * 3600, secure=self.front.signin.secure)
        return response

    # ------------------------------------------------------------ pages
    async def home(self, request: web.Request) -> web.StreamResponse:
        """List the workspace's quiz channels; signed out: say how to sign in."""
        front = self.front
        session = request.get(SESSION)
        if session is None:
            return front.render(request, "message.html", title_key="web.login.title",
                                message_key="web.signed_out",
                                sign_in_with=sorted(front.providers))
        channels = await front.call(front.web.channels, session.grant)
        return front.render(request, "channels.html", channels=channels)

    async def board(self, request: web.Request) -> web.StreamResponse:
        """Show one page of a channel's board: this week or all time."""
        front = self.front
        grant = grant_of(request)
        period = request.query.get("period", "week")
        channel_id = int(request.match_info["channel"])
        found = await front.call(front.web.board, grant, channel_id,
                                 period, _page(request.query.get("page", "1")),
                                 _topic(request.query.get("topic", "")), front.language(request))
        if found is None:
            raise web.HTTPNotFound
        shared = (await front.call(front.web.board_link, grant, channel_id)
                  if grant.is_admin else None)
        return front.render(request, "board.html", board=found,
                            base=f"/channels/{channel_id}/board", public=False,
                            shared_url=front.signin.base_url + shared if shared else "",
                            shared=shared is not None)

    async def public_board(self, request: web.Request) -> web.StreamResponse:
        """Show a board an admin published, to anyone with its link (404 once withdrawn)."""
        front = self.front
        token = request.match_info["public"]
        found = await front.call(front.web.public_board, token,
                                 request.query.get("period", "week"),
                                 _page(request.query.get("page", "1")),
                                 _topic(request.query.get("topic", "")), front.language(request))
        if found is None:
            raise web.HTTPNotFound
        return front.render(request, "board.html", board=found, base=f"/boards/{token}",
                            public=True, shared_url="", shared=False)

    async def publish(self, request: web.Request) -> web.StreamResponse:
        """Publish the board at a new link, or replace it (admins; the middleware checked CSRF)."""
        return await self._share(request, publish=True)

    async def withdraw(self, request: web.Request) -> web.StreamResponse:
        """Withdraw the board's link (admins; the middleware checked CSRF)."""
        return await self._share(request, publish=False)

    async def _share(self, request: web.Request, *, publish: bool) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        channel_id = int(request.match_info["channel"])
        done = await front.call(front.web.publish if publish else front.web.withdraw,
                                grant, channel_id)
        if done is None:
            raise web.HTTPNotFound
        raise web.HTTPSeeOther(f"/channels/{channel_id}/board#share")

    async def progress(self, request: web.Request) -> web.StreamResponse:
        """Show the member's own numbers in a channel."""
        front = self.front
        grant = grant_of(request)
        found = await front.call(front.web.progress, grant, int(request.match_info["channel"]),
                                 front.language(request), _page(request.query.get("page", "1")))
        if found is None:
            raise web.HTTPNotFound
        return front.render(request, "progress.html", progress=found,
                            chart=front.quiz.board.charts is not None and bool(found.topics),
                            chat_url=chat_link(grant, found.channel.external_id),
                            chat_name=_PLATFORM_NAMES.get(grant.platform, ""))

    async def export(self, request: web.Request) -> web.StreamResponse:
        """Download everything stored about the member as JSON (what forget-me deletes)."""
        front = self.front
        grant = grant_of(request)
        found = await front.call(front.web.export, grant)
        if found is None:
            return front.render(request, "message.html", title_key="web.progress.my_data",
                                message_key="web.export.nothing")
        body = json.dumps(found, ensure_ascii=True, sort_keys=True, indent=2) + "\n"
        return web.Response(body=body.encode(), content_type="application/json", headers={
            "Content-Disposition": 'attachment; filename="torchquiz-my-data.json"'})

    async def forget_form(self, request: web.Request) -> web.StreamResponse:
        """Show what forgetting deletes, and the button that confirms it (a POST)."""
        front = self.front
        grant = grant_of(request)
        preview = await front.call(front.web.forget_preview, grant, front.language(request))
        return front.render(request, "forget.html", preview=preview)

    async def forget(self, request: web.Request) -> web.StreamResponse:
        """Forget the member as chat's confirm does (the middleware checked CSRF); sign out."""
        front = self.front
        grant = grant_of(request)
        form = await front.form(request)
        if form.get("confirm") != "yes":
            raise web.HTTPBadRequest
        result = await front.call(front.web.forget, grant)
        request[SESSION] = None
        response = front.render(request, "message.html", locale=front.language(request),
                                title_key="web.forget.title", result=result)
        response.del_cookie(security.SESSION_COOKIE, path="/")
        return response

    async def settings(self, request: web.Request) -> web.StreamResponse:
        """Show a channel's settings form to an admin (403 for a member, checked every request)."""
        return await self._settings_page(request, None, None)

    async def change_settings(self, request: web.Request) -> web.StreamResponse:
        """Apply the settings form (the middleware checked CSRF; the desk checks the right)."""
        front = self.front
        grant = grant_of(request)
        form = await front.form(request)
        result = await front.call(front.web.change_settings, grant,
                                  int(request.match_info["channel"]), form,
                                  front.language(request))
        if result is None:
            raise web.HTTPNotFound
        refused = result.tone is Tone.WARNING
        return await self._settings_page(request, result, form if refused else None,
                                         status=422 if refused else 200)

    async def _settings_page(self, request: web.Request, result: Message | None,
                             typed: dict[str, str] | None, status: int = 200
                             ) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        channel_id = int(request.match_info["channel"])
        language = front.language(request)
        values = await front.call(front.web.settings_values, grant, channel_id)
        shown = await front.call(front.web.settings, grant, channel_id, language)
        if values is None or shown is None:
            raise web.HTTPNotFound
        if typed is not None:  # a refused form shows what the admin typed, to correct it
            values = {k: typed.get(k, v)[:MAX_FIELD] for k, v in values.items()}
        channel = await front.call(front.web.channel, grant, channel_id)
        return front.render(request, "settings.html", status=status, channel=channel,
                            shown=shown, values=values, result=result)

    async def audit(self, request: web.Request) -> web.StreamResponse:
        """Show the workspace's audit log to an admin (403 for a member)."""
        front = self.front
        grant = grant_of(request)
        changes = await front.call(front.web.audit, grant)
        return front.render(request, "audit.html", changes=changes)

    async def items(self, request: web.Request) -> web.StreamResponse:
        """Show /quiz-insights' table: each item's p, discrimination, reports and flags."""
        return await self._items_page(request, None)

    async def unpause(self, request: web.Request) -> web.StreamResponse:
        """Unpause an item as chat's button does (the middleware checked CSRF)."""
        return await self._pause_or_unpause(request, pause=False)

    async def pause(self, request: web.Request) -> web.StreamResponse:
        """Pause an item by hand as chat's /quiz-insights pause does (the middleware: CSRF)."""
        return await self._pause_or_unpause(request, pause=True)

    async def _pause_or_unpause(self, request: web.Request, *,
                                pause: bool) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        work = front.web.pause if pause else front.web.unpause
        result = await front.call(work, grant, request.match_info["item"])
        if result is None:
            raise web.HTTPNotFound
        return await self._items_page(request, result)

    async def _items_page(self, request: web.Request,
                          result: Message | None) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        stats = await front.call(front.web.items, grant)
        return front.render(request, "items.html", stats=stats, result=result)

    async def reports(self, request: web.Request) -> web.StreamResponse:
        """Show the open reports queue to an admin, each beside its item's numbers."""
        return await self._reports_page(request, None)

    async def close_reports(self, request: web.Request) -> web.StreamResponse:
        """Close the ticked reports with one reason (the middleware checked CSRF)."""
        front = self.front
        grant = grant_of(request)
        if not grant.is_admin:  # before reading anything else of the form
            raise web.HTTPForbidden
        form = await front.form(request)
        posted = (await request.post()).getall("report", [])
        picked = [v for v in posted if isinstance(v, str) and _ID.fullmatch(v)]
        if len(posted) > MAX_PICKED or len(picked) != len(posted):
            raise web.HTTPBadRequest
        reason = form.get("reason", "").strip()[:MAX_REASON]
        language = front.language(request)
        if not picked or not reason:
            key = "web.reports.none_chosen" if not picked else "web.reports.reason_needed"
            return await self._reports_page(
                request, Message(body=t(language, key), tone=Tone.WARNING), status=422)
        result = await front.call(front.web.close_reports, grant,
                                  [int(v) for v in picked], reason, language)
        return await self._reports_page(request, result)

    async def _reports_page(self, request: web.Request, result: Message | None,
                            status: int = 200) -> web.StreamResponse:
        front = self.front
        grant = grant_of(request)
        lines = await front.call(front.web.reports, grant)
        return front.render(request, "reports.html", status=status, lines=lines, result=result)

    async def cards(self, request: web.Request) -> web.StreamResponse:
        """List the concept cards the workspace sees."""
        front = self.front
        grant = grant_of(request)
        listed = await front.call(front.web.cards, grant, front.language(request))
        return front.render(request, "cards.html", cards=listed)

    async def card(self, request: web.Request) -> web.StreamResponse:
        """Show one concept card (404 for a card the workspace does not see)."""
        front = self.front
        grant = grant_of(request)
        shown = await front.call(front.web.card, grant, request.match_info["card"],
                                 front.language(request))
        if shown is None:
            raise web.HTTPNotFound
        return front.render(request, "card.html", card=shown)

    async def mastery_chart(self, request: web.Request) -> web.StreamResponse:
        """Answer the member's mastery chart as a PNG (404 when there is none to draw)."""
        front = self.front
        grant = grant_of(request)
        message = await front.call(front.web.mastery_chart, grant,
                                   int(request.match_info["channel"]))
        if message is None or not message.image_png:
            raise web.HTTPNotFound
        return web.Response(body=message.image_png, content_type="image/png")

    async def style(self, _request: web.Request) -> web.StreamResponse:
        """Answer the one stylesheet."""
        response = web.FileResponse(HERE / "static" / "style.css")
        response.headers["Cache-Control"] = "public, max-age=3600"
        return response


def application(front: WebFront) -> web.Application:
    """Return the page's aiohttp application: every route, behind the front's middleware."""
    app = web.Application(middlewares=[front.middleware], client_max_size=MAX_BODY)
    Pages(front).add_routes(app)
    QuestionPages(front).add_routes(app)
    PackPages(front).add_routes(app)
    if front.providers:
        SignInPages(front, front.providers).add_routes(app)
    front.add_routes(app)
    return app
