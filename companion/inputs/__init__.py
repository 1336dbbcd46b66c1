"""Everything the players press becomes one stream of :class:`Command` s.

GPIO arcade buttons (``gpio.py``), the keyboard and touch/mouse (``keys.py``) all post into one
:class:`CommandStream`; the kiosk reads only that stream, so a test drives the kiosk exactly as a
player does.
"""

from companion.inputs.commands import Command, CommandStream

__all__ = ["Command", "CommandStream"]
