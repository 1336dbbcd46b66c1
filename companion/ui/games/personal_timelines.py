"""Personal timelines' view: every player's own row, one above the other (the first player's at the
top, as they lie under the camera); a card laid in the row of the player whose turn it is is judged
there; a wrong one goes to the discard pile. Rules: docs/personal-timelines.md."""

from __future__ import annotations

import pygame

from companion.games.personal_timelines.engine import Place, Table
from companion.i18n import N_, Text
from companion.play.proposals import CardPlacedInRow
from companion.play.session import GameSession
from companion.ui import theme
from companion.ui.canvas import READ_TEXT, Literal
from companion.ui.games import Option, ScoreRow, TurnInfo, known_cards, register
from companion.ui.games._draw import _window, card_tile, row_items, tile_height, year_fits
from companion.ui.games.timeline import RowGameView, card_of, title_of, tr
from companion.words import Words, later

# the session these views read: mypy checks what they read from its table()
Session = GameSession[Table]


class PersonalTimelinesView(RowGameView):
    key = "personal-timelines"
    engine_id = "personal-timelines"
    title = N_("Personal timelines")
    blurb = N_("2 to 6 players. Each player builds a row of their own by year; a wrong card is discarded. The "
               "first row to reach the goal wins.")
    min_players, max_players = 2, 6
    table_kind = "rows"
    camera_share = 0.3

    def options(self):
        return [
            Option("goal", N_("Goal"), [(10, N_("10 cards")), (7, N_("7 cards")), (5, N_("5 cards"))]),
            Option("ties", N_("Longest rows tied"), [("shared", N_("share the win")),
                                                      ("fewer_turns", N_("fewer turns wins"))]),
            Option("reshuffle_discards", N_("Pile spent"), [(False, N_("the game ends")),
                                                            (True, N_("shuffle the discards"))]),
        ]

    def setup_line(self, players, options, codes):
        line = {"type": "setup", "game": self.engine_id, "players": list(players), "starts": list(codes),
                "goal": options.get("goal", 10)}
        if options.get("ties", "shared") != "shared":
            line["ties"] = options["ties"]
        if options.get("reshuffle_discards"):
            line["reshuffle_discards"] = True
        return line

    # -- reading the table ---------------------------------------------------------------------
    def rows(self, session: Session):
        t = session.table()
        return list(zip(t.players, t.rows, strict=True))

    def row(self, session: Session) -> list:
        """The row of the player whose turn it is (what a verdict compares with)."""
        t = session.table()
        return list(t.row(t.current)) if t.current else []

    def codes_on_table(self, session: Session) -> list[str]:
        return [c.code for _, row in self.rows(session) for c in row if c.code]

    def empty_layout(self):
        from companion.vision.layouts import RowsLayout
        return RowsLayout([])

    def expected_layout(self, session: Session):
        from companion.vision.layouts import RowsLayout
        rows = self.rows(session)
        return RowsLayout([[c.code for c in row if c.code] for _, row in rows], [p for p, _ in rows])

    def read_setup(self, detections, new_game, session: Session | None):
        """Each player's first card, one above the other in seating order (the first player's at the top)."""
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        n = len(new_game["players"]) if new_game else self.min_players
        if len(known) != n:
            return None, Text(N_("The camera sees {seen} of the {n} first cards: lay one card for each player."),
                              {"seen": len(known), "n": n})
        ordered = sorted(known, key=lambda d: d.center[1])
        names = new_game["players"] if new_game else []
        dates = later(lambda lang: ", ".join(f"{p} {d.card.date(lang)}" for p, d in zip(names, ordered, strict=False)))
        return [d.payload for d in ordered], Words(N_("Read: {cards}. Press OK to start."), {"cards": dates})

    def action_for(self, proposal, session: Session):
        t = session.table()
        if not isinstance(proposal, CardPlacedInRow) or t.current is None or proposal.row >= len(t.players):
            return None
        return Place(t.current, t.players[proposal.row], session.card(proposal.code), proposal.gap)

    # -- words ---------------------------------------------------------------------------------
    def context(self, session: Session):
        return self.row(session)

    def describe(self, line, session: Session, lang):
        card = card_of(line["card"])
        owner = line.get("row", line["player"])
        return tr(N_("{player} put “{title}” in their row {where}."), lang, player=line["player"],
                  title=title_of(card, lang), where=self.where(list(session.table().row(owner)), line["gap"], lang))

    def watch_prompt(self, session: Session):
        return Text(N_("{player}: draw a card and put it into your own row."), {"player": self.current(session)})

    def setup_prompt(self, new_game, session: Session | None):
        return Text(N_("Lay each player's first card, date side up, one above the other: the first player's at "
                       "the top."))

    def after_wrong(self, events, session: Session, lang):
        text = tr(N_("Take the card out of the row and put it on the discard pile."), lang)
        news = self.round_news(events, lang)
        return f"{text} {news}" if news else text

    def round_news(self, events, lang):
        for e in events:
            if e.kind == "game_won" and any(x.kind == "pile_exhausted" for x in events):
                return tr(N_("The pile is spent: {player} has the longest row and wins!"), lang,
                          player=e.data.get("player"))
            if e.kind == "game_won":
                return tr(N_("{player} wins the game!"), lang, player=e.data.get("player"))
            if e.kind == "game_shared":
                return tr(N_("{players} share the win!"), lang, players=", ".join(e.data.get("players", [])))
            if e.kind == "pile_reshuffled":
                return tr(N_("The pile is spent: shuffle the discards into a new pile."), lang)
        return None

    def history_text(self, line, session: Session, lang):
        card = card_of(line["card"])
        return tr(N_("{player} placed “{title}” ({year})"), lang, player=line["player"], title=title_of(card, lang),
                  year=card.date(lang))

    # -- bar, board, score ---------------------------------------------------------------------
    def turn(self, session: Session):
        t = session.table()
        return TurnInfo(t.current, t.round, {p: len(r) for p, r in zip(t.players, t.rows, strict=True)},
                        extra=[Text(N_("Goal: {n} cards"), {"n": t.goal})], hands_label=N_("Cards in row: {hands}"))

    def draw_board(self, c, rect, session: Session, pending):
        if session is None:
            return
        t = session.table()
        rows = self.rows(session)
        place = pending if pending and pending.get("type") == "place" else None
        newest = self._newest_code(session)
        gap = c.px(6)
        row_h = (rect.h - gap * (len(rows) - 1)) // max(1, len(rows))
        label_w = min(c.px(150), rect.w // 4)
        for k, (player, row) in enumerate(rows):
            r = pygame.Rect(rect.x, rect.y + k * (row_h + gap), rect.w, row_h)
            if player == t.current:
                c.box(r, theme.PANEL_HI, radius=8)
            c.text(Literal(player), (r.x + c.px(8), r.centery - c.px(14)), READ_TEXT,
                   theme.ACCENT if player == t.current else theme.TEXT, bold=True, anchor="midleft",
                   max_width=label_w - c.px(10), role="score-label")
            c.text(Literal(f"{len(row)}/{t.length_to_win}"), (r.x + c.px(8), r.centery + c.px(14)), READ_TEXT,
                   theme.TEXT, anchor="midleft", max_width=label_w - c.px(10), role="score-value")
            cards = pygame.Rect(r.x + label_w, r.y + c.px(3), r.w - label_w - c.px(4), r.h - c.px(6))
            focus = next((i for i, card in enumerate(row) if newest and card.code == newest), None)
            if place is not None and place.get("row", place.get("player")) == player:
                _row(c, cards, list(row), place["gap"], card_of(place["card"]), focus)
            else:
                _row(c, cards, list(row), None, None, focus)

    def _newest_code(self, session: Session) -> str | None:
        for line in reversed(session.lines):
            if line.get("type") == "place":
                return card_of(line["card"]).code
        return None

    def score_sheet(self, session: Session):
        t = session.table()
        winners = t.winners
        if len(winners) == 1:
            headline: Text = Text(N_("{player} wins!"), {"player": winners[0]})
        elif winners:
            headline = Text(N_("Shared first place: {names}"), {"names": ", ".join(winners)})
        else:
            headline = Text(N_("The game ended early"))
        rows = []
        for player, row in zip(t.players, t.rows, strict=True):
            if player in winners and t.end_reason == "goal":
                explain = Text(N_("Reached the goal of {n} cards first."), {"n": t.length_to_win})
            elif player in winners:
                explain = Text(N_("The longest row when the pile was spent."))
            else:
                explain = Text(N_("Cards in the row at the end."))
            rows.append(ScoreRow(Text(N_("{player}: cards in the row"), {"player": player}), str(len(row)), explain,
                                 player in winners))
        rows.append(ScoreRow(Text(N_("Rounds played")), str(t.round), Text(N_("Rounds played."))))
        rows.append(ScoreRow(Text(N_("Cards discarded")), str(t.discards),
                             Text(N_("Wrongly placed cards, out of the game."))))
        return headline, bool(winners), rows


def _row(c, area: pygame.Rect, cards: list, gap_mark: int | None, new_card, focus: int | None) -> None:
    """One player's row: as many cards as show their years whole (with their titles when the row is
    tall enough for them), around the proposed gap or the newest card, and how many lie beyond each
    end."""
    items, focus = row_items(cards, gap_mark, focus)
    n = len(items)
    if not n:
        return
    gap, more_w = c.px(5), c.px(44)
    chosen = None
    for count in range(n, 0, -1):                 # the most cards first, with their titles if they fit
        room = area.w - (2 * (more_w + gap) if count < n else 0)
        w = min(c.px(130), (room - gap * (count - 1)) // count)
        start = _window(n, count, focus)
        shown = items[start:start + count]
        if not all(year_fits(c, it, w) for it in shown if it != "new"):
            continue
        for title in (True, False):
            h = max(tile_height(c, w, new_card if it == "new" else it, it != "new", title) for it in shown)
            if h <= area.h:
                chosen = (title, count, w, start, shown)
                break
        if chosen:
            break
    if chosen is None:
        start = 0 if focus is None else max(0, min(n - 1, focus))
        chosen = (False, 1, min(c.px(130), area.w - 2 * (more_w + gap)), start, items[start:start + 1])
    title, count, w, start, shown = chosen
    h = area.h
    x0 = area.x + (more_w + gap if start else 0)
    for pos, item in enumerate(shown):
        r = pygame.Rect(x0 + pos * (w + gap), area.y, w, h)
        if item == "new":
            card_tile(c, r, new_card, show_year=False, highlight=theme.OUTLINE_NEW, role="card-new", title=title)
        else:
            card_tile(c, r, item, title=title)
    for hidden, rect_x, arrow in ((start, area.x, "◀"), (n - start - count, x0 + count * (w + gap), "▶")):
        if hidden:
            rr = pygame.Rect(rect_x, area.y, more_w, h)
            c.box(rr, theme.PANEL_HI, radius=6)
            c.text(Literal(f"{arrow}+{hidden}"), (rr.centerx, rr.centery), READ_TEXT, theme.TEXT, bold=True,
                   anchor="center", max_width=rr.w, role="more")


class DemoRowsPlayers:
    """The demo's simulated players (the spec's ``demo``, with the interface of
    companion/ui/demo_boards.py's ``BoardPlayers``): they lay each player's first card one above the
    other, then on each turn the player whose turn the kiosk shows draws from the pile and slips the
    card into their own row -- mostly where it belongs, now and then not -- and a card the kiosk
    calls wrong goes to the discard pile. They never talk to the engine: the kiosk reads every row
    from the virtual camera's one picture."""

    board = ""
    PLAYERS = 4                   # every row in one picture: the demo shows four

    def __init__(self, table, rng, press, wrong_rate: float):
        from companion.cards.decks import get_deck
        self.table, self.rng, self.press, self.wrong_rate = table, rng, press, wrong_rate
        self.deck = get_deck("DEMO")
        self.pile = sorted(c.code for c in self.deck.cards.values() if c.code)
        rng.shuffle(self.pile)
        self.rows: list[list[str]] = []
        self.discards: list[str] = []
        self.placed: tuple[str, int] | None = None     # (code, row) laid, not judged yet
        self.waited = 0

    def year(self, code: str) -> int:
        card = self.deck.card(int(code.rsplit(":", 1)[1]))
        if card is None or card.year is None:
            raise ValueError(f"{code} is no dated card of the {self.deck.id} deck")
        return card.year

    def show(self, owners=()) -> None:
        from companion.vision.layouts import RowsLayout
        self.table.show(RowsLayout(self.rows, owners))

    def at_table(self, screen, autoplay: bool) -> None:
        from companion.inputs.commands import NEXT, OK
        phase = screen.phase
        if phase == "deal":
            if not self.rows:
                self.rows = [[self.pile.pop()] for _ in screen.turns.new_game["players"]]
                self.show()
            elif autoplay and screen.setup_codes is not None and \
                    sorted(screen.setup_codes) == sorted(c for r in self.rows for c in r):
                self.press(OK)
            return
        session = screen.session
        if session is None:
            return
        if phase == "watch":
            if self.placed is None and screen.table_note is None:
                self.place(session.table())
            elif self.placed is not None:
                self.waited += 1
                if autoplay and self.waited > 40:
                    self.press(NEXT)          # ask the camera to read again
                    self.waited = 0
        elif phase in ("verdict", "refused") and self.placed is not None:
            line, events, _before = screen.turns.judged if phase == "verdict" else ({}, [], None)
            code, k = self.placed
            if phase == "refused" or screen.view.is_correct(events) is False:
                self.rows[k].remove(code)     # onto the discard pile, as the kiosk says
                self.discards.append(code)
                self.show()
            self.placed = None
        if autoplay and phase in ("propose", "verdict", "refused"):
            self.press(OK)

    def place(self, t) -> None:
        if t.current is None or not self.pile:
            return
        k = t.players.index(t.current)
        code = self.pile.pop()
        years = [self.year(c) for c in self.rows[k]]
        y = self.year(code)
        right = [g for g in range(len(years) + 1)
                 if (g == 0 or years[g - 1] <= y) and (g == len(years) or y <= years[g])]
        wrong = [g for g in range(len(years) + 1) if g not in right]
        gap = self.rng.choice(wrong if wrong and self.rng.random() < self.wrong_rate else right)
        self.rows[k].insert(gap, code)
        self.placed, self.waited = (code, k), 0
        self.show(t.players)


register(PersonalTimelinesView())


# -- its screenshots (GameSpec.screenshots: tools/screens.py hands the script a Studio) ---------------

def shot_name(kiosk) -> str | None:
    """The screenshot name of a personal-timelines screen the kiosk shows now, or None."""
    top, session = kiosk.stack.top, kiosk.session
    if top.name == "score":
        return "personal-timelines-score" if session is not None and session.view.key == "personal-timelines" else None
    if getattr(top, "view", None) is None or top.view.key != "personal-timelines":
        return None
    if top.name == "players":
        return "personal-timelines-players"
    if top.name != "table":
        return None
    if top.phase == "deal":
        return "personal-timelines-deal"
    if session is None:
        return None
    if top.phase == "watch":
        return "personal-timelines-watch" if not session.lines else \
            "personal-timelines-watch-late" if session.table().round >= 4 else None
    if top.phase == "propose":
        return "personal-timelines-propose"
    if top.phase == "verdict" and top.turns.ending is None:
        return {True: "personal-timelines-verdict-right", False: "personal-timelines-verdict-wrong"}.get(
            top.turns.verdict(kiosk.lang).correct)
    return None


def screenshots(studio) -> None:
    """A game of four to a goal of 5, every row read from the demo's one camera picture: the players'
    form, how to lay the first cards, the rows at the start, a card proposed, a right and a wrong
    verdict (Bruno and Carla each misplace a card once), the rows in round 4, and the score sheet once
    Ana's row reaches the goal."""
    from companion.inputs.commands import OK
    from companion.vision.layouts import RowsLayout

    studio.expect(*(f"personal-timelines-{what}" for what in ("players", "deal", "watch", "propose", "verdict-right",
                                                               "verdict-wrong", "watch-late", "score")))
    t = studio.demo_table(shot_name)
    t.start(PersonalTimelinesView.key, players=4, options={"goal": 5})
    rows = [[t.pile.pop()] for _ in range(4)]
    t.deal(RowsLayout(rows))
    owners = list(t.k.session.table().players)
    turn = 0
    while t.k.session.in_progress() and turn < 40:
        table = t.k.session.table()
        k = table.players.index(table.current)
        years = [t.year(c) for c in rows[k]]
        code = t.take(lambda y, years=years: y not in years)
        y, wrong = t.year(code), turn in (1, 6)
        right = sum(1 for x in years if x < y)
        gap = (0 if right else len(years)) if wrong else right
        laid = rows[k][:gap] + [code] + rows[k][gap:]
        correct = t.play(RowsLayout([laid if i == k else r for i, r in enumerate(rows)], owners))
        assert correct != wrong, (code, gap, rows[k])
        if correct:
            rows[k] = laid
        else:
            t.lay(RowsLayout(rows, owners))          # the wrong card goes to the discard pile
        t.press(OK)
        turn += 1
    t.until("the score sheet", lambda: t.top.name == "score")
    t.close()
