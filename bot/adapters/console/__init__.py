"""The terminal channel: the quiz core driven from stdin, for trying it without tokens."""
