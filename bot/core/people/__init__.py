"""People: a member's own data: privacy, export and forget-me."""

from bot.core.people.service import PeopleService

__all__ = [
    "PeopleService",
]
