"""Deck files: ``assets/decks/*.json`` (bundled) and ``<data dir>/decks/*.json`` (the user's own).

A deck maps sticker numbers to card facts. Files are validated on load; a broken file is reported
with its path, the card and the field (``assets/decks/demo.json: cards[3].year: ...``) and never
half-loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from companion import registry
from companion.cards.model import CONTINENTS, ICONS, PERIODS, WHITES, Card
from companion.cards.payload import format_payload, parse_sticker
from companion.errors import BadInput, json_path, read_json
from companion.i18n import N_, Text
from companion.paths import assets_dir, command, data_dir

GAMES = tuple(registry.GAMES)   # the games a deck file may name
MAX_CARDS = 9999     # sticker numbers have 1 to 4 digits, so no deck holds more cards than this


def _one_of(value: str, allowed: tuple[str, ...], what: str, listed: str = ", ") -> str:
    """``value`` if ``allowed`` holds it, else ValueError("unknown period 'x'; one of ...");
    ``listed`` joins the choices in the message."""
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; one of {listed.join(allowed)}")
    return value


# The card fields that name one of a fixed set: field -> (what a message calls it, the set, how the
# message lists the set: the continents' two-letter codes with spaces, "OC SA AF ...").
_NAMED: dict[str | None, tuple[str, tuple[str, ...], str]] = {
    "period": ("period", PERIODS, ", "),
    "continent": ("continent", CONTINENTS, " "),
    "white": ("white card", WHITES, ", "),
}


class CardEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(ge=1, le=MAX_CARDS, description="sticker number")
    year: int | None = None
    title: str | None = None
    title_es: str | None = None
    period: str | None = None
    icons: list[str] = []
    continent: str | None = None
    white: str | None = None
    ak_id: str | None = None
    circa: bool = False  # the date is a conventional approximation; printed as "c. 3000 BC"
    review: bool = False  # a printed range or "c." date sorted on its first year; check by hand

    @field_validator("year")
    @classmethod
    def _no_year_zero(cls, v):
        if v == 0:
            raise ValueError("there is no year 0: 1 BC is -1, AD 1 is 1")
        return v

    @field_validator("period", "continent", "white")
    @classmethod
    def _named(cls, v, info: ValidationInfo):
        if v is None:
            return v
        what, allowed, listed = _NAMED[info.field_name]
        return _one_of(v, allowed, what, listed)

    @field_validator("icons")
    @classmethod
    def _icons(cls, v):
        for icon in v:
            _one_of(icon, ICONS, "icon")
        if len(set(v)) != len(v):
            raise ValueError("an icon is listed twice")
        return v

    def to_card(self, deck_id: str) -> Card:
        year = 1945 if self.white == "1945" else self.year
        return Card(year=year, title=self.title, title_es=self.title_es, period=self.period,
                    icons=tuple(self.icons), continent=self.continent, white=self.white,
                    ak_id=self.ak_id, code=format_payload(deck_id, self.n), circa=self.circa)


def facts_of(entry: CardEntry) -> str:
    """What a card is, without its number: two entries with the same facts are the same card."""
    return entry.model_dump_json(exclude={"n", "circa", "review"})


class DeckFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Z0-9]{2,8}$", description="deck id used in sticker payloads")
    name: str = Field(min_length=1)
    game: str
    assumed: bool = False  # facts are a best guess, to be checked against the physical box
    notes: str = ""
    cards: list[CardEntry]

    @field_validator("game")
    @classmethod
    def _known_game(cls, v):
        if v not in registry.GAMES:
            raise ValueError(f"unknown game {v!r}; known games: {', '.join(registry.GAMES)}")
        return v

    @model_validator(mode="after")
    def _cards_fit_game(self):
        seen: dict[int, int] = {}
        same: dict[str, int] = {}          # a card's facts -> its index
        for i, c in enumerate(self.cards):
            if c.n in seen:
                raise _CardError(i, "n", f"number {c.n} is used twice (also cards[{seen[c.n]}])")
            seen[c.n] = i
            wrong = registry.spec_for(self.game).check_card(c)
            if wrong is not None:
                raise _CardError(i, *wrong)
            facts = facts_of(c)
            if facts in same:
                j = same[facts]
                raise _CardError(i, "n", f"the same card as cards[{j}] (number {self.cards[j].n}): a deck holds each "
                                          "card once")
            same[facts] = i
        return self


class _CardError(ValueError):
    def __init__(self, index: int, fieldname: str, message: str):
        super().__init__(message)
        self.where = json_path("cards", index, fieldname)
        self.message = message


class Deck:
    """A loaded, valid deck."""

    def __init__(self, spec: DeckFile, path: Path | None = None):
        self.spec = spec
        self.path = path
        self.id = spec.id
        self.name = spec.name
        self.game = spec.game
        self.cards: dict[int, Card] = {c.n: c.to_card(spec.id) for c in spec.cards}

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def bundled(self) -> bool:
        """Shipped with the program (read-only), as opposed to the user's own decks."""
        return self.path is not None and self.path.parent.resolve() == (assets_dir() / "decks").resolve()

    def entries(self) -> list[CardEntry]:
        """The deck file's card entries, by number (what printing and CSV export need)."""
        return sorted(self.spec.cards, key=lambda c: c.n)

    def card(self, number: int) -> Card | None:
        return self.cards.get(number)

    def payloads(self) -> list[str]:
        return [format_payload(self.id, n) for n in sorted(self.cards)]

    def plays(self, game: str) -> bool:
        """A deck serves its own game, and a game that uses its game's decks when every card passes
        that game's card rule (a Timeline deck serves Cronología when its periods are known)."""
        if game == self.game:
            return True
        spec = registry.GAMES.get(game)
        if spec is None or self.game not in spec.uses_decks_of:
            return False
        return all(spec.check_card(e) is None for e in self.spec.cards)


