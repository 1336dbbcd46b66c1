"""Exhibition: Twentieth Century's views: the active player's board as the camera reads it (the
Hall's five showcases and the Depot), the market of six continent columns, and a turn's steps.

The camera sees a card lying on a spot of the player board (``CardPlacedOnSpot``): a placement --
or, when nothing was taken yet this turn, the take it implies (the card came from the column under
the vehicle). What it cannot see -- which market card was taken, the vehicle's move after a white
card, the card turned up to refill the column, "finish", each Secret Decade -- the players tell
with the buttons. The engine judges everything; a placement it refuses is a Wrong verdict with
its reason and the spots where the card does fit. Log lines: docs/exhibition.md.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from companion.cards.decks import get_deck
from companion.cards.payload import parse_sticker
from companion.games.base import ScoreEntry, Summary, refusal
from companion.games.exhibition.actions import Finish, Move, Place, Refill, Secret, Take
from companion.games.exhibition.board import CONTINENTS, DEPOT, OVERLAYS, SHOWCASES, board, default_layout
from companion.games.exhibition.cards import DECADES, coloured, label, parse, same_card
from companion.games.exhibition.engine import Table
from companion.games.exhibition.score import explained_rows, points_unit
from companion.games.exhibition.words import (
    OVERLAY_NAMES,
    SHOWCASE_NAMES,
    continent_text,
    fits_words,
    spot_text,
    spot_words,
)
from companion.i18n import N_, Msg, Text, fill, translate
from companion.play.proposals import CardPlacedOnSpot
from companion.play.session import GameSession
from companion.ui.canvas import Literal
from companion.ui.games import Ask, BoardView, Choices, Option, ScoreRow, TurnInfo, Verdict, known_cards, register
from companion.ui.games._exhibition_board import draw_hall, draw_market
from companion.ui.games._menus import paged
from companion.words import Words, joined

# the session these views read: mypy checks what they read from its table()
Session = GameSession[Table]

LAYOUT_SPLITS = ((4, 4, 5), (4, 5, 4), (5, 4, 4), (3, 5, 5), (5, 3, 5), (5, 5, 3))
MARKET_DECK = "EXH20"


def t(msgid: str, lang: str, **params) -> Literal:
    return Literal(fill(translate(msgid, lang), params))


def card_of(value):
    """The card of a log line (a sticker code or a JSON card)."""
    return parse(value, "card")


class ExhibitionView(BoardView):
    key = "exhibition"
    engine_id = "exhibition"
    title = N_("Exhibition: Twentieth Century")
    blurb = N_("1 to 5 players (1: the solo game). Take cards from the market into the showcases of your Hall, "
               "each with its own rule. The camera reads your board; the companion checks every card as it is "
               "placed and explains every figure of the final score.")
    min_players, max_players = 1, 5
    board = "exhibition"
    kept_events = ("placed",)
    quiet_lines = ("take", "move", "refill", "secret")
    news_events = ("six_continents", "exhibition_finished", "game_over")
    picker_rank = 10
    camera_share = 0.0             # the Hall and the market, a column of three per continent, need the width
    band_height = 84
    judges_refusals = True

    # -- setup ---------------------------------------------------------------------------------
    def options(self):
        default = default_layout()
        sizes = dict(default.spots)
        printed = Text(N_("{layout} (as printed)"), {"layout": default.short()})
        splits: list[tuple[Any, Msg]] = [(None, printed)]
        b = board()
        for split in LAYOUT_SPLITS:
            keys = ("one_continent", "one_era", "plain")
            if split == tuple(sizes[k] for k in keys):
                continue
            if all(b.showcase(k).min_spots <= n <= b.showcase(k).max_spots for k, n in zip(keys, split, strict=True)):
                splits.append((split, Literal("/".join(map(str, split + (sizes["years_gap"], sizes["mid_century"]))))))
        overlays = [(None, N_("none"))] + [(o, OVERLAY_NAMES[o]) for o in OVERLAYS]
        opts = [Option("secret_decade", N_("Secret Decade"), [(False, N_("off")), (True, N_("on"))]),
                Option("layout", N_("Spots per showcase"), splits)]
        for key in SHOWCASES:
            if b.showcase(key).takes_overlay:
                opts.append(Option(f"overlay:{key}", Words(N_("Overlay on {showcase}"),
                                                           {"showcase": Text(SHOWCASE_NAMES[key])}), overlays))
        return opts

    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == "exhibition"

    def setup_line(self, players, options, codes):
        line = {"type": "setup", "game": "exhibition", "players": list(players), "market": codes}
        if options.get("secret_decade"):
            line["secret_decade"] = True
        split = options.get("layout")
        if split:
            line["layout"] = dict(zip(("one_continent", "one_era", "plain"), split, strict=True))
        variations = {key: options[f"overlay:{key}"] for key in SHOWCASES if options.get(f"overlay:{key}")}
        if variations:
            line["variations"] = variations
        return line

    def setup_prompt(self, new_game, session: Session | None):
        return Text(N_("Deal 3 cards face up under each continent. Lay the market in view of the camera: six "
                       "columns of three, from the left Oceania, South America, Africa, Asia, Europe, North America."))

    def read_setup(self, detections, new_game, session: Session | None):
        """The 18 market cards, six columns of three from the left (each column kept in year order)."""
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        if any(d.card.continent is None and d.card.white is None for d in known):
            return None, Text(N_("A card on the table is not an Exhibition card."))
        per, n = board().cards_per_column, len(CONTINENTS)
        if len(known) != per * n:
            return None, Text(N_("The camera sees {seen} of the {n} market cards."), {"seen": len(known), "n": per * n})
        by_x = sorted(known, key=lambda d: d.center[0])
        columns = [by_x[i * per:(i + 1) * per] for i in range(n)]
        for a, b in pairwise(columns):
            spread = max(max(d.center[0] for d in col) - min(d.center[0] for d in col) for col in (a, b))
            if min(d.center[0] for d in b) - max(d.center[0] for d in a) <= spread:
                return None, Text(N_("The camera cannot tell the six columns apart: leave a gap between them."))
        market = {k: [d.payload for d in col] for k, col in zip(CONTINENTS, columns, strict=True)}
        return market, Text(N_("Read all {n} market cards, six columns of {per}. Press OK to start."),
                            {"n": per * n, "per": per})

    # -- reading the table ---------------------------------------------------------------------
    def spots(self, session: Session) -> dict:
        s = session.table()
        if s.finished:
            return {}
        ex = s.me.exhibit
        spots = {}
        for key, cards in ex.hall + ((DEPOT, ex.depot),):
            for i, c in enumerate(cards):
                if c is not None and c.code:
                    spots[f"{key}[{i}]"] = c.code
        return spots

    def action_for(self, proposal, session: Session):
        if not isinstance(proposal, CardPlacedOnSpot):
            return None
        s = session.table()
        if s.finished:
            return None
        me = s.me.name
        for i, other in enumerate(s.seats):
            if i != s.active and any(c.code == proposal.code for _, c in other.exhibit.hall_cards()) or \
                    i != s.active and any(c.code == proposal.code for c in other.exhibit.depot_cards):
                return None     # the last player's board is still under the camera
        if not s.taken:
            # the card came from the column under the vehicle: the take is told first
            return Take(me, session.card(proposal.code))
        if s.placed:
            return None
        return Place(me, session.card(proposal.code), proposal.spot)

    # -- what the buttons tell -----------------------------------------------------------------
    def fits(self, session: Session) -> list[str]:
        """Every Hall spot where the engine takes the held card now."""
        s = session.table()
        if s.held is None:
            return []
        out = []
        for spot in s.layout.spot_names():
            if spot.startswith(DEPOT):
                continue
            if refusal(session.preview(Place(s.me.name, s.held, spot))[1]) is None:
                out.append(spot)
        return out

    def free_depot(self, session: Session) -> list[str]:
        return [f"{DEPOT}[{i}]" for i, c in enumerate(session.table().me.exhibit.depot) if c is None]

    def ask(self, session: Session):
        s = session.table()
        if s.finished:
            return None
        if s.missing_secrets:
            return self.secret_ask(s.missing_secrets[0])
        me, turn = s.me, s
        if not turn.taken:
            column = s.column(me.at)
            if not column:
                choices: Choices = [(continent_text(k), Move(me.name, k)) for k in CONTINENTS if s.column(k)]
                return Ask(Text(N_("The {continent} column is empty: where does {player}'s vehicle go to take a "
                                   "card?"), {"continent": me.at, "player": me.name}), choices)
            choices = [(Literal(label(c)), Take(me.name, c)) for c in column]
            return Ask(Text(N_("{player}'s vehicle stands on {continent}: which card does {player} take?"),
                            {"player": me.name, "continent": me.at}), choices,
                       note=Text(N_("Or lay it on {player}'s board under the camera: it tells which one."),
                                 {"player": me.name}), camera=True)
        if turn.needs_move:
            choices = [(continent_text(k), Move(me.name, k)) for k in CONTINENTS]
            return Ask(Text(N_("{player} took a white card: which continent does the vehicle go to?"),
                            {"player": me.name}), choices, camera=True)
        if turn.needs_refill:
            return self.refill_ask(session)
        if not turn.placed and turn.held is not None and not self.fits(session):   # held: taken, not yet placed
            card = label(turn.held)
            choices = [(spot_text(spot, s.layout), Place(me.name, turn.held, spot))
                       for spot in self.free_depot(session)]
            choices.append((Text(N_("End the exhibition")), Finish(me.name)))
            return Ask(Text(N_("{card} fits nowhere in {player}'s Hall: put it in the Depot, or end the exhibition."),
                            {"card": card, "player": me.name}), choices, camera=True)
        return None

    def secret_ask(self, player: str) -> Ask:
        choices = [(Literal(f"{d}s"), Secret(player, d)) for d in DECADES]
        return Ask(Text(N_("{player}: choose your Secret Decade while the others look away."), {"player": player}),
                   choices, note=Text(N_("It stays hidden until the final score.")), columns=2)

    def stock_cards(self, session: Session) -> list:
        """The cards that can still come up from the stock: the deck's, less those in play."""
        deck_id = MARKET_DECK
        for column in session.setup_line.get("market", {}).values():
            for code in column:
                sticker = parse_sticker(code) if isinstance(code, str) else None
                if sticker is not None:
                    deck_id = sticker.deck
        try:
            deck = get_deck(deck_id)
        except Exception:
            return []
        in_play = session.table().in_play()
        return [c for _, c in sorted(deck.cards.items()) if not any(same_card(c, x) for x in in_play)]

    def refill_ask(self, session: Session) -> Ask:
        s = session.table()
        me = s.me.name
        column = s.refill_column
        cards = self.stock_cards(session)

        choices: Choices = []
        for d in DECADES:
            these = [c for c in cards if coloured(c) and c.year is not None and c.year // 10 * 10 == d]
            if these:
                years = [(Literal(label(c)), Refill(me, c)) for c in these]
                choices.append((Literal(f"{d}s"), Ask(Text(N_("Which card of the {decade}s came up?"),
                                                           {"decade": d}), years, camera=True, columns=2)))
        whites = [c for c in cards if not coloured(c)]
        if whites:
            choices.append((Text(N_("white card")), Ask(Text(N_("Which white card came up?")),
                                                           [(Literal(label(c)), Refill(me, c)) for c in whites],
                                                           camera=True)))
        choices.append((Text(N_("stock empty")), Refill(me, None)))
        return Ask(Text(N_("Turn up the top card of the stock into the {continent} column: which card is it?"),
                        {"continent": column}), choices, camera=True, columns=2)

    def actions(self, session: Session):
        """In the watch phase: place the held card with the buttons (a spot the camera cannot see)."""
        s = session.table()
        if s.finished or s.held is None or s.placed:
            return None
        items = [(spot_text(spot, s.layout), Place(s.me.name, s.held, spot))
                 for spot in self.fits(session) + self.free_depot(session)]
        return paged(Text(N_("Where did {player} put {card}?"), {"player": s.me.name, "card": label(s.held)}),
                     items, optional=True, hint=N_("choose the spot"))

    # -- words ---------------------------------------------------------------------------------
    def watch_prompt(self, session: Session):
        s = session.table()
        if s.held is not None and not s.placed:
            return Text(N_("{player}: lay {card} on your board, in a showcase or the Depot."),
                        {"player": s.me.name, "card": label(s.held)})
        return Text(N_("{player}'s turn."), {"player": s.me.name})

    def describe(self, line, session: Session, lang):
        s = session.table()
        kind = line["type"]
        card = label(card_of(line["card"])) if line.get("card") is not None else ""
        if kind == "take":
            return t(N_("{player} took {card} from the market."), lang, player=line["player"], card=card)
        if kind == "place":
            return t(N_("{player} put {card} in {spot}."), lang, player=line["player"], card=card,
                     spot=spot_words(line["spot"], s.layout, lang))
        return self.history_text(line, session, lang)

    def verdict(self, line, events, before, session: Session, lang):
        kind = line["type"]
        reason = refusal(events)
        if reason is not None:
            return Verdict(False, t(N_("Not allowed"), lang), Literal(reason.render(lang)),
                           self.after_refusal(line, session, lang))
        news = self.news(events, lang)
        if kind == "place":
            card = label(card_of(line["card"]))
            if line["spot"].startswith(DEPOT):
                why = t(N_("{card} goes to the Depot ({spot}): -1 point at the end."), lang, card=card,
                        spot=spot_words(line["spot"], before.layout, lang))
            else:
                why = t(N_("{card} fits {spot}."), lang, card=card, spot=spot_words(line["spot"], before.layout, lang))
            return Verdict(True, t(N_("Well placed!"), lang), why, news or t(N_("Leave it there."), lang))
        if kind == "finish":
            held = label(before.held) if before.held is not None else ""
            return Verdict(None, t(N_("{player}'s exhibition is over"), lang, player=line["player"]),
                           t(N_("{card} fits nowhere in the Hall: it leaves the game."), lang, card=held), news)
        return Verdict(None, t(N_("Recorded"), lang), Literal(self.history_text(line, session, lang)), news)

    def after_refusal(self, line, session: Session, lang):
        if line["type"] == "take":
            return t(N_("Put the card back in the market; take one from the column under your vehicle."), lang)
        s = session.table()
        spots = self.fits(session)
        depot = self.free_depot(session)
        if spots:
            where = fits_words(spots, s.layout, lang) + (" " + translate(N_("or the Depot"), lang) if depot else "")
            return t(N_("Take the card off the board. It fits: {where}."), lang, where=where)
        if depot:
            return t(N_("Take the card off the board. It fits nowhere in the Hall: the Depot, or end the exhibition."),
                     lang)
        return t(N_("Take the card off the board. It fits nowhere: press OK and end the exhibition."), lang)

    def news(self, events, lang) -> Literal | None:
        out = []
        for e in events:
            d = e.data
            if e.kind == "continent_claimed":
                out.append(t(N_("{player}'s One Continent now claims {continent}."), lang, player=d["player"],
                             continent=d["continent"]))
            elif e.kind == "six_continents":
                out.append(t(N_("{player} has all six continents in the Hall (round {round}, number {order})."),
                             lang, player=d["player"], round=d["round"], order=d["order"]))
            elif e.kind == "exhibition_finished":
                msg = N_("{player}'s Hall is full: the exhibition is finished.") if d["reason"] == "hall_full" else \
                    N_("{player}'s exhibition is finished.")
                out.append(t(msg, lang, player=d["player"]))
            elif e.kind == "game_over":
                out.append(t(N_("The game is over."), lang))
            elif e.kind == "turn":
                out.append(t(N_("Next: {player}."), lang, player=d["player"]))
        return Literal(" ".join(out)) if out else None

    def history_text(self, line, session: Session, lang):
        kind, player = line["type"], line["player"]
        if kind == "take":
            return t(N_("{player} took {card}"), lang, player=player, card=label(card_of(line["card"])))
        if kind == "move":
            return t(N_("{player}'s vehicle went to {continent}"), lang, player=player, continent=line["to"])
        if kind == "refill":
            if line["card"] is None:
                return t(N_("The stock was empty"), lang)
            return t(N_("{card} came up from the stock"), lang, card=label(card_of(line["card"])))
        if kind == "place":
            return t(N_("{player} put {card} in {spot}"), lang, player=player, card=label(card_of(line["card"])),
                     spot=spot_words(line["spot"], session.table().layout, lang))
        if kind == "finish":
            return t(N_("{player} ended the exhibition"), lang, player=player)
        if kind == "secret":
            if session.outcome().over:
                return t(N_("{player}'s Secret Decade: the {decade}s"), lang, player=player, decade=line["decade"])
            return t(N_("{player}'s Secret Decade is recorded"), lang, player=player)
        return Literal(str(line))

    # -- bar, board ----------------------------------------------------------------------------
    def turn(self, session: Session):
        s = session.table()
        hands = {p.name: f"{p.exhibit.filled}/{s.layout.hall_size}" + ("✓" if p.finished else "") for p in s.seats}
        return TurnInfo(None if s.finished else s.me.name, s.round, hands, False, (),
                        [Text(N_("Stock {n}"), {"n": s.stock})], N_("Spots filled: {hands}"))

    def draw_board(self, c, rect, session: Session, pending):
        if session is None:
            return
        s = session.table()
        me = s.me if not s.finished else s.seats[0]
        mark = new = market_mark = None
        if pending and pending.get("type") == "place":
            mark, new = pending["spot"], card_of(pending["card"])
        elif pending and pending.get("type") == "take":
            market_mark = card_of(pending["card"])
            market_mark = next((x for x in s.column(me.at) if same_card(x, market_mark)), None)
        # The Hall and the market together hold up to 43 tiles: side by side their years could not be
        # read from a metre. The board shows the one the turn is about: the market until the player
        # has taken a card, then the Hall (at the end, the Hall). Both as they lie on the table.
        if s.finished or mark is not None or (s.held is not None and not s.placed):
            draw_hall(c, rect, me.exhibit, s.layout, mark, new)
        else:
            draw_market(c, rect, s, me.at, market_mark)

    # -- the score sheet -----------------------------------------------------------------------
    def _scores(self, session: Session):
        return session.summary().get("scores") or []

    def _player_rows(self, entry, session: Session, solo: bool) -> list[ScoreRow]:
        return explained_rows(entry, solo, session.table().layout)

    def _pages(self, session: Session) -> list:
        """Page 0: the standings; then one page of each player's figures (the score screen fits it)."""
        scores = self._scores(session)
        solo = len(scores) == 1
        return [None] + [(entry, self._player_rows(entry, session, solo), 1, 1) for entry in scores]

    def winner_headline(self, summary: Summary, winners: list[str]) -> Msg:
        scores = summary["scores"]
        if len(scores) == 1:
            return Text(N_("Solo score: {total} points"), {"total": scores[0]["total"]})
        return Text(N_("{player} wins with {total} fame points!"), {"player": winners[0], "total": scores[0]["total"]})

    def standing(self, entry: ScoreEntry, session: Session) -> Msg:
        # every figure of the player's sheet, penalties included, so the parts add up to the total
        solo = len(self._scores(session)) == 1
        parts: Text = joined((Words(N_("{figure} {points}"), {"figure": r.label, "points": r.value})
                              for r in self._player_rows(entry, session, solo) if r.value != "–"), " · ")
        if entry["explain"].get("tie"):
            parts = Words(N_("{parts}. Tied on fame: the Mid-Century card closest to 1950 decides."), {"parts": parts})
        return parts

    def page_headline(self, entry: ScoreEntry, part: int, parts: int, summary: Summary) -> Msg:
        # the title bar counts the pages: a second "(1/2)" here was a number without a label
        return Words(N_("{player}: {total} {unit}, place {place}"),
                     {"player": entry["name"], "total": entry["total"], "unit": Text(points_unit(summary)),
                      "place": entry["place"]})


register(ExhibitionView())


# -- its screenshots (GameSpec.screenshots: tools/screens.py hands the script a Studio) ---------------

def screenshots(studio) -> None:
    """How to lay the market; a seeded robot game of three (short era, secret decades) resumed half-way:
    the question of the card taken, the board photographed by the scene generator, a card on a spot
    the rules refuse; the same game resumed near its end, the exhibition ended, the standings and the
    score sheet."""
    from companion.games.base import refusal
    from companion.games.exhibition.autoplay import play_game
    from companion.games.exhibition.cards import card_json
    from companion.inputs.commands import NEXT, OK

    studio.expect(*(f"exhibition-{what}" for what in ("deal", "prompt", "board", "verdict", "standings", "score")))

    def save(what):
        studio.take(k, f"exhibition-{what}")

    k, feed = studio.kiosk()
    studio.start_game(k, "exhibition", 2)
    save("deal")                                               # how to lay the market for the camera
    lines = play_game(["Ana", "Bruno", "Carla"], seed=3, secret_decade=True, variations={"years_gap": "short_era"})
    secrets = [line for line in lines if line["type"] == "secret"]
    body = [line for line in lines[1:] if line["type"] != "secret"]
    # half-way: the secret decades and 40 lines, at the start of a turn
    upto = next(i for i in range(40, len(body)) if body[i]["type"] == "take")
    k, feed = studio.resumed([lines[0]] + secrets + body, len(secrets) + 1 + upto)
    save("prompt")                                             # which card does ... take?
    while k.stack.top.phase == "ask":                          # the first card; the refill's first decade, card
        studio.press(k, OK, index=0)
    t = k.session.table()
    feed.board = {spot: code for spot, code in feed.expected.spots.items()}
    studio.photograph(k, feed, "exhibition")
    save("board")
    wrong = next(spot for spot in t.layout.spot_names() if not spot.startswith("depot") and
                 spot not in feed.board and refusal(k.session.preview(k.session.engine.parse_action(
                     {"type": "place", "player": t.me.name, "card": card_json(t.held), "spot": spot}))[1]))
    feed.board[wrong] = t.held.code
    k.step()
    save("verdict")
    k, feed = studio.resumed([lines[0]] + secrets + body, len(secrets) + 1 + len(body) - 3)
    for choice in ("1943 OC", "1920s", "1927", "End the exhibition"):
        studio.choose(k, choice)
    studio.press(k, OK)
    save("standings")
    studio.press(k, NEXT)
    save("score")
