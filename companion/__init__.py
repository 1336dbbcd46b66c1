"""Table Companion: a camera beside a card game that referees and scores it."""

__version__ = "0.1.0"
