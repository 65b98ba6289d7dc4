"""The kernel every feature shares: values, identities, messages, i18n, clock, errors, ports.

Features import its modules directly (bot.core.kernel.models, ...); the kernel imports no feature.
"""
