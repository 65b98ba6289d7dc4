"""One declaration per command; Discord's tree, Slack's listeners and manifests, the console.

A :class:`Command` says what a command is called on each front end (``bot.core.kernel.i18n``'s
``COMMAND_NAMES``: names are words people type, kept with the sentences), what it takes
(:class:`Option`: type, limits, choices, autocomplete), who may use it (``admin_only``, checked
here, in the core, whatever a platform hid), its help sentence and its handler. The adapters
render the declarations into their platform's shapes; nothing else lists commands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.core.kernel.i18n import COMMAND_NAMES, PLATFORMS, t
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply

# A command's work: the desk (its shared steps: resolve, refuse, scope), who asked, the text
# after the command, and the member it names (/stats @member), if any.
Handler = Callable[[Any, Identity, str, Identity | None], Reply]



class DeskSteps(Protocol):
    """The steps every command takes at the desk (bot/core/desk), whatever it does."""

    def warning(self, locale: str, key: str, **values: object) -> Reply:
        """Return a private warning in ``locale``."""
        ...

    def locale_without_member(self, who: Identity) -> str:
        """Return the language to refuse ``who`` in, without registering them."""
        ...

    def with_notice(self, who: Identity, reply: Reply) -> Reply:
        """Return ``reply`` with the member's pending notice (a reminder) added, if any."""
        ...


# A button's work: the desk, who clicked, and the parsed id's kind, target and key
# (``tq:KIND:TARGET:KEY``, bot/core/kernel/messages.py).
ActionHandler = Callable[[Any, Identity, str, str, str], Reply]


OPTION_KINDS = ("text", "integer", "boolean", "choice", "member", "channel", "file")
AUTOCOMPLETES = ("", "explain", "topics", "zones")


@dataclass(frozen=True)
class Option:
    """One option a platform with typed options (Discord) shows for a command."""

    name: str
    kind: str  # one of OPTION_KINDS
    description: str
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()  # (label, value)
    min_value: int | None = None
    max_value: int | None = None  # for text: the longest it may be
    autocomplete: str = ""  # one of AUTOCOMPLETES: where the suggestions come from

    def __post_init__(self) -> None:
        """Refuse a declaration no platform could render."""
        if self.kind not in OPTION_KINDS or self.autocomplete not in AUTOCOMPLETES:
            raise ValueError(f"option {self.name}: kind {self.kind!r}, "
                             f"autocomplete {self.autocomplete!r}")


@dataclass(frozen=True)
class Command:
    """A command, declared once.

    ``describe`` is the one-line English description each chat platform shows (per platform:
    their lists word it to fit); ``usage`` what follows the name in a hint, per surface:
    ``slack`` (the manifest's usage hint), ``home`` (Slack's home tab; a command without it is
    not listed there) and ``console``. ``handler`` None: the platform calls the desk's own entry
    for it (settings opens a form, packs take a file).
    """

    key: str
    describe: Mapping[str, str]
    help_key: str
    handler: Handler | None = None
    options: tuple[Option, ...] = ()
    admin_only: bool = False
    denied_key: str = ""  # the refusal a member who is no admin hears
    usage: Mapping[str, str] = field(default_factory=dict)
    notice: bool = False  # its private reply carries the "your reminders stopped" notice
    escape: bool = False  # Slack: send members as <@U123|name> (the command reads them)

    def name(self, platform: str) -> str | None:
        """Return what ``platform`` calls the command (no slash), or None: not offered there."""
        return COMMAND_NAMES[self.key].get(platform)

    def option(self, name: str) -> Option:
        """Return the option called ``name``."""
        return next(o for o in self.options if o.name == name)


@dataclass(frozen=True)
class Action:
    """A kind of button (or several that share a handler), declared once beside its handler."""

    kinds: tuple[str, ...]
    handler: ActionHandler


