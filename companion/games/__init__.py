"""One pure rules engine per game. See base.py for the contract every engine keeps."""
