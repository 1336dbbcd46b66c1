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
    """The tests marked slow first. pytest-xdist (``./dev.sh test`` runs ``-n auto``) hands tests out in
    this order, so the long ones start at once on every worker instead of one of them last on a lone
    worker while the others wait. ``-m "not slow"`` leaves them out."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
