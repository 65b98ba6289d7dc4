"""Helpers test modules import as a library; the conftest files keep only fixtures."""
