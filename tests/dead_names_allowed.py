"""Names the dead-name check (vulture, run by tests/test_lint.py) cannot see used: each is used from
outside Python's sight, for the reason beside it. A name here that is really dead is removed with its
line. This file is read, never imported. What a game's GameSpec names by "module:name" (its random games,
demo players, card rule, screenshot script) is not listed here: tests/test_lint.py derives those names
from the registry, so no game needs a line in this file."""
# ruff: noqa

# Set on objects a library calls back or reads: paho's client, gpiozero's buttons, uvicorn's server,
# numpy's array flags, pygame's rect anchors, OpenCV's ArUco detector parameters, selenium's options
on_publish
on_connect_fail
on_message
when_pressed
when_released
when_held
should_exit
writeable
midtop
topright
topleft
cornerRefinementMethod
binary_location
redirect_request            # urllib's HTTPRedirectHandler hook (tests/test_cafe_security.py)

# Fields of data files, kept so a file's columns or keys are known (read by pydantic or csv, shown by nobody yet)
bga_id
endgame_note
name_es
description
description_es
homography                  # the scene's truth: table units -> pixels, for a test that wants it

# libcamera's enum values as the fake Pi camera mirrors them (tests/fake_picamera2.py)
Cancel
Off

# A test's parameter that names the case (tests/test_install.py: the Python of each Debian release)
python

# Messages marked for translation that only the café's templates say (companion/cafe/templates)
TEMPLATE_WORDS

# The contract of a spec's random_game (companion/games/contract.py): a Protocol for mypy and the guide
RandomGame
