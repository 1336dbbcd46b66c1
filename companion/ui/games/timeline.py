"""Timeline's views: one shared row of cards read left to right; a card placed in a gap is judged;
hands are face down, so the engine only counts them. Also the base of Cronología's competitive view."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from companion.cards.decks import resolve
from companion.cards.json_cards import parse_card
from companion.cards.model import Card
from companion.games import timeline
from companion.i18n import N_, NP_, Plural, Text, fill, translate
from companion.play.proposals import CardPlaced
from companion.play.session import GameSession
from companion.ui.canvas import Literal
from companion.ui.games import GameView, Option, ScoreRow, TurnInfo, Verdict, known_cards, register
from companion.ui.games._draw import row_capacity, row_of_cards, row_page
from companion.words import Words, later


def card_of(value):
    """A Card from a log line's card (a sticker code or a JSON card)."""
    if isinstance(value, str):
        return resolve(value)
    return parse_card(value, "card")


def placed_correctly(events) -> bool | None:
    """Whether the card these events placed was right; None when they placed none (the engines of the
    row and the grid judge a placement with one ``card_placed`` event)."""
    placed = next((e for e in events if e.kind == "card_placed"), None)
    return None if placed is None else bool(placed.data.get("correct"))


def tr(msgid: str, lang: str, **params) -> Literal:
    """A message in the screen's language, with card titles (themselves per language) filled in."""
    return Literal(fill(translate(msgid, lang), params))


def title_of(card, lang: str) -> str:
    return card.title_in(lang) or card.code or "?"


