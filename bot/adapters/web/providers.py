"""Who a platform says a signed-in browser is: Sign in with Slack and Discord's OAuth2.

The browser only carries a one-use code between the platform and us; every fact a session is
built on comes from a server: Slack's signed ``id_token`` (verified against Slack's published
keys, with our nonce and our client id in it), Discord's ``/users/@me`` for the code we redeemed
ourselves, and then the bot's own view of the member (Slack's ``users.info`` with the bot token of
that workspace; Discord's member and roles with the bot token), which alone decides the admin
right. Every value read from these answers is checked here, once, before anything uses it.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

log = logging.getLogger(__name__)

SLACK_ISSUER = "https://slack.com"
DISCORD_API = "https://discord.com/api/v10"
HTTP_TIMEOUT_S = 10.0
KEYS_TTL_S = 3600.0  # Slack rotates its signing keys rarely; an unknown kid refetches at once
MAX_ANSWER_BYTES = 256 * 1024
NAME_CHARS = 64
# Discord permission bits that make a member an admin of the quiz, as chat decides it.
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5

_SLACK_ID = re.compile(r"[A-Z0-9]{2,32}")
_SNOWFLAKE = re.compile(r"[0-9]{1,20}")
_PERMISSIONS = re.compile(r"[0-9]{1,24}")


class SignInRefused(Exception):
    """The platform did not vouch for this browser; ``reason`` is a sentence key's last part."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


@dataclass(frozen=True)
class Vouched:
    """A member as the platform's servers and the bot report them: all a session needs."""

    platform: str
    workspace: str
    user: str
    display_name: str
    locale: str
    is_admin: bool
    workspace_name: str = ""


def _text(value: object, limit: int = NAME_CHARS) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _id(value: object, pattern: re.Pattern[str], what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise SignInRefused("refused", f"{what} is not an id")
    return value


def our_locale(value: object) -> str:
    """Return our language for a platform's locale tag (zh-CN for Simplified Chinese)."""
    tag = value.replace("_", "-").lower() if isinstance(value, str) else ""
    return "zh-CN" if tag in ("zh-cn", "zh-hans", "zh-sg") else "en"


class Http:
    """The few calls to the platforms' servers: bounded answers, JSON objects only."""

    def __init__(self, timeout_s: float = HTTP_TIMEOUT_S) -> None:
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self.timeout)
        return self._session

    async def json(self, method: str, url: str, *, status_ok: tuple[int, ...] = (200,),
                   **options: Any) -> tuple[int, dict[str, Any]]:
        """Return the status and JSON object of one call; raise SignInRefused when unusable."""
        try:
            async with self._client().request(method, url, allow_redirects=False,
                                              **options) as response:
                body = await response.content.read(MAX_ANSWER_BYTES + 1)
                status = response.status
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise SignInRefused("unreachable", f"{type(exc).__name__} from {url}") from exc
        if status not in status_ok:
            raise SignInRefused("refused", f"{url} answered {status}")
        if len(body) > MAX_ANSWER_BYTES:
            raise SignInRefused("refused", f"{url} answered too much")
        try:
            value = json.loads(body)
        except ValueError as exc:
            raise SignInRefused("refused", f"{url} answered no JSON") from exc
        if not isinstance(value, dict):
            raise SignInRefused("refused", f"{url} answered no object")
        return status, value

    async def close(self) -> None:
        """Close the connection pool."""
        if self._session is not None:
            await self._session.close()


class Provider:
    """One platform's sign-in: where the browser goes, and how its code becomes a member."""

    name = ""
    http: Http

    def authorize_url(self, redirect_uri: str, state: str, nonce: str) -> str:
        """Return the platform's page the browser is sent to."""
        raise NotImplementedError

    async def vouch(self, code: str, redirect_uri: str, nonce: str) -> list[Vouched]:
        """Redeem the code; return the member in each workspace the bot vouches for them."""
        raise NotImplementedError


# ---------------------------------------------------------------- Slack
SlackPerson = Callable[[str, str, str], Awaitable[tuple[str, bool, str | None] | None]]


