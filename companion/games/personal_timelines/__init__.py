"""Personal timelines: each player builds a row of their own by year (rules: docs/personal-timelines.md)."""
