"""The game log (log.py) and replaying it through the engines (replay.py, replay_cli.py)."""
