"""The Discord bot: slash commands, buttons and modals over the core, and the channel posts.

``client`` builds the AutoShardedBot and routes every interaction; ``commands`` holds the slash
commands, ``components`` the persistent buttons and the answer modal, ``render`` turns neutral
messages into embeds, ``publisher`` posts what the scheduler asks for, and ``main`` runs the
process. Only this package imports discord.
"""
