"""Ancient Knowledge's views: each player's board (the Timeline's six zones of two rows, the Past,
artifacts, technologies), the decline reminder at the end of every turn, the questions only the
players can answer, and the explained score sheet.

The camera reads the active player's mat: a card laid on a Timeline spot is a Create (an effect's
Place while an effect is being resolved), one in an artifact slot an artifact's Create, a
technology laid on the mat a Learn. What it cannot see -- knowledge tokens, an effect's outcome,
the order of two declining monuments, the tile to flip, the technologies dealt -- the engine asks
(``pending_prompt``) and the players answer with the buttons; Excavate, Archive, Search and the
results of card effects are told the same way (OK in the watch phase). The engine judges every
line; it never guesses and neither does the view. Log lines: docs/ancient-knowledge.md.
"""

from __future__ import annotations

from functools import lru_cache

import pygame

from companion.errors import present
from companion.games.ancient_knowledge.actions import (
    Answer,
    Archive,
    Create,
    Destroy,
    Discard,
    Draw,
    Excavate,
    GainTech,
    Knowledge,
    Learn,
    LostKnowledge,
    Move,
    Place,
    Search,
    SetHand,
    SkipDecline,
    Straighten,
    Swap,
    ToPast,
)
from companion.games.ancient_knowledge.catalog import catalog
from companion.games.ancient_knowledge.engine import Table
from companion.games.ancient_knowledge.score import explained_rows
from companion.games.base import ScoreEntry, Summary, refusal
from companion.i18n import N_, NP_, Msg, Plural, Text, fill, plural, translate
from companion.play.proposals import CardPlacedOnSpot
from companion.play.session import GameSession
from companion.ui.canvas import Literal
from companion.ui.games import Ask, BoardView, Choices, Option, ScoreRow, TurnInfo, Verdict, known_cards, register
from companion.ui.games._ancient_board import draw_board
from companion.ui.games._menus import numbers, paged, pick_several
from companion.words import Words, joined, later

# the session these views read: mypy checks what they read from its table()
Session = GameSession[Table]

DECK = "AK"
EFFECT_LINES = ("draw", "discard", "hand", "knowledge", "lost_knowledge", "move", "swap", "place", "destroy",
                "to_past", "straighten", "gain_tech", "skip_decline")
ROWS = {"lower": N_("lower"), "upper": N_("upper")}
PHASES = {"action": N_("Actions left: {n}"), "timeline": N_("Timeline phase"), "decline": N_("Decline phase")}


def t(msgid: str, lang: str, **params) -> Literal:
    return Literal(fill(translate(msgid, lang), params))


def name(card: str) -> str:
    return catalog().name(card)


@lru_cache(maxsize=1)
def _codes() -> dict[str, str]:
    """Catalog id -> sticker code, from the AK deck (the stickers the camera reads)."""
    from companion.cards.decks import get_deck
    return {c.ak_id: c.code for c in get_deck(DECK).cards.values() if c.ak_id and c.code}


def ak_id(code: str) -> str | None:
    from companion.cards.decks import resolve
    try:
        return resolve(code).ak_id
    except Exception:
        return None


def _prompt_text(pp: dict) -> Text:
    if "plural" in pp:
        return Plural(pp["msgid"], pp["params"], plural=pp["plural"])
    return Text(pp["msgid"], pp["params"])


