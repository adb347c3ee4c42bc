"""`dealer-assist vision enroll|detect|calibrate|watch`: the overhead camera's recognizer."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer_assist.commands import CommandFailed
from hardware.camera.deck import DeckError, DeckModel, enrol_folder
from hardware.camera.feed import CameraFeed, run_feed
from hardware.camera.ink import colour_name
from hardware.camera.recognize import Recognizer, Sighting
from hardware.camera.source import FrameSource, SourceError
from hardware.camera.zones import ZoneError, Zones, load_zones

DEFAULT_ZONES = Path("config/camera_zones.toml")

HELP = """\
The overhead camera: it finds every card on the layout, reads face-up cards from their art,
and tells where each lies.

  enroll DIR --out FILE     learn a card design from 52 clean face pictures named by code
                            (QS.png, TD.png, ...; an optional back.png helps tell face-down
                            cards); takes seconds
  detect IMAGE --json       print the face-up cards of a frame as a JSON list of
                            {"card", "center", "quad", "confidence"}; face-down cards and
                            cards it is unsure of are left out (--all lists them too)
  calibrate IMAGE           draw the layout zones and the cards found on a still of the
                            table, to check the calibration by eye (writes a PNG)
  watch SOURCE              turn a camera, stream, video or folder of frames into card_seen
                            and card_lost trace events, one JSON object per line

Without --deck the recognizer uses its built-in model of the tuning designs, built on first
use from Debian's gnome-cards-data and kdegames-card-data-kf5 (apt-get install them with
librsvg2-bin). An enrolled deck is much more accurate: enrol the casino's own cards.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vision", help="overhead camera: enrol a deck, read cards, calibrate zones, watch",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION", required=True)

    enroll = sub.add_parser("enroll", help="learn a card design from 52 face pictures",
                            description="Learn a card design from a folder holding one clean "
                            "picture per face, named by card code (AS.png ... KC.png, rank "
                            "A23456789TJQK then suit SHDC), and optionally back.png.")
    enroll.add_argument("folder", type=Path, metavar="DIR", help="folder of face pictures")
    enroll.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="deck file to write (.npz)")
    enroll.add_argument("--name", help="name of the design (default: the folder's name)")
    enroll.set_defaults(func=_enroll)

    detect = sub.add_parser("detect", help="read the cards of one frame",
                            description="Find and read the cards of one overhead frame.")
    detect.add_argument("image", type=Path, metavar="IMAGE", help="a frame (PNG, JPEG, ...)")
    detect.add_argument("--json", action="store_true", help="print a JSON list")
    detect.add_argument("--deck", type=Path, metavar="FILE", help="an enrolled deck file")
    detect.add_argument("--all", action="store_true",
                        help="also list face-down and unsure cards (with a 'face' field, and "
                        "a 'why': like the back, a close call between two codes, ...)")
    detect.set_defaults(func=_detect)

    calibrate = sub.add_parser("calibrate", help="draw zones and cards on a still",
                               description="Draw the calibration's zones and the cards found "
                               "on a still of the table, and say which zone holds each card.")
    calibrate.add_argument("image", type=Path, metavar="IMAGE", help="a still of the table")
    calibrate.add_argument("--zones", type=Path, default=DEFAULT_ZONES, metavar="FILE",
                           help=f"layout calibration (default {DEFAULT_ZONES})")
    calibrate.add_argument("--deck", type=Path, metavar="FILE", help="an enrolled deck file")
    calibrate.add_argument("--out", type=Path, metavar="PNG",
                           help="annotated picture to write (default IMAGE.zones.png)")
    calibrate.set_defaults(func=_calibrate)

    watch = sub.add_parser("watch", help="print card_seen / card_lost events from a camera",
                           description="Read frames from SOURCE (a device index such as 0, an "
                           "rtsp:// or http:// URL, a video file or a folder of images) and "
                           "print the camera's trace events as JSON lines.")
    watch.add_argument("source", metavar="SOURCE")
    watch.add_argument("--deck", type=Path, metavar="FILE", help="an enrolled deck file")
    watch.add_argument("--zones", type=Path, default=DEFAULT_ZONES, metavar="FILE",
                       help=f"layout calibration (default {DEFAULT_ZONES})")
    watch.add_argument("--confirm", type=int, default=3, metavar="N",
                       help="frames a card must be seen alike before it counts (default 3)")
    watch.add_argument("--lose", type=int, default=5, metavar="N",
                       help="frames a card must be missing before it is lost (default 5)")
    watch.set_defaults(func=_watch)


def _recognizer(path: Path | None) -> Recognizer:
    if path is not None:
        return Recognizer(_deck(path))
    from hardware.camera.synth.generic import GENERIC

    return Recognizer(_deck(None), **GENERIC)


