"""``companion deck``: list the decks, create your own, add cards, import and export CSV.

Bundled decks (``assets/decks/``) are read-only; the user's decks live in ``<data dir>/decks/<id>.json``.
``deck copy EXH20`` makes a private copy with the same id that replaces the bundled deck for this
user, so stickers already printed keep working while the facts are corrected against the box.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from pydantic import ValidationError

from companion import registry
from companion.cards.deck_csv import (
    parse_continent,
    parse_icons,
    parse_period,
    parse_white,
    parse_year,
    read_cards,
    write_cards,
)
from companion.cards.decks import (
    GAMES,
    CardEntry,
    Deck,
    DeckFile,
    _CardError,
    all_decks,
    bundled_deck,
    deck_ref,
    facts_of,
    get_deck,
    reload_decks,
    save_user_deck,
    user_deck_path,
)
from companion.cards.model import year_label
from companion.cards.payload import format_payload
from companion.errors import BadInput, present
from companion.paths import command
from companion.words import counted

ID_RULE = "a deck id is 2 to 8 capital letters or digits (it is printed in every sticker: TC:<ID>:<NUMBER>)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="deck_command", metavar="<action>", required=True)

    p = sub.add_parser("list", help="the decks the companion knows (bundled and your own)")
    p.add_argument("--json", action="store_true", help="one JSON list on stdout")

    p = sub.add_parser("show", help="the cards of a deck, with their sticker codes")
    p.add_argument("deck", help="deck id or deck file path")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")

    p = sub.add_parser("new", help="create an empty deck of your own")
    p.add_argument("deck", help="new deck id, 2-8 capital letters or digits, e.g. MYBOX")
    p.add_argument("--game", required=True, choices=GAMES, help="the game its cards belong to")
    p.add_argument("--name", help="a name for people (default: the id)")

    p = sub.add_parser("add", help="add one card to your deck and print its sticker code")
    p.add_argument("deck", help="your deck's id")
    p.add_argument("--number", type=int, help="the card's sticker number (default: the next free one)")
    p.add_argument("--year", help="year, BC negative or written '753 BC'; 'c. 3000 BC' marks it approximate")
    p.add_argument("--title", help="title (English, or the language of your box)")
    p.add_argument("--title-es", help="title in Spanish")
    p.add_argument("--period", help="Cronología period: prehistoria, antigua, media, moderna, contemporanea")
    p.add_argument("--icons", help="Cronología icons, comma separated: replace_opp, swap, replace_own")
    p.add_argument("--continent", help="Exhibition continent: OC SA AF AS EU NA")
    p.add_argument("--white", help="Exhibition white card: 1945 or einstein")
    p.add_argument("--ak-id", help="Ancient Knowledge catalog id, e.g. babylon")

    p = sub.add_parser("import", help="replace your deck's cards with a CSV file (creates the deck if new)")
    p.add_argument("deck", help="deck id")
    p.add_argument("file", help="CSV file with a header row (see 'deck export' for the columns)")
    p.add_argument("--game", choices=GAMES, help="the game, when the deck is new")
    p.add_argument("--name", help="a name for people, when the deck is new (default: the id)")
    p.add_argument("--replace", action="store_true",
                   help="allow printed sticker numbers to change meaning or to be dropped (the old deck is "
                        "kept as a backup); without it such an import is refused")

    p = sub.add_parser("export", help="write a deck's cards to a CSV file ('-' for stdout)")
    p.add_argument("deck", help="deck id or deck file path")
    p.add_argument("file", help="CSV file to write, or - for stdout")

    p = sub.add_parser("copy", help="copy a deck (bundled, or a shared deck file) into your own decks")
    p.add_argument("deck", help="deck id or deck file path to copy")
    p.add_argument("new_id", nargs="?", help="id of the copy (default: the same id, which then replaces "
                                             "the bundled deck for you)")
    p.add_argument("--name", help="name of the copy")

    p = sub.add_parser("enrol", help="enrol a box's printed faces (camera or scanned pages): its cards are then "
                                     "read without stickers (docs/faces.md)")
    _enrol_command().add_arguments(p)

    p = sub.add_parser("delete", help="delete one of your own decks (a backup is kept)")
    p.add_argument("deck", help="your deck's id")
    p.add_argument("--yes", action="store_true", help="delete without asking (its printed stickers then read as "
                                                      "unknown cards)")


def run(args) -> int:
    return {"list": _list, "show": _show, "new": _new, "add": _add, "import": _import,
            "export": _export, "copy": _copy, "delete": _delete, "enrol": _enrol}[args.deck_command](args)


def _enrol_command():
    """``deck enrol`` opens the camera, a layer far above the decks': its module is named, as a game's
    views are (docs/architecture.md), and imported only when the command is given."""
    import importlib
    return importlib.import_module(ENROL_COMMAND)


ENROL_COMMAND = "companion.enrol_cli"


def _enrol(args) -> int:
    return _enrol_command().run(args)


def _check_id(deck_id: str) -> str:
    deck_id = deck_id.upper()
    if not re.fullmatch(r"[A-Z0-9]{2,8}", deck_id):
        raise BadInput(deck_id, ID_RULE)
    return deck_id


def _known(deck_id: str) -> Deck | None:
    return next((d for d in all_decks() if d.id == deck_id), None)


def _own(deck_id: str) -> Deck:
    """The user's deck with this id; a bundled one is refused with the way to copy it."""
    deck = get_deck(deck_ref(deck_id))
    if deck.bundled:
        raise BadInput(deck.id, f"a bundled deck, read-only; make your own copy first: "
                                f"'{command()} deck copy {deck.id}' (same id: your copy replaces the bundled deck, "
                                f"printed stickers keep working) or '{command()} deck copy {deck.id} NEWID'")
    return deck


