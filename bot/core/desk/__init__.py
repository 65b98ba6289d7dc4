"""The desk: where every chat request enters the core, above the features.

A front end (Discord, Slack, the console, the web page) builds an ``Identity`` and calls the
:class:`Desk` once; the desk resolves who and where, dispatches commands through the registry
(``catalog.REGISTRY``, declared per feature in this package's modules) and returns a
:class:`Reply`. It imports the kernel and the features' public API; no feature imports it.
"""

from bot.core.desk.base import COMMAND_CHARS, Home, SettingsView
from bot.core.desk.catalog import REGISTRY
from bot.core.desk.packs import PackReply
from bot.core.desk.requests import Desk
from bot.core.kernel.replies import Reply

__all__ = ["COMMAND_CHARS", "REGISTRY", "Desk", "Home", "PackReply", "Reply", "SettingsView"]
