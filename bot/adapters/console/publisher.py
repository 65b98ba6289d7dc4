"""The console's Publisher: print what the scheduler publishes, as the terminal channel would."""

from __future__ import annotations

from typing import TextIO

from bot.adapters.console.render import render, render_delivery
from bot.core.messages import Message
from bot.core.models import ChannelSettings
from bot.core.pending import PrivateDelivery
from bot.core.service import Reveal, RoundPost


class ConsolePublisher:
    """Print rounds, reveals, boards and late private results (the scheduler's Publisher)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def _print(self, text: str) -> None:
        print(text + "\n", file=self.out, flush=True)

    @staticmethod
    def _name(channel: ChannelSettings) -> str:
        return channel.name or channel.external_id

    async def publish_round(self, post: RoundPost) -> str:
        """Print a new round and return its console reference."""
        self._print(render(post.message, channel=self._name(post.channel), user=""))
        return f"console:{post.round.id}"

    async def find_round(self, post: RoundPost) -> str | None:
        """Return None: the terminal keeps no history to look in (a repost prints again)."""
        return None

    async def publish_reveal(self, reveal: Reveal) -> None:
        """Print the reveal as the round's thread would show it."""
        self._print(render(reveal.message, channel=self._name(reveal.channel), user=""))

    async def publish_board(self, channel: ChannelSettings, message: Message) -> None:
        """Print the weekly leaderboard."""
        self._print(render(message, channel=self._name(channel), user=""))

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Print a pending answer's result, marked private to its member."""
        self._print(render_delivery(delivery))
