"""Placement checks (rules §5 and §9.2): which card may lie where, and why not in words.

One function judges a whole showcase (:func:`showcase_problem`); a placement is legal when the spot
is empty and the showcase *with the card in it* has no problem. So the game (a card at a time) and
``companion score`` (a table as it lies) use the very same checks. A :class:`Problem` names the spot
where the rule breaks (the right-hand card of a pair) and says which rule and which cards; a refused
placement says it from the card just laid, which it names first (:func:`placement_problem`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import pairwise

from companion.games.exhibition.board import DEPOT, Layout, board, spot_name
from companion.games.exhibition.cards import Card, coloured, decade, fixed, said
from companion.games.exhibition.options import Options
from companion.i18n import N_, Text


@dataclass(frozen=True)
class Exhibit:
    """One player's board: the Hall (showcase key -> spots, in layout order) and the Depot."""

    name: str
    hall: tuple[tuple[str, tuple[Card | None, ...]], ...]
    depot: tuple[Card | None, ...]

    @classmethod
    def empty(cls, name: str, layout: Layout) -> Exhibit:
        return cls(name, tuple((k, (None,) * n) for k, n in layout.spots), (None,) * layout.depot)

    def showcase(self, key: str) -> tuple[Card | None, ...]:
        if key == DEPOT:
            return self.depot
        return dict(self.hall)[key]

    def with_card(self, key: str, index: int, card: Card) -> Exhibit:
        if key == DEPOT:
            return replace(self, depot=_put(self.depot, index, card))
        return replace(self, hall=tuple((k, _put(s, index, card) if k == key else s) for k, s in self.hall))

    def hall_cards(self) -> list[tuple[str, Card]]:
        """(spot name, card) for every card in the Hall, board order."""
        return [(spot_name(k, i), c) for k, s in self.hall for i, c in enumerate(s) if c is not None]

    @property
    def filled(self) -> int:
        return sum(1 for k, s in self.hall for c in s if c is not None)

    @property
    def hall_full(self) -> bool:
        return all(c is not None for _, s in self.hall for c in s)

    @property
    def depot_cards(self) -> list[Card]:
        return [c for c in self.depot if c is not None]

    def continents(self) -> set[str]:
        return {c.continent for _, c in self.hall_cards() if coloured(c)}


def _put(spots: tuple, index: int, card: Card) -> tuple:
    return spots[:index] + (card,) + spots[index + 1:]


@dataclass(frozen=True)
class Claims:
    """What the other players' showcases forbid: continents held in their One Continent, decades
    held in their Unique Decades; each with (player, card) to name in a refusal."""

    continents: dict = field(default_factory=dict)
    decades: dict = field(default_factory=dict)


def claims_against(exhibits, me: int, layout: Layout, only_before: bool = False) -> Claims:
    """The claims of every player but ``me`` (``only_before``: the players listed before ``me``, so a
    table that shares a continent is reported at the later player)."""
    continents: dict[str, tuple[str, Card]] = {}
    decades: dict[int, tuple[str, Card]] = {}
    unique = layout.covered_by("unique_decades")
    for j, ex in enumerate(exhibits):
        if j == me or (only_before and j > me):
            continue
        if layout.overlay("one_continent") is None:
            for c in ex.showcase("one_continent"):
                if coloured(c):
                    continents.setdefault(c.continent, (ex.name, c))
        if unique is not None:
            for c in ex.showcase(unique):
                if fixed(c):
                    decades.setdefault(decade(c.year), (ex.name, c))
    return Claims(continents, decades)


@dataclass(frozen=True)
class Context:
    """Everything a check needs besides the showcase itself."""

    layout: Layout
    options: Options
    players: int
    claims: Claims = Claims()


@dataclass(frozen=True)
class Problem:
    index: int          # the spot where the rule breaks
    msgid: str
    params: dict
    second: int | None = None                 # a broken pair: the spot of the card the words name second
    turned: tuple[str, dict] | None = None    # the same problem worded the other way, naming that card first

    def from_card(self, laid: int) -> Problem:
        """The problem as told to the player who just laid the card at ``laid``: that card first."""
        if self.second == laid and self.turned is not None:
            return Problem(laid, *self.turned)
        return self

    def text(self) -> Text:
        return Text(self.msgid, self.params)

    def __str__(self) -> str:
        return self.text().render("en")


def showcase_name(key: str, layout: Layout) -> str:
    """The name printed on the board, the overlay's when one covers the showcase."""
    overlay = layout.overlay(key)
    if overlay:
        return board().overlay(overlay).name
    return board().showcase(key).name


# ---------------------------------------------------------------------------------------------
# The rules, each over a whole showcase (a tuple of cards and None)


