"""The platform-neutral message model the core returns and every adapter renders."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Tone(StrEnum):
    """How a message should look: adapters map this to colours or prefixes."""

    INFO = "info"
    SUCCESS = "success"
    WARNING = "warning"
    ERROR = "error"


class Audience(StrEnum):
    """Who sees a message: the whole channel, only the member who acted, or the round's thread."""

    CHANNEL = "channel"
    PRIVATE = "private"
    THREAD = "thread"


@dataclass(frozen=True)
class Button:
    """A clickable action; ``action_id`` comes back to the core unchanged when clicked."""

    action_id: str
    label: str


@dataclass(frozen=True)
class Form:
    """A free-form answer a member can open and fill in (a chat modal; the console's /answer).

    ``action_id`` comes back when the member asks to open it; ``code`` says whether it takes
    lines of code (a tall box, prefilled with the starter) or a short text.
    """

    action_id: str
    label: str
    title: str
    field_label: str
    code: bool = False
    prefill: str = ""
    max_chars: int = 4000


@dataclass(frozen=True)
class Message:
    """A titled block of text with optional code, fields, buttons and an image.

    ``body``, ``code`` and the rest are the bot's own text. What a member's code produced
    travels apart, in ``detail`` (one line: the verdict's explanation, which quotes their error
    text) and ``output`` (what it printed), because every adapter must show those two only
    through the one sanitiser, ``safetext.inert``.
    """

    title: str = ""
    body: str = ""
    code: str | None = None
    detail: str = ""
    output: str | None = None
    fields: tuple[tuple[str, str], ...] = ()
    buttons: tuple[Button, ...] = ()
    footer: str = ""
    tone: Tone = Tone.INFO
    audience: Audience = Audience.PRIVATE
    round_id: int | None = None  # the round a post or its thread belongs to
    image_png: bytes | None = None
    image_name: str = ""
    image_alt: str = ""  # what the image shows, for screen readers (Discord, Slack alt text)
    form: Form | None = None


def answer_action(round_id: int, key: str) -> str:
    """Return the action id of a choice button on a daily round."""
    return f"tq:answer:{round_id}:{key}"


def practice_action(item_id: str, key: str) -> str:
    """Return the action id of a choice button on a practice question."""
    return f"tq:practice:{item_id}:{key}"


def form_action(round_id: int) -> str:
    """Return the action id that opens the answer form of a daily round."""
    return f"tq:form:{round_id}:open"


def practice_form_action(item_id: str) -> str:
    """Return the action id that opens the answer form of a practice question."""
    return f"tq:pform:{item_id}:open"


def share_action(card_id: str) -> str:
    """Return the action id that posts a concept card to the whole channel."""
    return f"tq:share:{card_id}:card"


ACTION_KINDS = ("answer", "practice", "form", "pform", "share")


def parse_action(action_id: str) -> tuple[str, str, str] | None:
    """Split an action id into (kind, target, key), or None if it is not one of ours."""
    parts = action_id.split(":")
    if len(parts) != 4 or parts[0] != "tq" or parts[1] not in ACTION_KINDS:
        return None
    return parts[1], parts[2], parts[3]


def marks_round(action_id: str, round_id: int) -> bool:
    """Say whether an action id belongs to a daily round's post (its choices or its form).

    Every open round's post carries one, so a publisher recognises the round's own message
    in a channel's history by it.
    """
    parsed = parse_action(action_id)
    return parsed is not None and parsed[0] in ("answer", "form") and parsed[1] == str(round_id)
