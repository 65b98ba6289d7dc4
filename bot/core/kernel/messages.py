"""The platform-neutral message model the core returns and every adapter renders."""

from __future__ import annotations

import re
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
    # A pick-one list above the text field (value, label), e.g. a report's reason: chat
    # platforms draw a select menu, the console takes the value as its first word.
    choices: tuple[tuple[str, str], ...] = ()
    choice_label: str = ""
    optional: bool = False  # the text field may stay empty (a report's note)


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
    # Members' own words quoted by the bot (a report's note, a common wrong answer), each with
    # the bot's label: (label, member text). Shown only through ``safetext.inert``, one line each.
    quotes: tuple[tuple[str, str], ...] = ()


def answer_action(round_id: int, key: str) -> str:
    """Return the action id of a choice button on a daily round."""
    return f"tq:answer:{round_id}:{key}"


def practice_action(item_id: str, key: str) -> str:
    """Return the action id of a choice button on a practice question."""
    return f"tq:practice:{item_id}:{key}"


def practice_skip_action(item_id: str) -> str:
    """Return the action id of a practice question's Skip button (a miss, then the next one)."""
    return f"tq:pskip:{item_id}:skip"


def form_action(round_id: int) -> str:
    """Return the action id that opens the answer form of a daily round."""
    return f"tq:form:{round_id}:open"


def practice_form_action(item_id: str) -> str:
    """Return the action id that opens the answer form of a practice question."""
    return f"tq:pform:{item_id}:open"


def share_action(card_id: str) -> str:
    """Return the action id that posts a concept card to the whole channel."""
    return f"tq:share:{card_id}:card"


def remind_action(key: str) -> str:
    """Return the action id of a reminder's button: ``start``, ``snooze`` or ``stop``."""
    return f"tq:remind:reviews:{key}"


def forget_action(owner_tag: str, key: str) -> str:
    """Return the action id of a "forget me" button: ``yes`` deletes, ``no`` cancels.

    ``owner_tag`` (bot.core.people.service.owner_tag) names whom the button was offered to;
    what gets deleted is always the clicking member, never an id read from the button.
    """
    return f"tq:forget:{owner_tag}:{key}"


def report_action(round_id: int) -> str:
    """Return the action id that opens the report form for a daily round's question."""
    return f"tq:report:{round_id}:open"


def practice_report_action(item_id: str) -> str:
    """Return the action id that opens the report form for a practice question."""
    return f"tq:preport:{item_id}:open"


def unpause_action(item_id: str) -> str:
    """Return the action id of an admin's "unpause" button in /quiz-insights (every version)."""
    return f"tq:unpause:{item_id}:item"


def live_join_action(session_id: int) -> str:
    """Return the action id of a live session's Join button."""
    return f"tq:ljoin:{session_id}:join"


def live_rank_action(session_id: int) -> str:
    """Return the action id of a reveal's "My rank" button: the clicker's rank, privately."""
    return f"tq:lrank:{session_id}:rank"


def live_answer_action(session_id: int, position: int, key: str) -> str:
    """Return the action id of a choice button on a live session's question."""
    return f"tq:live:{session_id}-{position}:{key}"


def live_form_action(session_id: int, position: int) -> str:
    """Return the action id that opens the answer form of a live session's text question."""
    return f"tq:lform:{session_id}-{position}:open"


def speed_form_action(item_id: str) -> str:
    """Return the action id that opens the code form of a speed challenge (``/quiz speed``)."""
    return f"tq:sform:{item_id}:open"


def speed_review_action(verdict_id: int, key: str) -> str:
    """Return the action id of an admin's ``release`` or ``reject`` button on a held verdict."""
    return f"tq:sheld:{verdict_id}:{key}"


ACTION_KINDS = (
    "answer", "practice", "pskip", "form", "pform", "share", "forget", "report", "preport",
    "unpause", "remind", "live", "ljoin", "lform", "lrank", "sform", "sheld",
)
SUBMIT_KINDS = ("submit", "psubmit", "reported", "preported", "lsubmit", "ssubmit")
# Their target is a round id; the others an item's (or, for forget, an owner tag).
ROUND_KINDS = ("answer", "form", "submit", "report", "reported")
# What a form opened by each kind comes back as when submitted.
_SUBMIT_OF = {"form": "submit", "pform": "psubmit", "report": "reported", "preport": "preported",
              "lform": "lsubmit", "sform": "ssubmit"}
