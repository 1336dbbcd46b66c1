"""The Ancient Knowledge card catalog: ``assets/ancient-knowledge/*.csv`` loaded and validated.

Three files (described in ``assets/ancient-knowledge/README.md``): ``builders.csv`` (144 monuments
and artifacts), ``technologies.csv`` (45) and ``endgame.csv`` (the 23 end-game formulas). Every
field is checked when the catalog loads; a bad one raises BadInput naming the file, the line, the
column and what is wrong, and nothing is half-loaded. Formulas and requirements are parsed once here.
"""

from __future__ import annotations

import csv
import difflib
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from companion.errors import BadInput
from companion.games.ancient_knowledge.formula import (
    Formula,
    FormulaError,
    Requirement,
    parse_formula,
    parse_requirement,
)
from companion.paths import assets_dir

T = TypeVar("T")

MONUMENT_KINDS = ("city", "megalith", "pyramid")
KINDS = MONUMENT_KINDS + ("artifact",)
TECH_TYPES = ("ancient", "writing", "secret")
MONUMENT_ACTIVATIONS = ("immediate", "anytime", "timeline", "decline", "endgame")
ARTIFACT_ACTIVATIONS = ("anytime", "timeline")

BUILDER_COLUMNS = ("id", "name", "kind", "start_zone", "locked", "discard_cost", "knowledge", "vp",
                   "activation", "starting_hand", "bga_id")
TECH_COLUMNS = ("id", "name", "type", "level", "vp", "activation", "requirement", "bga_id")
ENDGAME_COLUMNS = ("id", "formula", "note")

_SLUG_SPECIAL = {"ħ": "h", "Ħ": "h", "ł": "l", "ø": "o", "đ": "d", "ß": "ss"}


def slug(name: str) -> str:
    """The id rule of the data README: ASCII, accents stripped, apostrophes dropped, other runs of
    non-alphanumerics -> '-'."""
    text = "".join(_SLUG_SPECIAL.get(ch, ch) for ch in name)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"['’]", "", text)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


@dataclass(frozen=True)
class Builder:
    """A monument (city, megalith, pyramid) or an artifact."""

    id: str
    name: str
    kind: str
    start_zone: int | None        # monuments only
    locked: bool
    discard_cost: int
    knowledge: int | None         # monuments only
    vp: int | None                # monuments only
    activation: str
    starting_hand: int | None
    bga_id: str
    endgame: Formula | None = None  # monuments with activation "endgame"
    endgame_note: str = ""

    @property
    def is_monument(self) -> bool:
        return self.kind in MONUMENT_KINDS


@dataclass(frozen=True)
class Tech:
    id: str
    name: str
    type: str
    level: int
    vp: int
    activation: str
    requirement: Requirement
    bga_id: str


@dataclass(frozen=True)
class Catalog:
    builders: dict[str, Builder]
    techs: dict[str, Tech]
    folder: Path

    def ids(self) -> list[str]:
        return list(self.builders) + list(self.techs)

    def name(self, card_id: str) -> str:
        card = self.builders.get(card_id) or self.techs.get(card_id)
        return card.name if card else card_id

    def suggest(self, text: str, among: list[str] | None = None) -> list[str]:
        """The nearest known ids to a mistyped one (also when a name was written instead of an id)."""
        pool = among if among is not None else self.ids()
        key = slug(text) if isinstance(text, str) else ""
        if key in pool:
            return [key]
        return difflib.get_close_matches(key, pool, n=3, cutoff=0.6)

    def unknown(self, where: str, text, among: list[str] | None = None) -> BadInput:
        """The error for an id that is not in the catalog, with the nearest known ids."""
        near = self.suggest(text, among) if isinstance(text, str) else []
        hint = f"; did you mean {' or '.join(near)}?" if near else \
            " (card ids are lowercase names with dashes, e.g. karnak-temple)"
        return BadInput(where, f"unknown card {text!r}{hint}")

    def monument(self, card_id, where: str) -> Builder:
        """The monument with this id; BadInput for an unknown id, an artifact or a technology."""
        b = self.builder(card_id, where)
        if not b.is_monument:
            raise BadInput(where, f"{card_id!r} ({b.name}) is an artifact, not a monument")
        return b

    def builder(self, card_id, where: str) -> Builder:
        return self._card(card_id, where, self.builders, "a builder card")

    def tech(self, card_id, where: str) -> Tech:
        return self._card(card_id, where, self.techs, "a technology")

    def _card(self, card_id, where: str, among: dict[str, T], wanted: str) -> T:
        """The card of ``among`` (the builders or the technologies) with this id; BadInput for an id that
        is not text, a card of the other kind (``wanted`` says what was expected) or no card."""
        if not isinstance(card_id, str):
            raise BadInput(where, f"a card id is text, not {type(card_id).__name__}")
        if card_id in among:
            return among[card_id]
        other = self.builders.get(card_id) or self.techs.get(card_id)
        if other is not None:
            kind = other.kind if isinstance(other, Builder) else "technology"
            raise BadInput(where, f"{card_id!r} ({other.name}) is a {kind}, not {wanted}")
        raise self.unknown(where, card_id, list(among))