class RowGameView(GameView):
    """A game played on one row (Timeline, Cronología competitive)."""

    table_kind = "row"
    start_cards = 1
    place: Callable[[str, Card, int], Any] = timeline.Place   # the engine's action of a card placed in the row
    camera_share = 0.14           # the row's years and titles need the width (the cards lie on the table too)
    names_periods = True          # the periods' colours named under the row (Cronología's effects count by period)
    pages_row = True              # OK while waiting opens the whole row on a screen of its own, a page at a time

    # -- reading the table ---------------------------------------------------------------------
    def row(self, session: GameSession) -> list:
        return list(session.cards_on_table())

    def codes_on_table(self, session: GameSession) -> list[str]:
        return [c.code for c in self.row(session) if c.code]

    def expected_layout(self, session: GameSession):
        from companion.vision.layouts import RowLayout
        return RowLayout(self.codes_on_table(session))

    def read_setup(self, detections, new_game, session: GameSession | None):
        """The start card(s) in reading order, or None and what is still missing."""
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        n = self.start_cards
        if len(known) < n:
            one, more = NP_("The camera does not see the starting card yet.",
                            "The camera sees {seen} of the {n} starting cards.")
            return None, Plural(one, {"seen": len(known), "n": n}, plural=more, count="n")
        if len(known) > n:
            return None, Text(N_("The camera sees {seen} cards; lay only the {n} starting cards."),
                              {"seen": len(known), "n": n})
        ordered = sorted(known, key=lambda d: d.center[0])
        cards = [d.card for d in ordered]
        if any(a.year > b.year for a, b in pairwise(cards)):
            return None, Text(N_("Put the starting cards in date order, earliest on the left."))
        years = later(lambda lang: ", ".join(c.date(lang) for c in cards))   # 'a. C.' in Spanish
        return [d.payload for d in ordered], Words(N_("Read: {cards}. Press OK to start."), {"cards": years})

    def action_for(self, proposal, session: GameSession):
        player = self.current(session)
        if not isinstance(proposal, CardPlaced) or player is None:
            return None
        return self.place(player, session.card(proposal.code), proposal.gap)

    # -- words ---------------------------------------------------------------------------------
    def where(self, row, gap: int, lang: str) -> str:
        if not row:
            return translate(N_("as the first card"), lang)
        if gap <= 0:
            return translate(N_("at the left end, before {year}"), lang).format(year=row[0].date(lang))
        if gap >= len(row):
            return translate(N_("at the right end, after {year}"), lang).format(year=row[-1].date(lang))
        return translate(N_("between {a} and {b}"), lang).format(a=row[gap - 1].date(lang),
                                                                  b=row[gap].date(lang))

    def describe(self, line, session: GameSession, lang):
        card = card_of(line["card"])
        return tr(N_("{player} put “{title}” {where}."), lang, player=line["player"], title=title_of(card, lang),
                  where=self.where(self.row(session), line["gap"], lang))

    def watch_prompt(self, session: GameSession):
        return Text(N_("{player}: put one of your cards into the row."), {"player": self.current(session)})

    def setup_prompt(self, new_game, session: GameSession | None):
        return Text(N_("Deal {hand} cards to each player, face down. Then lay the top card of the pile in the "
                       "middle of the table, date side up."), {"hand": self.hand_words(new_game)})

    def hand_words(self, new_game) -> str:
        hand = new_game["options"].get("hand", 4) if new_game else 4
        return str(hand) if isinstance(hand, int) else "6/5/4"

    def context(self, session: GameSession):
        """What a verdict needs from before the action: the row as it was."""
        return self.row(session)

    def is_correct(self, events) -> bool | None:
        return placed_correctly(events)

    def verdict(self, line, events, before, session: GameSession, lang):
        card = card_of(line["card"])
        correct = self.is_correct(events)
        where = self.where(before, line["gap"], lang)
        title = title_of(card, lang)
        year = card.date(lang)
        if correct:
            reason = tr(N_("“{title}” is from {year}: it goes {where}."), lang, title=title, year=year, where=where)
            return Verdict(True, tr(N_("Correct!"), lang), reason, self.after_correct(events, session, lang))
        reason = tr(N_("“{title}” is from {year}: it does not go {where}."), lang, title=title, year=year, where=where)
        return Verdict(False, tr(N_("Wrong"), lang), reason, self.after_wrong(events, session, lang))

    def after_correct(self, events, session: GameSession, lang):
        return self.round_news(events, lang)

    def after_wrong(self, events, session: GameSession, lang):
        if session.setup_line.get("wrong_card_to_timeline"):
            text = tr(N_("Move the card to its right place in the row, then draw a new card."), lang)
        else:
            text = tr(N_("Put the card back in the box and draw a new card from the pile."), lang)
        news = self.round_news(events, lang)
        return f"{text} {news}" if news else text

    def round_news(self, events, lang):
        for e in events:
            if e.kind == "game_won":
                return tr(N_("{player} wins the game!"), lang, player=e.data.get("player"))
        for e in events:
            if e.kind == "sudden_death_started":
                return tr(N_("Sudden death: {players} play on; everyone else is out. Each of them draws one card."),
                          lang, players=", ".join(e.data.get("players", [])))
        return None

    def next_step(self, line, events, session: GameSession) -> str:
        return "watch"

    def history_text(self, line, session: GameSession, lang):
        if line.get("type") == "place":
            card = card_of(line["card"])
            return tr(N_("{player} placed “{title}” ({year})"), lang, player=line["player"],
                      title=title_of(card, lang), year=card.date(lang))
        return str(line)

    # -- bar, board, score ---------------------------------------------------------------------
    def turn(self, session: GameSession):
        s = session.summary()
        return TurnInfo(self.current(session) if s.get("status") == "in_progress" else None, s.get("round"),
                        dict(s.get("hands", {})), bool(s.get("sudden_death")), tuple(s.get("eliminated", ())))

    def draw_board(self, c, rect, session: GameSession, pending):
        if session is None:
            return
        row = self.row(session)
        if pending and pending.get("type") == "place":
            row_of_cards(c, rect, row, pending["gap"], card_of(pending["card"]), legend=self.names_periods)
        else:
            row_of_cards(c, rect, row, focus=self._newest(session, row), legend=self.names_periods)

    def row_pages(self, c, rect, session: GameSession) -> tuple[int, int]:
        """The whole row on a screen of its own: (how many cards, how many a page shows in ``rect``)."""
        row = self.row(session)
        return len(row), row_capacity(c, rect, row)

    def draw_row_page(self, c, rect, session: GameSession, first: int, count: int) -> None:
        row_page(c, rect, self.row(session), first, count)

    def _newest(self, session: GameSession, row) -> int | None:
        """Where the card placed last lies in the row (the screen shows the row around it)."""
        for line in reversed(session.lines):
            if line.get("type") == "place":
                code = card_of(line["card"]).code
                return next((i for i, card in enumerate(row) if code and card.code == code), None)
        return None

    def score_sheet(self, session: GameSession):
        s = session.summary()
        winner = s.get("winner")
        headline = Text(N_("{player} wins!"), {"player": winner}) if winner else Text(N_("The game ended early"))
        rows = []
        for name, n in s.get("hands", {}).items():
            if name == winner:
                explain = Text(N_("Placed every card correctly, and was the only one to do so in the last round."))
            elif name in s.get("eliminated", ()):
                explain = Text(N_("Out in sudden death: still held cards when others finished."))
            else:
                explain = Text(N_("Cards still in hand at the end."))
            # each figure says what it counts ("Ana 0" said nothing)
            rows.append(ScoreRow(Text(N_("{player}: cards in hand"), {"player": name}), str(n), explain,
                                 name == winner))
        rows.append(ScoreRow(Text(N_("Rounds played")), str(s.get("round", "")),
                             Text(N_("Rounds played, sudden death included.")) if s.get("sudden_death")
                             else Text(N_("Rounds played."))))
        rows.append(ScoreRow(Text(N_("Cards in the row")), str(len(s.get("timeline", []))),  # not the game's name
                             Text(N_("Cards in the row at the end."))))
        return headline, bool(winner), rows