def load_deck(path: str | Path) -> Deck:
    """Load and validate one deck file; BadInput names the file, the card and the field."""
    path = Path(path)
    where = str(path)
    return parse_deck(read_json(path, "deck file"), where, path)


def parse_deck(raw, where: str, path: Path | None = None) -> Deck:
    cards = raw.get("cards") if isinstance(raw, dict) else None
    if isinstance(cards, list) and len(cards) > MAX_CARDS:     # refused before a model is built for each
        raise BadInput(f"{where}: cards", f"{len(cards)} cards; a deck holds at most {MAX_CARDS} "
                                          f"(sticker numbers have 1 to 4 digits)")
    try:
        spec = DeckFile.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        ctx = err.get("ctx", {}).get("error")
        if isinstance(ctx, _CardError):
            raise BadInput(f"{where}: {ctx.where}", ctx.message) from None
        loc = json_path(*err["loc"]) if err["loc"] else "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        raise BadInput(f"{where}: {loc}", msg) from None
    return Deck(spec, path)


def deck_dirs() -> list[Path]:
    """Bundled decks first, then the user's: a user deck with a bundled deck's id replaces it (that is
    how a player corrects EXH20 against their own box without renumbering the stickers)."""
    return [assets_dir() / "decks", data_dir() / "decks"]


def user_deck_path(deck_id: str) -> Path:
    return data_dir() / "decks" / f"{deck_id}.json"


@lru_cache(maxsize=1)
def _registry() -> dict[str, Deck]:
    decks: dict[str, Deck] = {}
    for folder in deck_dirs():
        in_folder: dict[str, Path] = {}
        for path in sorted(folder.glob("*.json")):
            deck = load_deck(path)
            if deck.id in in_folder:
                raise BadInput(str(path), f"deck id {deck.id} is already used by {in_folder[deck.id]}")
            in_folder[deck.id] = path
            decks[deck.id] = deck
    return decks


def reload_decks() -> None:
    _registry.cache_clear()


def all_decks() -> list[Deck]:
    return list(_registry().values())


def bundled_deck(deck_id: str) -> Deck | None:
    """The shipped deck with this id, even when a user deck replaces it."""
    path = assets_dir() / "decks"
    for p in sorted(path.glob("*.json")):
        deck = load_deck(p)
        if deck.id == deck_id:
            return deck
    return None


