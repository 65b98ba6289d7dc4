"""The rules of a live session: its limits, the host's options, and live scoring."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.kernel.i18n import t
from bot.core.questions import BASE_POINTS

MIN_QUESTIONS, MAX_QUESTIONS, DEFAULT_QUESTIONS = 1, 30, 10
MIN_SECONDS, MAX_SECONDS = 5, 120
# Seconds per question by kind when the host names none: a letter is quicker than a word, and
# a word than a function. The host's seconds= (5-120) applies to every kind.
DEFAULT_SECONDS = {"choice": 20, "text": 45, "code": 90}
KINDS = ("choice", "text")  # what a session draws from by default
CODE_KINDS = (*KINDS, "code")  # with code=yes: code questions too, graded by the sandbox
DEFAULT_LOBBY, MAX_LOBBY = 60, 600
MIN_PLAYERS_TO_COUNT = 3  # fewer human players: a warm-up, it counts toward no board
IDLE_QUESTIONS = 2  # this many questions in a row without an answer end a session
MAX_PAUSE_S = 30 * 60  # a session paused this long ends itself
TOP_REVEAL, PODIUM = 5, 10
MAX_TOPICS = 20


class OptionError(ValueError):
    """A host's option the session cannot take; ``key`` names the sentence that says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values

    def text(self, locale: str) -> str:
        """Return why, in ``locale``."""
        return t(locale, self.key, **self.values)


@dataclass(frozen=True)
class LiveOptions:
    """What the host asked for; None for seconds: each question's kind decides."""

    questions: int = DEFAULT_QUESTIONS
    seconds: int | None = None
    lobby: int = DEFAULT_LOBBY
    topics: tuple[str, ...] = ()
    code: bool = False  # the host asked for code questions too (code=yes)


_BOUNDS = {"questions": (MIN_QUESTIONS, MAX_QUESTIONS), "seconds": (MIN_SECONDS, MAX_SECONDS),
           "lobby": (0, MAX_LOBBY)}
_YES_NO = {"yes": True, "on": True, "true": True, "no": False, "off": False, "false": False}


def parse_options(words: list[str]) -> LiveOptions:
    """Read ``questions=N seconds=S lobby=S topics=a,b code=yes`` (any order, each at most once)."""
    values: dict[str, object] = {}
    for word in words:
        name, sep, value = word.partition("=")
        name = name.strip().lower()
        if not sep or name not in (*_BOUNDS, "topics", "code") or name in values:
            raise OptionError("live.option.unknown", option=word[:40])
        if name == "code":
            if value.strip().lower() not in _YES_NO:
                raise OptionError("live.option.code")
            values[name] = _YES_NO[value.strip().lower()]
            continue
        if name == "topics":
            topics = tuple(dict.fromkeys(v.strip().lower() for v in value.split(",")
                                         if v.strip()))
            if not topics or len(topics) > MAX_TOPICS or any(len(v) > 60 for v in topics):
                raise OptionError("live.option.topics")
            values[name] = topics
            continue
        low, high = _BOUNDS[name]
        if not value.isascii() or not value.isdigit() or not low <= int(value[:6]) <= high:
            raise OptionError("live.option.range", option=name, low=low, high=high)
        values[name] = int(value)
    return LiveOptions(**values)  # type: ignore[arg-type]


def live_points(difficulty: int, correct: bool, elapsed_ms: int, seconds: int) -> int:
    """Return a live answer's points: 50-100 % of the difficulty's by time left, 0 when wrong.

    Speed earns the top half only: an answer at the last moment still earns half.
    """
    if not correct:
        return 0
    window = seconds * 1000
    left = min(window, max(0, window - elapsed_ms))
    return BASE_POINTS[difficulty] * (window + left) // (2 * window)
