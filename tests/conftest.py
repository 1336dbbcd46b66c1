"""Test-wide settings: no display, no sound card, no GPIO, a private data directory."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")   # its banner on stdout would land in a test's captured output
os.environ["COMPANION_DATA"] = tempfile.mkdtemp(prefix="companion-test-data-")
atexit.register(shutil.rmtree, os.environ["COMPANION_DATA"], ignore_errors=True)
os.environ["COMPANION_CONFIG"] = os.path.join(os.environ["COMPANION_DATA"], "config.toml")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


def pytest_collection_modifyitems(config, items):
    """The longest tests first: those marked ``slow(seconds)`` by their time on an idle machine (a bare
    ``slow`` counts as 5), then the rest in file order. ``./dev.sh test`` hands tests to its workers
    in this order, one by one as each is free (``--dist load --maxschedchunk 1``; plain ``--dist load``
    gives each worker a run of consecutive tests first, and one worker got every long one), so the long ones run side by
    side from the start instead of one of them last on a lone worker while the others wait (the
    Ancient Knowledge demo, 44 s, started at 221 s of a 265 s run). ``-m "not slow"`` leaves them out."""
    def seconds(item) -> float:
        slow = item.get_closest_marker("slow")
        return 0.0 if slow is None else float(slow.args[0]) if slow.args else 5.0
    items.sort(key=seconds, reverse=True)       # (stable: equal times keep their order)