# Their target is a live session's question, SESSION-POSITION; ljoin's and lrank's a session.
LIVE_KINDS = ("live", "lform", "lsubmit")
MAX_ROUND_ID = 2**31 - 1  # the rounds table's integer key
_ROUND_ID = re.compile(r"[1-9][0-9]{0,9}")
_ITEM_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
_KEY = re.compile(r"[A-Za-z]{1,16}")
_OWNER_TAG = re.compile(r"[0-9a-f]{16}")
_LIVE_TARGET = re.compile(r"([1-9][0-9]{0,9})-(0|[1-9][0-9]?)")
_FORGET_KEYS = ("yes", "no")
SPEED_REVIEW_KEYS = ("release", "reject")
_FIXED_KEYS = {"ljoin": "join", "lrank": "rank"}  # kinds whose key is always the same word
_MAX_ID_CHARS = 255  # Slack's action_id limit; Discord's custom_id is 100


def round_id_of(target: str) -> int | None:
    """Return the round id an action target names: ASCII digits within the key's range."""
    if _ROUND_ID.fullmatch(target) is None:
        return None
    value = int(target)
    return value if value <= MAX_ROUND_ID else None


def live_target_of(target: str) -> tuple[int, int] | None:
    """Return the (session id, question position) a live action's target names, or None."""
    found = _LIVE_TARGET.fullmatch(target)
    if found is None or int(found.group(1)) > MAX_ROUND_ID:
        return None
    return int(found.group(1)), int(found.group(2))


def _target_ok(kind: str, target: str) -> bool:
    if kind in LIVE_KINDS:
        return live_target_of(target) is not None
    if kind in ("ljoin", "lrank", "sheld"):  # a session's id, or a speed verdict's
        return round_id_of(target) is not None
    if kind == "forget":
        return _OWNER_TAG.fullmatch(target) is not None
    if kind in ROUND_KINDS:
        return round_id_of(target) is not None
    return _ITEM_ID.fullmatch(target) is not None


def parse_action(action_id: str) -> tuple[str, str, str] | None:
    """Split an action id into (kind, target, key), or None if it is not one of ours.

    The one parser of the ids our buttons come back with, on every platform: a round's target
    is a bounded integer, an item's a bank id, a key a few letters; anything else is not ours.
    """
    if len(action_id) > _MAX_ID_CHARS:
        return None
    parts = action_id.split(":")
    if len(parts) != 4 or parts[0] != "tq" or parts[1] not in ACTION_KINDS:
        return None
    kind, target, key = parts[1], parts[2], parts[3]
    if not _target_ok(kind, target) or _KEY.fullmatch(key) is None:
        return None
    if kind == "forget" and key not in _FORGET_KEYS:
        return None
    if kind == "sheld" and key not in SPEED_REVIEW_KEYS:
        return None
    if _FIXED_KEYS.get(kind, key) != key:
        return None
    return kind, target, key


def submit_id(form: Form) -> str:
    """Return the id a form comes back with when submitted: what it answers and how."""
    kind, target, _ = parse_action(form.action_id) or ("", "", "")
    submit = _SUBMIT_OF.get(kind, "psubmit")
    return f"tq:{submit}:{target}:{'code' if form.code else 'text'}"


def parse_submit(submit: str) -> tuple[str, str, str] | None:
    """Split a submitted form's id into (submit kind, target, mode), or None if not ours."""
    if len(submit) > _MAX_ID_CHARS:
        return None
    parts = submit.split(":")
    if len(parts) != 4 or parts[0] != "tq" or parts[1] not in SUBMIT_KINDS:
        return None
    if parts[3] not in ("text", "code") or not _target_ok(parts[1], parts[2]):
        return None
    if parts[1] in ("reported", "preported") and parts[3] != "text":
        return None
    if parts[1] == "ssubmit" and parts[3] != "code":
        return None
    return parts[1], parts[2], parts[3]


def marks_round(action_id: str, round_id: int) -> bool:
    """Say whether an action id belongs to a daily round's post (its choices or its form).

    Every open round's post carries one, so a publisher recognises the round's own message
    in a channel's history by it.
    """
    parsed = parse_action(action_id)
    return parsed is not None and parsed[0] in ("answer", "form") and parsed[1] == str(round_id)
