"""The rounds feature of the quiz core."""
