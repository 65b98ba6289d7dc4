"""The composition root: the one place that creates engines, stores, executors and the core.

It also assembles each process: the console, and for Discord and Slack the chat runtime (the
core, its worker threads, the scheduler) and the platform's bot. Adapters receive what they
need from here as arguments; none of them imports this module.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr
from sqlalchemy import Engine

from bot.charts import MatplotlibCharts
from bot.core.kernel.clock import ScaledClock, SystemClock
from bot.core.kernel.models import ChannelSettings
from bot.core.kernel.ports import Clock, Executor, PackTools, SpeedExecutor
from bot.core.packs.library import CHECK_INTERVAL_S, Library
from bot.core.quiz import Quiz, build_quiz
from bot.settings import Settings
from content.loader import BANK_ROOT, Bank, load_bank
from db.engine import PoolOptions, default_url, make_engine
from db.migrate import upgrade
from db.store import SqlStore

if TYPE_CHECKING:
    from bot.adapters.chat.runtime import ChatRuntime
    from bot.adapters.discord.client import QuizBot
    from bot.adapters.slack.bot import SlackBot
    from bot.adapters.slack.installations import Installations
    from bot.adapters.web.app import WebFront
    from bot.adapters.web.providers import Provider
    from bot.pack_tools import StorePackShelf

log = logging.getLogger(__name__)


@dataclass
class App:
    """Everything a front end needs, plus what must be closed when it stops."""

    quiz: Quiz
    bank: Bank
    settings: Settings
    executor: Executor | None
    executor_problem: str  # why code cannot be graded, when executor is None
    _closers: list[Callable[[], Any]] = field(default_factory=list)
    # The one database engine; a platform's own stores (Slack's installations) share it.
    engine: Engine | None = None
    # /quiz-pack's checker and shelf (the desk's PackTools); None: packs are off.
    packs: PackTools | None = None
    # The time the core reads (the system's, or the soak run's compressed clock).
    clock: Clock | None = None

    def close(self) -> None:
        """Release the executor's warm process and the database connections."""
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception:
                log.exception("error while shutting down")
        self._closers.clear()

    def on_close(self, closer: Callable[[], Any]) -> None:
        """Close ``closer`` with the app (before what was there when it was built)."""
        self._closers.append(closer)


def database_url(settings: Settings) -> str:
    """Return the configured database URL, or the embedded SQLite default."""
    return settings.database_url or default_url(settings.data_dir.resolve())


def database_engine(settings: Settings) -> Engine:
    """Return the engine on the configured database, its pool sized by the settings."""
    return make_engine(database_url(settings), pool=PoolOptions(
        size=settings.database_pool_size, overflow=settings.database_max_overflow,
        pooler=settings.database_pooler))


def load_content(settings: Settings) -> Bank:
    """Load the bank from the configured folder, or the one shipped with the package."""
    return load_bank(settings.content_dir or BANK_ROOT)


def build_executor(
    settings: Settings, bank: Bank
) -> tuple[Executor | None, str, Callable[[], Any]]:
    """Start the sandboxed executor, or say why code cannot be graded on this machine."""
    if settings.executor == "none":
        return None, "the executor is switched off (TORCHQUIZ_EXECUTOR=none)", lambda: None
    if settings.executor_urls.strip():
        return build_remote_executor(settings, bank)
    try:
        # Imported here: the bot runs without torch; only grading needs it.
        from executors.engine import LocalExecutor
        from executors.zygote.supervisor import SandboxUnavailable, Zygote
    except ImportError as exc:
        return None, f"the executor extra is not installed ({exc.name})", lambda: None
    zygote = Zygote(insecure=settings.insecure_no_sandbox)
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        return None, str(exc), lambda: None
    from executors.grading.pack_challenges import build_pack_challenge

    # A sandbox with layers switched off is no place for a chat member's pack code.
    builder = None if settings.insecure_no_sandbox else build_pack_challenge
    executor = LocalExecutor(bank, zygote, pack_builder=builder)
    return executor, "", executor.close


def build_speed_executor(settings: Settings, bank: Bank
                         ) -> tuple[SpeedExecutor | None, Callable[[], Any]]:
    """Return the speed timer's executor where code runs in this machine's sandbox.

    Its timer starts on the first speed answer. Behind ``TORCHQUIZ_EXECUTOR_URLS`` the
    replicas time them (``POST /v1/speed``); None where code is not graded at all.
    """
    if settings.executor == "none":
        return None, lambda: None
    if settings.executor_urls.strip():
        return build_remote_speed_executor(settings)
    try:
        from executors.speed.executor import LocalSpeedExecutor
    except ImportError:
        return None, lambda: None
    speed = LocalSpeedExecutor(bank, insecure=settings.insecure_no_sandbox)
    return speed, speed.close


