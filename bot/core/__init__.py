"""Platform-neutral quiz logic: rounds, answers, scoring, streaks, boards, explain, practice."""