class SlackSignIn(Provider):
    """Sign in with Slack (OpenID Connect): the id_token names the team and the member.

    ``person(team, user, name)`` is the bot's own view of the member: their name, admin right
    and language from users.info with that team's bot token; None when the bot is not in the
    team (nobody signs in to a workspace torchquiz does not serve).
    """

    name = "slack"

    def __init__(self, http: Http, client_id: str, client_secret: str, api_url: str,
                 person: SlackPerson, *, now: Callable[[], float] = time.time) -> None:
        self.http = http
        self.client_id = client_id
        self.client_secret = client_secret
        self.api_url = api_url.rstrip("/") + "/"
        parts = urlsplit(self.api_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.person = person
        self.now = now
        self._keys: tuple[float, dict[str, Any]] | None = None

    def authorize_url(self, redirect_uri: str, state: str, nonce: str) -> str:
        """Return Slack's OpenID Connect consent page for this state and nonce."""
        query = urlencode({"response_type": "code", "scope": "openid profile",
                           "client_id": self.client_id, "state": state, "nonce": nonce,
                           "redirect_uri": redirect_uri})
        return f"{self.origin}/openid/connect/authorize?{query}"

    async def _key_set(self, refresh: bool = False) -> dict[str, Any]:
        if self._keys is None or refresh or self.now() - self._keys[0] > KEYS_TTL_S:
            _, keys = await self.http.json("GET", f"{self.origin}/openid/connect/keys")
            if not isinstance(keys.get("keys"), list):
                raise SignInRefused("refused", "Slack's key set has no keys")
            self._keys = (self.now(), keys)
        return self._keys[1]

    async def _claims(self, id_token: str, nonce: str) -> dict[str, Any]:
        expected = jwt.JWTClaimsRegistry(
            leeway=60, iss={"essential": True, "value": SLACK_ISSUER},
            aud={"essential": True, "value": self.client_id},
            exp={"essential": True}, nonce={"essential": True, "value": nonce})
        for refresh in (False, True):  # a key Slack rotated in since we fetched the set
            try:
                keys = KeySet.import_key_set(await self._key_set(refresh))  # type: ignore[arg-type]
                # RS256 only, the one algorithm Slack signs with: never "none", never HS256.
                token = jwt.decode(id_token, keys, algorithms=["RS256"])
                expected.validate(token.claims)
                return dict(token.claims)
            except InvalidKeyIdError as exc:
                if refresh:
                    raise SignInRefused("refused", f"id_token key: {exc}") from exc
            except (JoseError, ValueError) as exc:
                raise SignInRefused("refused", f"id_token: {type(exc).__name__}") from exc
        raise SignInRefused("refused", "id_token")  # pragma: no cover - the loop returns

    async def vouch(self, code: str, redirect_uri: str, nonce: str) -> list[Vouched]:
        """Redeem the code for an id_token, verify it, and ask the bot who the member is."""
        _, answer = await self.http.json(
            "POST", f"{self.api_url}openid.connect.token",
            data={"client_id": self.client_id, "client_secret": self.client_secret,
                  "code": code, "redirect_uri": redirect_uri})
        token = answer.get("id_token")
        if answer.get("ok") is not True or not isinstance(token, str) or len(token) > 8192:
            raise SignInRefused("refused", f"openid.connect.token: {_text(answer.get('error'))}")
        claims = await self._claims(token, nonce)
        team = _id(claims.get("https://slack.com/team_id"), _SLACK_ID, "team_id")
        user = _id(claims.get("https://slack.com/user_id"), _SLACK_ID, "user_id")
        shown = _text(claims.get("name")) or user
        found = await self.person(team, user, shown)
        if found is None:
            raise SignInRefused("not_installed", f"team {team}")
        name, is_admin, locale = found
        return [Vouched("slack", team, user, name[:NAME_CHARS] or user,
                        our_locale(locale or claims.get("locale")), is_admin)]


# ---------------------------------------------------------------- Discord
class DiscordSignIn(Provider):
    """Discord's OAuth2 with the ``identify`` scope, then the bot checks each server.

    ``servers(user)`` lists the servers (by id) where the member has played, from our own
    database; the bot then asks Discord, with its own token, whether the member is still there
    and what their roles allow. Nothing the browser sends decides a server or a right.
    """

    name = "discord"

    def __init__(self, http: Http, client_id: str, client_secret: str, bot_token: str,
                 servers: Callable[[str], Awaitable[list[str]]],
                 api_url: str | None = None) -> None:
        self.http = http
        self.client_id = client_id
        self.client_secret = client_secret
        self.bot_token = bot_token
        self.servers = servers
        self.api_url = (api_url or DISCORD_API).rstrip("/")
        parts = urlsplit(self.api_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"

    def authorize_url(self, redirect_uri: str, state: str, nonce: str) -> str:
        """Return Discord's consent page (scope identify) for this state."""
        query = urlencode({"response_type": "code", "scope": "identify",
                           "client_id": self.client_id, "state": state,
                           "redirect_uri": redirect_uri, "prompt": "none"})
        return f"{self.origin}/oauth2/authorize?{query}"

    async def vouch(self, code: str, redirect_uri: str, nonce: str) -> list[Vouched]:
        """Redeem the code, read who the member is, and check each of their servers."""
        basic = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        _, answer = await self.http.json(
            "POST", f"{self.api_url}/oauth2/token", headers={"Authorization": f"Basic {basic}"},
            data={"grant_type": "authorization_code", "code": code,
                  "redirect_uri": redirect_uri})
        access = answer.get("access_token")
        scopes = _text(answer.get("scope"), 200).split()
        if not isinstance(access, str) or not access or len(access) > 512:
            raise SignInRefused("refused", "no access token")
        if "identify" not in scopes:
            raise SignInRefused("refused", "the identify scope was not granted")
        _, me = await self.http.json("GET", f"{self.api_url}/users/@me",
                                     headers={"Authorization": f"Bearer {access}"})
        user = _id(me.get("id"), _SNOWFLAKE, "user id")
        name = _text(me.get("global_name")) or _text(me.get("username")) or user
        locale = our_locale(me.get("locale"))
        found = []
        for server in (await self.servers(user))[:25]:
            member = await self._member(server, user)
            if member is not None:
                nick, is_admin, server_name = member
                found.append(Vouched("discord", server, user, nick or name, locale, is_admin,
                                     server_name or server))
        if not found:
            raise SignInRefused("no_server", f"user {user}")
        return found

    async def _bot(self, path: str, *, missing_ok: bool = False) -> dict[str, Any] | None:
        status, value = await self.http.json(
            "GET", f"{self.api_url}{path}", headers={"Authorization": f"Bot {self.bot_token}"},
            status_ok=(200, 403, 404) if missing_ok else (200,))
        return value if status == 200 else None

    async def _member(self, server: str, user: str) -> tuple[str, bool, str] | None:
        """Return the member's nickname, admin right and the server's name (None: not there)."""
        _id(server, _SNOWFLAKE, "server id")
        member = await self._bot(f"/guilds/{server}/members/{user}", missing_ok=True)
        if member is None:
            return None
        guild = await self._bot(f"/guilds/{server}", missing_ok=True)
        if guild is None:
            return None  # the bot left the server since
        roles = member.get("roles")
        mine = {r for r in roles if isinstance(r, str)} if isinstance(roles, list) else set()
        allowed = 0
        for role in guild.get("roles") or []:
            if not isinstance(role, dict):
                continue
            # @everyone's id is the server's; every member has it without listing it.
            if role.get("id") == server or role.get("id") in mine:
                bits = role.get("permissions")
                if isinstance(bits, str) and _PERMISSIONS.fullmatch(bits):
                    allowed |= int(bits)
        owner = guild.get("owner_id") == user
        is_admin = owner or bool(allowed & (ADMINISTRATOR | MANAGE_GUILD))
        return _text(member.get("nick")), is_admin, _text(guild.get("name"), 100)
