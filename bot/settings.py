"""Typed settings, read once from the environment (and `.env` when present)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything torchquiz can be configured with; secrets stay SecretStr until used."""

    model_config = SettingsConfigDict(
        env_prefix="TORCHQUIZ_", env_file=".env", extra="ignore", populate_by_name=True
    )

    data_dir: Path = Path("var")
    database_url: str | None = None  # default: SQLite in data_dir
    content_dir: Path | None = None  # default: the bank shipped in the package
    executor: Literal["local", "none"] = "local"
    # Runs code answers without isolation. Only for machines that cannot sandbox; never in prod.
    insecure_no_sandbox: bool = False
    log_level: str = "WARNING"

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    # REST base including /api/v10 (a proxy, or a local fake in tests); default: Discord's own.
    discord_api_url: str | None = Field(default=None, validation_alias="DISCORD_API_URL")
    # Sync slash commands to this one server (instant updates while developing) instead of
    # globally.
    discord_guild_id: int | None = Field(default=None, validation_alias="DISCORD_GUILD_ID")
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias="SLACK_SIGNING_SECRET"
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/", validation_alias="SLACK_API_URL"
    )
