"""Menus for the board games' questions: long lists cut into pages, numbers, picks of several cards.

The kiosk has four buttons and a small screen, so a list longer than a screen's worth is shown a
page at a time, with "More…" as the last item of each page (NEXT, OK).
"""

from __future__ import annotations

from companion.i18n import N_, Text
from companion.ui.canvas import Literal
from companion.ui.games import Ask

PAGE = 8        # items per page: two columns of four stay readable at 800x480


def paged(prompt: Text, items: list, *, note: Text | None = None, camera: bool = False, optional: bool = False,
          hint: str | None = None, per_page: int = PAGE, columns: int = 0, focus: int = 0) -> Ask:
    """An Ask over ``items`` ((label, value) pairs), a page at a time."""
    extra = {"hint": hint} if hint else {}
    if len(items) <= per_page:
        return Ask(prompt, list(items), note=note, camera=camera, optional=optional, columns=columns, focus=focus,
                   **extra)
    first, rest = items[: per_page - 1], items[per_page - 1:]
    pages = -(-len(items) // (per_page - 1))

    def more(rest=rest, page=2):
        return _page(prompt, rest, page, pages, note, camera, per_page, columns)
    return Ask(prompt, list(first) + [(Text(N_("More… (page 2 of {pages})"), {"pages": pages}), more)],
               note=note, camera=camera, optional=optional, columns=columns,
               focus=focus if focus < per_page - 1 else 0, **extra)


def _page(prompt, items, page, pages, note, camera, per_page, columns) -> Ask:
    if len(items) <= per_page - 1:
        return Ask(prompt, list(items), note=note, camera=camera, optional=True, columns=columns)
    head, rest = items[: per_page - 1], items[per_page - 1:]

    def more():
        return _page(prompt, rest, page + 1, pages, note, camera, per_page, columns)
    return Ask(prompt, list(head) + [(Text(N_("More… (page {page} of {pages})"), {"page": page + 1, "pages": pages}),
                                      more)], note=note, camera=camera, optional=True, columns=columns)


def numbers(low: int, high: int, make) -> list:
    """``(label, make(n))`` for every n from low to high (the choices of a token count)."""
    return [(Literal(str(n)), make(n)) for n in range(low, high + 1)]


def pick_several(prompt_for, candidates: list, count: int, make, chosen: tuple = ()) -> Ask:
    """Choose ``count`` different items one after the other; ``make(chosen)`` builds the line.
    ``prompt_for(chosen)`` words the question as it stands; ``candidates`` are (label, id) pairs."""
    left = [(label, cid) for label, cid in candidates if cid not in chosen]
    items = []
    for label, cid in left:
        picked = chosen + (cid,)
        if len(picked) == count:
            items.append((label, make(picked)))
        else:
            items.append((label, lambda picked=picked: pick_several(prompt_for, candidates, count, make, picked)))
    return paged(prompt_for(chosen), items)
