"""One rule for every command that writes a file: it writes into a folder that exists. A missing
folder is bad input (exit 2, one line naming it), never created on the way; a folder of screenshots
or game logs named on the command line is made, inside a folder that exists."""

from __future__ import annotations

import pytest

from companion import cli


@pytest.mark.parametrize("argv", [
    ["stickers", "DEMO", "--out", "{missing}/x.pdf"],
    ["cards", "DEMO", "--out", "{missing}/x.pdf"],
    ["deck", "export", "DEMO", "{missing}/x.csv"],
    ["kiosk", "--autoplay", "1", "--screenshots", "{missing}/shots"],
], ids=["stickers", "cards", "deck-export", "kiosk-screenshots"])
def test_a_missing_folder_is_refused_and_not_made(capsys, tmp_path, argv):
    missing = tmp_path / "no" / "such"
    rc = cli.main([a.format(missing=missing) for a in argv])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and f"the folder {missing} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_a_file_in_a_folder_that_exists_is_written(capsys, tmp_path):
    assert cli.main(["deck", "export", "DEMO", str(tmp_path / "demo.csv")]) == 0
    assert (tmp_path / "demo.csv").read_text(encoding="utf-8").startswith("n,year")
    assert "Wrote 40 cards of DEMO" in capsys.readouterr().out


def test_a_named_folder_is_made_inside_one_that_exists(tmp_path):
    from companion.errors import output_folder
    assert output_folder(tmp_path / "shots").is_dir()
