"""The staff's page in Debian's real Chromium (headless, through chromium-driver; nothing downloads
a browser): a tile appears when a table starts, changes as it plays and says "offline" when its kiosk
dies, all without a reload; the export downloads; the page fits a phone. Screenshots go to
``$CAFE_SCREENSHOTS`` when set (docs/screens/ holds the ones in the docs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cafe_support import (  # noqa: F401  (the fixture broker)
    Dashboard,
    broker_fixture,
    companion,
    kiosk_process,
    needs,
    needs_mosquitto,
    require,
    wait_until,
)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [needs_mosquitto, needs(not (CHROMIUM and DRIVER), "chromium and chromium-driver are not installed")]


@pytest.fixture
def browser(tmp_path):
    require(not (CHROMIUM and DRIVER), "chromium and chromium-driver are not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1280,900"):
        options.add_argument(flag)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def tile(driver, name: str):
    from selenium.webdriver.common.by import By
    found = driver.find_elements(By.CSS_SELECTOR, f'article.tile[data-table="{name}"]')
    return found[0] if found else None


def tile_text(driver, name: str) -> str:
    """The tile's words (re-read each time: the live page replaces the tiles when news arrives)."""
    try:
        t = tile(driver, name)
        return t.text if t is not None else ""
    except Exception:        # replaced between finding and reading: read again next time
        return ""


def shot(driver, name: str, width: int, height: int) -> None:
    folder = Path(os.environ.get("CAFE_SCREENSHOTS") or driver.downloads.parent / "screens")
    folder.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(width, height)
    wait_until(lambda: width - 20 <= driver.execute_script("return window.innerWidth") <= width,
               what=f"the window at {width} px")
    # two frames drawn at the new size before the picture (the page's own event, not a fixed wait)
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done));")
    driver.save_screenshot(str(folder / f"{name}-{width}.png"))


def ready(driver) -> None:
    """The page's own signal that it is drawn and listening (a fresh Chromium can show an empty page
    source for a moment after get())."""
    wait_until(lambda: driver.execute_script("return document.body && document.body.dataset.ready") == "yes",
               what="the page's ready signal")


@pytest.mark.slow(20)
def test_tiles_live_offline_and_export(broker, browser, tmp_path):
    import random

    from selenium.webdriver.common.by import By

    from companion.games import random_play
    from companion.registry import engine_for
    from companion.store.log import GameLog

    dash = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    try:
        wait_until(dash.connected, what="the dashboard to reach the broker")
        browser.get(dash.url)
        ready(browser)
        assert "No table has reported yet" in browser.page_source
        browser.execute_script("window.notReloaded = true")

        log = GameLog(tmp_path / "T05.sqlite")
        kiosk = kiosk_process("T05", log.path, broker.url)
        rng = random.Random(4)
        setup = {**random_play.timeline_setup(rng, players=3), "players": ["Ana", "Bo", "Cai"]}
        game_id = log.new_game(setup)
        wait_until(lambda: all(w in tile_text(browser, "T05") for w in ("online", "Timeline", "Turn: Ana", "Cai")),
                   what="T05's tile: online, its game, players and turn")

        engine = engine_for("timeline")
        state = engine.setup(setup)
        line = {"type": "place", "player": "Ana", "card": {"year": 1500, "period": "moderna"}, "gap": 0}
        state, _ = engine.apply(state, engine.parse_action(line))
        log.append(game_id, line)
        wait_until(lambda: "Turn: Bo" in tile_text(browser, "T05"), what="the turn to pass to Bo on the page")

        kiosk.kill()                          # the plug is pulled: the broker's last will says offline
        kiosk.wait()
        wait_until(lambda: "offline" in tile_text(browser, "T05"), what="T05 to show offline")
        assert browser.execute_script("return window.notReloaded") is True

        browser.find_element(By.CSS_SELECTOR, 'a[href="/export/plays.csv"]').click()
        csv = wait_until(lambda: [p for p in browser.downloads.glob("*.csv")], what="the CSV download")[0]
        rows = csv.read_text(encoding="utf-8").strip().splitlines()
        assert rows[0].startswith("play,table,game,mode,status") and len(rows) == 4    # one row per player
        assert {r.split(",")[9] for r in rows[1:]} == {"Ana", "Bo", "Cai"}

        browser.get(dash.url + "?lang=es")
        ready(browser)
        assert "Mesas del café" in browser.page_source
        wait_until(lambda: "desconectada" in tile_text(browser, "T05"), what="T05 offline in Spanish")
        log.close()

        # a busier café for the screenshots: finished plays for the history and figures, three tables playing
        done = companion("cafe", "simulate", "--broker", broker.url, "--tables", "6", "--seed", "2", "--prefix", "T",
                        timeout=120)
        assert done.returncode == 0, done.stderr
        playing = subprocess.Popen([sys.executable, "-m", "companion", "cafe", "simulate", "--broker", broker.url,
                                    "--tables", "3", "--seed", "9", "--per-minute", "30", "--prefix", "T"],
                                   stdout=subprocess.DEVNULL)
        try:
            browser.get(dash.url + "?lang=en")
            ready(browser)
            wait_until(lambda: all("Turn:" in tile_text(browser, t) for t in ("T01", "T02", "T03")),
                       what="three tables playing")
            for width, height in ((390, 844), (1280, 900)):
                shot(browser, "cafe-dashboard", width, height)
                overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 0, f"the page is {overflow} px wider than a {width} px screen"
            # a phone: every play's players, scores and winner in sight without a sideways scroll
            browser.set_window_size(390, 844)
            wait_until(lambda: browser.execute_script("return window.innerWidth") <= 390, what="a phone's width")
            outside = browser.execute_script("""
                const width = window.innerWidth, out = [];
                for (const el of document.querySelectorAll('#play-rows td, #play-rows .won, #play-rows .score')) {
                  const r = el.getBoundingClientRect();
                  if (r.width > 0 && (r.left < 0 || r.right > width + 0.5)) out.push(el.textContent);
                }
                return out;""")
            assert outside == [], f"cut off at 390 px: {outside}"
            finished = [p for p in browser.find_elements(By.CSS_SELECTOR, "#play-rows tr")
                        if "finished" in p.text]
            assert len(finished) >= 6 and all(p.is_displayed() for p in finished)
            assert any("(won)" in p.text for p in finished)
            assert any(tile_text(browser, t).count("Won") for t in ("T04", "T05", "T06")), \
                "a finished tile names its winner"
            browser.execute_script("document.getElementById('plays').scrollIntoView()")
            shot(browser, "cafe-plays", 390, 844)
        finally:
            playing.kill()
            playing.wait()
    finally:
        dash.stop()


