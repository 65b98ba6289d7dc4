"""Find the concept card a member meant: ids, aliases, typos and "a vs b" phrasings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from bot.core.kernel.i18n import t, typed_list
from bot.core.kernel.matching import closest, fold, nearest
from bot.core.kernel.messages import Audience, Button, Message, Tone, share_action
from bot.core.packs import library_of
from bot.core.questions import posts
from content.loader import Bank
from content.schema import ExplainCard

_VERSUS = re.compile(r"\s+(?:vs\.?|versus|or|and|和|与|还是|对比)\s+|\s*/\s*")


def _key(text: str) -> str:
    """Fold for lookup: also unify "a vs b" spellings and drop spaces between words."""
    folded = fold(text)
    parts = [p.strip() for p in _VERSUS.split(folded) if p.strip()]
    if len(parts) == 2:
        # "reshape vs view" and "view vs reshape" name the same comparison card.
        folded = " vs ".join(sorted(parts))
    return folded.replace(" ", "")


@dataclass(frozen=True)
class Lookup:
    """The card found, or the nearest topics to suggest."""

    card: ExplainCard | None
    suggestions: tuple[str, ...] = ()


class CardIndex:
    """Resolve what a member typed to a card, built once from the bank."""

    def __init__(self, cards: dict[str, ExplainCard]) -> None:
        self._cards = cards
        self._by_key: dict[str, str] = {}
        ordered = sorted(cards.values(), key=lambda c: c.id)
        # Ids first, then what names one card (titles, aliases), then the broad topic several
        # cards share: a topic such as "data" must never shadow a card's own id or alias.
        for card in ordered:
            self._by_key.setdefault(_key(card.id), card.id)
        for card in ordered:
            for name in (card.title.en, card.title.zh_CN, *card.aliases):
                self._by_key.setdefault(_key(name), card.id)
        for card in ordered:
            self._by_key.setdefault(_key(card.topic), card.id)

    def topics(self) -> list[str]:
        """Return the card ids, sorted, for listings and autocomplete."""
        return sorted(self._cards)

    def card(self, card_id: str) -> ExplainCard:
        """Return the card with this id (KeyError when there is none)."""
        return self._cards[card_id]

    def lookup(self, query: str) -> Lookup:
        """Return the card for ``query`` (exact, alias or typo), else up to three suggestions."""
        key = _key(query)
        if not key:
            return Lookup(None, tuple(self.topics()[:3]))
        if key in self._by_key:
            return Lookup(self._cards[self._by_key[key]])
        near = closest(key, list(self._by_key))
        if near is not None:
            return Lookup(self._cards[self._by_key[near[0]]])
        return Lookup(None, self.suggest(query))

    def suggest(self, query: str, limit: int = 3) -> tuple[str, ...]:
        """Return the ids of the cards whose names look most like ``query``."""
        return nearest(_key(query), self._by_key, limit)

    def complete(self, prefix: str, limit: int = 25) -> list[str]:
        """Return card ids for autocomplete: prefix matches first, then close ones."""
        key = _key(prefix)
        if not key:
            return self.topics()[:limit]
        starts = [cid for cid in self.topics() if _key(cid).startswith(key)]
        alias_hits = sorted({cid for name, cid in self._by_key.items() if key in name})
        ordered = list(dict.fromkeys(starts + alias_hits + list(self.suggest(prefix, limit))))
        return ordered[:limit]


class ExplainService:
    """Answer /explain with a card in the member's language, or the nearest suggestions.

    Each workspace (``scope``) looks up the shipped cards and its own packs' only: a card of
    another workspace's pack is never found, suggested, completed or shared.
    """

    def __init__(self, cards: Bank | Mapping[str, ExplainCard]) -> None:
        self.library = library_of(cards if isinstance(cards, Bank) else Bank(cards=dict(cards)))

    def index_for(self, scope: str | None = None, *, check: bool = True) -> CardIndex:
        """Return the card index of what ``scope`` sees, built once per library snapshot."""
        view = self.library.view(scope, check=check)
        index: CardIndex = view.memoised("card_index", lambda: CardIndex(dict(view.cards)))
        return index

    @property
    def index(self) -> CardIndex:
        """Return the index of the shipped cards and the packs shared with every workspace."""
        return self.index_for(None)

    def explain(self, query: str, locale: str, scope: str | None = None) -> Message:
        """Return the card for ``query``; an empty query lists the cards."""
        index = self.index_for(scope)
        if not query.strip():
            return Message(title=t(locale, "explain.list"), body=typed_list(index.topics()))
        found = index.lookup(query[:200])
        if found.card is not None:
            card = posts.card(found.card, locale)
            share = Button(share_action(found.card.id), t(locale, "explain.share"))
            return replace(card, buttons=(share,))
        shown = query.strip()[:60]
        if found.suggestions:
            body = t(locale, "explain.unknown", query=shown,
                     suggestions=typed_list(found.suggestions))
        else:
            body = t(locale, "explain.unknown_none", query=shown,
                     topics=typed_list(index.topics()[:8]))
        return Message(body=body, tone=Tone.WARNING)

    def complete(self, prefix: str, scope: str | None = None) -> list[str]:
        """Return topics for autocomplete."""
        return self.index_for(scope, check=False).complete(prefix)

    def share(self, card_id: str, locale: str, scope: str | None = None) -> Message | None:
        """Return a card as a post for the whole channel, or None for an id it does not see."""
        index = self.index_for(scope)
        if card_id not in index.topics():
            return None
        return replace(posts.card(index.card(card_id), locale), audience=Audience.CHANNEL)

    def choices(self, prefix: str, locale: str, limit: int = 25,
                scope: str | None = None) -> list[tuple[str, str]]:
        """Return (label, card id) pairs for autocomplete: the title in the member's language.

        Run on the platform's event loop: it uses the content as loaded, without a query.
        """
        index = self.index_for(scope, check=False)
        out = []
        for card_id in index.complete(prefix, limit):
            title = index.card(card_id).title.get(locale)
            out.append((f"{title} · {card_id}"[:100], card_id))
        return out
