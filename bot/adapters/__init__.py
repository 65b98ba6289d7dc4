"""Thin translators between chat platforms and the quiz core."""