def deck_ref(text: str) -> str:
    """A deck as a command line names it: ids are typed in any case; paths are left alone; a file of
    another kind (a spreadsheet's CSV, a game log) is said to be that, with the command that takes it."""
    from companion.paths import command
    suffix = Path(text).suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        raise BadInput(text, f"that is a {suffix[1:].upper()} file, not a deck: to make a deck of its cards, "
                             f"{command()} deck import ID {text} --game GAME")
    if suffix in (".xlsx", ".xls", ".ods"):
        raise BadInput(text, f"that is a spreadsheet, not a deck: save it as CSV (UTF-8), then {command()} deck "
                             f"import ID FILE.csv")
    if suffix == ".jsonl":
        raise BadInput(text, f"that is a game log, not a deck: {command()} replay {text}")
    return text if text.endswith(".json") or "/" in text else text.upper()


def get_deck(deck_id_or_path: str) -> Deck:
    """A deck by id (``EXH20``) or by file path."""
    if deck_id_or_path.endswith(".json") or "/" in deck_id_or_path:
        return load_deck(deck_id_or_path)
    decks = _registry()
    if deck_id_or_path not in decks:
        raise BadInput(deck_id_or_path, f"unknown deck; known decks: {', '.join(sorted(decks)) or 'none'}")
    return decks[deck_id_or_path]


