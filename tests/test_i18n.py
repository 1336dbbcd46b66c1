"""Every message marked with N_() anywhere in the package has a Spanish translation in a catalog.

The msgids are read from the source (so messages built inside functions count too) and looked up in
the .po files themselves (so a Spanish text equal to the English one, like "Asia", still counts). A
message worded by a count (NP_, Plural) is a (singular, plural) pair with a form per Spanish count."""

import ast
from pathlib import Path

from babel.messages.pofile import read_po

from companion.i18n import NP_, Plural, translate, translate_plural
from companion.paths import assets_dir

PACKAGE = Path(__file__).resolve().parents[1] / "companion"


def marked_msgids():
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield path.relative_to(PACKAGE.parent), arg.value
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "NP_" and len(node.args) == 2:
                forms = tuple(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
                if len(forms) == 2:
                    yield path.relative_to(PACKAGE.parent), forms


def spanish_catalog() -> dict:
    known = {}
    for po in sorted((assets_dir() / "translations" / "es").glob("*.po")):
        with po.open("rb") as fh:
            for message in read_po(fh, locale="es"):
                if message.id and message.string:
                    known[message.id] = message.string
    return known


def test_every_marked_message_has_spanish():
    known = spanish_catalog()
    missing = sorted({f"{path}: {msgid!r}" for path, msgid in marked_msgids() if msgid not in known})
    assert missing == []


def names(text: str) -> set[str]:
    return {n.split("}")[0] for n in text.split("{")[1:]}


def test_spanish_keeps_the_placeholders():
    for msgid, msgstr in spanish_catalog().items():
        if isinstance(msgid, tuple):        # a form may leave out what its count makes plain ("the card")
            assert len(msgstr) == 2 and all(names(form) <= names(msgid[0]) | names(msgid[1]) for form in msgstr)
            assert names(msgstr[1]) == names(msgid[1]), msgid
            assert [translate_plural(*msgid, n, "es") for n in (1, 2)] == list(msgstr)
            continue
        assert names(msgid) == names(msgstr), msgid
        assert translate(msgid, "es") == msgstr


def test_a_count_picks_the_form_in_both_languages():
    one, more = NP_("{card} in {where}: {cost} card discarded besides it; {player} holds {hand} now.",
                    "{card} in {where}: {cost} cards discarded besides it; {player} holds {hand} now.")
    said = {(n, lang): Plural(one, {"card": "Petra", "where": "zone 4", "cost": n, "player": "Ana", "hand": 3},
                              plural=more, count="cost").render(lang) for n in (0, 1, 2) for lang in ("en", "es")}
    assert said[1, "en"] == "Petra in zone 4: 1 card discarded besides it; Ana holds 3 now."
    assert said[0, "en"].startswith("Petra in zone 4: 0 cards discarded")
    assert said[1, "es"].startswith("Petra en zone 4: 1 carta descartada además")
    assert said[2, "es"].startswith("Petra en zone 4: 2 cartas descartadas además")