def _g1(cards) -> Problem | None:
    """Years strictly ascend from left to right; Einstein fits anywhere."""
    idx = [i for i, c in enumerate(cards) if fixed(c)]
    for a, b in pairwise(idx):
        left, right = cards[a], cards[b]
        if left.year == right.year:
            same = N_("{right} has the same year as {left}; equal years never share a showcase")
            return Problem(b, same, {"left": said(left), "right": said(right)},
                           a, (same, {"left": said(right), "right": said(left)}))
        if left.year > right.year:
            return Problem(b, N_("{left} lies left of {right}; years must rise from left to right"),
                           {"left": said(left), "right": said(right)}, b,
                           (N_("{right} lies right of {left}; years must rise from left to right"),
                            {"left": said(left), "right": said(right)}))
    return None


def _g2(cards) -> Problem | None:
    """Continents all different (white cards have none)."""
    seen: dict[str, tuple[Card, int]] = {}
    for i, c in enumerate(cards):
        if coloured(c):
            if c.continent in seen:
                first, at = seen[c.continent]
                msg = N_("{card} repeats the continent of {other}; continents must all differ here")
                return Problem(i, msg, {"card": said(c), "other": said(first)},
                               at, (msg, {"card": said(first), "other": said(c)}))
            seen[c.continent] = (c, i)
    return None


def _one_continent(cards, ctx: Context) -> Problem | None:
    first, at = None, 0
    for i, c in enumerate(cards):
        if not coloured(c):
            continue
        if first is None:
            first, at = c, i
            claim = ctx.claims.continents.get(c.continent)
            if claim is not None:
                player, other = claim
                return Problem(i, N_("{card}: {player}'s One Continent already holds {continent} ({other}); "
                                     "each One Continent needs its own continent"),
                               {"card": said(c), "player": player, "continent": c.continent, "other": said(other)})
        elif c.continent != first.continent:
            msg = N_("{card} is not {continent} like {first}; One Continent holds one continent only")
            return Problem(i, msg, {"card": said(c), "continent": first.continent, "first": said(first)},
                           at, (msg, {"card": said(first), "continent": c.continent, "first": said(c)}))
    return None


def _one_era(cards, ctx: Context) -> Problem | None:
    step = board().one_era_step()
    idx = [i for i, c in enumerate(cards) if fixed(c)]
    for a, b in pairwise(idx):
        distance = b - a
        between = cards[a + 1:b]
        bridged = all(c is not None for c in between)      # adjacent, or only Einstein between
        gap = cards[b].year - cards[a].year
        limit = step * distance
        if not (ctx.options.one_era_gap_feasibility or bridged) or gap <= limit:
            continue
        params = {"later": cards[b].year, "earlier": cards[a].year, "gap": gap, "limit": limit}
        if distance == 1:
            msg = N_("{later} is {gap} years after {earlier}; One Era allows at most {limit}")
            turned = N_("{earlier} is {gap} years before {later}; One Era allows at most {limit}")
        elif bridged:
            msg = N_("{later} is {gap} years after {earlier} with Einstein between them; One Era allows at most "
                     "{limit}")
            turned = N_("{earlier} is {gap} years before {later} with Einstein between them; One Era allows at "
                        "most {limit}")
        else:
            msg = N_("{later} is {gap} years after {earlier} with {spots} spots between them; One Era allows at "
                     "most {limit} there ({step} a spot), so those spots can still be filled")
            turned = N_("{earlier} is {gap} years before {later} with {spots} spots between them; One Era allows "
                        "at most {limit} there ({step} a spot), so those spots can still be filled")
            params.update(spots=distance - 1, step=step)
        return Problem(b, msg, params, a, (turned, params))
    return None


def _neighbours(cards):
    """Pairs of cards in adjacent spots (rules §9.2: 'neighbouring' means adjacent spots)."""
    for i in range(1, len(cards)):
        if cards[i - 1] is not None and cards[i] is not None:
            yield i, cards[i - 1], cards[i]


def _neighbour_problem(cards, breaks, msg: str, msg_from_left: str, **bound) -> Problem | None:
    """The first pair of neighbours for which ``breaks(left, right)``: the right card is at fault
    (``msg``), or the left one, read from its side (``msg_from_left``); ``bound`` is the rule's limit,
    named in both messages beside the cards and their gap in years."""
    for i, left, right in _neighbours(cards):
        if breaks(left, right):
            params = {"right": said(right), "left": said(left), "gap": right.year - left.year, **bound}
            return Problem(i, msg, params, i - 1, (msg_from_left, params))
    return None


def _spread_the_years(cards, ctx: Context) -> Problem | None:
    need = board().overlay("spread_the_years").min_step
    return _neighbour_problem(
        cards, lambda left, right: right.year - left.year < need,
        N_("{right} is only {gap} years after {left}; Spread the Years needs at least {need} between neighbours"),
        N_("{left} is only {gap} years before {right}; Spread the Years needs at least {need} between neighbours"),
        need=need)


def _links(cards, ctx: Context) -> Problem | None:
    most = board().overlay("links").max_step
    return _neighbour_problem(
        cards, lambda left, right: left.continent != right.continent and right.year - left.year > most,
        N_("{right} is {gap} years after {left} and from another continent; Links needs the same continent or "
           "at most {most} years between neighbours"),
        N_("{left} is {gap} years before {right} and from another continent; Links needs the same continent or "
           "at most {most} years between neighbours"),
        most=most)


