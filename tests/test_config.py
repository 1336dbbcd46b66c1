import pytest

from companion.config import Config, load_config, save_config
from companion.errors import BadInput


def test_defaults_when_missing(tmp_path):
    assert load_config(tmp_path / "none.toml").buttons.next == 17


def test_round_trip(tmp_path):
    cfg = Config()
    cfg.kiosk.language = "es"
    cfg.kiosk.cafe_pin = "1234"
    save_config(cfg, tmp_path / "c.toml")
    assert load_config(tmp_path / "c.toml") == cfg


def test_bad_key_is_named(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text("[buttons]\nnext = 99\n")
    with pytest.raises(BadInput, match=r"c\.toml: buttons\.next: "):
        load_config(p)
    p.write_text("[kiosk\n")
    with pytest.raises(BadInput, match="not a valid TOML file"):
        load_config(p)
