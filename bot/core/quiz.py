"""The core as one object for adapters and the operator's commands: every service, built once."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from bot.core.audit import AuditService
from bot.core.boards import BoardService
from bot.core.browser import QuestionBrowser
from bot.core.channels import SetupService
from bot.core.kernel.models import ChannelSettings
from bot.core.kernel.ports import ChartRenderer, Clock, Executor, SpeedExecutor
from bot.core.learning import ExplainService, PracticeService, ReminderService
from bot.core.live import LiveService
from bot.core.packs import Library, library_of
from bot.core.people import PeopleService
from bot.core.quality import InsightsService, ReportService
from bot.core.questions import ReviewScheduler
from bot.core.rounds import POST_LEASE, QuizService
from bot.core.signin import DEFAULT_WEB_URL, SignInService
from bot.core.speed import SpeedService
from bot.core.store import QuizStore
from content.loader import Bank


@dataclass(frozen=True)
class Quiz:
    """Every core service an adapter may call, built over the same store, bank and clock."""

    rounds: QuizService[QuizStore]
    practice: PracticeService
    explain: ExplainService
    board: BoardService
    setup: SetupService
    reminders: ReminderService
    people: PeopleService  # a member's own data: export, forget
    reports: ReportService  # members' reports of faulty questions
    insights: InsightsService  # item statistics, paused items
    signin: SignInService  # the web page's one-time links and sessions
    live: LiveService  # live sessions: a timed quiz for the team meeting
    browser: QuestionBrowser  # the web page's question browser
    audit: AuditService  # the log of every admin change
    speed: SpeedService  # speed challenges: practice, verdicts, boards, held verdicts

    @property
    def library(self) -> Library:
        """Return the library every service holds: ``invalidate()`` it after storing a pack."""
        return library_of(self.rounds.bank)


def build_quiz(
    store: QuizStore,
    bank: Bank,
    clock: Clock,
    executor: Executor | None = None,
    on_settings_changed: Callable[[ChannelSettings], None] | None = None,
    charts: ChartRenderer | None = None,
    post_lease: dt.timedelta = POST_LEASE,
    web_url: str = DEFAULT_WEB_URL,
    web_secret: str | None = None,
    speed_executor: SpeedExecutor | None = None,
) -> Quiz:
    """Assemble the core from its ports (called by the composition root and by tests).

    Every service holds the same library (``bank``, or a library made of it): one object whose
    content is swapped whole when packs change, never rewired. ``web_url`` and ``web_secret``
    make the web page's sign-in links (no secret: one is generated and kept in the store).
    """
    library = library_of(bank)
    reviews = ReviewScheduler()  # one FSRS scheduler for daily answers and practice alike
    audit = AuditService(store, clock)
    speed = SpeedService(store, library, clock, speed_executor, audit)
    rounds = QuizService(store, library, clock, executor, reviews=reviews, post_lease=post_lease,
                         speed=speed)
    return Quiz(
        rounds=rounds,
        practice=PracticeService(store, library, clock, executor, reviews),
        explain=ExplainService(library),
        board=BoardService(store, library, clock, charts),
        setup=SetupService(store, library, on_settings_changed,
                           leaves_nothing=rounds.packs_leave_nothing, audit=audit),
        reminders=ReminderService(store, clock, library=library),
        people=PeopleService(store),
        reports=ReportService(store, library, clock),
        insights=InsightsService(store, library, clock),
        signin=SignInService(store, clock, web_url, web_secret),
        live=LiveService(store, library, clock, reviews, executor),
        browser=QuestionBrowser(store, library),
        audit=audit,
        speed=speed,
    )