# ---------------------------------------------------------------------------------------------
# Loading


class _Row:
    """One CSV row with its file and line, for precise errors."""

    def __init__(self, path: Path, line: int, values: dict[str, str]):
        self.path = path
        self.line = line
        self.values = values

    def error(self, column: str, message: str) -> BadInput:
        ident = self.values.get("id") or "?"
        return BadInput(f"{self.path}: line {self.line} ({ident}), column {column}", message)

    def text(self, column: str, required: bool = True) -> str:
        value = self.values[column]
        if required and not value.strip():
            raise self.error(column, "is empty")
        if value != value.strip():
            raise self.error(column, f"{value!r} has spaces around it")
        return value

    def integer(self, column: str, low: int, high: int, allowed: tuple[int, ...] | None = None) -> int:
        value = self.text(column)
        if not re.fullmatch(r"\d+", value):
            raise self.error(column, f"{value!r} is not a whole number")
        n = int(value)
        if allowed is not None and n not in allowed:
            raise self.error(column, f"{n} is not one of {', '.join(map(str, allowed))}")
        if not low <= n <= high:
            raise self.error(column, f"{n} is outside {low}-{high}")
        return n

    def empty(self, column: str, why: str) -> None:
        if self.values[column] != "":
            raise self.error(column, f"must be empty {why}, not {self.values[column]!r}")

    def choice(self, column: str, options: tuple[str, ...]) -> str:
        value = self.text(column)
        if value not in options:
            raise self.error(column, f"{value!r} is not one of {', '.join(options)}")
        return value


