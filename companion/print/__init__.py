"""Sticker sheets and print-and-play decks (PDF)."""
