"""The kiosk's screens. Each draws state and sends commands; none decides a rule, and none imports
another: they open each other by name through the stack (``kiosk.stack.push("history")``). Importing
this package registers every screen."""

from companion.ui.screens import attract, enrol, fault, history, menu, picker, players, row, score, settings, table  # noqa: F401
