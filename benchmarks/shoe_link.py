"""Shoe link figures: codec decode rate on a large capture, and pty write -> decoded latency.

Goals (issue 3): the codec decodes >= 500,000 frames/s (two orders above any real shoe); a
frame written on the pty reaches the reader as a decoded event within 5 ms at p99 (1,000
frames). Also printed: the rate of the reference adapter (frames to trace dicts), the rate on
a dirty capture (noise and corrupt frames), and how fast `devices.deal` deals shoes.

Run: .venv/bin/python benchmarks/shoe_link.py [--frames N] [--latency-frames N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dealer_assist.devices.deal.dealing import deal_shoe  # noqa: E402
from dealer_assist.domain.house import HouseRules  # noqa: E402
from hardware.shoe.adapters import create_adapter  # noqa: E402
from hardware.shoe.adapters.reference import message_for  # noqa: E402
from hardware.shoe.link import Received, ShoeLink  # noqa: E402
from hardware.shoe.protocol import Card, Decoder, Heartbeat, encode  # noqa: E402

CHUNK = 1 << 16
GOAL_FRAMES_S = 500_000
GOAL_P99_MS = 5.0


def capture(n_frames: int, dirty: bool = False, seed: int = 1) -> tuple[bytes, int]:
    """Raw bytes of whole shoes dealt by the rules (with heartbeats between games)."""
    rng = random.Random(seed)
    parts: list[bytes] = []
    seq = 0
    while seq < n_frames:
        for event in deal_shoe(rng):
            if event["type"] == "bets_closed":
                for _ in range(rng.randint(5, 25)):  # betting time: heartbeats
                    parts.append(encode(Heartbeat(seq % 10_000)))
                    seq += 1
            message = message_for(event, seq % 10_000)
            if message is None:
                continue
            frame = encode(message)
            seq += 1
            if dirty and rng.random() < 0.02:
                parts.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))))
            if dirty and rng.random() < 0.01:
                frame = frame[:-4] + b"00\r\n"
            parts.append(frame)
    return b"".join(parts), seq


def rate(data: bytes, frames: int, feed) -> float:
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for i in range(0, len(data), CHUNK):
            feed(data[i:i + CHUNK])
        best = max(best, frames / (time.perf_counter() - start))
    return best


def codec_figures(n_frames: int) -> None:
    data, frames = capture(n_frames)
    print(f"capture: {frames:,} frames, {len(data) / 1e6:.1f} MB (whole shoes, heartbeats)")
    decoder = Decoder()
    codec = rate(data, frames, decoder.feed)
    print(f"codec decode:        {codec:12,.0f} frames/s   goal {GOAL_FRAMES_S:,}  "
          f"ratio {codec / GOAL_FRAMES_S:.2f}x  {'OK' if codec >= GOAL_FRAMES_S else 'BELOW GOAL'}")
    adapter = create_adapter("reference")
    full = rate(data, frames, adapter.feed)
    print(f"adapter (to events): {full:12,.0f} frames/s   ratio {full / GOAL_FRAMES_S:.2f}x")
    dirty, dframes = capture(n_frames // 4, dirty=True, seed=2)
    dirty_rate = rate(dirty, dframes, Decoder().feed)
    print(f"codec, dirty capture (2% noise bursts, 1% bad checksums): {dirty_rate:,.0f} frames/s")


def latency_figures(n: int) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    got = threading.Event()
    stamps: list[float] = []

    def on_receive(item: Received) -> None:
        if item.kind == "event":
            stamps.append(item.clock)
            got.set()

    latencies: list[float] = []
    with ShoeLink(path, on_receive=on_receive):
        time.sleep(0.3)  # the link opens the port
        for seq in range(n):
            frame = encode(Card(seq, "QS"))
            got.clear()
            sent = time.perf_counter()
            os.write(master, frame)
            if not got.wait(1.0):
                raise SystemExit(f"frame {seq} never arrived")
            latencies.append((stamps[-1] - sent) * 1000)
            time.sleep(0.001)
    os.close(master)
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)]
    print(f"pty write -> decoded event, {n} frames: p50 {p50:.3f} ms  p99 {p99:.3f} ms  "
          f"max {latencies[-1]:.3f} ms   goal p99 <= {GOAL_P99_MS} ms  "
          f"ratio {GOAL_P99_MS / p99:.1f}x  {'OK' if p99 <= GOAL_P99_MS else 'ABOVE GOAL'}")


def deal_figures(shoes: int) -> None:
    rng = random.Random(3)
    start = time.perf_counter()
    games = 0
    for i in range(shoes):
        events = deal_shoe(rng, HouseRules(burn_after_each_game=i % 2 == 1))
        games += sum(e["type"] == "bets_closed" for e in events)
    took = time.perf_counter() - start
    print(f"devices.deal: {shoes} shoes, {games:,} games in {took:.2f} s "
          f"({games / took:,.0f} games/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000, help="frames in the capture")
    parser.add_argument("--latency-frames", type=int, default=1_000)
    parser.add_argument("--shoes", type=int, default=200, help="shoes for the dealing figure")
    args = parser.parse_args()
    codec_figures(args.frames)
    if hasattr(os, "openpty"):
        latency_figures(args.latency_frames)
    else:
        print("latency: skipped, this system has no pseudo-terminals")
    deal_figures(args.shoes)


if __name__ == "__main__":
    main()
