"""The companion's settings: one TOML file (``paths.config_file()``), every key optional.

```toml
[kiosk]
language = "en"          # en | es
fullscreen = true
idle_minutes = 10        # back to the attract screen after this long untouched (no game running)
cafe_pin = ""            # set a PIN to lock settings and ending a game early (café mode)
[camera]
source = "auto"          # auto | picamera2 | usb:0 | virtual | files:/path/to/folder
width = 4608             # the Camera Module 3's full sensor, so small stickers read (hardware/camera.md);
height = 2592            # a webcam gives its nearest size
focus = "auto"           # auto (continuous) | once (at start, then locked) | the camera's height in cm, e.g. 36
mains_hz = 50            # 50 | 60: exposure steps that do not flicker under mains lights; 0: no flicker control
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
dashboard_db = ""        # the café's dashboard database id (its page names it): count only its confirmations
```
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from companion.broker import check_table_name, parse_broker
from companion.errors import BadInput, json_path, read_text
from companion.paths import config_file


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KioskSettings(_Section):
    language: Literal["en", "es"] = "en"
    fullscreen: bool = True
    idle_minutes: float = Field(10, gt=0, le=24 * 60)
    cafe_pin: str = Field("", pattern=r"^[0-9]{0,8}$")


FOCUS_CM = (5, 500)         # a lens focused nearer than 5 cm or beyond 5 m is no table camera


class CameraSettings(_Section):
    source: str = "auto"
    width: int = Field(4608, ge=320)      # the default sticker size is planned for this (vision/camera_plan.py)
    height: int = Field(2592, ge=240)
    focus: str | float = "auto"
    mains_hz: Literal[0, 50, 60] = 50

    @field_validator("focus", mode="before")
    @classmethod
    def _focus(cls, value):
        """auto | once | a distance in cm (a number, or a string holding one)."""
        if isinstance(value, str) and value.strip().lower() in ("auto", "once"):
            return value.strip().lower()
        try:
            cm = float(value)
        except (TypeError, ValueError):
            cm = None
        if isinstance(value, bool) or cm is None or not FOCUS_CM[0] <= cm <= FOCUS_CM[1]:
            raise ValueError(f"must be auto, once or the camera's distance to the table in cm "
                             f"({FOCUS_CM[0]} to {FOCUS_CM[1]}), e.g. 36; not {value!r}")
        return cm


class ButtonPins(_Section):
    next: int = Field(17, ge=0, le=27)
    undo: int = Field(27, ge=0, le=27)
    ok: int = Field(22, ge=0, le=27)
    menu: int = Field(23, ge=0, le=27)
    bounce_ms: int = Field(40, ge=0, le=500)
    hold_menu_seconds: float = Field(1.5, gt=0, le=10)


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
    # the café's dashboard database (its id, as the page and /healthz name it); empty: the first one met
    dashboard_db: str = Field("", pattern=r"^([0-9a-f]{8,64})?$")

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
    text = read_text(path, "settings file")
    try:
        raw = tomllib.loads(text)
    except ValueError as e:      # TOMLDecodeError, or an integer of more than 4300 digits
        raise BadInput(str(path), f"not a valid TOML file: {e}") from None
    except RecursionError:
        raise BadInput(str(path), "not a valid TOML file: arrays or tables nested too deeply") from None
    try:
        config = Config.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        raise BadInput(f"{path}: {json_path(*err['loc'])}", err["msg"].removeprefix("Value error, ")) from None
    _pins_apart(config, path)
    return config


def _pins_apart(config: Config, path: Path) -> None:
    """Two buttons (or a button and an LED) on one pin would leave the kiosk without its buttons."""
    used: dict[int, str] = {}
    for section in ("buttons", "outputs"):
        for key, pin in getattr(config, section).model_dump().items():
            if key in ("bounce_ms", "hold_menu_seconds"):
                continue
            if pin in used:
                raise BadInput(f"{path}: {section}.{key}", f"pin {pin} is already {used[pin]}'s; each button and "
                                                           f"output needs its own pin")
            used[pin] = f"{section}.{key}"


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
