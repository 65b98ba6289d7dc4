"""/quiz-pack on Slack: a modal with a file input to add a pack, and list, remove, export.

``/quiz-pack add`` opens a modal whose one block is a ``file_input`` (one .yaml/.yml file); its
submission is acknowledged at once (listeners.py) and handled here: ``files.info`` says the
file's name, size and ``url_private_download``, the desk refuses a wrong name or a declared size
over the limit before a byte is fetched, and the file is downloaded with the bot token only from
the Slack file host the client is configured for (files.slack.com, or SLACK_API_URL's own host
for a local fake), never more than the limit plus one byte. The sandbox's report arrives as an
ephemeral message where the modal was opened. ``export`` uploads the YAML file into the admin's
direct messages with the app (files_upload_v2); a private reply cannot carry a file on Slack.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.chat.download import DownloadRefused, fetch_bounded
from bot.adapters.slack import replies
from bot.adapters.slack.blocks import plain
from bot.adapters.slack.requests import Request, is_slack_id
from bot.adapters.slack.views import TITLE_CHARS, Origin
from bot.core.desk import PackReply
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import Identity
from content.packs import MAX_PACK_BYTES

if TYPE_CHECKING:
    from bot.adapters.chat.front import ChatFront

log = logging.getLogger(__name__)

PACK_CALLBACK = "tq:pack-add"
PACK_BLOCK = "pack_file"
SLACK_API_HOSTS = frozenset({"slack.com", "slack-gov.com"})
SLACK_FILE_ORIGINS = frozenset({("https", "files.slack.com")})
NAME_CHARS = 200


def file_origins(api_url: str) -> frozenset[tuple[str, str]]:
    """Return the one file host a pack may be downloaded from, for the client's API base URL.

    Slack's own API serves files from files.slack.com; a local fake or a proxy named by
    SLACK_API_URL serves them from its own host. The bot token goes nowhere else.
    """
    base = urlsplit(api_url)
    host = (base.hostname or "").lower()
    if host in SLACK_API_HOSTS or host.endswith(tuple(f".{h}" for h in SLACK_API_HOSTS)):
        return SLACK_FILE_ORIGINS
    return frozenset({(base.scheme.lower(), base.netloc.lower())})


def pack_modal(origin: Origin, locale: str) -> dict[str, Any]:
    """Return the modal that asks for one pack file."""
    return {
        "type": "modal", "callback_id": PACK_CALLBACK, "private_metadata": origin.dump(),
        "title": plain(t(locale, "pack.modal.title"), TITLE_CHARS),
        "submit": plain(t(locale, "pack.modal.submit"), 24),
        "close": plain(t(locale, "ui.cancel"), 24),
        "blocks": [{"type": "input", "block_id": PACK_BLOCK,
                    "label": plain(t(locale, "pack.modal.file"), 2000),
                    "element": {"type": "file_input", "action_id": PACK_BLOCK,
                                "filetypes": ["yaml", "yml"], "max_files": 1}}],
    }


def submitted_file(view: dict[str, Any]) -> str:
    """Return the id of the file chosen in the pack modal, or "" (ids are Slack's or nothing)."""
    values = view.get("state", {}).get("values", {}) if isinstance(view, dict) else {}
    block = values.get(PACK_BLOCK) if isinstance(values, dict) else None
    state = block.get(PACK_BLOCK) if isinstance(block, dict) else None
    files = state.get("files") if isinstance(state, dict) else None
    first = files[0] if isinstance(files, list) and files else None
    file_id = first.get("id") if isinstance(first, dict) else None
    return file_id if isinstance(file_id, str) and is_slack_id(file_id) else ""


class SlackPacks:
    """The app's answers to /quiz-pack and to the pack modal's submission."""

    def __init__(self, front: ChatFront,
                 origins: frozenset[tuple[str, str]] = SLACK_FILE_ORIGINS) -> None:
        self.front = front
        self.origins = origins

    async def command(self, client: AsyncWebClient, request: Request, who: Identity,
                      text: str) -> None:
        """Handle /quiz-pack [add | list | remove ID | export ID] (after the ack)."""
        if text.strip().lower() == "add":
            refusal = await self.front.pack_refusal(who)
            if refusal is not None:
                if refusal.message is not None:
                    await replies.reply(client, request, refusal.message, refusal.locale)
                return
            origin = Origin(request.channel, request.channel_name, request.response_url)
            await client.views_open(trigger_id=request.trigger_id,
                                    view=pack_modal(origin, who.locale or "en"))
            return
        answer = await self.front.pack_command(who, text)
        await self._send(client, request, answer)

    async def _send(self, client: AsyncWebClient, request: Request, answer: PackReply) -> None:
        reply = answer.reply
        message = reply.message
        if message is None:
            return
        if answer.file_name:
            if await self._file_by_dm(client, request, answer.file_name, answer.file_data):
                message = Message(body=t(reply.locale, "pack.exported.dm",
                                         pack=answer.pack_id, version=answer.version,
                                         file=answer.file_name))
            else:
                message = Message(body=t(reply.locale, "pack.export_failed"), tone=Tone.WARNING)
        await replies.reply(client, request, message, reply.locale)

    @staticmethod
    async def _file_by_dm(client: AsyncWebClient, request: Request, name: str,
                          data: bytes) -> bool:
        try:
            opened = await client.conversations_open(users=request.user)
            im = str((opened.get("channel") or {}).get("id") or "")
            if not im.startswith("D"):  # only ever a direct message
                return False
            await client.files_upload_v2(channel=im, file=data, filename=name, title=name)
        except SlackApiError as exc:
            log.warning("pack export not sent by DM team=%s user=%s: %s", request.team,
                        request.user, exc.response.get("error"))
            return False
        return True

    async def submitted(self, client: AsyncWebClient, request: Request, who: Identity,
                        view: dict[str, Any]) -> None:
        """Handle the pack modal's submission: fetch the file, check it, report privately."""
        locale = who.locale or "en"
        # Who may add is asked first: a forged submission makes no files.info call at all.
        refusal = await self.front.pack_refusal(who)
        if refusal is not None:
            if refusal.message is not None:
                await replies.ephemeral(client, request, refusal.message, refusal.locale)
            return
        file_id = submitted_file(view)
        if not file_id:
            await self._warn(client, request, locale, "pack.no_file")
            return
        found = await self._file_info(client, request, file_id)
        if found is None:
            await self._warn(client, request, locale, "pack.download_failed")
            return
        name, size, url = found
        refusal = await self.front.pack_refusal(who, name, size)
        if refusal is not None:
            if refusal.message is not None:
                await replies.ephemeral(client, request, refusal.message, refusal.locale)
            return
        data = await self._download(client, request, url)
        if data is None:
            await self._warn(client, request, locale, "pack.download_failed")
            return
        await replies.ephemeral(client, request, Message(body=t(locale, "pack.checking")),
                                locale)
        reply = await self.front.pack_add(who, name, data)
        if reply.message is not None:
            await replies.ephemeral(client, request, reply.message, reply.locale)

    @staticmethod
    async def _warn(client: AsyncWebClient, request: Request, locale: str, key: str) -> None:
        await replies.ephemeral(client, request, Message(body=t(locale, key), tone=Tone.WARNING),
                                locale)

    @staticmethod
    async def _file_info(client: AsyncWebClient, request: Request,
                         file_id: str) -> tuple[str, int, str] | None:
        try:
            answer = await client.files_info(file=file_id)
        except SlackApiError as exc:
            log.warning("pack file %s not found team=%s user=%s: %s", file_id, request.team,
                        request.user, exc.response.get("error"))
            return None
        file = answer.get("file")
        if not isinstance(file, dict):
            return None
        name, size, url = file.get("name"), file.get("size"), file.get("url_private_download")
        if not (isinstance(name, str) and isinstance(size, int) and isinstance(url, str)):
            return None
        return name[:NAME_CHARS], size, url

    async def _download(self, client: AsyncWebClient, request: Request,
                        url: str) -> bytes | None:
        try:
            # The bot token goes with the request, so only to the configured file host.
            return await fetch_bounded(url, allowed=self.origins, limit=MAX_PACK_BYTES,
                                       headers={"Authorization": f"Bearer {client.token}"})
        except DownloadRefused as exc:
            log.warning("slack pack file refused team=%s user=%s: %s", request.team,
                        request.user, exc)
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("slack pack file not fetched team=%s user=%s: %r", request.team,
                        request.user, exc)
        return None
