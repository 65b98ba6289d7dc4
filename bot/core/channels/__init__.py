"""The channels feature of the quiz core."""
