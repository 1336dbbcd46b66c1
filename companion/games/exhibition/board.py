"""The Exhibition player board as data (``assets/exhibition/board.json``) and a game's layout.

The board file holds what a printed board may change -- spots per showcase, the depot, the limits
the rules quote (10 years in One Era, 20 in Spread the Years, 5 in Links, the Unique Decades ranges)
-- and the texts the kiosk shows. The rules themselves are code (``rules.py``), one per showcase key,
so the file must name exactly the five showcases and six overlays the code knows.

A **layout** is one game's choice: the spots of each showcase (the board file's by default, a
setup line or a table may override them) and the overlay lying on each covered showcase.
Spots are named ``one_era[2]`` / ``depot[0]`` (0-based, left to right), the same text the JSON
paths of ``companion score`` use, so a camera's board reading (spot name -> card) is a place action.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from companion.errors import BadInput, json_path, present
from companion.i18n import N_, Text
from companion.paths import assets_dir

SHOWCASES = ("one_continent", "one_era", "plain", "years_gap", "mid_century")
OVERLAYS = ("spread_the_years", "links", "short_era", "one_decade", "antiquity", "unique_decades")
SCORING_OVERLAYS = ("short_era", "antiquity")
CONTINENTS = ("OC", "SA", "AF", "AS", "EU", "NA")
DEPOT = "depot"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContinentDef(_Model):
    name: str
    name_es: str


class ShowcaseDef(_Model):
    key: str
    name: str
    spots: int = Field(ge=1)
    min_spots: int = Field(ge=1)
    max_spots: int = Field(ge=1, le=12)
    takes_overlay: bool
    max_step: int | None = Field(None, ge=1)
    description: str
    description_es: str

    @model_validator(mode="after")
    def _bounds(self):
        if not self.min_spots <= self.spots <= self.max_spots:
            raise ValueError(f"spots {self.spots} is outside min_spots..max_spots ({self.min_spots}-{self.max_spots})")
        return self


class DepotDef(_Model):
    spots: int = Field(ge=0, le=12)
    description: str
    description_es: str


class OverlayDef(_Model):
    key: str
    name: str
    kind: str = Field(pattern="^(placement|scoring)$")
    min_step: int | None = Field(None, ge=1)
    max_step: int | None = Field(None, ge=0)
    suits_spots: int | None = Field(None, ge=1)
    allowed_decades: dict[str, tuple[int, int]] | None = None
    description: str
    description_es: str


class BoardDef(_Model):
    name: str
    notes: str = ""
    cards_in_game: int = Field(ge=18)
    columns: tuple[str, ...]
    cards_per_column: int = Field(ge=1)
    start_continents: tuple[str, ...]
    vehicles: tuple[str, ...]
    continents: dict[str, ContinentDef]
    showcases: list[ShowcaseDef]
    depot: DepotDef
    overlays: list[OverlayDef]

    @model_validator(mode="after")
    def _known_keys(self):
        if tuple(s.key for s in self.showcases) != SHOWCASES:
            raise ValueError(f"showcases must be, in board order: {', '.join(SHOWCASES)}")
        if sorted(o.key for o in self.overlays) != sorted(OVERLAYS):
            raise ValueError(f"overlays must be exactly: {', '.join(OVERLAYS)}")
        if tuple(self.columns) != CONTINENTS or set(self.continents) != set(CONTINENTS):
            raise ValueError(f"columns and continents must be {' '.join(CONTINENTS)}")
        if len(self.start_continents) < 5 or len(self.vehicles) < 5:
            raise ValueError("5 start continents and 5 vehicles are needed (up to 5 players)")
        if any(c not in CONTINENTS for c in self.start_continents):
            raise ValueError("start_continents must be continent codes")
        one_era = self.showcases[1]
        if one_era.max_step is None:
            raise ValueError("one_era needs max_step (10 in the printed rules)")
        ov = {o.key: o for o in self.overlays}
        if ov["spread_the_years"].min_step is None or ov["links"].max_step is None:
            raise ValueError("spread_the_years needs min_step and links needs max_step")
        allowed = ov["unique_decades"].allowed_decades or {}
        if sorted(allowed) != ["1", "2", "3", "4", "5"]:
            raise ValueError("unique_decades needs allowed_decades for 1, 2, 3, 4 and 5 players")
        for n, (low, high) in allowed.items():
            if low % 10 or high % 10 or low > high:
                raise ValueError(f"unique_decades.allowed_decades[{n}]: two decade starts, low first "
                                 f"(e.g. [1930, 1960])")
        return self

    def showcase(self, key: str) -> ShowcaseDef:
        return self.showcases[SHOWCASES.index(key)]

    def overlay(self, key: str) -> OverlayDef:
        return next(o for o in self.overlays if o.key == key)

    def allowed_decades(self, players: int) -> tuple[int, int]:
        allowed = present(self.overlay("unique_decades").allowed_decades, "unique_decades.allowed_decades")
        low, high = allowed[str(min(max(players, 1), 5))]
        return low, high

    def one_era_step(self) -> int:
        return present(self.showcase("one_era").max_step, "one_era.max_step")


def board_path():
    return assets_dir() / "exhibition" / "board.json"


@lru_cache(maxsize=1)
def board() -> BoardDef:
    """The board definition; a broken file is reported with its path and the field, never half-read."""
    path = board_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(str(path), "the Exhibition board file is missing") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(str(path), f"not a valid JSON file: {e}") from None
    try:
        return BoardDef.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = json_path(*err["loc"]) if err["loc"] else "(top level)"
        raise BadInput(f"{path}: {loc}", err["msg"].removeprefix("Value error, ")) from None


# ---------------------------------------------------------------------------------------------
# One game's layout


@dataclass(frozen=True)
class Layout:
    """Spots per showcase (board order), the depot size and the overlays of one game or table."""

    spots: tuple[tuple[str, int], ...]
    depot: int
    variations: tuple[tuple[str, str], ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.spots)

    def size(self, key: str) -> int:
        if key == DEPOT:
            return self.depot
        return dict(self.spots)[key]

    @property
    def hall_size(self) -> int:
        return sum(n for _, n in self.spots)

    def overlay(self, key: str) -> str | None:
        return dict(self.variations).get(key)

    def covered_by(self, overlay: str) -> str | None:
        """The showcase an overlay lies on, if it is in play."""
        return next((k for k, o in self.variations if o == overlay), None)

    def spot_names(self) -> list[str]:
        """Every spot of the board, Hall then Depot: ``one_continent[0]`` ... ``depot[2]``."""
        names = [spot_name(k, i) for k, n in self.spots for i in range(n)]
        return names + [spot_name(DEPOT, i) for i in range(self.depot)]

    def short(self) -> str:
        """``4/4/5/2/1``, the way players quote a layout."""
        return "/".join(str(n) for _, n in self.spots)

    def to_json(self) -> dict:
        return dict(self.spots)

    def variations_json(self) -> dict:
        return dict(self.variations)


def default_layout() -> Layout:
    b = board()
    return Layout(tuple((s.key, s.spots) for s in b.showcases), b.depot.spots)


def parse_layout(layout, variations, where: str = "") -> Layout:
    """A layout from the ``layout`` and ``variations`` objects of a setup line or a table (either may
    be absent: the board file's spots, no overlays). BadInput names the key and the limits."""
    b = board()

    def at(*parts):
        path = json_path(*parts)
        return f"{where}: {path}" if where else path

    spots = dict(default_layout().spots)
    if layout is not None:
        if not isinstance(layout, dict):
            raise BadInput(at("layout"), 'spots per showcase are needed, e.g. {"one_continent": 4, "one_era": 4, '
                                         '"plain": 5, "years_gap": 2, "mid_century": 1}')
        for key, n in layout.items():
            if key not in SHOWCASES:
                raise BadInput(at("layout", key), f"unknown showcase; the showcases are {', '.join(SHOWCASES)}")
            s = b.showcase(key)
            if not isinstance(n, int) or isinstance(n, bool):
                raise BadInput(at("layout", key), f"{n!r} is not a number of spots")
            if not s.min_spots <= n <= s.max_spots:
                fixed = s.min_spots == s.max_spots
                raise BadInput(at("layout", key), f"{s.name} has {s.min_spots} spot{'s' if s.min_spots > 1 else ''} "
                                                  f"(confirmed by the rules)" if fixed else
                               f"{n} spots; {s.name} may have {s.min_spots} to {s.max_spots}")
            spots[key] = n
    covered: list[tuple[str, str]] = []
    if variations is not None:
        if not isinstance(variations, dict):
            raise BadInput(at("variations"),
                           'an overlay per base showcase is needed, e.g. {"plain": "spread_the_years"}')
        used: dict[str, str] = {}
        for key, overlay in variations.items():
            if key not in SHOWCASES:
                raise BadInput(at("variations", key), f"unknown showcase; the showcases are {', '.join(SHOWCASES)}")
            if overlay not in OVERLAYS:
                raise BadInput(at("variations", key), f"{overlay!r} is not an overlay; one of {', '.join(OVERLAYS)}")
            if not b.showcase(key).takes_overlay:
                raise BadInput(at("variations", key), f"{b.showcase(key).name} takes no overlay: its single card "
                                                      f"breaks ties")
            if overlay in used:
                raise BadInput(at("variations", key), f"{overlay} already lies on {used[overlay]}; each overlay "
                                                      f"is used once")
            used[overlay] = key
            covered.append((key, overlay))
    order = {k: i for i, k in enumerate(SHOWCASES)}
    return Layout(tuple((k, spots[k]) for k in SHOWCASES), b.depot.spots,
                  tuple(sorted(covered, key=lambda kv: order[kv[0]])))


def layout_warnings(layout: Layout) -> list[Text]:
    """Overlays on a showcase whose spot count they were not made for (the kiosk warns; rules §9.2)."""
    b = board()
    out = []
    for key, overlay in layout.variations:
        suits = b.overlay(overlay).suits_spots
        if suits is not None and layout.size(key) != suits:
            out.append(Text(N_("{overlay} suits a {suits}-spot showcase; it lies on {showcase} with {spots} spots"),
                            {"overlay": Text(b.overlay(overlay).name), "suits": suits,     # names are msgids too
                             "showcase": Text(b.showcase(key).name), "spots": layout.size(key)}))
    return out


# ---------------------------------------------------------------------------------------------
# Spot names

_SPOT_RE = re.compile(r"([a-z_]+)\[([0-9]{1,2})\]")


def spot_name(key: str, index: int) -> str:
    return f"{key}[{index}]"
