"""Exhibition's names as players read them: showcases, overlays, continents and spots ("One Era 3"),
for the kiosk and the score sheet alike."""

from __future__ import annotations

from companion.games.exhibition.board import DEPOT, SHOWCASES
from companion.i18n import N_, Text
from companion.words import Words

SHOWCASE_NAMES = {"one_continent": N_("One Continent"), "one_era": N_("One Era"), "plain": N_("Plain"),
                  "years_gap": N_("Years Gap"), "mid_century": N_("Mid-Century"), DEPOT: N_("Depot")}
OVERLAY_NAMES = {"spread_the_years": N_("Spread the Years"), "links": N_("Links"), "short_era": N_("Short Era"),
                 "one_decade": N_("One Decade"), "antiquity": N_("Antiquity"), "unique_decades": N_("Unique Decades")}
CONTINENT_NAMES = {"OC": N_("Oceania"), "SA": N_("South America"), "AF": N_("Africa"), "AS": N_("Asia"),
                   "EU": N_("Europe"), "NA": N_("North America")}


def spot_text(spot: str, layout) -> Words:
    """``one_era[2]`` -> "One Era 3" (an overlay by its own name); ``depot[0]`` -> "Depot 1"."""
    key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
    overlay = layout.overlay(key) if key in SHOWCASES else None
    name = OVERLAY_NAMES[overlay] if overlay else SHOWCASE_NAMES.get(key, key)
    return Words(N_("{showcase} {n}"), {"showcase": Text(name), "n": index + 1})


def spot_words(spot: str, layout, lang: str) -> str:
    return spot_text(spot, layout).render(lang)


def fits_words(spots: list[str], layout, lang: str) -> str:
    """["one_era[0]", "one_era[1]", "one_era[2]", "plain[4]"] -> "One Era 1–3, Plain 5"."""
    by_key: dict[str, list[int]] = {}
    for spot in spots:
        key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
        by_key.setdefault(key, []).append(index + 1)
    out = []
    for key, numbers in by_key.items():
        name = spot_text(f"{key}[0]", layout).params["showcase"].render(lang)
        out.append(name + " " + ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs(numbers, 1)))
    return ", ".join(out)


def runs(values: list[int], step: int) -> list[list[int]]:
    """[1, 2, 3, 5] with step 1 -> [[1, 2, 3], [5]]: consecutive values grouped."""
    out: list[list[int]] = []
    for v in values:
        if out and v == out[-1][-1] + step:
            out[-1].append(v)
        else:
            out.append([v])
    return out


def continent_text(k: str) -> Words:
    return Words(N_("{code} {continent}"), {"code": k, "continent": Text(CONTINENT_NAMES[k])})
