"""Sign in with Slack or Discord: the routes between the browser, the platform and a session.

``GET /signin/P`` sends the browser to the platform with a fresh state (and, for Slack, a
nonce), both also kept in a signed, HttpOnly cookie scoped to ``/signin/``. The platform sends
the browser back to ``/signin/P/callback`` with a code; the state must match the cookie's, and
the code is redeemed by us, server to server (providers.py). A member the bot vouches for in
several Discord servers picks one on a form whose every choice is signed by us, so a browser
can neither name a server of its own nor claim a right.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import secrets
import time
from dataclasses import asdict
from typing import Any

from aiohttp import web

from bot.adapters.web import security
from bot.adapters.web.app import WebFront
from bot.adapters.web.providers import Provider, SignInRefused, Vouched
from bot.core.kernel.models import WebGrant

log = logging.getLogger(__name__)

STATE_COOKIE = "tq_oauth"
STATE_TTL_S = 600  # the platform's consent page may take a while; a state older is refused
CHOICE_FIELD = "server"
PROVIDER = r"{provider:slack|discord}"
_HEX = re.compile(r"[0-9a-f]{32}")
_CODE = re.compile(r"[A-Za-z0-9._~-]{1,512}")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignInPages:
    """The platform sign-in routes over one front and its configured providers."""

    def __init__(self, front: WebFront, providers: dict[str, Provider], *,
                 now: Any = time.time) -> None:
        self.front = front
        self.providers = providers
        self.now = now

    def add_routes(self, app: web.Application) -> None:
        """Add the sign-in routes of the configured platforms."""
        app.router.add_get(f"/signin/{PROVIDER}", self.start)
        app.router.add_get(f"/signin/{PROVIDER}/callback", self.callback)
        app.router.add_post(f"/signin/{PROVIDER}/choose", self.choose)
        app.on_cleanup.append(self._close)

    async def _close(self, _app: web.Application) -> None:
        for http in {id(p.http): p.http for p in self.providers.values()}.values():
            await http.close()

    def _provider(self, request: web.Request) -> Provider:
        provider = self.providers.get(request.match_info["provider"])
        if provider is None:
            raise web.HTTPNotFound  # this deployment does not offer that platform's sign-in
        return provider

    def _callback_url(self, provider: Provider) -> str:
        return f"{self.front.signin.base_url}/signin/{provider.name}/callback"

    # ------------------------------------------------------------ the state cookie
    def _state_value(self, provider: str, state: str, nonce: str) -> str:
        body = f"{provider}.{state}.{nonce}.{int(self.now())}"
        return f"{body}.{self.front.signin.sign('oauth-state', body)}"

    def _state(self, request: web.Request, provider: str) -> tuple[str, str] | None:
        """Return the (state, nonce) of the browser's cookie when it is ours, fresh and for P."""
        parts = request.cookies.get(STATE_COOKIE, "").split(".")
        if len(parts) != 5 or parts[0] != provider:
            return None
        _, state, nonce, stamp, mac = parts
        if not (_HEX.fullmatch(state) and _HEX.fullmatch(nonce) and stamp.isdigit()):
            return None
        body = ".".join(parts[:4])
        if not security.same(self.front.signin.sign("oauth-state", body), mac):
            return None
        if not 0 <= self.now() - int(stamp) <= STATE_TTL_S:
            return None
        return state, nonce

    # ------------------------------------------------------------ routes
    async def start(self, request: web.Request) -> web.StreamResponse:
        """Send the browser to the platform, remembering a fresh state in a cookie."""
        front = self.front
        provider = self._provider(request)
        if not front.logins.allow(request.remote or ""):
            return front.problem(request, 429, "web.error.busy")
        state, nonce = secrets.token_hex(16), secrets.token_hex(16)
        response = web.Response(status=302, headers={
            "Location": provider.authorize_url(self._callback_url(provider), state, nonce)})
        security.set_cookie(response, STATE_COOKIE, self._state_value(provider.name, state, nonce),
                            max_age=STATE_TTL_S, secure=front.signin.secure, path="/signin/")
        return response

    async def callback(self, request: web.Request) -> web.StreamResponse:
        """Redeem the platform's code; sign in, or let a member of several servers pick one."""
        front = self.front
        provider = self._provider(request)
        if not front.logins.allow(request.remote or ""):
            return front.problem(request, 429, "web.error.busy")
        kept = self._state(request, provider.name)
        query = request.query
        if kept is None or not security.same(kept[0], query.get("state", "")):
            return self._refused(request, 400, "signin.state")
        if query.get("error"):  # the member said no on the platform's page
            return self._refused(request, 403, "signin.declined")
        code = query.get("code", "")
        if not _CODE.fullmatch(code):
            return self._refused(request, 400, "signin.state")
        try:
            vouched = await provider.vouch(code, self._callback_url(provider), kept[1])
        except SignInRefused as exc:
            log.warning("web: %s sign-in refused: %s", provider.name, exc)
            front.metrics.sign_in("refused")
            status = 502 if exc.reason == "unreachable" else 403
            return self._refused(request, status, f"signin.{exc.reason}")
        if len(vouched) == 1:
            return await self._open(request, vouched[0])
        response = front.render(request, "signin_choose.html", provider=provider.name,
                                choices=[(v.workspace_name, self._sealed(v)) for v in vouched],
                                form_token=front.signin.form_token(kept[1]),
                                locale=vouched[0].locale)
        return response

    async def choose(self, request: web.Request) -> web.StreamResponse:
        """Sign in to the server the member picked among those the bot vouched for."""
        front = self.front
        provider = self._provider(request)
        if not front.logins.allow(request.remote or ""):
            return front.problem(request, 429, "web.error.busy")
        form = await front.form(request)
        kept = self._state(request, provider.name)
        if kept is None or not front.signin.form_token_holds(
                kept[1], form.get(security.CSRF_FIELD, "")):
            return front.problem(request, 403, "web.error.csrf")
        vouched = self._unsealed(form.get(CHOICE_FIELD, ""), provider.name)
        if vouched is None:
            return self._refused(request, 400, "signin.state")
        return await self._open(request, vouched)

    # ------------------------------------------------------------ helpers
    def _sealed(self, vouched: Vouched) -> str:
        body = _b64(json.dumps([asdict(vouched), int(self.now())]).encode())
        return f"{body}.{self.front.signin.sign('oauth-choice', body)}"

    def _unsealed(self, value: str, provider: str) -> Vouched | None:
        body, _, mac = value.partition(".")
        if not body or len(value) > 2000 or not security.same(
                self.front.signin.sign("oauth-choice", body), mac):
            return None
        try:
            fields, stamp = json.loads(_unb64(body))
            vouched = Vouched(**fields)
        except (ValueError, TypeError, binascii.Error):
            return None
        if vouched.platform != provider or not 0 <= self.now() - stamp <= STATE_TTL_S:
            return None
        return vouched

    async def _open(self, request: web.Request, vouched: Vouched) -> web.StreamResponse:
        front = self.front
        grant = WebGrant(platform=vouched.platform, workspace=vouched.workspace,
                         user=vouched.user, display_name=vouched.display_name,
                         locale=vouched.locale, is_admin=vouched.is_admin)
        opened = await front.call(front.signin.sign_in, grant)
        front.metrics.sign_in("refused" if opened is None else "signed_in")
        if opened is None:
            return front.problem(request, 429, "web.error.busy")
        cookie, session = opened
        response = web.Response(status=303, headers={"Location": "/"})
        lifetime = int((session.expires_at - session.created_at).total_seconds())
        security.set_cookie(response, security.SESSION_COOKIE, cookie, max_age=lifetime,
                            secure=front.signin.secure)
        response.del_cookie(STATE_COOKIE, path="/signin/")
        return response

    def _refused(self, request: web.Request, status: int, key: str) -> web.Response:
        response = self.front.render(request, "message.html", status=status,
                                     title_key="web.login.title", message_key=key)
        response.del_cookie(STATE_COOKIE, path="/signin/")
        return response
