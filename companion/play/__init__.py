"""The game in play, without pygame: the turn controller takes the camera's readings and the buttons'
commands, proposes actions and asks questions, and sends confirmed actions to the store. The kiosk's
table screen only draws it. ``session.py`` is the game being played: its engine, its state and its
log in the store (a store the kiosk hands it; every confirmed action is stored first)."""