def build_remote_speed_executor(settings: Settings
                                ) -> tuple[SpeedExecutor | None, Callable[[], Any]]:
    """Time speed answers on the executor service's replicas (None: not configured right)."""
    from bot.remote_executor import RemoteSpeedExecutor
    from executors.service.client import ExecutorClient, parse_urls

    token = settings.executor_token.get_secret_value() if settings.executor_token else ""
    try:
        urls = parse_urls(settings.executor_urls)
    except ValueError:
        return None, lambda: None
    if not token:
        return None, lambda: None
    client = ExecutorClient(urls, token, read_timeout_s=settings.executor_timeout_s)
    return RemoteSpeedExecutor(client), client.close


def build_remote_executor(
    settings: Settings, bank: Bank
) -> tuple[Executor | None, str, Callable[[], Any]]:
    """Grade through the executor service at TORCHQUIZ_EXECUTOR_URLS (no torch needed here)."""
    from bot.remote_executor import RemoteExecutor
    from executors.service.client import ExecutorClient, parse_urls

    token = settings.executor_token.get_secret_value() if settings.executor_token else ""
    if not token:
        return None, "TORCHQUIZ_EXECUTOR_URLS is set but TORCHQUIZ_EXECUTOR_TOKEN is not", (
            lambda: None)
    try:
        urls = parse_urls(settings.executor_urls)
    except ValueError as exc:
        return None, f"TORCHQUIZ_EXECUTOR_URLS: {exc}", lambda: None
    client = ExecutorClient(urls, token, read_timeout_s=settings.executor_timeout_s)
    log.info("grading code on %d executor replica(s)", len(urls))
    executor = RemoteExecutor(client, bank)
    return executor, "", executor.close


def library(bank: Bank, engine: Engine, *, interval_s: float = CHECK_INTERVAL_S) -> Library:
    """Return the live library: the shipped bank plus every workspace's stored packs, scoped.

    Every process serves every workspace it is asked from: each request sees the packs of its
    own workspace only (bot/core/packs/library.py). Packs stored elsewhere show up within
    ``interval_s``, without a restart.
    """
    from bot.pack_source import StoredPackSource

    return Library(bank, StoredPackSource(engine), interval_s=interval_s)


def build_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    executor: Executor | None = None,
    migrate: bool = True,
    on_settings_changed: Callable[[ChannelSettings], None] | None = None,
    speed_executor: SpeedExecutor | None = None,
) -> App:
    """Wire the whole bot from settings; tests pass their own clock or executor.

    The bank is the live library of every workspace's packs; each request sees its own
    workspace's (the one its Identity names).
    """
    settings = settings or Settings()
    url = database_url(settings)
    if migrate:
        upgrade(url)
    engine = database_engine(settings)
    shipped = load_content(settings)  # a pack is validated against the shipped bank only
    bank: Bank = library(shipped, engine)
    closers: list[Callable[[], Any]] = [engine.dispose]
    problem = ""
    if executor is None:
        executor, problem, close_executor = build_executor(settings, bank)
        closers.append(close_executor)
        if executor is not None and speed_executor is None:
            speed_executor, close_speed = build_speed_executor(settings, bank)
            closers.append(close_speed)
    clock = clock or settings_clock(settings)
    charts = MatplotlibCharts()
    if settings.charts_preload:
        charts.preload()
    quiz = build_quiz(SqlStore(engine, clock=clock), bank, clock, executor, on_settings_changed,
                      charts=charts,
                      post_lease=dt.timedelta(seconds=settings.post_lease_s),
                      speed_executor=speed_executor, **web_options(settings))
    return App(quiz, bank, settings, executor, problem, closers, engine=engine,
               packs=pack_tools(shipped, engine, executor), clock=clock)


def settings_clock(settings: Settings) -> Clock:
    """Return the system clock, or the soak run's compressed one (``TORCHQUIZ_SOAK_CLOCK``).

    Read here only, the composition root: the core just asks its Clock port for the time.
    """
    if settings.soak_clock:
        return ScaledClock.parse(settings.soak_clock)
    return SystemClock()


def web_options(settings: Settings) -> dict[str, Any]:
    """Return the web page's base URL and signing secret for the core's sign-in links."""
    secret = settings.web_secret.get_secret_value() if settings.web_secret else None
    return {"web_url": settings.web_url, "web_secret": secret or None}


