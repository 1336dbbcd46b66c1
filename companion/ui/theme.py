"""Colours and sizes. Sizes are in pixels of the 800x480 reference screen (the official 7" display);
the canvas scales them to the real surface. Verdicts never rely on colour alone: correct is a green
disc with a tick, wrong is a vermilion square with a cross, and both say it in words."""

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

PERIOD_COLOURS = {               # Cronología's period backgrounds (as printed on the demo deck)
    "prehistoria": (150, 110, 80),
    "antigua": (196, 160, 64),
    "media": (70, 120, 190),
    "moderna": (150, 80, 160),
    "contemporanea": (200, 70, 70),
}

# Text sizes (reference pixels). At 800x480 on a 7" screen 26 px is about 5 mm: readable at 1.5 m.
HUGE, TITLE, LARGE, BODY, SMALL = 64, 40, 32, 26, 22

# Exhibition's continents, on screen and on the printed cards alike: Okabe-Ito colours, told apart by
# most colour-blind players (the continent's code is written beside them too)
CONTINENT_COLOURS = {"OC": (0, 158, 115), "SA": (230, 159, 0), "AF": (204, 121, 167), "AS": (240, 228, 66),
                     "EU": (0, 114, 178), "NA": (86, 180, 233)}
