"""Cronología's views. Competitive: Timeline's row plus levels and icon effects after a correct card.
Cooperative: a 5 x 5 grid of fixed cards with 4 gap rows (9 rows on the table), union events placed
into gap slots, lives, and a fresh grid dealt after each scored column."""

from __future__ import annotations

from companion.games import cronologia
from companion.games.base import refusal
from companion.games.cronologia import Table, level_text
from companion.i18n import N_, Text
from companion.play.proposals import CardPlacedInGrid
from companion.play.session import GameSession
from companion.ui.canvas import Literal
from companion.ui.games import GameView, Option, ScoreRow, TurnInfo, Verdict, known_cards, register
from companion.ui.games._draw import grid_of_cards
from companion.ui.games.timeline import RowGameView, card_of, placed_correctly, title_of, tr
from companion.words import Words

# the session these views read: mypy checks what they read from its table()
Session = GameSession[Table]

LEVELS_COMPETITIVE = [(k, level_text(k, "competitive")) for k in ("medio", "iniciado", "experto")]
LEVELS_COOPERATIVE = [(k, level_text(k, "cooperative")) for k in ("experto", "medio", "iniciado")]
ICON_NAMES = {"replace_opp": N_("Replace an opponent's card"), "swap": N_("Swap a card with an opponent"),
              "replace_own": N_("Replace one of your cards")}


class CronologiaCompetitiveView(RowGameView):
    key = "cronologia-competitive"
    engine_id = "cronologia"
    title = N_("Cronología: competitive")
    blurb = N_("2 to 8 players. Like Timeline, with historical periods and three card effects: a correct card "
               "may swap or replace cards if its period is already in the chronology.")
    min_players, max_players = 2, 8
    start_cards = 5
    place = cronologia.Place

    def options(self):
        return [Option("level", N_("Level"), LEVELS_COMPETITIVE)]

    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == "cronologia" and setup_line.get("mode", "competitive") == "competitive"

    def setup_line(self, players, options, codes):
        return {"type": "setup", "game": "cronologia", "mode": "competitive", "level": options.get("level", "medio"),
                "players": list(players), "start": list(codes)}

    def setup_prompt(self, new_game, session: Session | None):
        level = new_game["options"].get("level", "medio") if new_game else "medio"
        n = {"iniciado": 4, "medio": 6, "experto": 8}.get(level, 6)
        return Text(N_("Deal {n} cards to each player, face down. Then lay the top 5 cards of the deck in the "
                       "middle, date side up, in date order."), {"n": n})

    def after_wrong(self, events, session: Session, lang):
        if session.summary().get("sudden_death"):
            text = tr(N_("Put the card on the discard pile, face up."), lang)
        else:
            text = tr(N_("Put the card on the discard pile, face up, and draw a new card."), lang)
        news = self.round_news(events, lang)
        return f"{text} {news}" if news else text

    def next_step(self, line, events, session: Session) -> str:
        if line.get("type") == "place" and self.is_correct(events) and self.follow_ups(session):
            return "effect"
        return "watch"

    def follow_ups(self, session: Session):
        """The effects the engine allows now (each candidate is asked of the engine, never decided here).
        None after a placement that ended the game: an effect there changes nothing (C16)."""
        if not session.lines or session.lines[-1].get("type") != "place" or not session.in_progress():
            return []
        last = session.lines[-1]
        card = card_of(last["card"])
        out = []
        others = [p for p in session.setup_line["players"] if p != last["player"]]
        for icon in card.icons:
            targets = [None] if icon == "replace_own" else others
            for target in targets:
                effect = cronologia.Effect(last["player"], icon, target)
                _state, events = session.preview(effect)
                if refusal(events) is None:
                    label = Text(ICON_NAMES[icon]) if target is None else Words(
                        N_("{effect}: {target}"), {"effect": Text(ICON_NAMES[icon]), "target": target})
                    out.append((label, effect))
        return out

    def effect_player(self, session: Session) -> str:
        """Who chooses the effect: the player whose card was just placed (the engine has already
        moved the turn on)."""
        return session.lines[-1]["player"]

    def effect_prompt(self, session: Session):
        return Text(N_("{player} may use one effect of the card (or none). Do it on the table, then choose it here."),
                    {"player": self.effect_player(session)})

    def is_correct(self, events):
        if any(e.kind == "effect_used" for e in events):      # an effect line judges no card
            return None
        return super().is_correct(events)

    def verdict(self, line, events, before, session: Session, lang):
        if line.get("type") == "effect":
            what = ICON_NAMES[line["icon"]]
            return Verdict(None, tr(N_("Effect used"), lang),
                           tr(N_("{player}: {effect}"), lang, player=line["player"], effect=tr(what, lang)) +
                           (f" → {line['target']}" if line.get("target") else ""),
                           tr(N_("The number of cards in each hand stays the same."), lang))
        # The round ends when the effect window closes (C16): its news belong to this placement, so
        # they are read ahead from the engine; the closing of the previous turn is not this card's news.
        placed = next((i for i, e in enumerate(events) if e.kind == "card_placed"), 0)
        news = events[placed:] + list(session.table().closing)
        return super().verdict(line, news, before, session, lang)

    def history_text(self, line, session: Session, lang):
        if line.get("type") == "effect":
            effect = tr(ICON_NAMES[line["icon"]], lang)
            text = tr(N_("{player} used: {effect}"), lang, player=line["player"], effect=effect)
            return Literal(text + (f" → {line['target']}" if line.get("target") else ""))
        return super().history_text(line, session, lang)

    def score_sheet(self, session: Session):
        headline, good, rows = super().score_sheet(session)
        rows[-1] = ScoreRow(Text(N_("Cards in the chronology")), rows[-1].value,
                            Text(N_("Cards in the chronology at the end.")))
        return headline, good, rows


