"""The kernel feature of the quiz core."""
