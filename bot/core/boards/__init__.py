"""The boards feature of the quiz core."""
