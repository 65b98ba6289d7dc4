"""Typed settings, read once from the environment (and `.env` when present)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything torchquiz can be configured with; secrets stay SecretStr until used."""

    model_config = SettingsConfigDict(
        env_prefix="TORCHQUIZ_", env_file=".env", extra="ignore", populate_by_name=True
    )

    data_dir: Path = Path("var")
    database_url: str | None = None  # default: SQLite in data_dir
    # PostgreSQL connections: each process holds at most pool_size + max_overflow. With a
    # budget set, a process refuses to start when database_processes x that exceeds it
    # (docs/storage.md, "Connections"). database_pooler: PgBouncer in transaction mode is in
    # between (no server-side prepared statements).
    database_pool_size: int = Field(default=5, ge=1)
    database_max_overflow: int = Field(default=10, ge=0)
    database_processes: int = Field(default=1, ge=1)
    database_connection_budget: int | None = Field(default=None, ge=1)
    database_pooler: bool = False
    content_dir: Path | None = None  # default: the bank shipped in the package
    executor: Literal["local", "none"] = "local"
    # Comma-separated executor service URLs: when set, code is graded there, not in-process.
    executor_urls: str = ""
    executor_token: SecretStr | None = None  # the service's shared bearer token
    # How long one run may take on a replica (queueing included) before the client gives up.
    executor_timeout_s: float = Field(default=120.0, gt=0)
    # Runs code answers without isolation. Only for machines that cannot sandbox; never in prod.
    insecure_no_sandbox: bool = False
    log_level: str = "WARNING"
    # Per member and per process (each replica counts on its own): code answers graded per
    # minute and commands per 10 s; 0 turns a limit off. Beyond max_in_flight core calls
    # running or queued, a chat process answers "busy, try again" instead of queueing.
    rate_code_per_minute: int = Field(default=6, ge=0)
    rate_commands_per_10s: int = Field(default=10, ge=0)
    max_in_flight: int = Field(default=64, ge=1)
    # How long a replica's claim to post a round holds before another replica (or this one,
    # restarted) takes it over, after first looking for the post in the channel. Keep it above
    # the platform client's own timeout; tests shorten it to restart within seconds.
    post_lease_s: float = Field(default=120.0, gt=0)
    # Import matplotlib and draw one chart in the background at start: a long-running process
    # then holds what charts keep from its start (memory stays flat after it; the soak checks
    # that) and its first weekly board does not wait for the import. Off by default so that
    # short-lived commands and tests do not pay for it; the deployment files turn it on.
    charts_preload: bool = False
    # "json": one object per line (time, level, logger, message and the ids a line carries).
    log_format: Literal["text", "json"] = "text"
    # Where a Discord or Socket Mode Slack process serves /healthz and /metrics (0: nowhere).
    # Slack over HTTP serves them beside /slack/events. 0.0.0.0 in a container.
    health_host: str = "127.0.0.1"
    health_port: int = Field(default=8081, ge=0, le=65535)
    # The web page (`torchquiz web`): the public base URL its sign-in links start with, and the
    # secret that signs links and sessions (unset: one is generated and kept in the database).
    web_url: str = "http://127.0.0.1:8000"
    web_secret: SecretStr | None = None
    # The soak run's compressed clock, "START xSPEED @ANCHOR" (bot/core/kernel/clock.py): every
    # process given it reads the same time, SPEED times faster than the wall clock. Never in
    # production; unset: the system clock.
    soak_clock: str = ""

    @model_validator(mode="after")
    def _within_the_connection_budget(self) -> Settings:
        most = self.database_processes * (self.database_pool_size + self.database_max_overflow)
        budget = self.database_connection_budget
        if budget is not None and most > budget:
            raise ValueError(
                f"{self.database_processes} processes x (pool size {self.database_pool_size} + "
                f"overflow {self.database_max_overflow}) = {most} PostgreSQL connections, over "
                f"the budget of {budget}: lower TORCHQUIZ_DATABASE_POOL_SIZE or "
                "TORCHQUIZ_DATABASE_MAX_OVERFLOW, or raise TORCHQUIZ_DATABASE_CONNECTION_BUDGET")
        return self

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    # REST base including /api/v10 (a proxy, or a local fake in tests); default: Discord's own.
    discord_api_url: str | None = Field(default=None, validation_alias="DISCORD_API_URL")
    # Sync slash commands to this one server (instant updates while developing) instead of
    # globally.
    discord_guild_id: int | None = Field(default=None, validation_alias="DISCORD_GUILD_ID")
    # The gateway shards this process runs, "IDS/TOTAL" (e.g. "0,1/4"); "" runs all of them
    # (bot/adapters/discord/sharding.py).
    discord_shards: str = ""
    # Both set (with DISCORD_TOKEN): the web page offers "Sign in with Discord" (OAuth2, scope
    # identify); the bot then checks the member's servers and rights with its own token.
    discord_client_id: str | None = Field(default=None, validation_alias="DISCORD_CLIENT_ID")
    discord_client_secret: SecretStr | None = Field(
        default=None, validation_alias="DISCORD_CLIENT_SECRET"
    )
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias="SLACK_SIGNING_SECRET"
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/", validation_alias="SLACK_API_URL"
    )
    # The app-level token (xapp-...): when set, `torchquiz slack` runs in Socket Mode.
    slack_app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
    # Both set: one app many workspaces install (OAuth at /slack/install), tokens in the database;
    # the web page then offers "Sign in with Slack" (OpenID Connect) with the same app.
    slack_client_id: str | None = Field(default=None, validation_alias="SLACK_CLIENT_ID")
    slack_client_secret: SecretStr | None = Field(
        default=None, validation_alias="SLACK_CLIENT_SECRET"
    )
    # Where Slack sends an installer back; needed when the app has several redirect URLs.
    slack_redirect_uri: str | None = Field(default=None, validation_alias="SLACK_REDIRECT_URI")
    # Comma-separated user ids (U...) who may change quiz settings besides workspace admins.
    slack_admin_user_ids: str = Field(default="", validation_alias="SLACK_ADMIN_USER_IDS")

    @property
    def slack_admins(self) -> frozenset[str]:
        """Return the configured Slack admin user ids."""
        return frozenset(p.strip() for p in self.slack_admin_user_ids.split(",") if p.strip())