class CronologiaCooperativeView(GameView):
    key = "cronologia-cooperative"
    engine_id = "cronologia"
    title = N_("Cronología: cooperative")
    blurb = N_("2 to 8 players as one team. Five rows of five dated events; slip union events into the gaps "
               "between rows. Fill a whole column to score; each mistake costs a life.")
    min_players, max_players = 2, 8
    table_kind = "grid"
    band_height = 104             # nine rows of cards and their legend need the height more than the prompt
    camera_share = 0.0            # ... and the width: five years side by side, each whole at the readable size

    def options(self):
        return [Option("level", N_("Level"), LEVELS_COOPERATIVE)]

    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == "cronologia" and setup_line.get("mode") == "cooperative"

    def setup_line(self, players, options, codes):
        return {"type": "setup", "game": "cronologia", "mode": "cooperative", "level": options.get("level", "experto"),
                "players": list(players), "grid": codes}

    def deal_action(self, codes, session: Session):
        return cronologia.Deal(tuple(tuple(session.card(code) for code in row) for row in codes))

    # -- table ---------------------------------------------------------------------------------
    def grid(self, session: Session):
        t = session.table()
        return t.rows, t.gaps       # (rows 5x5, gaps 4x5 with None)

    def codes_on_table(self, session: Session) -> list[str]:
        rows, gaps = self.grid(session)
        return [c.code for line in list(rows) + list(gaps) for c in line if c is not None and c.code]

    def expected_layout(self, session: Session):
        from companion.vision.layouts import GridLayout
        rows, gaps = self.grid(session)
        physical = []
        for i, row in enumerate(rows):
            physical.append([c.code if c is not None else None for c in row])   # None: a scored grid, not dealt yet
            if i < len(gaps):
                physical.append([c.code if c is not None else None for c in gaps[i]])
        return GridLayout(physical)

    def read_setup(self, detections, new_game, session: Session | None):
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        if len(known) > 25:
            return None, Text(N_("The camera sees {seen} cards; lay only the 25 cards of the grid."),
                              {"seen": len(known)})
        if len(known) != 25:
            return None, Text(N_("The camera sees {seen} of the 25 cards of the grid."), {"seen": len(known)})
        by_y = sorted(known, key=lambda d: d.center[1])
        rows = [sorted(by_y[i * 5:(i + 1) * 5], key=lambda d: d.center[0]) for i in range(5)]
        for r, row in enumerate(rows):
            years = [d.card.year for d in row]
            if years != sorted(years):
                return None, Text(N_("Row {n} is not in date order: earliest on the left."), {"n": r + 1})
        return [[d.payload for d in row] for row in rows], Text(N_("Read all 25 cards, every row in date order. "
                                                                   "Press OK."))

    def action_for(self, proposal, session: Session):
        player = self.current(session)
        if not isinstance(proposal, CardPlacedInGrid) or player is None:
            return None
        return cronologia.PlaceInGrid(player, session.card(proposal.code), proposal.gap_row, proposal.col)

    # -- words ---------------------------------------------------------------------------------
    def bounds(self, session: Session, gap_row: int, col: int):
        rows, _gaps = self.grid(session)
        return rows[gap_row - 1][col - 1], rows[gap_row][col - 1]

    def describe(self, line, session: Session, lang):
        card = card_of(line["card"])
        a, b = self.bounds(session, line["gap_row"], line["col"])
        return tr(N_("{player} put “{title}” in column {col}, between {a} and {b}."), lang, player=line["player"],
                  title=title_of(card, lang), col=line["col"], a=a.date(lang), b=b.date(lang))

    def watch_prompt(self, session: Session):
        return Text(N_("{player}: put a union event into an empty gap between two rows."),
                    {"player": self.current(session)})

    def setup_prompt(self, new_game, session: Session | None):
        if session is not None:
            return Text(N_("Column scored! Put every dated card on the score pile, then deal a new grid: 5 rows of "
                           "5 cards, each row in date order, with room between the rows."))
        level = new_game["options"].get("level", "experto")
        n = {"experto": 4, "medio": 6, "iniciado": 8}.get(level, 4)
        return Text(N_("Deal {n} union events to each player, face down. Lay 5 rows of 5 cards date side up, each "
                       "row in date order, with room for a card between the rows."), {"n": n})

    def context(self, session: Session):
        return self.grid(session)

    def is_correct(self, events):
        return placed_correctly(events)

    def verdict(self, line, events, before, session: Session, lang):
        if line.get("type") == "deal":
            return Verdict(None, tr(N_("New grid"), lang), tr(N_("The new grid is recorded."), lang),
                           tr(N_("Carry on: the next player places a union event."), lang))
        card = card_of(line["card"])
        rows, _gaps = before
        a, b = rows[line["gap_row"] - 1][line["col"] - 1], rows[line["gap_row"]][line["col"] - 1]
        lo, hi = sorted((a, b), key=lambda c: c.year)
        title, year = title_of(card, lang), card.date(lang)
        s = session.summary()
        if self.is_correct(events):
            reason = tr(N_("“{title}” is from {year}: between {a} and {b}."), lang, title=title, year=year,
                        a=lo.date(lang), b=hi.date(lang))
            if any(e.kind == "column_scored" for e in events):
                then = tr(N_("Column {col} is complete: the team scores! Score pile: {score} cards."), lang,
                          col=line["col"], score=s.get("score", 0))
            else:
                then = tr(N_("Leave it there and draw a new union event."), lang)
            return Verdict(True, tr(N_("Correct!"), lang), reason, then)
        reason = tr(N_("“{title}” is from {year}: not between {a} and {b}."), lang, title=title, year=year,
                    a=lo.date(lang), b=hi.date(lang))
        if s.get("status") == "lost":
            then = tr(N_("No lives left: the team is beaten."), lang)
        else:
            then = tr(N_("A life is lost: {lives} left."), lang, lives=s.get("lives"))
        return Verdict(False, tr(N_("Wrong"), lang), reason, then)

    def next_step(self, line, events, session: Session) -> str:
        if line.get("type") == "deal":
            return "watch"
        if any(e.kind == "column_scored" for e in events) and session.in_progress():
            return "deal"
        if self.is_correct(events) is False and session.in_progress():
            return "reset"
        return "watch"

    def reset_prompt(self, session: Session):
        s = session.summary()
        return Text(N_("Put the wrong card and every union event still in your hands into the box. Deal {n} new "
                       "union events to each player. Press OK when done."), {"n": s.get("lives")})

    def history_text(self, line, session: Session, lang):
        if line.get("type") == "deal":
            return tr(N_("A new grid was dealt"), lang)
        card = card_of(line["card"])
        return tr(N_("{player} placed “{title}” ({year}) in column {col}"), lang, player=line["player"],
                  title=title_of(card, lang), year=card.date(lang), col=line["col"])

    # -- bar, board, score ---------------------------------------------------------------------
    def turn(self, session: Session):
        s = session.summary()
        extra = [Text(N_("Lives {lives}"), {"lives": s.get("lives")}),       # a heart alone did not say it
                 Text(N_("Score {score}"), {"score": s.get("score", 0)})]
        return TurnInfo(self.current(session) if s.get("status") == "in_progress" else None, s.get("round"),
                        dict(s.get("hands", {})), False, (), extra)

    def draw_board(self, c, rect, session: Session, pending):
        if session is None:
            return
        rows, gaps = self.grid(session)
        if pending and pending.get("type") == "place":
            grid_of_cards(c, rect, rows, gaps, (pending["gap_row"], pending["col"]), card_of(pending["card"]))
        else:
            grid_of_cards(c, rect, rows, gaps)

    def score_sheet(self, session: Session):
        s = session.summary()
        lost = s.get("status") == "lost"
        if lost:
            headline = Text(N_("Defeat, with {score} cards on the score pile"), {"score": s.get("score", 0)})
        else:
            headline = Text(N_("The team scored {score}!"), {"score": s.get("score", 0)})
        rows = [ScoreRow(Text(N_("Score pile")), str(s.get("score", 0)),
                         Text(N_("Every dated card cleared from the table when a column was completed: the 25 grid "
                                 "cards and every union event lying in a gap.")), True),
                ScoreRow(Text(N_("Lives left")), str(s.get("lives")),
                         Text(N_("Union events each player is dealt now; a wrong card costs one. At 0 the team is "
                                 "beaten.")))]
        rows.append(ScoreRow(Text(N_("Why it ended")),
                             "✗" if lost else "✓",
                             Text(N_("The team ran out of lives.")) if lost else
                             Text(N_("Nobody holds a union event and the deck is empty."))
                             if s.get("end_reason") == "no_union_events" else
                             Text(N_("The deck cannot make another grid of 25 cards."))))
        return headline, not lost, rows


