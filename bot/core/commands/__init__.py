"""The registry of commands: each one declared once, every front end's view built from it."""
