"""Benchmark of the live camera feed: what the table is told about each card, over frames.

`benchmarks/vision.py` scores single frames. At the table a card lies still for many frames
and the feed (`hardware.camera.feed.CameraFeed`) reports it once the same reading has come
in `confirm_frames` frames running (an unsure frame breaks nothing). Here each deal is
rendered again and again with fresh noise, blur, glare, JPEG and a fresh hand or chips
(`training/frames/`), the frames go through the shipped recognizer (no enrolment) and the
feed, and each
card is scored by the feed's `card_seen` events in its zone:

- face up: told with the right code (and never another), told a wrong code at any time,
  told only face down, or not told at all;
- face down: told face down only, or (never allowed) told as a card.

The same frames are also scored one by one (the share of face-up sightings read right), as
the baseline the feed is compared with.

    .venv/bin/python benchmarks/vision_feed.py [--deals 15] [--frames 8] [--designs tango]

Needs Debian's gnome-cards-data, kdegames-card-data-kf5 and librsvg2-bin.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import vision_setup  # noqa: E402

vision_setup.one_core()  # "one CPU core": numpy's BLAS and OpenMP on one thread
import cv2  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from hardware.camera.feed import CameraFeed  # noqa: E402
from hardware.camera.recognize import Recognizer  # noqa: E402
from hardware.camera.zones import Zones  # noqa: E402
from training.art.decks import (  # noqa: E402
    DESIGNS,
    design_names,
    load_faces,
    missing_card_art,
)
from training.frames.layout import random_deal  # noqa: E402
from training.frames.overhead import make_table, render  # noqa: E402


def one_deal(recognizer: Recognizer, faces: dict, rng: np.random.Generator, frames: int,
             tally: Counter) -> None:
    """Render one deal `frames` times, feed it through, and count what each card became."""
    table = make_table(rng)
    deal = random_deal(rng, sorted(c for c in faces if c != "back"), table.height)
    feed = CameraFeed(Zones((1920, 1080), table.zones))
    told: dict[str, list[dict]] = {}
    for i in range(frames):
        frame = render(table, deal, faces, rng)
        sightings = recognizer(frame.image)
        for event in feed.update(sightings, f"2026-11-29T10:00:{i:02d}.000Z"):
            if event["type"] == "card_seen":
                told.setdefault(event["zone"], []).append(event)
        for truth in frame.cards:  # the baseline: this frame alone
            if not truth.face_up:
                continue
            near = truth.near(sightings)
            tally["frame_up"] += 1
            tally["frame_right"] += bool(near) and near[0].card == truth.card
    for placement in deal:
        events = told.get(placement.zone, [])
        named = {e["card"] for e in events if e["face"] == "up"}
        if placement.face_up:  # a wrong code told at any time counts as wrong
            tally["up"] += 1
            if named - {placement.card}:
                tally["up_wrong"] += 1
            elif named:
                tally["up_right"] += 1
            else:
                tally["up_as_down" if events else "up_untold"] += 1
        else:
            tally["down"] += 1
            tally["down_as_card"] += int(bool(named))
            tally["down_right"] += int(bool(events) and not named)


def line(name: str, t: Counter) -> str:
    def share(part: int, whole: int) -> str:
        return f"{100 * part / max(whole, 1):6.2f}% ({part}/{whole})"

    return (f"{name:<18} feed: face-up told right {share(t['up_right'], t['up'])}, wrong "
            f"{t['up_wrong']}, as face down {t['up_as_down']}, untold {t['up_untold']}; "
            f"face-down told face down {share(t['down_right'], t['down'])}, as a card "
            f"{t['down_as_card']} | single frames: read right "
            f"{share(t['frame_right'], t['frame_up'])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=15, help="deals per design")
    parser.add_argument("--frames", type=int, default=8, help="frames per deal")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--designs", default="held-out",
                        help="comma-separated designs or groups, as benchmarks/vision.py takes "
                        "them (default: held-out)")
    args = parser.parse_args()
    try:
        names = design_names(args.designs)
    except ValueError as err:
        parser.error(str(err))
    why = missing_card_art(tuple(names))
    if why:
        print(f"benchmarks/vision_feed.py skipped: {why}")
        return 0
    cv2.setNumThreads(1)
    total: Counter = Counter()
    lines = []
    recognizer = Recognizer().load()
    for name in names:
        faces = load_faces(name)
        rng = np.random.default_rng(args.seed + list(DESIGNS).index(name))
        tally: Counter = Counter()
        for _ in tqdm(range(args.deals), desc=name, unit="deal", file=sys.stderr):
            one_deal(recognizer, faces, rng, args.frames, tally)
        lines.append(line(name, tally))
        total.update(tally)
    print(f"\n== the shipped model, no enrolment, {args.deals} deals of {args.frames} frames each (hands, chips, "
          "blur and glare drawn afresh in every frame) ==")
    print("\n".join(lines))
    print(line("ALL", total))
    feed_share = total["up_right"] / max(total["up"], 1)
    frame_share = total["frame_right"] / max(total["frame_up"], 1)
    print(f"face-up cards told right by the feed / read right in single frames: "
          f"{feed_share / max(frame_share, 1e-9):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