register(CronologiaCompetitiveView())
register(CronologiaCooperativeView())


# -- its screenshots (GameSpec.screenshots: tools/screens.py hands the script a Studio) ---------------

def shot_name(kiosk) -> str | None:
    """The screenshot name of a Cronología screen the kiosk shows now, or None."""
    top, session = kiosk.stack.top, kiosk.session
    if top.name == "score":
        return "score-cooperative" if session is not None and session.view.key == "cronologia-cooperative" else None
    if top.name != "table":
        return None
    game, phase = top.view.key, top.phase
    if phase == "deal":          # the first deal's instructions; the cooperative game's new grid
        first = {"cronologia-competitive": "deal-cronologia", "cronologia-cooperative": "deal-cooperative"}.get(game)
        return first if session is None or first is None else "cooperative-redeal"
    if session is None:
        return None
    if game == "cronologia-competitive" and phase == "effect":
        return "cronologia-effect"
    if game == "cronologia-cooperative":
        return {"watch": "table-cooperative-grid", "propose": "cooperative-propose",
                "reset": "cooperative-reset"}.get(phase)
    return None


def screenshots(studio) -> None:
    """Both games of Cronología: the competitive game's effects, the cooperative game's grid to its end."""
    _effect(studio)
    _cooperative(studio)