def _save(spec: DeckFile, where: str):
    try:
        return save_user_deck(spec)
    except ValidationError as e:
        ctx = e.errors()[0].get("ctx", {}).get("error")
        if isinstance(ctx, _CardError):
            raise BadInput(f"{where}: {ctx.where}", ctx.message) from None
        raise BadInput(where, e.errors()[0]["msg"]) from None
    except OSError as e:
        raise BadInput(str(user_deck_path(spec.id)), f"cannot write the deck: {e.strerror}") from None


def _list(args) -> int:
    decks = sorted(all_decks(), key=lambda d: (not d.bundled, d.id))
    if args.json:
        print(json.dumps([{"id": d.id, "name": d.name, "game": d.game, "cards": len(d)} for d in decks],
                         ensure_ascii=False))
        return 0
    if not decks:
        print(f"No decks. Create one with: {command()} deck new ID --game GAME --name NAME")
        return 0
    print(f"{'ID':8}  {'GAME':17}  {'CARDS':>5}  {'SOURCE':7}  NAME")
    for d in decks:
        note = " (assumed facts: check against your box)" if d.spec.assumed else ""
        source = "bundled" if d.bundled else "yours"
        print(f"{d.id:8}  {d.game:17}  {len(d):5}  {source:7}  {d.name}{note}")
    shadowed = [d.id for d in decks if not d.bundled and bundled_deck(d.id) is not None]
    for deck_id in shadowed:
        print(f"Your deck {deck_id} replaces the bundled {deck_id} ('{command()} deck delete {deck_id}' restores it).")
    return 0


def _card_line(e: CardEntry, deck: Deck) -> str:
    return f"{e.n:4}  {format_payload(deck.id, e.n):16}  {_facts(e)}"


def _facts(e: CardEntry) -> str:
    parts = []
    if e.white:
        parts.append("white 1945" if e.white == "1945" else "white Einstein")
    elif e.year is not None:
        parts.append(year_label(e.year, "en", e.circa).replace("\u00a0", " "))
    if e.continent:
        parts.append(e.continent)
    if e.period:
        parts.append(e.period)
    if e.ak_id:
        parts.append(e.ak_id)
    if e.title:
        parts.append(e.title + (f" / {e.title_es}" if e.title_es else ""))
    if e.icons:
        parts.append("[" + " ".join(e.icons) + "]")
    if e.review:
        parts.append("(review)")
    return "  ".join(parts)


def _show(args) -> int:
    deck = get_deck(deck_ref(args.deck))
    if args.json:
        print(json.dumps({
            "id": deck.id, "name": deck.name, "game": deck.game, "cards": len(deck),
            "source": "bundled" if deck.bundled else "yours", "assumed": deck.spec.assumed,
            "path": str(deck.path) if deck.path else None, "notes": deck.spec.notes,
            "entries": [{"payload": format_payload(deck.id, e.n), **e.model_dump(exclude_defaults=True)}
                        for e in deck.entries()],
        }, ensure_ascii=False))
        return 0
    source = "bundled, read-only" if deck.bundled else "yours"
    print(f"{deck.id}: {deck.name} ({deck.game}, {counted(len(deck), 'card')}, {source}; {deck.path})")
    if deck.spec.assumed:
        print("Facts are ASSUMED, not checked against a physical box: see docs/decks.md to correct them.")
    if deck.spec.notes:
        print(f"Notes: {deck.spec.notes}")
    for e in deck.entries():
        print(_card_line(e, deck))
    return 0


