"""Benchmarks: `torchquiz bench core` (storage and the core at users' sizes), loaded lazily."""