def test_the_staff_logs_in_in_the_browser(broker, browser, tmp_path):
    from selenium.webdriver.common.by import By

    secret = tmp_path / "staff-password"
    secret.write_text("correct horse battery\n")
    dash = Dashboard(broker.url, tmp_path / "cafe.sqlite", "--password-file", str(secret)).start()
    try:
        browser.get(dash.url)
        assert "/login" in browser.current_url
        field = browser.find_element(By.ID, "password")
        field.send_keys("wrong one")
        field.submit()
        wait_until(lambda: "Wrong password" in browser.page_source, what="the wrong password message")
        field = browser.find_element(By.ID, "password")
        field.send_keys("correct horse battery")
        field.submit()
        wait_until(lambda: "Café tables" in browser.title and "/login" not in browser.current_url, what="the page")
    finally:
        dash.stop()


def test_the_badge_says_no_broker_within_5_s_of_its_death_and_live_when_it_is_back(broker, browser, tmp_path):
    """The badge reflects the dashboard's link to the broker, not only the page's link to the dashboard;
    the banner says since when and why."""
    from selenium.webdriver.common.by import By

    dash = Dashboard(broker.url, tmp_path / "cafe.sqlite").start()
    try:
        wait_until(dash.connected, what="the dashboard to reach the broker")
        browser.get(dash.url + "?lang=en")

        def badge() -> tuple[str, str]:
            try:
                el = browser.find_element(By.ID, "live")
                return el.get_attribute("data-state"), el.text
            except Exception:
                return "", ""
        wait_until(lambda: badge() == ("live", "live"), what="the badge to say live")
        browser.execute_script("window.notReloaded = true")
        broker.kill()
        died = time.monotonic()
        wait_until(lambda: badge() == ("broker", "no broker"), timeout=5, every=0.05,
                   what="the badge to say 'no broker' within 5 s of the broker's death")
        assert time.monotonic() - died <= 5
        banner = browser.find_element(By.ID, "banner")
        assert banner.is_displayed() and banner.text.startswith("No contact with the broker since ")
        broker.start()
        wait_until(lambda: badge() == ("live", "live"), timeout=30, what="the badge back to live")
        assert not browser.find_element(By.ID, "banner").is_displayed()
        assert browser.execute_script("return window.notReloaded") is True
    finally:
        dash.stop()
