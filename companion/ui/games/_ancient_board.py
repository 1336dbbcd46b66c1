"""Drawing Ancient Knowledge: one player's board -- the Timeline's six zones of two rows (zone 1,
next to the Past, declines at the end of the turn), the Past, the artifacts and the technologies.
Every size comes from the rectangle given: a wide strip beside the camera, a taller box beside a
question."""

from __future__ import annotations

import pygame

from companion.i18n import N_, NP_, Text, plural
from companion.ui import theme
from companion.ui.canvas import Canvas, Literal, font, hyphenate

# Okabe-Ito colours; the Past also names the kinds, so colour is never the only cue
KIND_COLOURS = {"city": (0, 114, 178), "megalith": (0, 158, 115), "pyramid": (230, 159, 0),
                "artifact": (204, 121, 167)}
KIND_COUNTS = {"city": NP_("{n} city", "{n} cities"), "megalith": NP_("{n} megalith", "{n} megaliths"),
               "pyramid": NP_("{n} pyramid", "{n} pyramids")}


def _tint(colour, share: float = 0.35):
    return tuple(int(a * share + b * (1 - share)) for a, b in zip(colour, theme.CARD, strict=True))


def monument_tile(c: Canvas, rect: pygame.Rect, card: dict | None, highlight=None) -> None:
    """A monument of the Timeline: its kind's colour band with the knowledge tokens on it, its name
    below. ``card`` is the summary's ``{"card", "name", "kind", "tokens"}``; None is a free row."""
    if highlight is not None:
        c.box(rect.inflate(c.px(8), c.px(8)), highlight, radius=8, width=c.px(4))
    if card is None:
        pygame.draw.rect(c.surface, theme.MUTED, rect, max(1, c.px(1)), border_radius=c.px(5))
        return
    colour = KIND_COLOURS.get(card.get("kind") or "", theme.MUTED)
    c.box(rect, _tint(colour), radius=5)
    band = pygame.Rect(rect.x, rect.y, rect.w, min(c.px(21), rect.h // 3))
    c.box(band, colour, radius=5)
    tokens = card.get("tokens")
    if tokens:
        c.text(Literal(f"◆{tokens}"), (band.right - c.px(4), band.centery), 16, theme.TEXT, bold=True,
               anchor="midright", role="tokens")
    # the name on as many lines as the tile holds; a word wider than the tile is split with a hyphen
    width, px = rect.w - c.px(6), c.px(16)
    line_h = font(px, False).get_linesize()
    room = max(1, (rect.bottom - band.bottom - c.px(2)) // line_h)
    lines = short_name(c, card["name"], px, width, room)
    for i, line in enumerate(lines):
        c.text(Literal(line), (rect.centerx, band.bottom + c.px(1) + i * line_h), 16, theme.CARD_TEXT,
               anchor="midtop", max_width=width, role="monument")


def short_name(c: Canvas, name: str, px: int, width: int, room: int) -> list[str]:
    """A monument's name in at most ``room`` lines of ``width``: whole where it fits, else its last
    words, the ones that tell monuments apart ("Pyramid of Djoser": "Djoser"), never a name cut short."""
    words = name.split(" ")
    for first in range(len(words)):
        part = " ".join(words[first:])
        lines = [piece for line in c.wrap(part, px, False, width) for piece in _split(line, px, width)]
        if len(lines) <= room:
            return lines
    return lines


def _split(word: str, px: int, width: int) -> list[str]:
    """A word too wide for the tile, cut into hyphenated pieces that fit ("Stone-", "henge")."""
    f = font(px, False)
    return hyphenate(word, lambda piece: f.size(piece)[0] <= width)


def draw_board(c: Canvas, rect: pygame.Rect, player: dict, declining: bool, mark: tuple | None = None,
               new_card: dict | None = None) -> None:
    """One player's board from the state summary's ``players`` entry. ``declining``: zone 1 declines
    at the end of this turn (it is this player's turn). ``mark`` = (zone, row) outlines the spot a
    proposal is about, with ``new_card`` drawn there."""
    wide = rect.w >= rect.h * 2.2
    gap = c.px(6)
    if wide:
        past_w = c.px(96)
        zones = pygame.Rect(rect.x + past_w + gap, rect.y, rect.w - past_w - gap, rect.h - c.px(46))
        past = pygame.Rect(rect.x, rect.y, past_w, rect.h)
        strip = pygame.Rect(zones.x, zones.bottom + gap, zones.w, rect.bottom - zones.bottom - gap)
    else:
        zones = pygame.Rect(rect.x, rect.y, rect.w, int(rect.h * 0.66))
        below = pygame.Rect(rect.x, zones.bottom + c.px(10), rect.w, rect.bottom - zones.bottom - c.px(10))
        past = pygame.Rect(below.x, below.y, below.w // 2 - gap, below.h)
        strip = pygame.Rect(past.right + gap * 2, below.y, below.right - past.right - gap * 2, below.h)
    _zones(c, zones, player, declining, mark, new_card, per_row=6 if wide else 3)
    _past(c, past, player)
    _owned(c, strip, player, wide)


def _zones(c: Canvas, area: pygame.Rect, player: dict, declining: bool, mark, new_card, per_row: int) -> None:
    """The six zones left to right, zone 1 first; in a narrow box three to a row (1-3 over 4-6)."""
    head = c.px(20)
    gap = c.px(4)
    lines = 6 // per_row
    col_w = (area.w - gap * (per_row - 1)) // per_row
    zone_h = (area.h - c.px(8) * (lines - 1)) // lines
    tile_h = (zone_h - head - gap * 2) // 2
    for z, zone in enumerate(player["zones"]):
        line, pos = divmod(z, per_row)
        x = area.x + pos * (col_w + gap)
        column = pygame.Rect(x, area.y + line * (zone_h + c.px(8)), col_w, zone_h)
        first = z == 0 and declining
        if first:
            c.box(column.inflate(c.px(4), c.px(4)), theme.WARN, radius=6, width=c.px(2))
        label = Literal("1 ▼") if first else Literal(str(zone["zone"]))
        c.text(label, (column.centerx, column.y + head // 2), 16, theme.WARN if first else theme.MUTED, bold=True,
               anchor="center", max_width=col_w, role="zone")
        for r, row in enumerate(("upper", "lower")):      # as on the mat: the upper row above
            rect = pygame.Rect(x, column.y + head + gap + r * (tile_h + gap), col_w, tile_h)
            if mark == (z + 1, row):
                monument_tile(c, rect, new_card, theme.OUTLINE_NEW)
            else:
                monument_tile(c, rect, zone[row])


def _past(c: Canvas, area: pygame.Rect, player: dict) -> None:
    c.box(area, theme.PANEL_HI, radius=8)
    inner = area.inflate(-c.px(10), -c.px(8))
    y = inner.y
    line = c.px(20)
    head = Text(N_("Past {n}"), {"n": player["past_count"]})
    two = not c.fits(head, (0, 0, inner.w, c.px(24)), 18, bold=True, role="past")
    c.paragraph(head, (inner.x, y, inner.w, c.px(24) * (1 + two)), 18, theme.TEXT, bold=True, role="past")
    y += c.px(24) * (1 + two)
    kinds: dict[str, int] = {}
    for card in player["past"]:
        kinds[card["kind"]] = kinds.get(card["kind"], 0) + 1
    for kind, n in kinds.items():
        words = plural(KIND_COUNTS.get(kind, ("{n} " + kind, "{n} " + kind)), n)
        # a narrow column: the count over the kind's name, rather than a name cut short
        lines = -(-c.height_of(words, inner.w - c.px(14), 16, role="past-kind") // line)
        if y + line * lines > inner.bottom - line:
            break
        c.box(pygame.Rect(inner.x, y + c.px(4), c.px(10), c.px(10)), KIND_COLOURS.get(kind, theme.MUTED), radius=2)
        c.paragraph(words, (inner.x + c.px(14), y, inner.w - c.px(14), line * lines), 16, theme.TEXT,
                    role="past-kind")
        y += line * lines
    rotated = sum(1 for card in player["past"] if card.get("rotated"))
    excavated = Text(N_("{n} excavated"), {"n": rotated})
    two = not c.fits(excavated, (0, 0, inner.w, line), 16, role="past-kind")
    if rotated and y + line * (1 + two) <= inner.bottom - line:
        c.paragraph(excavated, (inner.x, y, inner.w, line * (1 + two)), 16, theme.MUTED, role="past-kind")
        y += line * (1 + two)
    lost = player["lost_knowledge"]
    colour = theme.WARN if lost else theme.MUTED
    lost_words = Text(N_("Lost ◆{n}"), {"n": lost})
    if c.fits(lost_words, (0, 0, inner.w, c.px(24)), 16, bold=True, role="lost"):
        c.text(lost_words, (inner.x, inner.bottom), 16, colour, bold=True, anchor="bottomleft", max_width=inner.w,
               role="lost")
    else:           # a narrow column ("Perdido ◆12" did not fit): the word over its count
        low = c.text(Literal(f"◆{lost}"), (inner.x, inner.bottom), 16, colour, bold=True, anchor="bottomleft",
                     role="lost")
        c.text(Text(N_("Lost")), (inner.x, low.top), 16, colour, bold=True, anchor="bottomleft", max_width=inner.w,
               role="lost")


def _owned(c: Canvas, area: pygame.Rect, player: dict, wide: bool) -> None:
    """Artifacts (of 5 slots) and technologies, as short lines of names."""
    artifacts = [a["name"] for a in player["artifacts"]]
    techs = [t["name"] + (" II" if t["level"] == 2 else "") for t in player["techs"]]
    lines = [(lambda names: Text(N_("Artifacts {n}/5: {names}"), {"n": len(artifacts), "names": names}), artifacts,
              "artifacts"),
             (lambda names: Text(N_("Technologies: {names}"), {"names": names}), techs, "techs")]
    if wide:
        h = area.h // 2
        for i, (words, names, role) in enumerate(lines):
            rect = pygame.Rect(area.x, area.y + i * h, area.w, h)
            c.text(_listed(c, words, names, rect, role, True), (rect.x, rect.centery), 16, theme.TEXT, anchor="midleft",
                   max_width=area.w, role=role)
        return
    c.box(area, theme.PANEL_HI, radius=8)
    inner = area.inflate(-c.px(10), -c.px(8))
    half = inner.h // 2
    for i, (words, names, role) in enumerate(lines):
        rect = pygame.Rect(inner.x, inner.y + i * half, inner.w, half - c.px(4))
        c.paragraph(_listed(c, words, names, rect, role, False), rect, 16, theme.TEXT, role=role)


def _listed(c: Canvas, words, names: list[str], rect: pygame.Rect, role: str, one_line: bool):
    """``words(names)`` with as many of the names as fit ``rect`` whole at 16 px (on one line, or
    wrapped), the rest counted ("Disk of Sabu, Kensington Runestone +2"): the cards themselves lie in
    front of their owner."""
    def fits(text) -> bool:
        if one_line:
            return font(c.px(16), False).size(c.tr(text))[0] <= rect.w
        return c.fits(text, rect, 16, role=role)

    if not names:
        return words("–")
    for k in range(len(names), 0, -1):
        text = words(", ".join(names[:k]) + (f" +{len(names) - k}" if k < len(names) else ""))
        if fits(text):
            return text
    return words(f"+{len(names)}")