class Registry:
    """Every command and button, in the order lists show them; dispatch with the core's checks."""

    def __init__(self, commands: Iterable[Command] = (), actions: Iterable[Action] = ()) -> None:
        self._commands: dict[str, Command] = {}
        self._actions: dict[str, Action] = {}
        for command in commands:
            self.register(command)
        for action in actions:
            self.register_action(action)

    def register_action(self, action: Action) -> None:
        """Add the button ``action``; each kind has one handler."""
        for kind in action.kinds:
            if kind in self._actions:
                raise ValueError(f"button kind {kind!r} declared twice")
            self._actions[kind] = action

    def action_kinds(self) -> list[str]:
        """Return every button kind with a handler."""
        return list(self._actions)

    def click(self, desk: DeskSteps, who: Identity, kind: str, target: str, key: str) -> Reply:
        """Run the handler of a button whose id parsed as (``kind``, ``target``, ``key``)."""
        action = self._actions.get(kind)
        if action is None:
            return desk.warning(who.locale or "en", "action.unknown")
        return action.handler(desk, who, kind, target, key)

    def register(self, command: Command) -> None:
        """Add ``command``; its key must be new and named in ``COMMAND_NAMES``."""
        if command.key in self._commands:
            raise ValueError(f"command {command.key!r} declared twice")
        if command.key not in COMMAND_NAMES:
            raise ValueError(f"command {command.key!r}: add its names to i18n.COMMAND_NAMES")
        if command.admin_only and command.handler is not None and not command.denied_key:
            raise ValueError(f"command {command.key!r}: an admin command needs denied_key")
        self._commands[command.key] = command

    def __iter__(self) -> Iterator[Command]:
        """Iterate over the commands in declaration order."""
        return iter(self._commands.values())

    def __contains__(self, key: object) -> bool:
        """Say whether a command with this key is declared."""
        return key in self._commands

    def get(self, key: str) -> Command:
        """Return the command with the core's key ``key`` (``privacy``)."""
        return self._commands[key]

    def on(self, platform: str) -> list[Command]:
        """Return the commands ``platform`` offers."""
        return [c for c in self if c.name(platform) is not None]

    def by_name(self, platform: str, name: str) -> Command | None:
        """Return the command ``platform`` calls ``name`` (with or without the slash)."""
        wanted = name.removeprefix("/").lower()
        return next((c for c in self.on(platform) if c.name(platform) == wanted), None)

    def dispatch(self, desk: DeskSteps, who: Identity, key: str, argument: str,
                 whom: Identity | None = None) -> Reply:
        """Run the command ``key``'s handler, after the checks every command takes.

        A member who is no admin gets the command's refusal, whatever the platform showed them:
        the platform's server said who is an admin (``Identity.is_admin``), never the client.
        """
        command = self._commands.get(key)
        if command is None or command.handler is None:
            return desk.warning(who.locale or "en", "action.unknown")
        if command.admin_only and not who.is_admin:
            return desk.warning(desk.locale_without_member(who), command.denied_key)
        reply = command.handler(desk, who, argument, whom)
        return desk.with_notice(who, reply) if command.notice else reply

    def listing(self) -> list[dict[str, object]]:
        """Return every command as ``torchquiz commands --json`` prints it."""
        return [{
            "key": c.key,
            "names": {p: f"/{c.name(p)}" for p in PLATFORMS if c.name(p) is not None},
            "admin_only": c.admin_only,
            "options": [{"name": o.name, "type": o.kind, "required": o.required,
                         "description": o.description,
                         **({"choices": [v for _, v in o.choices]} if o.choices else {}),
                         **({"min": o.min_value} if o.min_value is not None else {}),
                         **({"max": o.max_value} if o.max_value is not None else {}),
                         **({"autocomplete": o.autocomplete} if o.autocomplete else {})}
                        for o in c.options],
            "help": {locale: t(locale, c.help_key) for locale in ("en", "zh-CN")},
        } for c in self]
