"""The kiosk's view of "Later" (registered when its module is imported, as every game's views are).
It keeps the whole contract docs/adding-a-game.md lists, and reads the game only through the engine's
read model (``outcome``, ``current_player``, ``cards_on_table``, ``summary``): the picker offers it, and
the turn controller plays it."""

from companion.cards.json_cards import parse_card
from companion.games.base import refusal
from companion.i18n import N_, Text
from companion.play.proposals import CardPlaced
from companion.ui.games import GameView, ScoreRow, TurnInfo, Verdict, known_cards, register

from .engine import Lay


def card_of(value):
    return parse_card(value, "card")


class LaterView(GameView):
    key = "later"
    engine_id = "later"
    title = "Later"
    blurb = "Each card later than the one before."
    min_players, max_players = 2, 6
    start_cards = 0               # Later starts on a bare table

    # -- reading the table ---------------------------------------------------------------------
    def empty_layout(self):
        from companion.vision.layouts import RowLayout
        return RowLayout([])

    def codes_on_table(self, session) -> list[str]:
        return [c.code for c in session.cards_on_table() if c.code]

    def expected_layout(self, session):
        from companion.vision.layouts import RowLayout
        return RowLayout(self.codes_on_table(session))

    def read_setup(self, detections, new_game, session):
        """Later starts on an empty table."""
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        if known:
            return None, Text(N_("Clear the table: Later starts with no card on it."))
        return [], Text(N_("The table is clear. Press OK to start."))

    def setup_line(self, players, options, codes):
        return {"type": "setup", "game": "later", "players": list(players)}

    def action_for(self, proposal, session):
        if not isinstance(proposal, CardPlaced):
            return None
        return Lay(session.current_player(), session.card(proposal.code))

    # -- after a line --------------------------------------------------------------------------
    def context(self, session):
        return session.summary()["last"]

    def next_step(self, line, events, session) -> str:
        return "watch"

    def is_correct(self, events):
        if refusal(events) is not None:
            return None
        return any(e.kind == "laid" for e in events)

    def verdict(self, line, events, before, session, lang):
        card = card_of(line["card"])
        if self.is_correct(events):
            return Verdict(True, Text(N_("Correct!")), Text(N_("{year} is later."), {"year": card.date(lang)}))
        return Verdict(False, Text(N_("Wrong")), Text(N_("{player} is out."), {"player": line["player"]}))

    # -- words and drawing ---------------------------------------------------------------------
    def turn(self, session):
        return TurnInfo(session.current_player(), None, eliminated=tuple(session.summary()["out"]))

    def draw_board(self, c, rect, session, highlight) -> None:
        from companion.cards.decks import resolve
        from companion.ui.games._draw import row_of_cards
        if session is not None:
            row_of_cards(c, rect, [resolve(code) for code in self.codes_on_table(session)])

    def setup_prompt(self, new_game, session):
        return Text(N_("Deal the cards face down; keep the table clear."))

    def watch_prompt(self, session):
        return Text(N_("{player}: lay a card later than the last one."), {"player": session.current_player()})

    def describe(self, line, session, lang):
        return Text(N_("{player} lays {year}."), {"player": line["player"],
                                                  "year": card_of(line["card"]).date(lang)})

    def history_text(self, line, session, lang):
        return self.describe(line, session, lang)

    def score_sheet(self, session):
        winners = session.outcome().winners
        winner = winners[0] if winners else None
        headline = Text(N_("{player} wins!"), {"player": winner}) if winner else Text(N_("The game ended early"))
        rows = [ScoreRow(Text(N_("Cards laid")), str(len(session.cards_on_table())), Text(N_("Cards laid in time.")))]
        return headline, bool(winner), rows


register(LaterView())


def shot_name(kiosk):
    """The name of a screen of Later the kiosk shows now, or None (its screenshot script's)."""
    top = kiosk.stack.top
    if top.name == "table" and top.view.key == "later" and top.phase == "deal":
        return "later-deal"
    return None


def screenshots(studio) -> None:
    """Later's screenshot (the spec's ``screenshots``): how to start, at the demo's table."""
    studio.expect("later-deal")
    t = studio.demo_table(shot_name)
    t.start("later")
    t.close()
