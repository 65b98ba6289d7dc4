"""The learning feature of the quiz core."""