def _effect(studio) -> None:
    """Cronología competitive: the five start cards, then a correct card with an icon, of a period already
    in the row, opens its effects."""
    from companion.inputs.commands import OK
    from companion.vision.layouts import RowLayout

    studio.expect("deal-cronologia", "cronologia-effect")
    t = studio.demo_table(shot_name)
    t.start("cronologia-competitive")
    row = sorted((t.pile.pop() for _ in range(5)), key=t.year)
    t.deal(RowLayout(row))
    years = [t.year(c) for c in row]
    periods = {t.cards[c].period for c in row}                   # an icon counts beside a card of its period
    code = next(c for c in t.pile if t.cards[c].icons and t.cards[c].period in periods and t.year(c) not in years)
    gap = sum(1 for x in years if x < t.year(code))
    assert t.play(RowLayout(row[:gap] + [code] + row[gap:]))
    t.press(OK)
    t.until("the effects", lambda: t.top.phase == "effect")
    t.close()


def _cooperative(studio) -> None:
    """Cronología cooperative (the demo's HIST deck): a grid dealt, its first column completed (it
    scores; a new grid is dealt), then wrong cards until the team has no lives left."""
    from companion.inputs.commands import OK
    from companion.vision.layouts import GridLayout

    studio.expect("deal-cooperative", "cooperative-redeal", "table-cooperative-grid", "cooperative-propose",
                  "cooperative-reset", "score-cooperative")
    t = studio.demo_table(shot_name, deck="HIST")
    t.start("cronologia-cooperative")

    def grid():
        rows = [sorted((t.pile.pop() for _ in range(5)), key=t.year) for _ in range(5)]
        return [line for r in rows for line in (r, [None] * 5)][:-1]

    def between(k: int, col: int):
        a, b = sorted((t.year(layout[2 * k][col]), t.year(layout[2 * k + 2][col])))
        return a, b

    layout = grid()
    t.deal(GridLayout(layout))
    col = next(c for c in range(5) if all(b - a > 1 for a, b in (between(k, c) for k in range(4))))
    for k in range(4):                                  # column 1 complete: the team scores
        a, b = between(k, col)
        layout[2 * k + 1][col] = t.take(lambda y, a=a, b=b: a < y < b)
        assert t.play(GridLayout(layout))
        t.press(OK)
    t.until("the new grid's deal", lambda: t.top.phase == "deal")
    layout = grid()
    t.deal(GridLayout(layout))
    while t.k.session.in_progress():
        a, b = between(0, 0)
        layout[1][0] = t.take(lambda y, a=a, b=b: y < a or y > b)
        assert not t.play(GridLayout(layout))
        layout[1][0] = None
        t.press(OK)
        if t.top.name == "table" and t.top.phase == "reset":
            t.lay(GridLayout(layout))                   # the wrong card goes to the box
            t.press(OK)
    t.until("the score sheet", lambda: t.top.name == "score")
    t.close()