def _read_csv(path: Path, columns: tuple[str, ...]) -> list[_Row]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BadInput(str(path), "missing catalog file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(str(path), f"not UTF-8 text (byte {e.start})") from None
    reader = csv.reader(text.splitlines(), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise BadInput(str(path), "empty file (a header row is needed)")
        if tuple(header) != columns:
            missing = [c for c in columns if c not in header]
            extra = [c for c in header if c not in columns]
            detail = (f"missing column {missing[0]!r}" if missing else
                      f"unknown column {extra[0]!r}" if extra else "columns are in the wrong order")
            raise BadInput(f"{path}: line 1", f"{detail}; the header must be {','.join(columns)}")
        rows = []
        for values in reader:
            if not values or values == [""]:
                raise BadInput(f"{path}: line {reader.line_num}", "empty line")
            if len(values) != len(columns):
                raise BadInput(f"{path}: line {reader.line_num}",
                               f"{len(values)} fields, expected {len(columns)} ({','.join(columns)})")
            rows.append(_Row(path, reader.line_num, dict(zip(columns, values, strict=True))))
        return rows
    except csv.Error as e:
        raise BadInput(f"{path}: line {reader.line_num}", f"malformed CSV: {e}") from None


def _check_id(row: _Row, seen: dict[str, str]) -> str:
    card_id = row.text("id")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", card_id):
        raise row.error("id", f"{card_id!r} is not a lowercase slug (letters, digits and single dashes)")
    name = row.text("name")
    if slug(name) != card_id:
        raise row.error("id", f"{card_id!r} does not match the name {name!r} (its slug is {slug(name)!r})")
    if card_id in seen:
        raise row.error("id", f"{card_id!r} is used twice (also {seen[card_id]})")
    seen[card_id] = f"{row.path.name} line {row.line}"
    return card_id


def _builder(row: _Row, seen: dict[str, str]) -> Builder:
    card_id = _check_id(row, seen)
    kind = row.choice("kind", KINDS)
    starting = None if row.values["starting_hand"] == "" else row.integer("starting_hand", 1, 4)
    if kind == "artifact":
        row.empty("start_zone", "for an artifact")
        row.empty("knowledge", "for an artifact")
        row.empty("vp", "for an artifact (artifacts never score)")
        if row.integer("locked", 0, 1) != 0:
            raise row.error("locked", "an artifact is never locked")
        return Builder(card_id, card_name(row.text("name")), kind, None, False,
                       row.integer("discard_cost", 0, 3, allowed=(0, 1, 3)), None, None,
                       row.choice("activation", ARTIFACT_ACTIVATIONS), starting, row.text("bga_id"))
    return Builder(card_id, card_name(row.text("name")), kind, row.integer("start_zone", 1, 6),
                   bool(row.integer("locked", 0, 1)), row.integer("discard_cost", 0, 4),
                   row.integer("knowledge", 0, 14), row.integer("vp", 0, 12),
                   row.choice("activation", MONUMENT_ACTIVATIONS), starting, row.text("bga_id"))


def _tech(row: _Row, seen: dict[str, str]) -> Tech:
    card_id = _check_id(row, seen)
    level = row.integer("level", 1, 2)
    vp = row.integer("vp", 0, 5)
    if level == 1 and vp != 0:
        raise row.error("vp", f"{vp}: a level I technology scores nothing, so its vp is 0")
    if level == 2 and vp < 2:
        raise row.error("vp", f"{vp}: a level II technology scores 2 to 5")
    activation = row.choice("activation", ("immediate",) if level == 1 else ("endgame",))
    text = row.values["requirement"]
    try:
        requirement = parse_requirement(text)
    except FormulaError as e:
        raise row.error("requirement", f"{text!r}: {e}") from None
    if level == 2 and not requirement.conds:
        raise row.error("requirement", "every level II technology has a requirement")
    return Tech(card_id, card_name(row.text("name")), row.choice("type", TECH_TYPES), level, vp, activation,
                requirement, row.text("bga_id"))


SMALL_WORDS = {"Of", "The", "De", "La", "Del", "Di", "And"}


def card_name(spelled: str) -> str:
    """A card's name as people write it: the reference files title-case every word ("Chabola De La
    Hechicera", "Pyramid Of The Niches"); the small words after the first are lower-case ("Chabola de
    la Hechicera", "Pyramid of the Niches")."""
    words = spelled.split(" ")
    return " ".join([words[0]] + [w.lower() if w in SMALL_WORDS else w for w in words[1:]])


def load_catalog(folder: str | Path | None = None) -> Catalog:
    """Load and validate the three catalog files; BadInput names file, line and column."""
    folder = Path(folder) if folder is not None else assets_dir() / "ancient-knowledge"
    seen: dict[str, str] = {}
    builders: dict[str, Builder] = {}
    for row in _read_csv(folder / "builders.csv", BUILDER_COLUMNS):
        b = _builder(row, seen)
        builders[b.id] = b
    techs: dict[str, Tech] = {}
    for row in _read_csv(folder / "technologies.csv", TECH_COLUMNS):
        t = _tech(row, seen)
        techs[t.id] = t
    formulas: dict[str, tuple[Formula, str, _Row]] = {}
    for row in _read_csv(folder / "endgame.csv", ENDGAME_COLUMNS):
        card_id = row.text("id")
        owner = builders.get(card_id)
        if owner is None:
            near = difflib.get_close_matches(card_id, list(builders), n=1)
            hint = f"; did you mean {near[0]}?" if near else ""
            raise row.error("id", f"{card_id!r} is not a card of builders.csv{hint}")
        if owner.activation != "endgame":
            raise row.error("id", f"{owner.name} has activation {owner.activation!r} in builders.csv, not 'endgame'")
        if card_id in formulas:
            raise row.error("id", f"{card_id!r} has two formulas (also line {formulas[card_id][2].line})")
        text = row.text("formula")
        try:
            formula = parse_formula(text)
        except FormulaError as e:
            raise row.error("formula", f"{text!r}: {e}") from None
        if "hand" in formula.counts_used():
            raise row.error("formula", "'hand' is for requirements only: the hand is not known at final scoring")
        formulas[card_id] = (formula, row.text("note", required=False), row)
    for b in builders.values():
        if b.activation == "endgame" and b.is_monument:
            if b.id not in formulas:
                raise BadInput(str(folder / "endgame.csv"), f"no formula for {b.id} ({b.name}), an end-game monument")
            formula, note, _ = formulas[b.id]
            builders[b.id] = replace(b, endgame=formula, endgame_note=note)
    return Catalog(builders, techs, folder)


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The shipped catalog, loaded once."""
    return load_catalog()


def card_problem(c):
    """What a deck's card entry lacks for Ancient Knowledge (its GameSpec's ``card_rule``): (field,
    message), or None when its catalog id is known."""
    if not c.ak_id:
        return "ak_id", "an Ancient Knowledge card needs its catalog id"
    known = catalog()
    if c.ak_id not in known.builders and c.ak_id not in known.techs:
        hint = known.suggest(c.ak_id)
        return "ak_id", f"{c.ak_id!r} is not an Ancient Knowledge card" + (f"; did you mean {hint[0]}?" if hint else "")
    return None
