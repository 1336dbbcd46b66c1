"""Decks as CSV: what a player types in a spreadsheet, read back with errors that name the row.

One card per row, a header row naming the columns (any order, any subset of ``COLUMNS``). An empty
``n`` takes the next free number, so a player can type titles and years and let the numbers come.
Years may be written ``-753``, ``753 BC``, ``753 a. C.`` or ``c. 3000 BC``; icons as a list separated
by spaces or commas; headers in English or Spanish (``año``, ``título``, ``periodo``...).
Spreadsheets that save with ``;`` (Spanish Excel) and a UTF-8 BOM are read too.
Errors read ``box.csv: row 7, column C (year): 'abc' is not a year`` and nothing is half-imported.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from companion import registry
from companion.cards.decks import MAX_CARDS, CardEntry, DeckFile, _CardError, facts_of
from companion.cards.model import CONTINENTS, ICONS, PERIODS, WHITES
from companion.errors import BadInput, read_text

COLUMNS = ("n", "year", "circa", "title", "title_es", "period", "icons", "continent", "white", "ak_id", "review")
ALIASES = {"number": "n", "no": "n", "#": "n", "número": "n", "numero": "n", "año": "year", "ano": "year",
           "título": "title", "titulo": "title", "título_es": "title_es", "titulo_es": "title_es",
           "periodo": "period", "período": "period", "iconos": "icons", "continente": "continent",
           "blanca": "white", "aproximada": "circa", "revisar": "review"}

_YES = {"yes", "y", "true", "1", "x", "si", "sí", "s"}
_NO = {"no", "n", "false", "0", ""}
_BC = r"(?:bc|bce|b\.c\.?|a\.?\s*c\.?|a\.?\s*de\s*c\.?|a\.?\s*n\.?\s*e\.?)"
_AD = r"(?:ad|a\.d\.?|ce|d\.?\s*c\.?|d\.?\s*de\s*c\.?|n\.?\s*e\.?)"
_YEAR_RE = re.compile(rf"^(?P<circa>c\.|ca\.?|circa|h\.|hacia)?\s*(?P<num>[+-]?\d{{1,3}}(?:[.,\s]\d{{3}})+|[+-]?\d+)"
                      rf"\s*(?:(?P<bc>{_BC})|(?P<ad>{_AD}))?$", re.IGNORECASE)


def parse_year(text: str) -> tuple[int, bool]:
    """``'753 BC'`` -> (-753, False); ``'c. 3000 a. C.'`` -> (-3000, True); raises ValueError."""
    m = _YEAR_RE.match(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a year (write 1969, -753 or 753 BC)")
    digits = re.sub(r"[.,\s]", "", m.group("num"))
    year = int(digits)
    if m.group("bc"):
        if year <= 0:
            raise ValueError(f"{text!r}: write a BC year either as -753 or as 753 BC, not both")
        year = -year
    if year == 0:
        raise ValueError("there is no year 0: 1 BC is -1, AD 1 is 1")
    return year, m.group("circa") is not None


def parse_bool(text: str) -> bool:
    t = text.strip().lower()
    if t in _YES:
        return True
    if t in _NO:
        return False
    raise ValueError(f"{text!r} is not yes or no")


def parse_icons(text: str) -> list[str]:
    icons = [i for i in re.split(r"[\s,;+|/]+", text.strip().lower()) if i]
    for i in icons:
        if i not in ICONS:
            raise ValueError(f"unknown icon {i!r}; icons are {', '.join(ICONS)}")
    return icons


def parse_period(text: str) -> str:
    t = unicodedata.normalize("NFKD", text.strip().lower()).encode("ascii", "ignore").decode()
    if t not in PERIODS:
        raise ValueError(f"unknown period {text!r}; one of {', '.join(PERIODS)}")
    return t


def parse_continent(text: str) -> str:
    t = text.strip().upper()
    if t not in CONTINENTS:
        raise ValueError(f"unknown continent {text!r}; one of {' '.join(CONTINENTS)}")
    return t


def parse_white(text: str) -> str:
    t = text.strip().lower()
    if t not in WHITES:
        raise ValueError(f"unknown white card {text!r}; one of {', '.join(WHITES)}")
    return t


def parse_number(text: str) -> int:
    t = text.strip()
    if not (t.isascii() and t.isdigit()) or not 1 <= int(t) <= MAX_CARDS:
        raise ValueError(f"{text!r} is not a card number (1 to {MAX_CARDS})")
    return int(t)


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def read_cards(path: str | Path, game: str, deck_id: str, known: Sequence[CardEntry] = ()) -> list[CardEntry]:
    """The cards of a CSV file, checked as a whole deck of ``game``; BadInput names row and column.
    ``known``: the deck's cards so far: a row without a number that is one of them keeps its number,
    and a new card gets a number no card of the deck ever had (a printed sticker keeps its meaning)."""
    try:
        text = read_text(path, "file")
    except BadInput as e:
        if "UTF-8" in e.message:
            raise BadInput(e.where, e.message + "; save the spreadsheet as 'CSV UTF-8'") from None
        raise
    return parse_cards(text, str(path), game, deck_id, known)


def parse_cards(text: str, name: str, game: str, deck_id: str, known: Sequence[CardEntry] = ()) -> list[CardEntry]:
    text = text.removeprefix("\ufeff")
    header_line = text.split("\n", 1)[0].split("\r", 1)[0]
    if not header_line.strip():
        example = ",".join(registry.spec_for(game).deck_columns)
        raise BadInput(f"{name}: row 1", f"the first row must name the columns, e.g. {example}")
    # commas; semicolons (Spanish Excel); tabs (cells copied out of a spreadsheet and pasted)
    delimiter = max((",", ";", "\t"), key=header_line.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = _rows(reader, name)
    first = next(rows)
    header = [h.strip().lower() for h in first]
    columns: list[str] = []
    for i, h in enumerate(header):
        col = ALIASES.get(h, h)
        where = f"{name}: row 1, column {_column_letter(i)}"
        if col not in COLUMNS:
            read_as = {"\t": "tab-separated, as cells pasted from a spreadsheet are",
                       ";": "separated by semicolons"}.get(delimiter, "separated by commas")
            raise BadInput(where, f"unknown column {first[i].strip()!r}; the first row names the columns (here "
                                  f"{read_as}), e.g. {','.join(registry.spec_for(game).deck_columns)}; columns are "
                                  f"{', '.join(COLUMNS)}")
        if col in columns:
            raise BadInput(where, f"column {col!r} appears twice")
        columns.append(col)

    def loc(row: int, field: str) -> str:
        if field in columns:
            i = columns.index(field)
            return f"{name}: row {row}, column {_column_letter(i)} ({field})"
        return f"{name}: row {row}"

    entries: list[tuple[int, dict]] = []   # (row number, fields)
    for r, values in enumerate(rows, start=2):
        if not any(v.strip() for v in values):
            continue
        if len(entries) == MAX_CARDS:
            raise BadInput(f"{name}: row {r}", f"more than {MAX_CARDS} cards; a deck holds at most {MAX_CARDS} "
                                               f"(sticker numbers have 1 to 4 digits)")
        if len(values) > len(columns):
            raise BadInput(f"{name}: row {r}", f"{len(values)} fields but the header names {len(columns)} columns")
        fields: dict = {}
        for col, value in zip(columns, values, strict=False):  # a short row leaves the rest empty
            if not value.strip():
                continue
            try:
                if col == "n":
                    fields["n"] = parse_number(value)
                elif col == "year":
                    year, circa = parse_year(value)
                    fields["year"] = year
                    if circa:
                        fields["circa"] = True
                elif col in ("circa", "review"):
                    if parse_bool(value):
                        fields[col] = True
                elif col == "icons":
                    fields["icons"] = parse_icons(value)
                elif col == "period":
                    fields["period"] = parse_period(value)
                elif col == "continent":
                    fields["continent"] = parse_continent(value)
                elif col == "white":
                    fields["white"] = parse_white(value)
                else:
                    fields[col] = value.strip()
            except ValueError as e:
                raise BadInput(loc(r, col), str(e)) from None
        entries.append((r, fields))

    used = {f["n"] for _, f in entries if "n" in f}
    next_n = max(used | {e.n for e in known}, default=0) + 1
    number_of = {facts_of(e): e.n for e in known}
    cards: list[CardEntry] = []
    for r, fields in entries:
        if "n" not in fields:
            try:
                same = number_of.get(facts_of(CardEntry.model_validate({**fields, "n": 1})))
            except ValidationError:
                same = None             # a bad row: validated below, where its error names the row
            if same is not None and same not in used:
                fields["n"] = same
            else:
                fields["n"] = next_n
                next_n += 1
            used.add(fields["n"])
        try:
            cards.append(CardEntry.model_validate(fields))
        except ValidationError as e:
            err = e.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else ""
            raise BadInput(loc(r, field), err["msg"].removeprefix("Value error, ")) from None
    try:
        DeckFile(id=deck_id, name=deck_id, game=game, cards=cards)
    except ValidationError as e:
        ctx = e.errors()[0].get("ctx", {}).get("error")
        if isinstance(ctx, _CardError):
            index = int(ctx.where.split("[")[1].split("]")[0])
            field = ctx.where.rsplit(".", 1)[1]
            message = ctx.message
            if field == "n":  # "also cards[i]" means nothing to a spreadsheet user: name the row
                other = next(row for (row, f) in entries if f["n"] == cards[index].n)
                message = f"number {cards[index].n} is used twice (also row {other})"
            raise BadInput(loc(entries[index][0], field), message) from None
        raise BadInput(name, e.errors()[0]["msg"]) from None
    return cards


def _rows(reader, name: str):
    """The reader's rows, one at a time (a huge file is never held as a list of rows); a row the csv
    module cannot read is BadInput naming it."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise BadInput(f"{name}: row {reader.line_num}", f"not readable as CSV: {e}") from None


def write_cards(entries: list[CardEntry], game: str) -> str:
    """The CSV text of a deck's cards (the columns its game uses, plus any other column in use)."""
    cols = list(registry.spec_for(game).deck_columns)
    for c in COLUMNS:
        if c not in cols and any(_cell(e, c) for e in entries):
            cols.append(c)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(cols)
    for e in sorted(entries, key=lambda e: e.n):
        writer.writerow([_cell(e, c) for c in cols])
    return out.getvalue()


def _cell(e: CardEntry, col: str) -> str:
    value = getattr(e, col)
    if col == "icons":
        return " ".join(value)
    if isinstance(value, bool):
        return "yes" if value else ""
    return "" if value is None else str(value)
