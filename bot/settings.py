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
    # Comma-separated executor service URLs: when set, code is graded there, not in-process.
    executor_urls: str = ""
    executor_token: SecretStr | None = None  # the service's shared bearer token
    # How long one run may take on a replica (queueing included) before the client gives up.
    executor_timeout_s: float = Field(default=120.0, gt=0)
    # Runs code answers without isolation. Only for machines that cannot sandbox; never in prod.
    insecure_no_sandbox: bool = False
    log_level: str = "WARNING"

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias="SLACK_SIGNING_SECRET"
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/", validation_alias="SLACK_API_URL"
    )
