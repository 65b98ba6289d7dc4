"""The bot's sentences, one module per feature (the kernel's i18n.t merges them)."""
