"""The decision flags of rules §12 that have an option; the defaults are the spec's decisions."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from companion.errors import BadInput, json_path

TIE_RANKINGS = ("competition", "dense")


@dataclass(frozen=True)
class Options:
    one_era_gap_feasibility: bool = True   # A3: cards with empty spots between stay within 10 x distance
    links_keeps_g2: bool = False           # A10: Links also needs all-different continents
    tie_ranking: str = "competition"       # A8: awards after a tie 5, 5, 3 ("dense": 5, 5, 4)
    white_1945_in_years_gap: bool = True   # A5: the 1945 white card counts as 1945 in Years Gap
    solo_mid_century_per_year: int = 2     # A12: solo Mid-Century = max(0, 100 - this x |year - 1950|)

    def to_json(self) -> dict:
        return asdict(self)


NAMES = tuple(Options.__dataclass_fields__)


def parse_options(obj, where: str = "") -> Options:
    """Options from a setup line's or a table's ``options`` object (absent: the defaults)."""
    def at(*parts):
        path = json_path("options", *parts)
        return f"{where}: {path}" if where else path

    if obj is None:
        return Options()
    if not isinstance(obj, dict):
        raise BadInput(at(), 'an object of flags is needed, e.g. {"tie_ranking": "dense"}')
    for key, value in obj.items():
        if key not in NAMES:
            raise BadInput(at(key), f"unknown option; known: {', '.join(NAMES)}")
        if key == "tie_ranking":
            if value not in TIE_RANKINGS:
                raise BadInput(at(key), f"{value!r} is not one of {', '.join(TIE_RANKINGS)}")
        elif key == "solo_mid_century_per_year":
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
                raise BadInput(at(key), f"{value!r} is not a whole number of points per year (0-100)")
        elif not isinstance(value, bool):
            raise BadInput(at(key), f"{value!r} is not true or false")
    return Options(**obj)