class TimelineView(RowGameView):
    key = "timeline"
    engine_id = "timeline"
    title = N_("Timeline")
    blurb = N_("2 to 8 players. Put your cards into one shared row of dates. The first to place their last "
               "card correctly in a round wins; several at once play sudden death.")
    min_players, max_players = 2, 8
    names_periods = False         # Timeline's rules know no periods: the row keeps the height

    def options(self):
        return [
            Option("hand", N_("Cards in hand"), [(4, Literal("4")), ("by_player_count", N_("6/5/4 by players")),
                                                 (5, Literal("5")), (6, Literal("6")), (3, Literal("3"))]),
            Option("wrong_card_to_timeline", N_("A wrong card"), [(False, N_("goes to the box")),
                                                                  (True, N_("joins the row"))]),
            Option("first_player_extra_card", N_("First player's hand"),
                   [(False, N_("as many cards as the others")), (True, N_("one card more"))]),
        ]

    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == "timeline"

    def setup_line(self, players, options, codes):
        line = {"type": "setup", "game": "timeline", "players": list(players), "hand": options.get("hand", 4),
                "start": codes[0]}
        for key in ("wrong_card_to_timeline", "first_player_extra_card"):
            if options.get(key):
                line[key] = True
        return line


register(TimelineView())


# -- its screenshots (GameSpec.screenshots: tools/screens.py hands the script a Studio) ---------------

def shot_name(kiosk) -> str | None:
    """The screenshot name of a Timeline screen the kiosk shows now, or None."""
    top, session = kiosk.stack.top, kiosk.session
    if top.name == "score":
        return "score-timeline"
    if top.name != "table" or top.view.key != "timeline":
        return None
    if top.phase == "deal":
        return "deal-timeline"
    if session is None:
        return None
    if top.phase == "watch" and len(session.lines) >= 6:       # a row with some cards on it
        return "table-timeline"
    if top.phase == "propose":
        return "table-propose"
    if top.phase == "verdict":
        if top.turns.ending is not None:
            return "verdict-end"
        return {True: "verdict-correct", False: "verdict-wrong"}.get(top.turns.verdict(kiosk.lang).correct)
    return None


