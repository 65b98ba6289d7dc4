"""The people feature of the quiz core."""
