"""The torchquiz bot: quiz core, platform adapters, scheduling and the command line."""
