"""Every message marked with N_() anywhere in the package has a Spanish translation in a catalog.

The msgids are read from the source (so messages built inside functions count too) and looked up in
the .po files themselves (so a Spanish text equal to the English one, like "Asia", still counts)."""

import ast
from pathlib import Path

from babel.messages.pofile import read_po

from companion.i18n import translate
from companion.paths import assets_dir

PACKAGE = Path(__file__).resolve().parents[1] / "companion"


def marked_msgids():
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield path.relative_to(PACKAGE.parent), arg.value


def spanish_catalog() -> dict[str, str]:
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


def test_spanish_keeps_the_placeholders():
    for msgid, msgstr in spanish_catalog().items():
        names = {n.split("}")[0] for n in msgid.split("{")[1:]}
        assert names == {n.split("}")[0] for n in msgstr.split("{")[1:]}, msgid
        assert translate(msgid, "es") == msgstr