def web_app(settings: Settings, *, clock: Clock | None = None) -> tuple[WebFront, App]:
    """Build the web page's process: the core (no executor, no scheduler) and its front.

    It shares the chat processes' database: links asked for in chat sign in here.
    """
    from bot.adapters.web.app import WebFront
    from db.store_web import ping_web

    settings = settings.model_copy(update={"executor": "none"})
    app = build_app(settings, clock=clock, executor=None)
    engine = app.engine
    probe = functools.partial(ping_web, engine) if engine is not None else None
    providers = web_sign_in_providers(settings, app)
    # Team packs on the admin's desk: the chat processes' checker (a local sandbox) and shelf.
    return WebFront(app.quiz, probe=probe, providers=providers, packs=app.packs), app


def web_sign_in_providers(settings: Settings, app: App) -> dict[str, Provider]:
    """Return the platform sign-ins the settings configure (Slack OIDC, Discord OAuth2)."""
    from bot.adapters.web.providers import DiscordSignIn, Http, SlackSignIn

    http = Http()
    providers: dict[str, Provider] = {}
    quiz = app.quiz
    slack_secret = _secret_of(settings.slack_client_secret)
    if settings.slack_client_id and slack_secret and app.engine is not None:
        from bot.adapters.slack.web_people import slack_person

        installations = slack_installations(settings.slack_client_id, app.engine)
        app.on_close(installations.close)
        providers["slack"] = SlackSignIn(
            http, settings.slack_client_id, slack_secret, settings.slack_api_url,
            slack_person(settings, installations))
    discord_secret = _secret_of(settings.discord_client_secret)
    bot_token = _secret_of(settings.discord_token)
    if settings.discord_client_id and discord_secret and bot_token:
        async def servers(user: str) -> list[str]:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, quiz.signin.member_workspaces,
                                              "discord", user)

        providers["discord"] = DiscordSignIn(
            http, settings.discord_client_id, discord_secret, bot_token, servers,
            api_url=settings.discord_api_url)
    return providers


def _secret_of(value: SecretStr | None) -> str:
    return value.get_secret_value() if value is not None else ""


def operator_app(settings: Settings, *, bank: Bank | None = None, migrate: bool = False,
                 clock: Clock | None = None) -> App:
    """Wire the core for an operator's command (member, content reports|stats, pack).

    No executor starts and no scheduler runs. ``bank``: the content the command reads (None:
    none, for a command that reads only the database); ``migrate``: bring the schema up first.
    """
    url = database_url(settings)
    if migrate:
        upgrade(url)
    engine = database_engine(settings)
    bank = bank if bank is not None else Bank()
    clock = clock or SystemClock()
    quiz = build_quiz(SqlStore(engine, clock=clock), bank, clock, **web_options(settings))
    return App(quiz, bank, settings, None, "no grading in an operator's command",
               [engine.dispose], engine=engine, packs=pack_tools(bank, engine, None))


def pack_shelf(settings: Settings) -> tuple[StorePackShelf, Callable[[], object]]:
    """Return the migrated database's pack shelf for `torchquiz pack`, and what closes it.

    The operator's view of every workspace's packs (the chat's /quiz-pack sees one workspace
    through the same shelf).
    """
    from bot.pack_tools import StorePackShelf
    from db.store_packs import PackStore

    url = database_url(settings)
    upgrade(url)
    engine = database_engine(settings)
    return StorePackShelf(PackStore(engine)), engine.dispose


def stored_pack_questions(settings: Settings) -> Callable[[str], dict[str, Any] | None]:
    """Return what `torchquiz exec` asks for a ``p.PACK.ITEM`` challenge: the pack's questions.

    Read once, when asked, from the migrated database: the newest version that loads, with
    the items only older versions hold (as the bot resolves them), removed packs too (an
    operator may still grade against one). Parsing only: nothing of the pack runs here.
    """
    def load(pack_id: str) -> dict[str, Any] | None:
        from bot.pack_source import scoped
        from db.store_packs import PackStore

        url = database_url(settings)
        upgrade(url)
        engine = database_engine(settings)
        try:
            found = scoped(PackStore(engine).versions(pack_id))
        finally:
            engine.dispose()
        return None if found is None else {**found.history, **found.questions}

    return load


def pack_tools(bank: Bank, engine: Engine, executor: Executor | None) -> PackTools:
    """Return /quiz-pack's checker and shelf: the CLI's validation path, the pack store.

    A pack's code runs in a fresh local sandbox, as `torchquiz pack validate` runs it. The seam
    for a deployment without one: an executor that can validate a pack itself (a remote
    executor's ``check_pack(data)``, returning the same report) is used instead.
    """
    from bot.pack_tools import SandboxPackChecker, StorePackShelf
    from db.store_packs import PackStore

    remote = getattr(executor, "check_pack", None)
    return PackTools(SandboxPackChecker(bank, remote if callable(remote) else None),
                     StorePackShelf(PackStore(engine)))