class AncientKnowledgeView(BoardView):
    key = "ancient-knowledge"
    engine_id = "ancient-knowledge"
    title = N_("Ancient Knowledge")
    blurb = N_("2 to 4 players. Build monuments in your Timeline and let them decline into the Past. The camera "
               "reads your board; the companion tells what declines each turn and what a Create costs, asks what "
               "it cannot see, and explains the final score.")
    min_players, max_players = 2, 4
    board = "ancient-knowledge"
    kept_events = ("created", "learnt", "placed")
    quiet_lines = ("answer", "excavate", "archive", "search") + EFFECT_LINES
    news_events = ("slid", "turn_started", "game_over", "end_triggered", "tile_flipped", "self_discarded")
    picker_rank = 20
    camera_share = 0.14
    judges_refusals = True

    # -- setup ---------------------------------------------------------------------------------
    def options(self):
        on_off = [(False, N_("off")), (True, N_("on"))]
        return [Option("extra_card_late_seats", N_("7 cards for seats 3 and 4"),
                       [(True, N_("on")), (False, N_("off"))]),
                Option("strict_hand_limit", N_("Strict hand limit"), on_off),
                Option("timeline_effects_mandatory", N_("Timeline effects must be used"), on_off),
                Option("archive_unbounded", N_("Archive more cards than tokens"), on_off),
                Option("destroyed_knowledge_is_lost", N_("Tokens of a self-discarded monument are lost"), on_off)]

    def matches(self, setup_line) -> bool:
        return setup_line.get("game") == "ancient-knowledge"

    def setup_line(self, players, options, codes):
        defaults = {o.key: o.default for o in self.options()}
        flags = {k: v for k, v in options.items() if k in defaults and v != defaults[k]}
        line = {"type": "setup", "game": "ancient-knowledge", "players": list(players), "tiles": codes}
        if flags:
            line["options"] = flags
        return line

    def setup_prompt(self, new_game, session: Session | None):
        return Text(N_("Lay the technology tiles in view of the camera, from the left: 3 Level I cards on tile 1, "
                       "3 Level I on tile 2, 3 Level II on tile 3. Deal 6 cards to each player (7 to the third and "
                       "fourth)."))

    def read_setup(self, detections, new_game, session: Session | None):
        known, problem = known_cards(detections)
        if problem:
            return None, problem
        techs = catalog().techs
        if any(d.card.ak_id not in techs for d in known):
            return None, Text(N_("Only the nine technologies of the tiles may lie in view."))
        level1 = sorted((d for d in known if techs[d.card.ak_id].level == 1), key=lambda d: d.center[0])
        level2 = sorted((d for d in known if techs[d.card.ak_id].level == 2), key=lambda d: d.center[0])
        if len(level1) != 6 or len(level2) != 3:
            return None, Text(N_("The camera sees {one} Level I and {two} Level II technologies; the tiles need 6 "
                                 "and 3."), {"one": len(level1), "two": len(level2)})
        tiles = [[d.card.ak_id for d in level1[:3]], [d.card.ak_id for d in level1[3:]],
                 [d.card.ak_id for d in level2]]
        return tiles, Text(N_("Read: tile 1 {one}; tile 2 {two}; tile 3 {three}. Press OK to start."),
                           {"one": ", ".join(map(name, tiles[0])), "two": ", ".join(map(name, tiles[1])),
                            "three": ", ".join(map(name, tiles[2]))})

    # -- reading the table ---------------------------------------------------------------------
    def _board(self, session: Session):
        return session.table().board

    def spots(self, session: Session) -> dict:
        """The active player's mat as the engine knows it: spot name -> sticker code."""
        b = self._board(session)
        codes = _codes()
        out = {}
        for z, zone in enumerate(b.zones):
            for r, m in enumerate(zone):
                out[f"zone{z + 1}.{('lower', 'upper')[r]}"] = codes.get(m.card)
        for i, p in enumerate(b.past[:15]):
            out[f"past[{i}]"] = codes.get(p.card)
        for i, a in enumerate(b.artifacts):
            out[f"artifact[{i}]"] = codes.get(a)
        for i, tech in enumerate(b.techs[:8]):
            out[f"tech[{i}]"] = codes.get(tech)
        return {spot: code for spot, code in out.items() if code}

    def action_for(self, proposal, session: Session):
        if not isinstance(proposal, CardPlacedOnSpot):
            return None
        s = session.table()
        card = ak_id(proposal.code)
        if s.finished or card is None:
            return None
        me = s.board
        for other in s.boards:
            if other is not me and (other.find(card) or card in other.past_ids() or card in other.artifacts
                                    or card in other.techs):
                return None       # the last player's mat is still under the camera
        resolving = s.asking == "effect" and s.asked == me.name
        spot = proposal.spot
        if spot.startswith("zone"):
            zone = int(spot[4:spot.index(".")])
            if me.find(card):
                # a monument moved by an effect; otherwise the table lags behind a slide: no action
                return Move(me.name, card, zone) if resolving else None
            return (Place if resolving else Create)(me.name, card, zone)
        if spot.startswith("artifact"):
            if card in me.artifacts:
                return None
            return (Place if resolving else Create)(me.name, card)
        if spot.startswith("tech"):
            if card in me.techs:
                return None
            return (GainTech if resolving else Learn)(me.name, card)
        if spot.startswith("past") and resolving and me.find(card):
            return ToPast(me.name, card)
        return None

    # -- the questions -------------------------------------------------------------------------
    def ask(self, session: Session):
        s = session.table()
        if s.finished or s.asking is None:
            return None
        pp = session.summary()["pending_prompt"]
        if pp is None:          # the table says it asks; the summary names the question (one engine, one state)
            return None
        kind, player = pp["kind"], pp["player"]

        def answer(value):
            return Answer(player, kind, value)

        prompt = _prompt_text(pp)
        if kind == "knowledge":
            low, high = pp["min"], pp["max"]
            return Ask(prompt, numbers(low, high, answer), focus=pp["default"] - low, columns=3 if high > 4 else 0,
                       note=Text(N_("Put the tokens on the card, then choose their number.")))
        if kind == "effect":
            return Ask(prompt, [(Text(N_("Done: the effect is resolved")), answer("done")),
                                (Text(N_("Record what it changed…")), lambda: self.effects_menu(session, player))],
                       note=Text(N_("A card it puts on the board: lay it there, the camera reads it.")), camera=True)
        if kind == "timeline":
            items = [(Literal(name(c)) if c != "done" else Text(N_("Pass on the rest")), answer(c))
                     for c in pp["choices"]]
            return paged(prompt, items)
        if kind == "decline_order":
            return Ask(prompt, [(Literal(name(c)), answer(c)) for c in pp["choices"]])
        if kind == "decline_effect":
            return Ask(prompt, [(Text(N_("It goes to the Past")), answer("past")),
                                (Text(N_("Its effect discarded it")), answer("discarded"))])
        if kind == "flip_tile":
            tiles = session.summary()["tiles"]
            return Ask(prompt, [(Words(N_("Tile {n} ({cards})"), {"n": n, "cards": ", ".join(
                c["name"] for c in tiles[n - 1]["cards"]) or "–"}), answer(n)) for n in pp["choices"]])
        if kind == "refill":
            candidates = [(Literal(name(c)), c) for c in pp["choices"]]

            def prompt_for(chosen):
                if not chosen:
                    return prompt
                return Words(N_("{question} Chosen: {cards}."),
                             {"question": prompt, "cards": ", ".join(map(name, chosen))})
            return pick_several(prompt_for, candidates, pp["count"], lambda chosen: answer(tuple(chosen)))
        return None

    def actions(self, session: Session):
        """What the players tell with the buttons in the watch phase: the actions the camera cannot
        see (Learn too, when a technology is not laid on the mat), and the results of card effects."""
        s = session.table()
        if s.finished:
            return None
        me = s.board.name
        items: Choices = []
        if s.phase == "action" and s.actions_left > 0:
            techs = [c for tile in s.tiles for c in tile]
            if techs:
                items.append((Text(N_("Learn a technology")), Ask(
                    Text(N_("Which technology does {player} learn?"), {"player": me}),
                    [(Literal(name(c)), Learn(me, c)) for c in techs], columns=2)))
            unrotated = [p.card for p in s.board.past if not p.rotated]
            if unrotated:
                items.append((Text(N_("Excavate")), lambda: self.excavate_ask(session, ())))
            if s.board.tokens_on_timeline() > 0:
                items.append((Text(N_("Archive")), lambda: self.archive_ask(session, 0, ())))
            items.append((Text(N_("Search (draw 1)")), Search(me)))
        items.append((Text(N_("Record a card effect…")), lambda: self.who_menu(session)))
        return Ask(Text(N_("What did {player} do?"), {"player": me}), items, optional=True, hint=N_("actions"))

    def excavate_ask(self, session: Session, chosen: tuple):
        """Choose the Past monuments to excavate, one by one, then how many cards each draws."""
        b = self._board(session)
        left = [p.card for p in b.past if not p.rotated and p.card not in chosen]
        items: Choices = [(Literal(name(c)), lambda c=c: self.excavate_ask(session, chosen + (c,))) for c in left]
        if chosen:
            per = [2, 3] if b.artifacts else [2]
            done = [(Words(N_("Excavate {cards}: {n} cards each"), {"cards": ", ".join(map(name, chosen)), "n": n}),
                     Excavate(b.name, tuple(chosen), n)) for n in per]
            items = done + items
        prompt = Text(N_("Which monuments of the Past does {player} excavate?"), {"player": b.name}) if not chosen \
            else Text(N_("Excavating {cards}. More, or done?"), {"cards": ", ".join(map(name, chosen))})
        return paged(prompt, items)

    def archive_ask(self, session: Session, index: int, removed: tuple):
        """For each monument with knowledge, how many tokens come off (one card discarded per token)."""
        b = self._board(session)
        carrying = [(m.card, m.tokens) for _, _, m in b.timeline() if m.tokens > 0]
        if index >= len(carrying):
            remove = tuple((c, n) for c, n in removed if n)
            if not remove:
                return Ask(Text(N_("No token removed: nothing to archive.")), [(Text(N_("Back")), None)])
            return Archive(b.name, remove)
        card, tokens = carrying[index]
        items = numbers(0, tokens, lambda n: (lambda: self.archive_ask(session, index + 1, removed + ((card, n),))))
        return Ask(Text(N_("Archive: how many tokens come off {card} ({tokens} on it)?"),
                        {"card": name(card), "tokens": tokens}), items, columns=3 if tokens > 4 else 0)

    def who_menu(self, session: Session):
        s = session.table()
        if len(s.boards) == 1:
            return self.effects_menu(session, s.boards[0].name)
        return Ask(Text(N_("Whose board or hand did the effect change?")),
                   [(Literal(b.name), lambda n=b.name: self.effects_menu(session, n)) for b in s.boards])

    def effects_menu(self, session: Session, player: str):
        """The results of an effect that the engine records (each one checked when confirmed)."""
        s = session.table()
        b = present(s.board_of(player), f"{player}'s board")
        monuments = [m.card for _, _, m in b.timeline()]

        def of(prompt, cards, make):
            return paged(prompt, [(Literal(name(c)), make(c)) for c in cards])

        drew = Ask(Text(N_("How many cards did {player} draw?"), {"player": player}),
                   numbers(1, 10, lambda n: Draw(player, n)), columns=3)
        items: Choices = [(Text(N_("Drew cards")), drew)]
        if b.hand:
            items.append((Text(N_("Discarded cards")), Ask(Text(N_("How many cards did {player} discard?"),
                                                                {"player": player}),
                                                           numbers(1, b.hand, lambda n: Discard(player, n)),
                                                           columns=3 if b.hand > 4 else 0)))
        items.append((Text(N_("Correct the hand count")), Ask(Text(N_("How many cards does {player} hold now?"),
                                                                   {"player": player}),
                                                              numbers(0, 10, lambda n: SetHand(player, n)),
                                                              columns=3, focus=b.hand)))
        if monuments:
            items.append((Text(N_("Knowledge on a monument")), of(
                Text(N_("On which monument did the knowledge change?")), monuments,
                lambda c: self.delta_ask(Text(N_("Tokens added to or removed from {card}?"), {"card": name(c)}),
                                         -present(b.find(c), f"{name(c)} on {player}'s board")[2].tokens,
                                         lambda d: Knowledge(player, c, d)))))
        items.append((Text(N_("Lost knowledge")), self.delta_ask(
            Text(N_("Lost knowledge given to or taken from {player}?"), {"player": player}), -b.lost_knowledge,
            lambda d: LostKnowledge(player, d))))
        if monuments:
            items.append((Text(N_("A monument moved")), of(
                Text(N_("Which monument moved?")), monuments,
                lambda c: Ask(Text(N_("To which zone did {card} move?"), {"card": name(c)}),
                              [(Literal(str(z)), Move(player, c, z)) for z in range(1, 7)], columns=3))))
            if len(monuments) > 1:
                items.append((Text(N_("Two monuments swapped")), of(
                    Text(N_("The first of the two monuments?")), monuments,
                    lambda c: of(Text(N_("{card} swapped with which?"), {"card": name(c)}),
                                 [x for x in monuments if x != c], lambda x: Swap(player, (c, x))))))
            items.append((Text(N_("A monument went to the Past")), of(
                Text(N_("Which monument went to the Past?")), monuments, lambda c: ToPast(player, c))))
        if monuments or b.artifacts:
            items.append((Text(N_("A card left the board")), of(
                Text(N_("Which card was discarded from the board?")), monuments + list(b.artifacts),
                lambda c: Destroy(player, c))))
        rotated = [p.card for p in b.past if p.rotated]
        if rotated:
            items.append((Text(N_("Past cards turned back")), of(
                Text(N_("Which Past card was turned back?")), rotated, lambda c: Straighten(player, (c,)))))
        techs = [c for tile in s.tiles for c in tile]
        if techs:
            items.append((Text(N_("Took a technology")), of(
                Text(N_("Which technology did {player} take?"), {"player": player}), techs,
                lambda c: GainTech(player, c))))
        if player == s.board.name and s.phase != "decline" and not s.skip_decline:
            items.append((Text(N_("No Decline phase this turn")), SkipDecline(player)))
        return paged(Text(N_("What did the effect change for {player}?"), {"player": player}), items)

    @staticmethod
    def delta_ask(prompt: Text, lowest: int, make) -> Ask:
        deltas = [d for d in range(max(lowest, -9), 10) if d != 0]
        return paged(prompt, [(Literal(f"{d:+d}"), make(d)) for d in deltas], columns=3, per_page=12,
                     focus=deltas.index(1) if 1 in deltas else 0)

    # -- words ---------------------------------------------------------------------------------
    def decline_words(self, session: Session, lang) -> str:
        s = session.table()
        zone1 = s.board.zones[0]
        if s.skip_decline:
            return translate(N_("No Decline phase this turn."), lang)
        if not zone1:
            return translate(N_("Zone 1 is empty: nothing declines this turn."), lang)
        cards = ", ".join(f"{name(m.card)} (◆{m.tokens})" if m.tokens else name(m.card) for m in zone1)
        return translate(N_("At the end of the turn zone 1 declines: {cards}."), lang).format(cards=cards)

    def watch_prompt(self, session: Session):
        s = session.table()
        me, acting = s.board.name, s.phase == "action" and s.actions_left > 0

        def words(lang):
            head = translate(N_("{player}: lay a card on your board to create or learn, or press OK for the other "
                                "actions."), lang) if acting else translate(N_("{player}'s turn."), lang)
            return f"{head.format(player=me)} {self.decline_words(session, lang)}"
        return later(words)

    def describe(self, line, session: Session, lang):
        kind, player = line["type"], line["player"]
        card = name(line["card"]) if "card" in line else ""
        if kind in ("create", "place") and line.get("zone"):
            costs = self.create_costs(session, line["card"], player) if kind == "create" else []
            cost = next((o["cost"] for o in costs if o["zone"] == line["zone"]), None) if kind == "create" else 0
            return t(N_("{player} puts {card} in zone {zone}: it costs {cost} cards besides itself."), lang,
                     player=player, card=card, zone=line["zone"], cost=cost)
        if kind in ("create", "place"):
            return t(N_("{player} puts the artifact {card} on the board."), lang, player=player, card=card)
        if kind == "learn":
            return t(N_("{player} learns {card}."), lang, player=player, card=card)
        return self.history_text(line, session, lang)

    @staticmethod
    def create_costs(session: Session, card: str, player: str) -> list[dict]:
        return session.table().create_options(card, player)

    def verdict(self, line, events, before, session: Session, lang):
        """A Create or a Learn judged; at the end of a turn what declined (the decline reminder) and
        what the players do now."""
        reason = refusal(events)
        kind = line["type"]
        if reason is not None:
            back = t(N_("Take {card} back into your hand."), lang, card=name(line["card"])) \
                if kind in ("create", "place") else \
                t(N_("Put {card} back on its tile."), lang, card=name(line["card"])) if kind in ("learn", "gain_tech") \
                else t(N_("Put the card back where it was."), lang)
            return Verdict(False, t(N_("Not allowed"), lang), Literal(reason.render(lang)), back)
        news = self.news(events, lang)
        declined = self.decline_news(events, before, session, lang)
        then = Literal(" ".join(x for x in (declined, news) if x)) if declined or news else None
        for e in events:
            d = e.data
            if e.kind in ("created", "placed"):
                where = t(N_("zone {zone}, {row} row"), lang, zone=d["zone"], row=translate(ROWS[d["row"]], lang)) \
                    if "zone" in d else translate(N_("an artifact slot"), lang)
                one, more = NP_("{card} in {where}: {cost} card discarded besides it; {player} holds {hand} now.",
                                "{card} in {where}: {cost} cards discarded besides it; {player} holds {hand} now.")
                why = Literal(Plural(one, {"card": name(d["card"]), "where": where, "cost": d["cost"],
                                           "player": d["player"], "hand": d["hand"]}, plural=more,
                                     count="cost").render(lang))
                return Verdict(True, t(N_("{card} created"), lang, card=name(d["card"])), why, then)
            if e.kind == "learnt":
                return Verdict(True, t(N_("{card} learnt"), lang, card=name(d["card"])),
                               t(N_("From tile {tile}. The requirement holds."), lang, tile=d["tile"]), then)
        if any(e.kind == "game_over" for e in events):
            return Verdict(None, t(N_("End of {player}'s turn"), lang, player=before.board.name),
                           Literal(" ".join(x for x in (declined, self.end_words(session, lang)) if x)), None)
        if any(e.kind == "turn_started" for e in events):
            return Verdict(None, t(N_("End of {player}'s turn"), lang, player=before.board.name),
                           Literal(declined or translate(N_("Nothing declined."), lang)), news)
        return Verdict(None, t(N_("Recorded"), lang), Literal(self.history_text(line, session, lang)), then)

    def end_words(self, session: Session, lang) -> str:
        """Why the game ended and why the winner won, from the engine's summary: who reached the Past's
        limit, then the places (more victory points; on a tie, less lost knowledge)."""
        s = session.summary()
        reached = s.get("past_reached_by") or []
        out = []
        if reached:
            one, more = NP_("{players} has {n} or more monuments in the Past: the round was played to its end.",
                            "{players} have {n} or more monuments in the Past: the round was played to its end.")
            out.append(Plural(one, {"players": " & ".join(reached), "n": s["end_past"],
                                    "count": len(reached)}, plural=more, count="count").render(lang))
        scores = s.get("scores") or []
        firsts = [p for p in scores if p["place"] == 1]
        others = [p for p in scores if p["place"] != 1]
        lost = {p["name"]: p["explain"]["lost_knowledge_tokens"] for p in scores}
        if len(firsts) > 1:
            out.append(t(N_("{players} tie: {total} victory points and {lost} lost knowledge each."), lang,
                         players=" & ".join(p["name"] for p in firsts), total=firsts[0]["total"],
                         lost=lost[firsts[0]["name"]]))
        elif firsts:
            first = firsts[0]
            tied = [p for p in others if p["total"] == first["total"]]
            if tied:
                out.append(t(N_("{player} and {other} both have {total} victory points; {player} lost less "
                                "knowledge ({lost} to {other_lost})."), lang, player=first["name"],
                             other=tied[0]["name"], total=first["total"], lost=lost[first["name"]],
                             other_lost=lost[tied[0]["name"]]))
            elif others:
                out.append(t(N_("{player} has the most victory points: {total}, against {others}."), lang,
                             player=first["name"], total=first["total"],
                             others=", ".join(f"{p['name']} {p['total']}" for p in others)))
            else:
                out.append(t(N_("{player} scores {total} victory points."), lang, player=first["name"],
                             total=first["total"]))
        return " ".join(out)

    def decline_news(self, events, before, session: Session, lang) -> str:
        """What the Decline phase did, and the slide the players make on their mat."""
        out = []
        for e in events:
            d = e.data
            if e.kind == "to_past" and d.get("why") == "decline":
                if d["lost_knowledge"]:
                    out.append(plural(NP_("{card} went to the Past; its {n} knowledge token is lost.",
                                          "{card} went to the Past; its {n} knowledge tokens are lost."),
                                      d["lost_knowledge"], card=name(d["card"])).render(lang))
                else:
                    out.append(t(N_("{card} went to the Past."), lang, card=name(d["card"])))
            elif e.kind == "self_discarded":
                out.append(t(N_("{card} discarded itself."), lang, card=name(d["card"])))
            elif e.kind == "decline_skipped":
                out.append(t(N_("No Decline phase this turn."), lang))
            elif e.kind == "slid":
                after = session.table().board_of(d["player"])
                if after is not None and after.timeline():
                    out.append(t(N_("Slide every monument of the Timeline one zone to the left."), lang))
        return " ".join(out)

    def news(self, events, lang) -> Literal | None:
        out = []
        for e in events:
            d = e.data
            if e.kind == "tile_flipped":
                out.append(t(N_("Tile {tile} turns to Level II."), lang, tile=d["tile"]))
            elif e.kind == "end_triggered":
                out.append(t(N_("{player} has {past} monuments in the Past: the game ends with this round."), lang,
                             player=d["player"], past=d["past"]))
            elif e.kind == "game_over":
                out.append(t(N_("The game is over."), lang))
            elif e.kind == "turn_started":
                out.append(t(N_("Next: {player}, round {round}."), lang, player=d["player"], round=d["round"]))
        return Literal(" ".join(out)) if out else None

    def history_text(self, line, session: Session, lang):
        kind, player = line["type"], line["player"]
        card = name(line["card"]) if isinstance(line.get("card"), str) else ""
        texts = {
            "create": N_("{player} created {card}"), "learn": N_("{player} learnt {card}"),
            "search": N_("{player} searched"), "draw": N_("{player} drew {count}"),
            "discard": N_("{player} discarded {count}"), "hand": N_("{player}'s hand set to {count}"),
            "knowledge": N_("{card}: knowledge {delta:+d}"),
            "lost_knowledge": N_("{player}: lost knowledge {delta:+d}"),
            "move": N_("{card} moved to zone {zone}"), "place": N_("{player} placed {card}"),
            "destroy": N_("{card} left {player}'s board"), "to_past": N_("{card} went to {player}'s Past"),
            "gain_tech": N_("{player} took {card}"), "skip_decline": N_("{player} skips the Decline phase"),
        }
        if kind in texts:
            return t(texts[kind], lang, player=player, card=card, count=line.get("count"), delta=line.get("delta", 0),
                     zone=line.get("zone"))
        if kind == "excavate":
            return t(N_("{player} excavated {cards}"), lang, player=player, cards=", ".join(map(name, line["cards"])))
        if kind == "archive":
            return t(N_("{player} archived {tokens} tokens"), lang, player=player, tokens=sum(line["remove"].values()))
        if kind in ("swap", "straighten"):
            return t(N_("{player}: {cards}"), lang, player=player, cards=" ↔ ".join(map(name, line["cards"])))
        if kind == "answer":
            value = line["value"]
            shown = name(value) if isinstance(value, str) and value not in ("done", "past", "discarded") else \
                ", ".join(map(name, value)) if isinstance(value, list) else str(value)
            return t(N_("{player} answered: {value}"), lang, player=player, value=shown)
        return Literal(str(line))

    # -- bar, board ----------------------------------------------------------------------------
    def turn(self, session: Session):
        s = session.table()
        extra = [Words(PHASES[s.phase], {"n": s.actions_left})] if s.phase in PHASES else []
        return TurnInfo(session.current_player(), s.round, {b.name: b.hand for b in s.boards}, False,
                        (), extra, players_own=True)

    def draw_board(self, c, rect, session: Session, pending):
        if session is None:
            return
        summary = session.summary()
        s = session.table()
        player = summary["players"][s.active]
        mark = new = None
        if pending and pending.get("zone") and pending["type"] in ("create", "place", "move"):
            b = catalog().builders[pending["card"]]
            zone = s.board.zones[pending["zone"] - 1]
            mark = (pending["zone"], ("lower", "upper")[min(len(zone), 1)])
            new = {"card": b.id, "name": b.name, "kind": b.kind, "tokens": 0}
        draw_board(c, pygame.Rect(rect), player, declining=not s.finished, mark=mark, new_card=new)

    # -- the score sheet -----------------------------------------------------------------------
    def _pages(self, session: Session) -> list:
        scores = session.summary().get("scores") or []
        # one page of each player's figures: the end-game effects' row names the cards that scored
        # (`companion score` lists every card, in words)
        return [None] + [(entry, self._player_rows(entry), 0, 0) for entry in scores]

    def _player_rows(self, entry) -> list[ScoreRow]:
        return explained_rows(entry)

    def winner_headline(self, summary: Summary, winners: list[str]) -> Msg:
        return Text(N_("{player} wins with {total} victory points!"),
                    {"player": winners[0], "total": summary["scores"][0]["total"]})

    def standing(self, entry: ScoreEntry, session: Session) -> Msg:
        b = entry["breakdown"]
        explain: Text = joined((Words(N_("{figure} {points}"), {"figure": Text(label), "points": b[key]})
                                for key, label in (("past_vp", N_("Past")), ("endgame_effects", N_("End-game")),
                                                   ("techs", N_("Tech")), ("timeline", N_("In the Timeline")),
                                                   ("lost_knowledge", N_("Lost")))), " · ")
        # another player on the same total (``entry`` may come from another call of summary(): by name)
        scores = session.summary()["scores"]
        if any(o["name"] != entry["name"] and o["total"] == entry["total"] for o in scores):
            explain = Words(N_("{parts}. Tied on victory points: fewer lost knowledge wins."), {"parts": explain})
        return explain

    def page_headline(self, entry: ScoreEntry, part: int, parts: int, summary: Summary) -> Msg:
        return Text(N_("{player}: {total} victory points, place {place}"),
                    {"player": entry["name"], "total": entry["total"], "place": entry["place"]})


