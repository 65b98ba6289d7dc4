"""The packs feature of the quiz core."""
