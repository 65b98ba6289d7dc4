"""The web page's question browser, as the desk serves it: scoped to the session's workspace."""

from __future__ import annotations

from bot.core.browser import QuestionList, QuestionView
from bot.core.desk.base import DeskBase
from bot.core.desk.web import identity
from bot.core.kernel.models import WebGrant


def questions(desk: DeskBase, grant: WebGrant, locale: str, kind: str, topic: str,
              page: int) -> QuestionList:
    """Return one page of the questions the session's workspace draws from."""
    return desk.quiz.browser.listing(desk.scope(identity(grant)), locale, kind, topic, page)


def question(desk: DeskBase, grant: WebGrant, item_id: str, locale: str) -> QuestionView | None:
    """Return one question of the workspace (None: a 404), its answer only when earned."""
    who = identity(grant)
    # A read: viewing a question registers nobody (a member never seen has answered nothing).
    viewer = desk.store.find_member(grant.platform, grant.user)
    return desk.quiz.browser.question(desk.scope(who), grant.platform, grant.workspace,
                                      viewer.id if viewer is not None else None,
                                      grant.is_admin, item_id, locale)