def save_user_deck(spec: DeckFile) -> Path:
    """Write a user deck to ``<data dir>/decks/<id>.json`` (whole file or nothing) and reload."""
    spec = DeckFile.model_validate(spec.model_dump())  # re-run the deck-wide checks
    path = user_deck_path(spec.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = spec.model_dump(exclude_defaults=True)
    data["cards"] = [c.model_dump(exclude_defaults=True) for c in sorted(spec.cards, key=lambda c: c.n)]
    text = json.dumps({"id": spec.id, **data}, ensure_ascii=False, indent=1) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    reload_decks()
    return path


class UnknownCard(BadInput):
    """A sticker of our format whose deck or number is not known. ``text`` is the same message as a
    translatable Text, for the kiosk."""

    def __init__(self, where: str, text: Text):
        super().__init__(where, text.render("en"))
        self.text = text


class ForeignCode(BadInput):
    """A decoded code that is not a card sticker at all."""

    def __init__(self, where: str, text: Text):
        super().__init__(where, text.render("en"))
        self.text = text


_FOREIGN = N_("not a card sticker (a foreign code; card stickers read TC:<DECK>:<NUMBER>)")
_UNKNOWN_DECK = N_("unknown deck {deck}: no deck with this id is registered (known decks: {known}). "
                   "To register it, on the computer run: {new}, "
                   "then add its cards: {add} (or all at once from a spreadsheet: {import_cmd})")
_UNKNOWN_NUMBER = N_("deck {deck} has no card {number} (it has {count} cards). "
                     "To register it, on the computer run: {add}")
_UNKNOWN_NUMBER_BUNDLED = N_("deck {deck} has no card {number} (it has {count} cards, numbered {first} to "
                             "{last}). {deck} is a bundled deck, so check the sticker; to add cards, make "
                             "your own copy first: {copy}, then {add}")


def add_command(deck_id: str, game: str | None, number: int | None = None) -> str:
    """The ``companion deck add`` line that registers a card of this deck (shown to players)."""
    spec = registry.GAMES.get(game or "")
    fields = spec.add_fields if spec else registry.GameSpec("", "", "").add_fields
    num = f" --number {number}" if number is not None else ""
    return f"{command()} deck add {deck_id}{num} {fields}"


def resolve(payload: str, where: str = "") -> Card:
    """The card a sticker payload names. Foreign and unknown codes raise with a message that says
    which it is and how to register it (``.text`` holds it for the kiosk, in any language). Inside
    :func:`cards_as_recorded` a code the stored game recorded is the card it recorded."""
    recorded = _recorded.get()
    if recorded is not None and payload in recorded:
        return recorded[payload]
    sticker = parse_sticker(payload)
    loc = f"{where}: {payload}" if where else payload
    if sticker is None:
        raise ForeignCode(loc, Text(_FOREIGN))
    decks = _registry()
    deck = decks.get(sticker.deck)
    if deck is None:
        raise UnknownCard(loc, Text(_UNKNOWN_DECK, {
            "deck": sticker.deck, "known": ", ".join(sorted(decks)) or "-",
            "new": f"{command()} deck new {sticker.deck} --name NAME --game GAME",
            "add": f"{command()} deck add {sticker.deck} --number {sticker.number} ...",
            "import_cmd": f"{command()} deck import {sticker.deck} CARDS.csv --game GAME"}))
    card = deck.card(sticker.number)
    if card is None:
        params = {"deck": deck.id, "number": sticker.number, "count": len(deck),
                  "add": add_command(deck.id, deck.game, sticker.number)}
        if deck.bundled and len(deck):
            raise UnknownCard(loc, Text(_UNKNOWN_NUMBER_BUNDLED, {**params, "first": min(deck.cards),
                                                                   "last": max(deck.cards),
                                                                   "copy": f"{command()} deck copy {deck.id}"}))
        raise UnknownCard(loc, Text(_UNKNOWN_NUMBER, params))
    return card


# -- a stored game's cards: their facts recorded with it, so it means the same forever ---------------

FACTS_KEY = "card_facts"     # a log line's {code: facts} of the cards it names first (docs/log-format.md)
_FACT_FIELDS = ("year", "title", "title_es", "period", "icons", "continent", "white", "ak_id", "circa")
_recorded: ContextVar[Mapping[str, Card] | None] = ContextVar("recorded_cards", default=None)


def card_facts(card: Card) -> dict:
    """A card's facts as a log records them (what its deck says of it now), without its code."""
    out: dict = {}
    for name in _FACT_FIELDS:
        value = getattr(card, name)
        if value is not None and value != () and value is not False:   # circa only where the date is one
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


def codes_named(line) -> list[str]:
    """Every sticker code a log line names, in order, once (its recorded facts aside)."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            if value not in found and parse_sticker(value) is not None:
                found.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != FACTS_KEY:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(line)
    return found


def with_facts(line: dict, recorded: Mapping[str, dict]) -> dict:
    """The line as the log stores it: with the facts of each card it names that the lines before did
    not record (``recorded``), read from today's decks. A code no deck knows is left to the engine."""
    new: dict[str, dict] = {}
    for code in codes_named(line):
        if code not in recorded:
            try:
                new[code] = card_facts(resolve(code))
            except BadInput:
                continue
    return {**line, FACTS_KEY: new} if new else line


def facts_in(line, where: str = "") -> dict[str, dict]:
    """The card facts a stored line records ({} for a line of an older log, or written by hand)."""
    facts = line.get(FACTS_KEY) if isinstance(line, dict) else None
    if facts is None:
        return {}
    if not isinstance(facts, dict) or not all(isinstance(f, dict) for f in facts.values()):
        raise BadInput(json_path(where, FACTS_KEY) if where else FACTS_KEY,
                       "the recorded cards must be an object of sticker code -> card facts")
    return facts


def without_facts(line):
    """The line as its engine reads it: the recorded facts are the replay's business, not the rules'."""
    if isinstance(line, dict) and FACTS_KEY in line:
        return {k: v for k, v in line.items() if k != FACTS_KEY}
    return line


def _recorded_card(code: str, facts: dict, where: str) -> Card:
    try:
        entry = CardEntry(n=1, **facts)
    except (ValidationError, TypeError) as e:
        if isinstance(e, TypeError):
            raise BadInput(f"{where}: {code}", "card facts must be an object of field -> value") from None
        first = e.errors()[0]
        raise BadInput(f"{where}: {code}.{'.'.join(map(str, first['loc']))}",
                       first["msg"].removeprefix("Value error, ")) from None
    sticker = parse_sticker(code)
    return replace(entry.to_card("LOG"), code=format_payload(sticker.deck, sticker.number) if sticker else code)


# the cards made of recorded facts so far, by code (with the facts they were made of): a replay reads its
# facts again at every line, and a long game's would otherwise be checked again card by card each time
_made: dict[str, tuple[dict, Card]] = {}
_MADE_KEPT = 20_000


def _made_card(code: str, facts: dict, where: str) -> Card:
    made = _made.get(code)
    if made is not None and (made[0] is facts or made[0] == facts):
        return made[1]
    card = _recorded_card(code, facts, where)
    if len(_made) >= _MADE_KEPT:
        _made.clear()
    _made[code] = (facts, card)
    return card


@contextmanager
def cards_as_recorded(facts: Mapping[str, dict], where: str = FACTS_KEY) -> Iterator[None]:
    """Within this block a code that ``facts`` names is that card, whatever its deck says today."""
    cards = {code: _made_card(code, f, where) for code, f in facts.items()}
    token = _recorded.set(cards)
    try:
        yield
    finally:
        _recorded.reset(token)
