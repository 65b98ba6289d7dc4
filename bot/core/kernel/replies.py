"""What a chat request comes to, as every front end renders it: the core's reply model."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.kernel.messages import Form, Message


@dataclass(frozen=True)
class Reply:
    """What a chat request comes to: a message to show, or a form to open.

    ``public`` asks the adapter to post for the whole channel (a shared card); otherwise the
    message is private to the member. ``redraw_round`` names a round whose channel post shows a
    new tally: the adapter asks for the post once (coalesced) and edits it.
    """

    locale: str
    message: Message | None = None
    form: Form | None = None
    public: bool = False
    redraw_round: int | None = None
