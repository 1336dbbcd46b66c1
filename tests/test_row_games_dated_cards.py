"""Timeline and Cronología place only dated cards: an undated sticker (Einstein, an Ancient Knowledge
card) in their log is bad input naming where, not a crash while comparing years (found by mypy)."""

import pytest

from companion.cli import main

PLAYERS = '"players": ["A", "B"]'
DATED = '{"year": 1}, {"year": 2}, {"year": 3}, {"year": 4}'


@pytest.mark.parametrize(("lines", "where"), [
    ([f'{{"type": "setup", "game": "timeline", {PLAYERS}, "start": "TC:EXH20:101"}}'],
     "line 1: start: TC:EXH20:101 (Einstein) has no year"),
    ([f'{{"type": "setup", "game": "timeline", {PLAYERS}, "start": {{"year": 1450}}}}',
      '{"type": "place", "player": "A", "card": {"white": "einstein"}, "gap": 0}'],
     "line 2: card: Einstein has no year"),
    ([f'{{"type": "setup", "game": "cronologia", {PLAYERS}, "start": ["TC:AK:001", {DATED}]}}'],
     "line 1: start[0]: TC:AK:001 (Osirion) has no year"),
])
def test_an_undated_card_in_a_row_game_is_bad_input(tmp_path, capsys, lines, where):
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"game.jsonl: {where}; Timeline and Cronología place only dated cards" in err[0]