def _new(args) -> int:
    deck_id = _check_id(args.deck)
    existing = _known(deck_id)
    if existing is not None:
        if existing.bundled:
            raise BadInput(deck_id, f"{deck_id} is a bundled deck; to change it, copy it: "
                                    f"{command()} deck copy {deck_id}")
        raise BadInput(deck_id, f"you already have a deck {deck_id} ({existing.path})")
    spec = DeckFile(id=deck_id, name=args.name or deck_id, game=args.game, cards=[])
    path = _save(spec, deck_id)
    print(f"Created deck {deck_id} ({args.game}) in {path}. Add cards with: "
          f"{command()} deck add {deck_id} ... or {command()} deck import {deck_id} CARDS.csv")
    return 0


def _add(args) -> int:
    deck = _own(args.deck)
    fields: dict = {}
    try:
        if args.year is not None:
            fields["year"], circa = parse_year(args.year)
            if circa:
                fields["circa"] = True
    except ValueError as e:
        raise BadInput("--year", str(e)) from None
    for opt, key, parse in (("--period", "period", parse_period), ("--icons", "icons", parse_icons),
                            ("--continent", "continent", parse_continent), ("--white", "white", parse_white)):
        value = getattr(args, key)
        if value is not None:
            try:
                fields[key] = parse(value)
            except ValueError as e:
                raise BadInput(opt, str(e)) from None
    for key in ("title", "title_es", "ak_id"):
        value = getattr(args, key)
        if value is not None and value.strip():
            fields[key] = value.strip()
    if not fields:
        raise BadInput("deck add", "say what the card is: --year and --title for a history card, --year and "
                                   "--continent (or --white) for Exhibition, --ak-id for Ancient Knowledge")
    game = registry.spec_for(deck.game)
    if "--title" in game.add_fields.split() and "title" not in fields:
        # the kiosk names the card by its title ("Ana put “Moon landing”..."), and players read it on the face
        raise BadInput("--title", f"a {game.name} card needs its title, as printed on the card: "
                                  f"{command()} deck add {deck.id} {game.add_fields}")
    number = args.number if args.number is not None else max(deck.cards, default=0) + 1
    if not 1 <= number <= 9999:
        raise BadInput("--number", f"{number} is not a card number (1 to 9999)")
    if number in deck.cards:
        taken = next(e for e in deck.entries() if e.n == number)
        raise BadInput("--number", f"deck {deck.id} already has card {number}: {_facts(taken)}")
    try:
        entry = CardEntry.model_validate({"n": number, **fields})
    except ValidationError as e:
        err = e.errors()[0]
        raise BadInput("--" + str(err["loc"][0]).replace("_", "-"), err["msg"].removeprefix("Value error, ")) from None
    same = next((e for e in deck.entries() if facts_of(e) == facts_of(entry)), None)
    if same is not None:
        raise BadInput(f"deck add {deck.id}", f"deck {deck.id} already has this card, as number {same.n}: "
                                              f"{_facts(same)}")
    spec = deck.spec.model_copy(update={"cards": [*deck.spec.cards, entry]})
    try:
        DeckFile.model_validate(spec.model_dump())
    except ValidationError as e:
        ctx = e.errors()[0].get("ctx", {}).get("error")
        field = ctx.where.rsplit(".", 1)[1] if isinstance(ctx, _CardError) else "deck add"
        message = ctx.message if isinstance(ctx, _CardError) else e.errors()[0]["msg"]
        raise BadInput("--" + field.replace("_", "-"), message) from None
    _save(spec, deck.id)
    print(f"{format_payload(deck.id, number)}  card {number} of {deck.id}: {_facts(entry)}")
    return 0


def _import(args) -> int:
    deck_id = _check_id(args.deck)
    existing = _known(deck_id)
    if existing is not None and existing.bundled:
        _own(deck_id)  # raises with the way to copy it
    game = args.game or (existing.game if existing is not None else None)   # a deck just made holds no card (falsy)
    if game is None:
        raise BadInput(deck_id, f"deck {deck_id} is new: say which game its cards belong to with --game "
                                f"({', '.join(GAMES)})")
    if existing is not None and args.game and args.game != existing.game:
        raise BadInput("--game", f"deck {deck_id} is a {existing.game} deck, not {args.game}")
    cards = read_cards(args.file, game, deck_id, existing.entries() if existing is not None else [])
    if existing is not None:
        spec = existing.spec.model_copy(update={"cards": cards, **({"name": args.name} if args.name else {})})
    else:
        spec = DeckFile(id=deck_id, name=args.name or deck_id, game=game, cards=cards)
    summary = counted(len(cards), "card")
    backup = None
    if existing is not None:
        old = {e.n: e for e in existing.entries()}
        new = {e.n: e for e in cards}
        edited = sorted(n for n in new if n in old and facts_of(new[n]) != facts_of(old[n]))
        dropped = sorted(set(old) - set(new))
        if (edited or dropped) and not args.replace:
            raise BadInput(args.file, _meanings(deck_id, edited, dropped) + "; nothing was changed. Keep those rows "
                           "in the file, give new cards new numbers (or none), or run again with --replace "
                           "(the old deck is kept as a backup)")
        if edited or dropped:
            backup = _backup(existing)
        summary += f" ({len(set(new) - set(old))} added, {len(edited)} changed, {len(dropped)} removed)"
    path = _save(spec, args.file)
    print(f"Imported {summary} into {deck_id} ({path}). Print its stickers with: "
          f"{command()} stickers {deck_id} --out {deck_id.lower()}-stickers.pdf")
    if backup is not None:
        print(f"WARNING: {_meanings(deck_id, edited, dropped)}: re-print or remove those stickers. The old deck is "
              f"kept in {backup}", file=sys.stderr)
    return 0