def screenshots(studio) -> None:
    """The attract screen, the picker, the players' form; a Timeline game of three played to its end
    (Bruno and Carla each place one card wrong, so Ana alone empties her hand); on the way the tour of
    the kiosk's own screens (a shop's leaflet, a sticker of no known card, a pulled camera cable, the
    menu, the history and the settings: taken when this is the registry's first game); then a 24-card
    row and the row's own screen."""
    from companion.inputs.commands import OK
    from companion.vision.layouts import RowLayout

    studio.expect("deal-timeline", "table-timeline", "table-propose",
                  "verdict-correct", "verdict-wrong", "verdict-end", "score-timeline")
    t = studio.demo_table(shot_name)
    t.start("timeline")
    t.deal(RowLayout([t.pile.pop()]))
    turn = 0
    while t.k.session.in_progress() and turn < 30:
        row = t.top.view.codes_on_table(t.k.session)
        years = [t.year(c) for c in row]
        wrong = turn in (4, 5)
        code = t.take(lambda y, years=years, wrong=wrong: (y < years[0] or y > years[-1]) if wrong
                      else y not in years)
        y = t.year(code)
        right = sum(1 for x in years if x < y)
        gap = (len(row) if y < years[0] else 0) if wrong else right
        laid = row[:gap] + [code] + row[gap:]
        correct = t.play(RowLayout(laid))
        assert correct != wrong, (code, gap, row)
        t.press(OK)
        turn += 1
        if turn == 1:
            t.tour(RowLayout(laid), lambda stray, laid=laid: RowLayout(laid + [stray]))
    t.until("the score sheet", lambda: t.top.name == "score")
    t.close()
    long_row(studio)


LONG_ROW = 24     # cards in the long row's pictures (the issue asks for a row of 24 checked at 800x480)


def long_row_lines(n: int = LONG_ROW, seed: int = 1) -> tuple[list[dict], tuple[str, int]]:
    """A Timeline game of 8 players, 3 cards each, played right until the row holds ``n`` cards (the
    start card and ``n - 1`` placed), from a seeded shuffle of the HIST deck: its log lines, and the
    next card with its right gap (the proposal on the picture)."""
    import random

    from companion.cards.decks import get_deck

    cards = [c for c in get_deck("HIST").cards.values() if c.code and c.year is not None]
    random.Random(seed).shuffle(cards)
    year = {c.code: int(c.year or 0) for c in cards}
    players = ["Ana", "Bruno", "Carmen", "David", "Elena", "Fernando", "Gloria", "Hugo"]
    setup = timeline.complete_setup({"type": "setup", "game": "timeline", "players": players, "hand": 3,
                                     "start": cards[0].code})
    state = timeline.setup(setup)
    lines, years = [setup], [year[cards[0].code]]
    for card in cards[1:n]:
        gap = sum(1 for y in years if y <= year[card.code])
        action = timeline.Place(timeline.current_player(state) or "", card, gap)
        state, _events = timeline.apply(state, action)
        line = timeline.action_to_json(action)
        line["card"] = card.code                    # as the kiosk logs it: the sticker code
        lines.append(line)
        years.insert(gap, year[card.code])
    card = cards[n]
    return lines, (str(card.code), sum(1 for y in years if y <= year[card.code]))


def long_row(studio) -> None:
    """A 24-card Timeline row: the table with a card proposed (the whole row on the board, years first,
    on as many lines as it needs), and the row's own screen (OK while waiting), a page at a time."""
    from companion.inputs.commands import OK, UNDO
    from companion.play.proposals import CardPlaced
    from companion.ui.table_feed import Reading

    studio.expect("table-long-row", "row-screen")
    lines, (code, gap) = long_row_lines()
    k, _feed = studio.resumed(lines, len(lines))
    k.stack.top.turns.reading_in(Reading(1, proposals=[CardPlaced(code, gap)]), k.lang)
    k.step()
    assert k.stack.top.phase == "propose"
    studio.take(k, "table-long-row")
    studio.press(k, UNDO)                    # a misread: back to waiting
    studio.press(k, OK)
    assert k.stack.top.name == "row"
    studio.take(k, "row-screen")
