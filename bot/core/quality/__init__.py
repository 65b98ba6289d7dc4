"""The quality feature of the quiz core."""
