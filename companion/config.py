"""The companion's settings: one TOML file (``paths.config_file()``), every key optional.

```toml
[kiosk]
language = "en"          # en | es
fullscreen = true
idle_minutes = 10        # back to the attract screen after this long untouched (no game running)
cafe_pin = ""            # set a PIN to lock settings and ending a game early (café mode)
[camera]
source = "auto"          # auto | picamera2 | usb:0 | virtual | files:/path/to/folder
width = 1920
height = 1080
[buttons]                # BCM pin numbers; see hardware/wiring.md
next = 17
undo = 27
ok = 22
menu = 23
bounce_ms = 40
hold_menu_seconds = 1.5
[outputs]
led_green = 5
led_red = 6
buzzer = 13
[cafe]                   # docs/cafe.md; an empty broker keeps the kiosk to itself
broker = ""              # mqtt://cafe-pi.local:1883 or mqtts://... (TLS)
table = ""               # this table's name on the dashboard (T01 ...), also its broker login
username = ""            # the broker login (default: the table name when a password is set)
password = ""
ca_file = ""             # mqtts: the café's CA certificate; client cert/key when the broker asks
cert_file = ""
key_file = ""
```
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from companion.cafe.broker import check_table_name, parse_broker
from companion.errors import BadInput, json_path
from companion.paths import config_file


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KioskSettings(_Section):
    language: Literal["en", "es"] = "en"
    fullscreen: bool = True
    idle_minutes: float = Field(10, gt=0)
    cafe_pin: str = Field("", pattern=r"^[0-9]{0,8}$")


class CameraSettings(_Section):
    source: str = "auto"
    width: int = Field(1920, ge=320)
    height: int = Field(1080, ge=240)


class ButtonPins(_Section):
    next: int = Field(17, ge=0, le=27)
    undo: int = Field(27, ge=0, le=27)
    ok: int = Field(22, ge=0, le=27)
    menu: int = Field(23, ge=0, le=27)
    bounce_ms: int = Field(40, ge=0, le=500)
    hold_menu_seconds: float = Field(1.5, gt=0)


class OutputPins(_Section):
    led_green: int = Field(5, ge=0, le=27)
    led_red: int = Field(6, ge=0, le=27)
    buzzer: int = Field(13, ge=0, le=27)


class CafeSettings(_Section):
    broker: str = ""
    table: str = ""
    username: str = ""
    password: str = ""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""

    @field_validator("broker")
    @classmethod
    def _broker_url(cls, value: str) -> str:
        return _checked(value, parse_broker)

    @field_validator("table")
    @classmethod
    def _table_name(cls, value: str) -> str:
        return _checked(value, check_table_name)


def _checked(value: str, check) -> str:
    """An empty value, or one the café's own check accepts (its message says what is wrong)."""
    if value:
        try:
            check(value, "")
        except BadInput as e:
            raise ValueError(e.message) from None
    return value


class Config(_Section):
    kiosk: KioskSettings = KioskSettings()
    camera: CameraSettings = CameraSettings()
    buttons: ButtonPins = ButtonPins()
    outputs: OutputPins = OutputPins()
    cafe: CafeSettings = CafeSettings()


def load_config(path: Path | None = None) -> Config:
    """The settings from the config file (defaults when it does not exist).
    A broken file raises BadInput naming the file, the key and the problem."""
    path = path or config_file()
    if not path.exists():
        return Config()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInput(str(path), f"not a valid TOML file: {e}") from None
    try:
        return Config.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        raise BadInput(f"{path}: {json_path(*err['loc'])}", err["msg"].removeprefix("Value error, ")) from None


def save_config(config: Config, path: Path | None = None) -> None:
    """Write the settings back (the kiosk's settings screen), atomically."""
    path = path or config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for section, values in config.model_dump().items():
        lines.append(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, str):
                text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            else:
                text = str(value)
            lines.append(f"{key} = {text}")
        lines.append("")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(path)
