"""The Pygame kiosk: a stack of screens that only draw state and send commands (never decide a rule).

- ``canvas.py``: drawing scaled to any surface (800x480 up to 1920x1080) that also records what it
  drew, so tests read the screen as text.
- ``screen.py``: the screen base and the stack (push/pop, in the spirit of Tuxemon's state stack).
- ``screens/``: attract loop, game picker, players and options, table view, score sheet, history,
  menu, settings, faults.
- ``games/``: each game's own views (a row, a grid, a board) in a small registry.
- ``kiosk.py``: one frame: commands in, screens updated, drawn.
"""