def chat_app(
    settings: Settings,
    platform: str,
    *,
    clock: Clock | None = None,
    executor: Executor | None = None,
    grace: dt.timedelta | None = None,
    speed_executor: SpeedExecutor | None = None,
) -> tuple[ChatRuntime, App]:
    """Build the core and the chat runtime of one platform's process (scheduler included).

    The App beside the runtime holds what a platform's own stores share (the engine).
    """
    from bot.adapters.chat.limits import Limits
    from bot.adapters.chat.runtime import ChatRuntime
    from bot.scheduling import DEFAULT_GRACE, QuizScheduler, clocked_scheduler
    from db.retry import is_disconnect
    from db.store_pending import count_pending

    runtimes: list[ChatRuntime] = []

    def settings_changed(channel: ChannelSettings) -> None:
        for runtime in runtimes:
            runtime.settings_changed(channel)

    app = build_app(settings, clock=clock, executor=executor,
                    on_settings_changed=settings_changed, speed_executor=speed_executor)
    runtime = ChatRuntime(
        app.quiz, platform, close=app.close, packs=app.packs,
        limits=Limits(code_per_minute=settings.rate_code_per_minute,
                      commands_per_10s=settings.rate_commands_per_10s,
                      max_in_flight=settings.max_in_flight),
        scheduler=lambda publisher: QuizScheduler(
            app.quiz, publisher, platform, grace=grace or DEFAULT_GRACE,
            scheduler=clocked_scheduler(app.clock) if isinstance(app.clock, ScaledClock)
            else None, is_outage=is_disconnect),
    )
    engine = app.engine
    if engine is not None:
        # /healthz asks the database for the platform's pending answers (db/store_pending.py).
        runtime.probe = functools.partial(count_pending, engine, platform)
    runtimes.append(runtime)
    return runtime, app


def chat_runtime(
    settings: Settings,
    platform: str,
    *,
    clock: Clock | None = None,
    executor: Executor | None = None,
    grace: dt.timedelta | None = None,
    speed_executor: SpeedExecutor | None = None,
) -> ChatRuntime:
    """Build the core and the chat runtime of one platform's process (scheduler included)."""
    return chat_app(settings, platform, clock=clock, executor=executor, grace=grace,
                    speed_executor=speed_executor)[0]


def discord_bot(settings: Settings, runtime: ChatRuntime | None = None,
                **options: Any) -> QuizBot:
    """Build the Discord bot over a chat runtime (a new one from ``settings`` by default)."""
    from bot.adapters.discord.client import QuizBot
    from bot.adapters.discord.sharding import parse_shards

    shards = parse_shards(settings.discord_shards)  # checked by `torchquiz discord` first
    if shards is not None:
        options.setdefault("shard_ids", list(shards.ids))
        options.setdefault("shard_count", shards.count)
    runtime = runtime or chat_runtime(settings, "discord")
    options.setdefault("health_address", (settings.health_host, settings.health_port))
    return QuizBot(runtime, guild_id=settings.discord_guild_id, **options)


def slack_bot(settings: Settings, *, clock: Clock | None = None,
              executor: Executor | None = None, grace: dt.timedelta | None = None,
              speed_executor: SpeedExecutor | None = None, **options: Any) -> SlackBot:
    """Build the Slack app over a new chat runtime; with OAuth, the installation stores too."""
    from bot.adapters.slack.bot import SlackBot

    runtime, app = chat_app(settings, "slack", clock=clock, executor=executor, grace=grace,
                            speed_executor=speed_executor)
    installations = None
    if settings.slack_client_id and app.engine is not None:
        installations = slack_installations(settings.slack_client_id, app.engine)
    return SlackBot(runtime, settings, installations=installations, **options)


def slack_installations(client_id: str, engine: Engine) -> Installations:
    """Return the installation stores of a multi-workspace Slack app, in the project's database.

    slack-sdk's own SQLAlchemy stores, over the one engine (the Alembic migrations create their
    tables); the Slack adapter runs them off its event loop.
    """
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    from bot.adapters.slack.installations import STATE_EXPIRES_S, Installations
    from bot.adapters.slack.installations import log as slack_log

    return Installations(
        SQLAlchemyInstallationStore(client_id, engine, logger=slack_log),
        SQLAlchemyOAuthStateStore(STATE_EXPIRES_S, engine, logger=slack_log))