def _one_decade(cards, ctx: Context) -> Problem | None:
    first, at = None, 0
    for i, c in enumerate(cards):
        if c is None:
            continue
        if first is None:
            first, at = c, i
        elif decade(c.year) != decade(first.year):
            msg = N_("{card} is from the {decade}s but {first} from the {first_decade}s; One Decade holds one "
                     "decade only")
            return Problem(i, msg, {"card": said(c), "decade": decade(c.year), "first": said(first),
                                    "first_decade": decade(first.year)},
                           at, (msg, {"card": said(first), "decade": decade(first.year), "first": said(c),
                                      "first_decade": decade(c.year)}))
    return None


def _unique_decades(cards, ctx: Context) -> Problem | None:
    low, high = board().allowed_decades(ctx.players)
    seen: dict[int, tuple[Card, int]] = {}
    for i, c in enumerate(cards):
        if c is None:
            continue
        d = decade(c.year)
        if not low <= d <= high:
            params = {"card": said(c), "decade": d, "low": low, "high": high, "players": ctx.players}
            if ctx.players == 1:
                return Problem(i, N_("{card} is from the {decade}s; in a solo game Unique Decades takes only the "
                                     "{low}s to the {high}s"), params)
            return Problem(i, N_("{card} is from the {decade}s; with {players} players Unique Decades takes only the "
                                 "{low}s to the {high}s"), params)
        if d in seen:
            other, at = seen[d]
            msg = N_("{card} repeats the {decade}s of {other}; Unique Decades takes each decade once")
            return Problem(i, msg, {"card": said(c), "decade": d, "other": said(other)},
                           at, (msg, {"card": said(other), "decade": d, "other": said(c)}))
        seen[d] = (c, i)
        claim = ctx.claims.decades.get(d)
        if claim is not None:
            player, other = claim
            return Problem(i, N_("{card}: the {decade}s are already in {player}'s Unique Decades ({other})"),
                           {"card": said(c), "decade": d, "player": player, "other": said(other)})
    return None


def _no_whites(cards, key: str, ctx: Context) -> Problem | None:
    for i, c in enumerate(cards):
        if c is not None and c.white is not None:
            return Problem(i, N_("{card} is a white card; white cards may not go into a variation showcase "
                                 "({overlay})"), {"card": said(c), "overlay": showcase_name(key, ctx.layout)})
    return None


_OVERLAY_RULES = {
    "spread_the_years": _spread_the_years,
    "links": _links,
    "short_era": lambda cards, ctx: None,      # scoring overlays: the general rules only
    "one_decade": _one_decade,
    "antiquity": lambda cards, ctx: None,
    "unique_decades": _unique_decades,
}


def showcase_problem(key: str, cards, ctx: Context) -> Problem | None:
    """The first rule this showcase breaks (general rules first), or None if it is legal."""
    cards = tuple(cards)
    if key == "mid_century" or key == DEPOT:
        return None
    overlay = ctx.layout.overlay(key)
    if overlay is not None:
        keeps_g2 = overlay != "links" or ctx.options.links_keeps_g2
        return (_no_whites(cards, key, ctx) or _g1(cards) or (_g2(cards) if keeps_g2 else None)
                or _OVERLAY_RULES[overlay](cards, ctx))
    if key == "one_continent":
        return _g1(cards) or _one_continent(cards, ctx)
    if key == "one_era":
        return _g1(cards) or _g2(cards) or _one_era(cards, ctx)
    return _g1(cards) or _g2(cards)      # plain, years_gap


def placement_problem(card: Card, key: str, index: int, exhibit: Exhibit, ctx: Context) -> Problem | None:
    """Why ``card`` may not go to ``key[index]`` of this player's board, or None if it may."""
    spots = exhibit.showcase(key)
    if spots[index] is not None:
        return Problem(index, N_("{spot} already holds {card}; placed cards never move"),
                       {"spot": spot_name(key, index), "card": said(spots[index])})
    problem = showcase_problem(key, spots[:index] + (card,) + spots[index + 1:], ctx)
    return None if problem is None else problem.from_card(index)


def hall_spots_for(card: Card, exhibit: Exhibit, ctx: Context) -> list[str]:
    """Every empty Hall spot where the card is legal (empty: it fits nowhere, rules §6)."""
    return [spot_name(key, i) for key, spots in exhibit.hall for i in range(len(spots))
            if placement_problem(card, key, i, exhibit, ctx) is None]


def exhibit_problem(exhibit: Exhibit, ctx: Context) -> tuple[str, int, Problem] | None:
    """The first broken showcase of a whole board, as (showcase, spot index, problem)."""
    for key, spots in exhibit.hall:
        p = showcase_problem(key, spots, ctx)
        if p is not None:
            return key, p.index, p
    return None
