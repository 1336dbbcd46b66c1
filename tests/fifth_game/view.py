"""The kiosk's view of "Later" (registered when its module is imported, as every game's views are)."""

from companion.ui.games import GameView, register


class LaterView(GameView):
    key = "later"
    engine_id = "later"
    title = "Later"
    blurb = "Each card later than the one before."

    def matches(self, setup_line):
        return setup_line.get("game") == "later"


register(LaterView())
