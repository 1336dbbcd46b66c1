"""Colours and sizes. Sizes are in pixels of the 800x480 reference screen (the official 7" display);
the canvas scales them to the real surface. Verdicts never rely on colour alone: correct is a green
disc with a tick, wrong is a vermilion square with a cross, and both say it in words. A card's own
colours (its period's, its continent's) are the cards' facts, printed alike (companion/cards/model.py)."""

from companion.cards.model import CONTINENT_COLOURS, PERIOD_COLOURS  # noqa: F401  (the views draw with theme.*)

BG = (18, 22, 30)
PANEL = (34, 40, 52)
PANEL_HI = (52, 62, 80)
TEXT = (236, 238, 242)
MUTED = (160, 168, 182)
ACCENT = (255, 196, 61)         # focus, the active player
CORRECT = (46, 170, 96)
WRONG = (222, 76, 40)
WARN = (245, 160, 40)
INFO = (80, 150, 230)
CARD = (242, 234, 214)
CARD_TEXT = (30, 30, 36)
OUTLINE_OK = (70, 220, 120)
OUTLINE_NEW = (255, 196, 61)
OUTLINE_BAD = (240, 80, 60)

# Text sizes (reference pixels). At 800x480 on a 7" screen 26 px is about 5 mm: readable at 1.5 m.
HUGE, TITLE, LARGE, BODY, SMALL = 64, 40, 32, 26, 22

