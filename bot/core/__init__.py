"""Platform-neutral quiz logic: rounds, answers, scoring, streaks, leaderboards, explain, practice."""
