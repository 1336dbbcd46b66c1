"""The demo's simulated players of the board games (Exhibition, Ancient Knowledge).

As in the row games (companion/ui/demo.py) they never talk to the engine: they lay cards in view of
the virtual camera -- the market or the technology tiles at setup, then the mat of the player whose
turn it is, with the card just played on one of its spots -- and the kiosk learns what happened by
reading the rendered frames. What they know is what players at a real table know: the cards in
their hands (with what is printed on them), the mat as the kiosk draws it (after a slide or a
refused card they lay it out that way again) and the kiosk's questions, which they answer with the
buttons in autoplay. They play as people who know the rules do, with what lies open on the table:
in Exhibition the market card that fits their Hall best, laid where its year leaves room for later
cards (early years to the left, late ones to the right), the Depot rather than an early end while
spots are empty; in Ancient Knowledge each monument in the zone printed on it, and knowledge about to
decline into the Past archived while their hands allow. Now and then a card goes where it does not
fit and the kiosk refuses it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from companion.cards.decks import get_deck
from companion.i18n import N_
from companion.inputs.commands import OK, UNDO
from companion.play.choice import Ask
from companion.play.turns import READ_AGAIN


class Table(Protocol):
    def show(self, layout: Any) -> None: ...


Press = Callable[..., None]


class BoardPlayers:
    """The demo players of a board game (named by its ``GameSpec.demo``: the demo's contract for a game
    whose table is boards; a row or grid game is played by companion/ui/demo.py's own players). The
    common part: the setup laid once, the active player's mat kept under the camera, a card laid on a
    spot and taken back when the kiosk refuses it, the kiosk's questions answered. Each game's players
    give ``board``, ``lay_setup``, ``sees_setup``, ``watch``, ``answer`` and, if they take cards back,
    ``refused``."""

    board = ""
    PLAYERS = 2                # the demo's players at this table: fewer than the picker's 3, shorter games

    def __init__(self, table: Table, rng: random.Random, press: Press, wrong_rate: float):
        self.table = table
        self.rng = rng
        self.press = press
        self.wrong_rate = wrong_rate
        self.setup: list[str] | None = None     # the codes laid in view for the setup reading
        self.placed: tuple[str, str] | None = None   # (code, spot) just laid, not judged yet
        self.shown: dict | None = None
        self.waited = 0                          # frames a laid card has waited for the camera

    def at_table(self, screen: Any, autoplay: bool) -> None:
        phase = screen.phase
        if phase == "deal":
            if self.setup is None:
                self.setup = self.lay_setup()
            elif autoplay and screen.setup_codes is not None and self.sees_setup(screen.setup_codes):
                self.press(OK)
            return
        session = screen.session
        if session is None:
            return
        if phase == "verdict" and self.placed is not None:
            line, events, _before = screen.turns.judged
            if screen.view.is_correct(events) is False and line.get("spot", self.placed[1]) == self.placed[1]:
                self.refused(self.placed)
            self.placed = None
        if phase == "watch":
            self.watch(screen, session, autoplay)
        elif phase == "ask" and autoplay:
            self.answer(screen, session)
        elif phase in ("propose", "verdict", "refused", "reset") and autoplay:
            self.press(OK)
        self.show_mat(screen.view, session)
        if self.placed is not None:
            self.waited += 1
            if self.waited > 40 and phase in ("watch", "ask"):
                # the camera never proposed it (a misread called out, a spot taken meanwhile): take it back
                self.placed, self.waited = None, 0

    def show_mat(self, view: Any, session: Any) -> None:
        """The active player's mat as the kiosk draws it, and the card just laid."""
        from companion.vision.layouts import BoardLayout
        spots = dict(view.spots(session))
        if self.placed is not None:
            code, spot = self.placed
            spots = {s: c for s, c in spots.items() if c != code}
            spots[spot] = code
        if spots != self.shown:
            self.shown = spots
            self.table.show(BoardLayout(self.board, spots))

    def lay(self, code: str, spot: str) -> None:
        self.placed, self.waited = (code, spot), 0

    def choose(self, index: int) -> None:
        self.press(OK, index=index)

    # -- each game's own ----------------------------------------------------------------------
    def lay_setup(self) -> list[str]:
        raise NotImplementedError

    def sees_setup(self, setup_codes: Any) -> bool:
        raise NotImplementedError

    def watch(self, screen: Any, session: Any, autoplay: bool) -> None:
        raise NotImplementedError

    def answer(self, screen: Any, session: Any) -> None:
        raise NotImplementedError

    def refused(self, placed: tuple[str, str]) -> None:
        """The kiosk said the card may not lie there: it goes back to the hand."""


def draw_from(pile: list[str], spent: list[str], rng: random.Random) -> str | None:
    """The top card of the pile; when it is empty, the spent cards are shuffled into a new pile first
    (both lists are changed in place). None when no card is left anywhere."""
    if not pile:
        rng.shuffle(spent)
        pile.extend(spent)
        spent.clear()
    return pile.pop() if pile else None


def _line(session: Any, value: Any) -> dict:
    """A menu item's action as its log line ({} for a sub-menu, a callable or "back"): the players read
    what a choice does as the log would say it."""
    if value is None or callable(value) or isinstance(value, Ask) or value is READ_AGAIN:
        return {}
    return session.line(value)


class ExhibitionPlayers(BoardPlayers):
    """Exhibition: the market is laid as six columns of three; each turn the player takes a card with
    the buttons (the kiosk asks which) or lays it from the market straight on the mat, tells the
    card turned up from the stock, and lays the card on a spot of the mat; a card that fits nowhere
    goes to the Depot while Hall spots wait to be filled (each empty one costs a point), or the
    exhibition ends."""

    board = "exhibition"
    LAY_TO_TAKE = 0.3          # a take told by laying the card on the mat rather than with the buttons
    KEEP_GOING = 2             # empty Hall spots worth a Depot card rather than ending the exhibition

    def __init__(self, table: Table, rng: random.Random, press: Press, wrong_rate: float):
        super().__init__(table, rng, press, wrong_rate)
        self.bad: set[tuple[str, str]] = set()     # (code, spot) the kiosk refused
        self.cards = {c.code: c for c in get_deck("EXH20").cards.values() if c.code}

    # -- what a player who knows the rules sees on the table -----------------------------------
    @staticmethod
    def sense(card: Any, spot: str, exhibit: Any) -> float:
        """How well a spot suits a card: years rise left to right in a showcase, so a card whose
        year lies where the spot lies in the century leaves room on both sides; Mid-Century takes
        what fits nowhere better."""
        key, index = spot[:spot.index("[")], int(spot[spot.index("[") + 1:-1])
        year = card.year if card.year is not None else 1950
        if key == "mid_century":
            return -1.0 - abs(year - 1950) / 20
        n = len(exhibit.showcase(key))
        ideal = min(max((year - 1900) / 100, 0.0), 1.0) * (n - 1)
        return -abs(index - ideal)

    def best_spot(self, code: str, s: Any) -> tuple[float, str] | None:
        """The Hall spot of the active player's mat that suits the card best, and how well (None: it
        fits nowhere), by the placement rules over the mats as they lie (``s``: the engine's table)."""
        card = self.cards.get(code)
        if card is None:
            return None
        exhibit = s.me.exhibit
        spots = [spot for spot in s.hall_spots_for(card) if (code, spot) not in self.bad]
        if not spots:
            return None
        return max((self.sense(card, spot, exhibit), spot) for spot in spots)

    def worth(self, code: str, s: Any) -> float:
        best = self.best_spot(code, s)
        return -99.0 if best is None else best[0]

    def lay_setup(self) -> list[str]:
        from companion.games.exhibition.board import CONTINENTS, board
        from companion.games.exhibition.cards import coloured
        from companion.vision.layouts import GridLayout
        deck = get_deck("EXH20")
        cards = list(deck.cards.values())
        self.rng.shuffle(cards)
        per = board().cards_per_column
        columns = [sorted(cards[i * per:(i + 1) * per], key=lambda c: c.year if coloured(c) else 1945)
                   for i in range(len(CONTINENTS))]
        self.table.show(GridLayout([[col[r].code for col in columns] for r in range(per)]))
        return [c.code for col in columns for c in col if c.code]

    def sees_setup(self, setup_codes: Any) -> bool:
        read = [c for column in setup_codes.values() for c in column]
        return sorted(read) == sorted(self.setup or [])

    def refused(self, placed: tuple[str, str]) -> None:
        self.bad.add(placed)

    def watch(self, screen: Any, session: Any, autoplay: bool) -> None:
        s = session.table()
        held = s.held
        if s.finished or held is None or s.placed or self.placed is not None or not held.code:
            return
        view = screen.view
        fits = [spot for spot in view.fits(session) if (held.code, spot) not in self.bad]
        taken = set(view.spots(session))
        free = [spot for spot in s.layout.spot_names() if spot not in taken and (held.code, spot) not in self.bad]
        wrong = [spot for spot in free if spot not in fits and not spot.startswith("depot")]
        depot = [spot for spot in view.free_depot(session) if (held.code, spot) not in self.bad]
        if wrong and self.rng.random() < self.wrong_rate:
            self.lay(held.code, self.rng.choice(wrong))
        elif fits:
            exhibit = s.me.exhibit
            self.lay(held.code, max(fits, key=lambda spot: (self.sense(held, spot, exhibit), self.rng.random())))
        elif depot and self.empty_spots(s) >= self.KEEP_GOING:
            self.lay(held.code, depot[0])

    @staticmethod
    def empty_spots(s: Any) -> int:
        return sum(1 for _key, spots in s.me.exhibit.hall for c in spots if c is None)

    def answer(self, screen: Any, session: Any) -> None:
        ask, choice = screen.turns.asks[-1]
        values = [value for _label, value in choice.items]
        lines = [_line(session, v) for v in values]
        s = session.table()
        if any(line.get("type") == "finish" for line in lines):
            # fits nowhere in the Hall: into the Depot (laid there, the camera reads it) while empty
            # spots are worth waiting for, else the end
            held = s.held
            depot = [line["spot"] for line in lines if line.get("type") == "place"]
            if self.placed is None and depot and held is not None and held.code and \
                    self.empty_spots(s) >= self.KEEP_GOING:
                self.lay(held.code, depot[0])
            elif self.placed is None:
                self.choose(next(i for i, line in enumerate(lines) if line.get("type") == "finish"))
            return
        takes = [line["card"] for line in lines if line.get("type") == "take" and isinstance(line.get("card"), str)]
        if takes and self.placed is None:
            # the market card that suits the Hall best (any, now and then: people misjudge too)
            best = max(takes, key=lambda code: (self.worth(code, s), self.rng.random()))
            if self.rng.random() < self.wrong_rate:
                best = self.rng.choice(takes)
            spot = self.best_spot(best, s)
            if spot is not None and self.rng.random() < self.LAY_TO_TAKE:
                # straight from the market onto the mat: the camera tells the take, then the placement
                self.lay(best, spot[1])
                return
            self.choose(next(i for i, line in enumerate(lines) if line.get("type") == "take" and
                             line.get("card") == best))
            return
        moves = [line["to"] for line in lines if line.get("type") == "move"]
        if moves and self.placed is None:
            # the vehicle goes where the market holds the card that suits the Hall best
            def column_worth(k: str) -> float:
                return max((self.worth(c.code, s) for c in s.column(k) if c.code), default=-100.0)
            to = max(moves, key=lambda k: (column_worth(k), self.rng.random()))
            self.choose(next(i for i, line in enumerate(lines) if line.get("type") == "move" and line["to"] == to))
            return
        if self.placed is not None:
            return
        # a card taken, a continent, a decade, the card turned up: any; "stock empty" only when it is
        useful = [i for i, line in enumerate(lines) if not (line.get("type") == "refill" and line.get("card") is None)]
        self.choose(self.rng.choice(useful or list(range(len(values)))))


class AncientKnowledgePlayers(BoardPlayers):
    """Ancient Knowledge: the nine technologies are laid in a row; on their turn the players create
    monuments and artifacts from their hands by laying them on their mat (in the zone printed on the
    card, now and then another), and when their hands run short they excavate their Past or search
    with the buttons. They learn a Level II technology once their mat meets its requirement (it
    scores), a Level I one (many lower the knowledge of later monuments) with an action left over,
    neither building nor short of cards; they create the monument worth most (its points less the
    knowledge it carries), and archive knowledge on a monument of zone 1, which declines into the
    Past at the end of the turn and would turn into lost knowledge (a point off each), with the
    last action while the hand has cards to discard for it. The engine's questions get the answer
    the kiosk suggests (its focus), Pass in the Timeline phase."""

    ARCHIVE = N_("Archive: how many tokens come off {card} ({tokens} on it)?")
    KEEP = 4                # cards a player keeps in hand rather than archive knowledge that is not declining yet

    board = "ancient-knowledge"

    def __init__(self, table: Table, rng: random.Random, press: Press, wrong_rate: float):
        super().__init__(table, rng, press, wrong_rate)
        from companion.games.ancient_knowledge.catalog import catalog
        self.catalog = catalog()
        deck = get_deck("AK")
        self.ids = {c.code: c.ak_id for c in deck.cards.values() if c.code and c.ak_id}
        self.codes = {card: code for code, card in self.ids.items()}
        builders = [code for code, card in self.ids.items() if card in self.catalog.builders]
        self.rng.shuffle(builders)
        self.pile = builders
        self.discards: list[str] = []
        self.hands: dict[str, list[str]] = {}
        self.goal: str | None = None           # the action chosen with the buttons: excavate | search | archive
        self.archive: list[int] = []           # tokens to take off each monument carrying some, in Timeline order
        self.tech: str | None = None           # the technology to learn

    def lay_setup(self) -> list[str]:
        from companion.vision.layouts import RowLayout
        techs, codes = self.catalog.techs, self.codes
        one = [codes[t] for t in sorted(techs) if techs[t].level == 1 and t in codes]
        two = [codes[t] for t in sorted(techs) if techs[t].level == 2 and t in codes]
        laid = self.rng.sample(one, 6) + self.rng.sample(two, 3)
        self.table.show(RowLayout(laid))
        return laid

    def sees_setup(self, setup_codes: Any) -> bool:
        read = [card for tile in setup_codes for card in tile]
        return sorted(read) == sorted(self.ids[c] for c in self.setup or [])

    # -- the hands ----------------------------------------------------------------------------
    def draw(self) -> str | None:
        return draw_from(self.pile, self.discards, self.rng)

    def sync_hands(self, session: Any) -> None:
        """Each player holds as many cards as the kiosk's turn bar says (they drew or discarded)."""
        on_mats = {self.codes.get(card) for b in session.table().boards for card in self.mat_cards(b)}
        for name, n in session.summary()["hands"].items():
            hand = self.hands.setdefault(name, [])
            hand[:] = [c for c in hand if c not in on_mats]
            while len(hand) > n:
                self.discards.append(hand.pop(self.rng.randrange(len(hand))))
            while len(hand) < n:
                code = self.draw()
                if code is None:
                    break
                if code not in on_mats:
                    hand.append(code)

    @staticmethod
    def mat_cards(b: Any) -> list[str]:
        return [m.card for zone in b.zones for m in zone] + [p.card for p in b.past] + list(b.artifacts) + \
            list(b.techs)

    def refused(self, placed: tuple[str, str]) -> None:
        self.discards.append(placed[0])      # it went back into the hand; the next sync deals with it

    # -- a turn -------------------------------------------------------------------------------
    def watch(self, screen: Any, session: Any, autoplay: bool) -> None:
        s = session.table()
        if self.placed is not None or s.finished:
            return
        self.sync_hands(session)
        if s.asking is not None or s.phase != "action" or s.actions_left <= 0:
            return
        me = s.board
        hand = self.hands.get(me.name, [])
        archive = self.archive_plan(me)
        tech = self.tech_to_learn(s, me)
        move = self.create_move(me, hand) if not (archive and s.actions_left == 1) else None
        if tech is not None and not self.catalog.techs[tech].vp and (move is not None or me.hand < self.KEEP):
            # a Level I technology scores nothing: people build first, and draw when short of cards
            # to build with; they learn it with an action left over (learning every technology as
            # soon as it was ready took a third of the actions and doubled the game's length)
            tech = None
        elif tech is not None:
            move = None
        if tech is not None and autoplay:
            self.goal, self.tech = "learn", tech
            self.press(OK)                   # the actions menu
        elif move is not None:
            code, spot = move
            hand.remove(code)
            self.lay(code, spot)
        elif autoplay:
            if archive:
                self.goal, self.archive = "archive", archive
            else:
                self.goal = "excavate" if any(not p.rotated for p in me.past) and me.hand < 3 else "search"
            self.press(OK)                   # the actions menu

    def tech_to_learn(self, s: Any, me: Any) -> str | None:
        """The technology on the tiles worth most that the player's mat meets the requirement of
        (learnt technologies score, and many lower the knowledge of later monuments)."""
        from companion.games.ancient_knowledge.score import Holdings, counts
        have = counts(Holdings(me.name, me.past_ids(), me.timeline_ids(), me.techs, me.lost_knowledge, me.artifacts,
                               me.hand), self.catalog)
        ready = [t for tile in s.tiles for t in tile
                 if not self.catalog.techs[t].requirement.conds or self.catalog.techs[t].requirement.holds(have)]
        return max(ready, key=lambda t: (self.catalog.techs[t].vp, t)) if ready else None

    @staticmethod
    def archive_plan(me: Any) -> list[int]:
        """Tokens to archive (one card discarded for each) before zone 1 declines: as many of zone 1's
        as the hand can pay, none off the others; [] when there is nothing worth it."""
        cards = me.hand
        plan = []
        for zone, _row, m in me.timeline():
            if m.tokens <= 0:
                continue
            # zone 1 declines this turn; later zones only from a hand with cards to spare
            n = min(m.tokens, cards if zone == 1 else max(0, cards - AncientKnowledgePlayers.KEEP))
            cards -= n
            plan.append(n)
        return plan if sum(plan) > 0 and (plan[0] > 0 or sum(plan) >= 2) else []

    def create_move(self, me: Any, hand: list[str]) -> tuple[str, str] | None:
        """A card of the hand and the spot to lay it on: a monument in the zone printed on it (now
        and then another zone, which may cost too much), an artifact in the next free slot. Of
        these, the one worth most: a monument's points less the knowledge it will carry into the
        Past, a later zone (more turns to archive it) a little better."""
        options = []
        for code in hand:
            b = self.catalog.builders.get(self.ids[code])
            if b is None:
                continue
            if not b.is_monument:
                if len(me.artifacts) < 5 and b.discard_cost <= me.hand - 1:
                    options.append((code, f"artifact[{len(me.artifacts)}]"))
                continue
            zones = [z for z in range(1, 7) if len(me.zones[z - 1]) < 2]
            if self.rng.random() < self.wrong_rate and zones:
                zone = self.rng.choice(zones)
            elif b.start_zone in zones and b.discard_cost <= me.hand - 1:
                zone = b.start_zone
            else:
                continue
            options.append((code, f"zone{zone}.{('lower', 'upper')[len(me.zones[zone - 1])]}"))
        if not options:
            return None

        def worth(option: tuple[str, str]) -> float:
            b = self.catalog.builders[self.ids[option[0]]]
            if not b.is_monument:
                return 1.5
            zone = int(option[1][4:option[1].index(".")])
            return (b.vp or 0) - (b.knowledge or 0) + 0.5 * zone + self.rng.random()
        return max(options, key=worth)

    def answer(self, screen: Any, session: Any) -> None:
        ask, choice = screen.turns.asks[-1]
        items = choice.items
        msgids = [getattr(label, "msgid", None) for label, _value in items]
        if ask.optional and len(screen.turns.asks) == 1:
            # the actions menu: what the players chose to do with the buttons
            want = {"excavate": "Excavate", "archive": "Archive", "learn": "Learn a technology"}.get(
                self.goal or "", "Search (draw 1)")
            if want not in msgids:
                want = "Search (draw 1)"
            self.goal = None
            if want in msgids:
                self.choose(msgids.index(want))
            else:
                self.press(UNDO)
            return
        if getattr(ask.prompt, "msgid", None) == self.ARCHIVE:
            # one monument carrying knowledge after another: how many tokens come off it
            n = self.archive.pop(0) if self.archive else 0
            self.choose(min(n, len(items) - 1))
            return
        values = [value for _label, value in items]
        learn = [i for i, v in enumerate(values)
                 if _line(session, v).get("type") == "learn" and _line(session, v).get("card") == self.tech]
        if learn:
            self.tech = None
            self.choose(learn[0])
            return
        if any(callable(v) for v in values) and any(_line(session, v).get("type") == "excavate"
                                                    for v in values):
            # excavating: every monument of the Past not yet excavated, then done
            more = [i for i, v in enumerate(values) if callable(v)]
            self.choose(more[0] if more else 0)
            return
        passes = [i for i, v in enumerate(values) if _line(session, v).get("prompt") == "timeline" and
                  _line(session, v).get("value") == "done"]
        self.choose(passes[0] if passes else choice.focus)