def _meanings(deck_id: str, edited: list[int], dropped: list[int]) -> str:
    """What an edit does to stickers already printed, in words."""
    parts = []
    if edited:
        parts.append(f"printed stickers {_numbers(edited)} of {deck_id} would name other cards")
    if dropped:
        parts.append(f"stickers {_numbers(dropped)} would name no card")
    return " and ".join(parts)


def _numbers(ns: list[int]) -> str:
    return ", ".join(map(str, ns[:12])) + (f" and {len(ns) - 12} more" if len(ns) > 12 else "")


def _backup(deck: Deck):
    """A copy of a user deck's file beside it, named by the time, before it changes or goes."""
    import datetime
    import shutil

    path = present(deck.path, f"the file of deck {deck.id}")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.{stamp}.json.bak")
    try:
        shutil.copy2(path, target)
    except OSError as e:
        raise BadInput(str(target), f"cannot keep a backup of the deck, so nothing was changed: {e.strerror}") from None
    return target


def _export(args) -> int:
    deck = get_deck(deck_ref(args.deck))
    text = write_cards(deck.entries(), deck.game)
    if args.file == "-":
        sys.stdout.write(text)
        return 0
    from companion.errors import output_file
    output_file(args.file)
    try:
        with open(args.file, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as e:
        raise BadInput(args.file, f"cannot write: {e.strerror}") from None
    first = f"{command()} deck copy {deck.id}, then " if deck.bundled else ""
    print(f"Wrote {counted(len(deck), 'card')} of {deck.id} to {args.file}. To use your edits: "
          f"{first}{command()} deck import {deck.id} {args.file}")
    return 0


def _copy(args) -> int:
    source = get_deck(deck_ref(args.deck))
    new_id = _check_id(args.new_id) if args.new_id else source.id
    existing = _known(new_id)
    if existing is not None and not existing.bundled:
        raise BadInput(new_id, f"you already have a deck {new_id} ({existing.path}); "
                               f"delete it first with '{command()} deck delete {new_id}' or pick another id")
    if existing is not None and existing.bundled and new_id != source.id:
        raise BadInput(new_id, f"{new_id} is the id of a bundled deck; pick another id")
    spec = source.spec.model_copy(update={"id": new_id, **({"name": args.name} if args.name else {})})
    path = _save(spec, new_id)
    note = (f" It replaces the bundled {new_id} for you; '{command()} deck delete {new_id}' brings the bundled one "
            "back." if existing is not None and existing.bundled else "")
    print(f"Copied {source.id} ({counted(len(source), 'card')}) to your deck {new_id} in {path}.{note}")
    return 0


def _delete(args) -> int:
    deck = _own(args.deck)
    path = present(deck.path, f"the file of deck {deck.id}")     # a user's deck was read from one
    question = (f"Delete your deck {deck.id} ({counted(len(deck), 'card')})? Its printed stickers will read as "
                f"unknown cards (a backup is kept)")
    if not args.yes:
        if not sys.stdin.isatty():
            raise BadInput(deck.id, question.replace("?", ":", 1) + "; to delete it, run again with --yes")
        if input(question + " [y/N] ").strip().lower() not in ("y", "yes", "s", "si", "sí"):
            print(f"Kept {deck.id}.")
            return 0
    backup = _backup(deck)
    try:
        path.unlink()
    except OSError as e:
        raise BadInput(str(path), f"cannot delete: {e.strerror}") from None
    reload_decks()
    back = bundled_deck(deck.id)
    note = f" The bundled {deck.id} is in use again." if back is not None else ""
    print(f"Deleted your deck {deck.id} ({path}); a backup is in {backup}.{note}")
    return 0