register(AncientKnowledgeView())


# -- its screenshots (GameSpec.screenshots: tools/screens.py hands the script a Studio) ---------------

def screenshots(studio) -> None:
    """How to lay the tiles; a game of two told through the fake camera and the buttons (Karnak Temple,
    Petra, Tiwanaku's question, a Search and its decline, Stonehenge on a board photographed by the scene
    generator); then a seeded random whole game resumed at its end: the standings and the score sheet."""
    import random

    from companion.games.ancient_knowledge.autoplay import random_game
    from companion.inputs.commands import NEXT, OK

    studio.expect(*(f"ancient-knowledge-{what}" for what in ("deal", "prompt", "verdict", "board", "standings",
                                                              "score")))
    codes = _codes()

    def save(what):
        studio.take(k, f"ancient-knowledge-{what}")

    def lay(spot, card):
        feed.board = dict(feed.expected.spots)
        feed.board[spot] = codes[card]
        k.step()

    def item(text):
        items = [d.text for d in k.last.drawn if d.role.startswith("choice")]
        studio.press(k, OK, index=items.index(text))

    def create(spot, card, knowledge):
        lay(spot, card)
        studio.press(k, OK)
        studio.press(k, OK)
        item(knowledge)

    k, feed = studio.kiosk()
    studio.start_game(k, "ancient-knowledge", 2)
    save("deal")                                               # how to lay the tiles for the camera
    tiles = [["thales", "aristotle", "mercury"], ["runic-alphabet", "the-number-pi", "ptolemy"],
             ["golden-mean", "plato", "thoth"]]
    feed.detections = [studio.detection(codes[c], 80 + (3 * i + j) * 70, 120) for i, tile in enumerate(tiles)
                       for j, c in enumerate(tile)]
    k.step()
    studio.press(k, OK)
    # Ana: Karnak Temple (zone 5) and Petra (zone 4); Bruno: Tiwanaku (zone 1) and a search
    create("zone5.lower", "karnak-temple", "8")
    create("zone4.lower", "petra", "1")
    while k.stack.top.phase == "ask":                          # Petra's timeline effect: pass
        studio.choose(k, "Pass")
    studio.press(k, OK)
    feed.board = {}
    create("zone1.lower", "tiwanaku", "2")
    save("prompt")                                             # Tiwanaku's immediate effect
    studio.choose(k, "Done")
    studio.press(k, OK)
    studio.choose(k, "Search")
    save("verdict")                                            # the end of Bruno's turn: what declined
    studio.press(k, OK)
    feed.board = {}
    k.step()
    create("zone3.upper", "stonehenge", "4")
    feed.board = dict(feed.expected.spots)
    studio.photograph(k, feed, "ancient-knowledge")
    save("board")
    # the score sheet: the first seeded random game that ends, resumed at its end
    lines = next(g for g in (random_game(random.Random(seed), max_actions=2000) for seed in range(1, 50))
                 if g and engine_finished(g))
    k, feed = studio.resumed(lines, len(lines))
    k.stack.top.turns.set_phase("watch")                       # the game is over: the controller ends it
    k.step()
    assert k.stack.top.name == "score", k.screen_key()
    save("standings")
    studio.press(k, NEXT)
    save("score")


def engine_finished(lines: list[dict]) -> bool:
    """Whether the game of these log lines is over."""
    from companion.games.ancient_knowledge import engine
    from companion.games.base import fold
    return engine.outcome(fold(engine, lines[0], lines[1:])).over
