"""A local stand-in for Slack's OpenID Connect and Discord's OAuth2 servers (127.0.0.1 only).

It plays the parts we cannot reach: the consent pages (which send the browser straight back
with a code), the token endpoints, Slack's published keys and users.info, and Discord's
``/users/@me``, members and servers. A test arranges who consents and how the server lies
(a token for another app, another nonce, a key Slack never published, an expired token).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from aiohttp import web
from aiohttp.test_utils import TestServer
from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "fake-client-secret"
BOT_TOKENS = {"T1": "xoxb-t1", "T2": "xoxb-t2"}
DISCORD_BOT = "discord-bot-token"


def _key(kid: str) -> Any:
    return RSAKey.generate_key(2048, parameters={"kid": kid})


@dataclass
class SlackUser:
    team: str = "T1"
    user: str = "U1"
    name: str = "Ada"
    is_admin: bool = False
    locale: str = "en-US"


@dataclass
class DiscordUser:
    id: str = "4242"
    username: str = "ada"
    locale: str = "en-US"
    # server id -> (role ids, nick); a server not here answers 404 for the member
    member_of: dict[str, tuple[list[str], str]] = field(default_factory=dict)


@dataclass
class FakeOAuth:
    """The fake's state: who consents next, and which lie the token endpoint tells."""

    slack_user: SlackUser = field(default_factory=SlackUser)
    discord_user: DiscordUser = field(default_factory=DiscordUser)
    # "aud", "nonce", "key", "expired", "alg-none", "iss": the one thing wrong in the id_token
    lie: str = ""
    discord_scope: str = "identify"
    # server id -> {"name", "owner_id", "roles": [{"id", "permissions"}]}
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.key = _key("k1")
        self.other_key = _key("k2")
        self._codes: dict[str, dict[str, Any]] = {}
        self.server: TestServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return str(self.server.make_url("")).rstrip("/")

    async def start(self) -> FakeOAuth:
        app = web.Application()
        app.router.add_get("/openid/connect/authorize", self._slack_authorize)
        app.router.add_get("/openid/connect/keys", self._slack_keys)
        app.router.add_post("/api/openid.connect.token", self._slack_token)
        app.router.add_route("*", "/api/users.info", self._slack_users_info)
        app.router.add_get("/oauth2/authorize", self._discord_authorize)
        app.router.add_post("/api/v10/oauth2/token", self._discord_token)
        app.router.add_get("/api/v10/users/@me", self._discord_me)
        app.router.add_get("/api/v10/guilds/{guild}/members/{user}", self._discord_member)
        app.router.add_get("/api/v10/guilds/{guild}", self._discord_guild)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self

    async def close(self) -> None:
        if self.server is not None:
            await self.server.close()

    # ------------------------------------------------------------ Slack
    def _back(self, request: web.Request, data: dict[str, Any]) -> web.Response:
        query = request.query
        code = secrets.token_hex(8)
        self._codes[code] = {**data, "nonce": query.get("nonce", ""),
                             "redirect_uri": query.get("redirect_uri", "")}
        target = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
        return web.Response(status=302, headers={"Location": target})

    async def _slack_authorize(self, request: web.Request) -> web.Response:
        self.calls.append("slack.authorize")
        assert request.query["client_id"] == CLIENT_ID
        assert "openid" in request.query["scope"].split()
        return self._back(request, {"slack": self.slack_user})

    async def _slack_keys(self, _request: web.Request) -> web.Response:
        self.calls.append("slack.keys")
        return web.json_response({"keys": [self.key.as_dict(private=False)]})

    def id_token(self, who: SlackUser, nonce: str) -> str:
        now = int(time.time())
        claims = {"iss": "https://slack.com", "aud": CLIENT_ID, "sub": who.user,
                  "iat": now, "exp": now + 3600, "nonce": nonce, "name": who.name,
                  "locale": who.locale, "https://slack.com/team_id": who.team,
                  "https://slack.com/user_id": who.user}
        key, alg = self.key, "RS256"
        if self.lie == "aud":
            claims["aud"] = "someone-elses-app"
        elif self.lie == "nonce":
            claims["nonce"] = "0" * 32
        elif self.lie == "iss":
            claims["iss"] = "https://evil.example"
        elif self.lie == "expired":
            claims["iat"], claims["exp"] = now - 7200, now - 3600
        elif self.lie == "key":
            key = self.other_key
        if self.lie == "alg-none":
            import base64
            import json

            def part(value: dict[str, Any]) -> str:
                raw = json.dumps(value).encode()
                return base64.urlsafe_b64encode(raw).decode().rstrip("=")

            return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."
        return jwt.encode({"alg": alg, "kid": key.kid}, claims, key)

    async def _slack_token(self, request: web.Request) -> web.Response:
        self.calls.append("slack.token")
        form = await request.post()
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return web.json_response({"ok": False, "error": "invalid_client"})
        grant = self._codes.pop(str(form.get("code")), None)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
            return web.json_response({"ok": False, "error": "invalid_code"})
        return web.json_response({"ok": True, "access_token": "xoxp-user",
                                  "id_token": self.id_token(grant["slack"], grant["nonce"])})

    async def _slack_users_info(self, request: web.Request) -> web.Response:
        self.calls.append("slack.users.info")
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        team = next((t for t, v in BOT_TOKENS.items() if v == token), None)
        asked = request.query.get("user") or (await request.post()).get("user")
        who = self.slack_user
        if team != who.team or asked != who.user:
            return web.json_response({"ok": False, "error": "user_not_found"})
        return web.json_response({"ok": True, "user": {
            "id": who.user, "name": who.name.lower(), "is_admin": who.is_admin,
            "locale": who.locale, "profile": {"display_name": who.name}}})

    # ------------------------------------------------------------ Discord
    async def _discord_authorize(self, request: web.Request) -> web.Response:
        self.calls.append("discord.authorize")
        assert request.query["scope"] == "identify"
        return self._back(request, {"discord": self.discord_user})

    async def _discord_token(self, request: web.Request) -> web.Response:
        self.calls.append("discord.token")
        form = await request.post()
        grant = self._codes.pop(str(form.get("code")), None)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
            return web.json_response({"error": "invalid_grant"}, status=400)
        token = f"access-{grant['discord'].id}"
        return web.json_response({"access_token": token, "token_type": "Bearer",
                                  "scope": self.discord_scope, "expires_in": 604800})

    async def _discord_me(self, request: web.Request) -> web.Response:
        self.calls.append("discord.me")
        who = self.discord_user
        if request.headers.get("Authorization") != f"Bearer access-{who.id}":
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        return web.json_response({"id": who.id, "username": who.username,
                                  "global_name": who.username.title(), "locale": who.locale})

    def _bot_only(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {DISCORD_BOT}":
            raise web.HTTPUnauthorized

    async def _discord_member(self, request: web.Request) -> web.Response:
        self.calls.append("discord.member")
        self._bot_only(request)
        who = self.discord_user
        guild, user = request.match_info["guild"], request.match_info["user"]
        if user != who.id or guild not in who.member_of or guild not in self.servers:
            return web.json_response({"message": "Unknown Member"}, status=404)
        roles, nick = who.member_of[guild]
        return web.json_response({"user": {"id": who.id}, "roles": roles, "nick": nick or None})

    async def _discord_guild(self, request: web.Request) -> web.Response:
        self.calls.append("discord.guild")
        self._bot_only(request)
        server = self.servers.get(request.match_info["guild"])
        if server is None:
            return web.json_response({"message": "Unknown Guild"}, status=404)
        return web.json_response({"id": request.match_info["guild"], **server})