def _deck(path: Path | None) -> DeckModel:
    if path is not None:
        try:
            return DeckModel.load(path)
        except DeckError as err:
            raise CommandFailed(str(err)) from None
    from hardware.camera.synth.decks import MissingCardArt
    from hardware.camera.synth.generic import generic_deck, model_path

    if not model_path().exists():  # minutes of silence otherwise, where no bar is drawn
        print(f"no --deck: building the built-in model from the tuning designs' card art, "
              f"once (a few minutes; kept in {model_path().parent})", file=sys.stderr)
    try:
        return generic_deck(progress=sys.stderr.isatty())
    except MissingCardArt as err:
        raise CommandFailed(f"no --deck given and the built-in model cannot be built: {err}") \
            from None


def _image(path: Path) -> np.ndarray:
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise CommandFailed(f"{path}: not a readable image")
    return frame


def _zones(path: Path) -> Zones:
    try:
        return load_zones(path)
    except ZoneError as err:
        raise CommandFailed(str(err)) from None


def _enroll(args: argparse.Namespace) -> int:
    try:
        deck = enrol_folder(args.folder, args.name)
    except DeckError as err:
        raise CommandFailed(str(err)) from None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    deck.save(args.out)
    back = " and the back" if len(deck.backs) else ""
    print(f"enrolled {deck.name}: 52 faces{back} -> {args.out}")
    if not len(deck.backs):
        print("warning: no back.png: a face-down card is told only by looking like no face, and "
              "about 2% of them looked enough like one on the tuning designs; enrol the back too")
    ranks, suits = deck.index.unread()
    if ranks or suits:
        missing = ", ".join(part for part in (ranks and f"ranks {' '.join(ranks)}",
                                              suits and f"suits {' '.join(suits)}") if part)
        print(f"warning: no corner index read for {missing}: those cards are told apart by "
              "their whole face alone (check that the pictures show the corner indices)")
    else:
        print("corner index read for every rank and suit")
    print(f"index looked for in the {deck.index.corners()} corners")
    colours = np.where(np.isnan(deck.pips.colours), deck.index.suit_colours, deck.pips.colours)
    print("ink colours: " + ", ".join(f"{word} {colour_name(c)}" for word, c in zip(
        ("spades", "hearts", "diamonds", "clubs"), colours, strict=True)))
    return 0


def _row(sighting: Sighting, with_face: bool) -> dict[str, object]:
    row = sighting.as_json()
    if with_face:
        row["face"] = sighting.face
        if sighting.why:
            row["why"] = sighting.why
    return row


def _detect(args: argparse.Namespace) -> int:
    frame = _image(args.image)
    sightings = _recognizer(args.deck)(frame)
    shown = [s for s in sightings if args.all or s.face == "up"]
    if args.json:
        print(json.dumps([_row(s, args.all) for s in shown]))
        return 0
    for s in shown:
        x, y = s.center
        why = f"  ({s.why})" if s.why else ""
        print(f"{s.card or s.face:>6}  at ({x:.0f}, {y:.0f})  confidence {s.confidence:.2f}{why}")
    hidden = len(sightings) - len(shown)
    print(f"{len(shown)} card(s) read" + (f", {hidden} face down or unsure" if hidden else ""))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    frame = _image(args.image)
    zones = _zones(args.zones).scaled_to(frame.shape[1], frame.shape[0])
    sightings = _recognizer(args.deck)(frame)
    canvas = frame.copy()
    for name, poly in zones.polygons.items():
        pts = np.round(poly).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(canvas, [pts], True, (0, 255, 255), 2, cv2.LINE_AA)
        x, y = np.round(poly.min(axis=0)).astype(int)
        cv2.putText(canvas, name, (int(x) + 4, int(y) + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (0, 255, 255), 2, cv2.LINE_AA)
    for s in sightings:
        zone = zones.zone_of(s.center) or "no zone"
        color = (0, 220, 0) if s.face == "up" else (0, 140, 255)
        pts = np.round(np.array(s.quad)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(canvas, [pts], True, color, 2, cv2.LINE_AA)
        label = f"{s.card or s.face} {zone}"
        cx, cy = (int(round(v)) for v in s.center)
        cv2.putText(canvas, label, (cx - 40, cy), cv2.FONT_HERSHEY_SIMPLEX, 0.7, color, 2,
                    cv2.LINE_AA)
        print(f"{s.card or s.face:>6}  in {zone}")
    out = args.out or args.image.with_suffix(".zones.png")
    if not cv2.imwrite(str(out), canvas):
        raise CommandFailed(f"{out}: cannot write the annotated picture")
    print(f"{len(zones.polygons)} zones, {len(sightings)} card(s) -> {out}")
    return 0


def _watch(args: argparse.Namespace) -> int:
    zones = _zones(args.zones)  # a bad zones file is said at once, before any model is built
    feed = CameraFeed(zones, confirm_frames=args.confirm, lose_frames=args.lose)
    recognize = _recognizer(args.deck)

    def report(state: str, detail: str) -> None:
        print(f"camera {state}: {detail}", file=sys.stderr)

    try:
        for event in run_feed(FrameSource(args.source, on_state=report), recognize, feed):
            print(json.dumps(event), flush=True)
    except SourceError as err:
        raise CommandFailed(str(err)) from None
    return 0
