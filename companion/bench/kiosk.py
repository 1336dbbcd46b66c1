"""``companion bench kiosk``: button-to-screen latency, frames per second at 800x480, and memory over
a long autoplay. Figures, never a verdict: each is printed with its target and with a reference
measured in the same process (a bare frame: clear the screen and show it), so machines compare.

- latency: a NEXT command is posted (time stamped as a button press is) and the time until the frame
  that shows the moved focus has been drawn and flipped; p50 and p99 over many presses.
- fps: the table view (camera picture, board, turn bar) drawn and flipped in a loop at 800x480.
- camera path: the fixed cost of every camera frame (copy, grey, motion, preview) and the decoder's,
  at 1920x1080 and 4608x2592, against zxing-cpp's plain pass, with Pi 4 and Pi 5 estimates
  (``camera_path.py``).
- memory: the process's memory sampled every few turns over ``--turns`` demo turns (simulated
  players, virtual table, tracker, store) after a warm-up, given per 10,000 turns.
"""

from __future__ import annotations

import gc
import os
import time


def add_arguments(parser) -> None:
    parser.add_argument("--presses", type=int, default=300, help="button presses timed for the latency (300)")
    parser.add_argument("--frames", type=int, default=300, help="frames timed for the frame rate (300)")
    parser.add_argument("--turns", type=int, default=1000,
                        help="demo turns played for the memory figure (1000; the target is stated per 10,000)")
    parser.add_argument("--camera-reps", type=int, default=15,
                        help="times each step of the camera path is timed per picture size (15; the median is kept)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def run(args) -> int:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import psutil
    import pygame

    from companion import app
    from companion.config import Config
    from companion.inputs.commands import NEXT, Command

    def kiosk():
        k = app.build(Config(), demo=True, windowed=True, size=(800, 480), autoplay=True, threaded=False)
        k.demo.tour = []
        return k

    # reference: a bare frame
    k = kiosk()
    t0 = time.perf_counter()
    for _ in range(args.frames):
        k.surface.fill((0, 0, 0))
        pygame.display.flip()
    bare_ms = (time.perf_counter() - t0) * 1000 / args.frames

    # latency: presses on the game picker (each moves the focus and redraws)
    k.demo.autoplay = False
    k.stream.post(Command("OK"))
    k.step()
    lat = []
    for _ in range(args.presses):
        focus = k.stack.top.choice.focus
        k.stream.post(Command(NEXT, source="bench"))
        pressed = time.perf_counter()
        k.step()
        pygame.display.flip()
        assert k.stack.top.choice.focus != focus or len(k.stack.top.views) == 1
        lat.append((time.perf_counter() - pressed) * 1000)

    # fps: the table view during a game
    k = kiosk()
    while not (k.stack.top.name == "table" and k.session is not None and k.stack.top.preview is not None):
        k.demo.tick(k.clock())
        k.step()
    t0 = time.perf_counter()
    for _ in range(args.frames):
        k._draw()
        pygame.display.flip()
    table_ms = (time.perf_counter() - t0) * 1000 / args.frames
    fps = 1000 / table_ms

    # memory: a long autoplay, sampled every few turns. One reading of the resident size swings by
    # tens of MB with what the allocator happens to hold (see companion/heap.py) and with where the
    # game is, so: each sample is taken after a garbage collection and heap.trim() (what the process
    # really holds, as the kiosk trims once a minute), and growth is the lowest sample of the last
    # quarter of the run against the lowest of the first quarter (a leak raises every sample).
    from companion import heap
    proc = psutil.Process()
    k = kiosk()
    def play(turns):
        goal = k.demo.turns + turns
        frames, last = 0, k.demo.turns
        while k.demo.turns < goal:
            k.demo.tick(k.clock())
            k.step()
            frames = 0 if k.demo.turns != last else frames + 1
            last = k.demo.turns
            if frames > app.MAX_FRAMES_PER_TURN:
                raise RuntimeError(f"autoplay stuck on {k.screen_key()} after {k.demo.turns} turns")

    def sample():
        before = proc.memory_info().rss
        gc.collect()
        heap.trim()
        return before / 2**20, proc.memory_info().rss / 2**20

    play(min(100, args.turns))
    every = max(5, args.turns // 40)
    samples = [sample()]
    t0 = time.perf_counter()
    played = 0
    while played < args.turns:
        step = min(every, args.turns - played)
        play(step)
        played += step
        samples.append(sample())
    play_s = time.perf_counter() - t0
    live = [b for _a, b in samples]
    quarter = max(1, len(live) // 4)
    growth_mb = min(live[-quarter:]) - min(live[:quarter])
    per_10k = growth_mb * 10000 / args.turns
    untrimmed = [a for a, _b in samples]
    from companion.bench import camera_path
    camera = camera_path.measure(max(1, args.camera_reps))
    result = {
        "reference_bare_frame_ms": round(bare_ms, 3),
        "latency_ms": {"p50": round(_pct(lat, 50), 2), "p99": round(_pct(lat, 99), 2), "target_p99": 50,
                       "p99_in_bare_frames": round(_pct(lat, 99) / bare_ms, 1) if bare_ms else None},
        "table_view_fps_800x480": {"fps": round(fps, 1), "target": 30,
                                   "frame_in_bare_frames": round(table_ms / bare_ms, 1) if bare_ms else None},
        "memory": {"turns": args.turns, "samples": len(live), "growth_mb": round(growth_mb, 2),
                   "growth_mb_per_10000_turns": round(per_10k, 2), "target_per_10000_turns": 20,
                   "live_mb": {"first": round(live[0], 1), "last": round(live[-1], 1), "min": round(min(live), 1),
                               "max": round(max(live), 1)},
                   "untrimmed_rss_mb": {"min": round(min(untrimmed), 1), "max": round(max(untrimmed), 1)},
                   "turns_per_second": round(args.turns / play_s, 1), "games_finished": k.demo.games_done},
        "camera_path": camera,
    }
    if args.json:
        import json
        print(json.dumps(result))
        return 0
    r = result
    print(f"reference: a bare frame (clear + flip) takes {r['reference_bare_frame_ms']} ms")
    print(f"button-to-screen latency: p50 {r['latency_ms']['p50']} ms, p99 {r['latency_ms']['p99']} ms "
          f"(target p99 <= 50 ms; {r['latency_ms']['p99_in_bare_frames']} bare frames)")
    print(f"table view at 800x480: {r['table_view_fps_800x480']['fps']} frames/s (target >= 30; one frame = "
          f"{r['table_view_fps_800x480']['frame_in_bare_frames']} bare frames)")
    m = r["memory"]
    lv, un = m["live_mb"], m["untrimmed_rss_mb"]
    print(f"memory: {m['growth_mb']:+} MB over {m['turns']} turns = {m['growth_mb_per_10000_turns']:+} MB per "
          f"10,000 turns "
          f"(target < 20 MB; lowest of the last quarter of {m['samples']} samples against the first quarter); "
          f"{m['turns_per_second']} turns/s, {m['games_finished']} games finished")
    print(f"  live memory {lv['first']} MB at the start, {lv['last']} MB at the end, {lv['min']}-{lv['max']} MB "
          f"in between; before each trim the process held {un['min']}-{un['max']} MB")
    print("\n".join(camera_path.lines(camera)))
    return 0
