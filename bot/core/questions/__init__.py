"""The questions feature of the quiz core."""
