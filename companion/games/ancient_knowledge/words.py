"""An end-game card's score in players' words: "2 points for each complete set of Ancient, Writing and
Secret technologies: 2 sets = 4", never the formula it is computed from (``2 * min(techs.ancient, ...)``).
The "= 4" is held to its number by no-break spaces, so a wrapped line never starts with "= 4".

The formulas of ``endgame.csv`` are trees (:mod:`.formula`); each shape the cards use has a sentence
here, in English and Spanish, filled with the player's counts. A shape without a sentence (a future card)
still reads as words: the things it counts, each with the player's number, and the points.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.games.ancient_knowledge.formula import Count, Formula, Max, Min, Node, Num, Product, Requirement, Step
from companion.i18n import N_, Text
from companion.words import Words, joined

# What each count of the grammar counts, as players say it: one (after "for each") and several.
ONE = {
    "past.city": N_("city in your Past"),
    "past.megalith": N_("megalith in your Past"),
    "past.pyramid": N_("pyramid in your Past"),
    "past.any": N_("monument in your Past"),
    "past.endgame": N_("monument in your Past with an end-of-game effect"),
    "techs.ancient": N_("Ancient technology"),
    "techs.writing": N_("Writing technology"),
    "techs.secret": N_("Secret technology"),
    "techs.any": N_("technology"),
    "artifacts": N_("artifact"),
    "lost_knowledge": N_("lost-knowledge token"),
    "timeline.any": N_("monument still in your Timeline"),
    "hand": N_("card in your hand"),
}
MANY = {
    "past.city": N_("cities in your Past"),
    "past.megalith": N_("megaliths in your Past"),
    "past.pyramid": N_("pyramids in your Past"),
    "past.any": N_("monuments in your Past"),
    "past.endgame": N_("monuments in your Past with an end-of-game effect"),
    "techs.ancient": N_("Ancient technologies"),
    "techs.writing": N_("Writing technologies"),
    "techs.secret": N_("Secret technologies"),
    "techs.any": N_("technologies"),
    "artifacts": N_("artifacts"),
    "lost_knowledge": N_("lost-knowledge tokens"),
    "timeline.any": N_("monuments still in your Timeline"),
    "hand": N_("cards in your hand"),
}
# The sets the cards count ("a complete set of ..."), by the counts they take the smallest of.
SETS = {
    ("techs.ancient", "techs.writing", "techs.secret"): N_("Ancient, Writing and Secret technologies"),
    ("past.city", "past.megalith", "past.pyramid"): N_("a city, a megalith and a pyramid in your Past"),
}
# The kinds the cards take the largest of, and their short names in that list.
LARGEST = {("past.city", "past.megalith", "past.pyramid"): N_("the kind you have most of in your Past")}
SHORT = {"past.city": N_("cities"), "past.megalith": N_("megaliths"), "past.pyramid": N_("pyramids")}


def points_words(n: int) -> Text:
    """'1 point', '4 points' (Spanish '1 punto', '4 puntos')."""
    return Text(N_("1 point"), {}) if n == 1 else Text(N_("{n} points"), {"n": n})


def _counts_of(node: Node) -> tuple[str, ...] | None:
    """The counts of a min()/max() over plain counts, or None for another shape."""
    if isinstance(node, (Min, Max)) and all(isinstance(i, Count) for i in node.items):
        return tuple(i.name for i in node.items if isinstance(i, Count))
    return None


def _factor(node: Node) -> tuple[int, Node]:
    """``2 * x`` -> (2, x); ``x`` -> (1, x)."""
    if isinstance(node, Product) and len(node.items) == 2:
        a, b = node.items
        if isinstance(a, Num):
            return a.n, b
        if isinstance(b, Num):
            return b.n, a
    return 1, node


def formula_words(formula: Formula, counts: Mapping[str, int]) -> Text:
    """How the card scored, in words, with the player's numbers and the points it gave."""
    points = formula.value(counts)
    k, x = _factor(formula.root)
    if isinstance(x, Count):
        n = counts[x.name]
        return Words(N_("{each} for each {thing}: {n}\u00a0=\u00a0{points}"),
                     {"each": points_words(k), "thing": Text(ONE[x.name]), "n": n, "points": points})
    names = _counts_of(x)
    if isinstance(x, Min) and names in SETS:
        sets = x.value(counts)
        msg = N_("{each} for each complete set of {things}: 1\u00a0set\u00a0=\u00a0{points}") if sets == 1 else \
            N_("{each} for each complete set of {things}: {n}\u00a0sets\u00a0=\u00a0{points}")
        return Words(msg, {"each": points_words(k), "things": Text(SETS[names]), "n": sets, "points": points})
    if isinstance(x, Max) and names in LARGEST and all(name in SHORT for name in names):
        short = joined([Words(N_("{things} {n}"), {"things": Text(SHORT[name]), "n": counts[name]})
                        for name in names])
        return Words(N_("{each} for each monument of {kind} ({counts}): {n}\u00a0=\u00a0{points}"),
                     {"each": points_words(k), "kind": Text(LARGEST[names]), "counts": short,
                      "n": x.value(counts), "points": points})
    if k == 1 and isinstance(x, Step) and isinstance(x.x, Count):
        name = x.x.name
        steps = [Words(N_("{points} with {n} or more"), {"points": points_words(v), "n": t}) for t, v in x.steps]
        rule: Text = Words(N_("{first} {things}"), {"first": steps[0], "things": Text(MANY[name])})
        if len(steps) > 1:
            rule = joined([rule, *steps[1:]])
        return Words(N_("{rule}: {n}\u00a0=\u00a0{points}"), {"rule": rule, "n": counts[name], "points": points})
    # another shape: what it counts, each with the player's number
    return Words(N_("from {counts}: {points}"), {"counts": _numbers(formula.counts_used(), counts),
                                                  "points": points_words(points)})


def requirement_words(requirement: Requirement) -> Text:
    """A technology's requirement as players say it: "3 or more cities in your Past", "at most 3
    lost-knowledge tokens", joined by "and"."""
    parts = []
    for cond in requirement.conds:
        if isinstance(cond.expr, Count):
            things = Text(ONE[cond.expr.name] if cond.op == "<=" and cond.bound == 1 else MANY[cond.expr.name])
        elif isinstance(cond.expr, Max) and _counts_of(cond.expr) in LARGEST:
            things = Text(N_("monuments of one kind in your Past"))
        else:
            things = joined([Text(MANY[name]) for name in cond.expr.counts_used()], " + ")
        msg = N_("{n} or more {things}") if cond.op == ">=" else N_("at most {n} {things}")
        parts.append(Words(msg, {"n": cond.bound, "things": things}))
    return parts[0] if len(parts) == 1 else Words(N_("{some} and {last}"),
                                                  {"some": joined(parts[:-1]), "last": parts[-1]})


def holdings_words(names, counts: Mapping[str, int]) -> Text:
    """What a player has of the counts a requirement reads: "2 cities in your Past, 1 artifact"."""
    return joined([Words(N_("{n} {things}"), {"n": counts[name], "things": Text(ONE[name] if counts[name] == 1
                                                                                 else MANY[name])})
                   for name in names])


def _numbers(names, counts: Mapping[str, int]):
    """'cities in your Past 5, megaliths in your Past 5, ...'"""
    return joined([Words(N_("{things} {n}"), {"things": Text(MANY[name]), "n": counts[name]}) for name in names])
