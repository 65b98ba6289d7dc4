"""Who a member is, as Slack reports it: the name they go by, admin rights, their language.

``users.info`` answers all three. Its answer is kept a short while per (workspace, user), so a
burst of answers at 09:00 costs one call per member rather than one per click; an admin who
loses the role keeps it here for at most that long. When Slack cannot be asked, the name the
request carried is used and nobody is an admin.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

CACHE_SECONDS = 120.0
CACHE_SIZE = 10_000
NAME_CHARS = 64


@dataclass(frozen=True)
class Person:
    """A member's name, whether they may change quiz settings, and their Slack language."""

    user_id: str
    name: str
    is_admin: bool = False
    locale: str | None = None


def our_locale(slack_locale: str | None) -> str | None:
    """Return our locale for a Slack one ("zh-CN" for Simplified Chinese, else English)."""
    if not slack_locale:
        return None
    return "zh-CN" if slack_locale.replace("_", "-").lower() in ("zh-cn", "zh-hans") else "en"


class People:
    """Look members up with users.info, remembering answers for a short while."""

    def __init__(self, admins: frozenset[str] = frozenset(), *,
                 ttl_s: float = CACHE_SECONDS, now: Callable[[], float] = time.monotonic) -> None:
        self.admins = admins
        self.ttl_s = ttl_s
        self._now = now
        self._cache: OrderedDict[tuple[str, str], tuple[float, Person]] = OrderedDict()

    async def person(self, client: AsyncWebClient, team: str, user_id: str,
                     fallback_name: str) -> Person:
        """Return who ``user_id`` is in ``team``."""
        key = (team, user_id)
        cached = self._cache.get(key)
        if cached is not None and self._now() - cached[0] < self.ttl_s:
            return cached[1]
        try:
            answer = await client.users_info(user=user_id, include_locale=True)
        except SlackApiError as exc:
            log.warning("users.info failed team=%s user=%s: %s", team, user_id,
                        exc.response.get("error"))
            return Person(user_id, (fallback_name or user_id)[:NAME_CHARS],
                          user_id in self.admins)
        found = self.from_answer(user_id, answer.data if isinstance(answer.data, dict) else {},
                                 fallback_name)
        self._cache[key] = (self._now(), found)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return found

    def from_answer(self, user_id: str, answer: dict[str, object], fallback_name: str) -> Person:
        """Return who ``user_id`` is from users.info's answer (chat and the web page agree)."""
        user = answer.get("user")
        user = user if isinstance(user, dict) else {}
        profile = user.get("profile")
        profile = profile if isinstance(profile, dict) else {}
        name = (profile.get("display_name") or profile.get("real_name") or user.get("real_name")
                or user.get("name") or fallback_name or user_id)
        role = bool(user.get("is_admin") or user.get("is_owner") or user.get("is_primary_owner"))
        locale = user.get("locale")
        return Person(user_id, str(name)[:NAME_CHARS], role or user_id in self.admins,
                      our_locale(locale if isinstance(locale, str) else None))
