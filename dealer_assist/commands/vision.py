"""`dealer-assist vision detect|calibrate|watch|train`: the overhead camera's recognizer."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer_assist.commands.failed import CommandFailed
from hardware.camera.feed import CameraFeed, run_feed
from hardware.camera.recognize import ModelMissing, Recognizer, Settings, Sighting
from hardware.camera.source import FrameSource, SourceError
from hardware.camera.zones import ZoneError, Zones, load_zones

DEFAULT_ZONES = Path("config/camera_zones.toml")

HELP = """\
The overhead camera: it finds the cards on the table, reads face-up cards by their corner
indices, and tells where each lies. It reads any standard French-suited deck with English
indices, with no enrolment and no calibration: three small networks (a finder, a reader
of corner indices and a reader of whole cards, shipped with the package, run by onnxruntime
on the CPU) learned it from renders of many card designs.

  detect IMAGE --json       print the face-up cards of a frame as a JSON list of
                            {"card", "center", "quad", "confidence"}; face-down cards and
                            cards it is unsure of are left out (--all lists them too)
  calibrate IMAGE           draw the layout zones and the cards found on a still of the
                            table, to check the calibration by eye (writes a PNG)
  watch SOURCE              turn a camera, stream, video or folder of frames into card_seen
                            and card_lost trace events, one JSON object per line
  train                     train the networks anew (needs pip install -e '.[train]');
                            --faces DIR adds the house's own deck (enrolment: optional)

--model DIR reads with the networks in DIR (corners.onnx, index.onnx, card.onnx, as `train`
writes them) in place of the shipped ones. docs/vision.md tells the whole story.
"""

ENROL_GONE = ("`vision enroll` is gone: the recognizer reads any standard deck with no "
              "enrolment. To teach it the house's own deck as well, train with its faces: "
              "dealer-assist vision train --faces DIR (needs pip install -e '.[train]')")
DECK_GONE = "--deck is no longer needed (any standard deck is read with no enrolment): ignored"


def _model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", type=Path, metavar="DIR",
                        help="a folder with corners.onnx and index.onnx (from `vision train`) "
                        "to use in place of the shipped model")
    parser.add_argument("--deck", type=Path, metavar="FILE", help=argparse.SUPPRESS)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vision", help="overhead camera: read cards, calibrate zones, watch, train",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION", required=True)

    detect = sub.add_parser("detect", help="read the cards of one frame",
                            description="Find and read the cards of one overhead frame or "
                            "photograph (PNG, JPEG, ...). One image: a folder of frames is "
                            "refused, `vision watch FOLDER` reads it as a camera's feed.")
    detect.add_argument("image", type=Path, metavar="IMAGE",
                        help="a frame (PNG, JPEG, ...), not a folder")
    detect.add_argument("--json", action="store_true", help="print a JSON list")
    detect.add_argument("--all", action="store_true",
                        help="also list face-down and unsure cards (with a 'face' field, and "
                        "a 'why': like a card back, not sure of a code, indices disagree)")
    _model_option(detect)
    detect.set_defaults(func=_detect)

    calibrate = sub.add_parser("calibrate", help="draw zones and cards on a still",
                               description="Draw the calibration's zones and the cards found "
                               "on a still of the table, and say which zone holds each card.")
    calibrate.add_argument("image", type=Path, metavar="IMAGE", help="a still of the table")
    calibrate.add_argument("--zones", type=Path, default=DEFAULT_ZONES, metavar="FILE",
                           help=f"layout calibration (default {DEFAULT_ZONES})")
    calibrate.add_argument("--out", type=Path, metavar="PNG",
                           help="annotated picture to write (default IMAGE.zones.png)")
    _model_option(calibrate)
    calibrate.set_defaults(func=_calibrate)

    watch = sub.add_parser("watch", help="print card_seen / card_lost events from a camera",
                           description="Read frames from SOURCE (a device index such as 0, an "
                           "rtsp:// or http:// URL, a video file or a folder of images) and "
                           "print the camera's trace events as JSON lines.")
    watch.add_argument("source", metavar="SOURCE")
    watch.add_argument("--zones", type=Path, default=DEFAULT_ZONES, metavar="FILE",
                       help=f"layout calibration (default {DEFAULT_ZONES})")
    watch.add_argument("--confirm", type=int, default=3, metavar="N",
                       help="frames a card must be seen alike before it counts (default 3)")
    watch.add_argument("--lose", type=int, default=5, metavar="N",
                       help="frames a card must be missing before it is lost (default 5)")
    _model_option(watch)
    watch.set_defaults(func=_watch)

    enroll = sub.add_parser("enroll", help="gone: see `vision train --faces`",
                            description=ENROL_GONE)
    enroll.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    enroll.set_defaults(func=_enroll)

    try:
        from dealer_assist.commands.vision_train import register_train
    except ImportError:  # the training command is not part of this installation
        return
    register_train(sub)


def _recognizer(args: argparse.Namespace) -> Recognizer:
    if getattr(args, "deck", None) is not None:
        print(DECK_GONE, file=sys.stderr)
    model = getattr(args, "model", None)
    try:
        return Recognizer(Settings(model_dir=model)).load()
    except ModelMissing as err:
        raise CommandFailed(str(err)) from None


def _image(path: Path) -> np.ndarray:
    if path.is_dir():
        raise CommandFailed(f"{path}: is a folder; give one image of it (a folder of frames "
                            f"is read by `dealer-assist vision watch {path}`)")
    if not path.is_file():
        raise CommandFailed(f"{path}: no such file")
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None or frame.size == 0:
        raise CommandFailed(f"{path}: not a readable image")
    return frame


def _zones(path: Path) -> Zones:
    try:
        return load_zones(path)
    except ZoneError as err:
        raise CommandFailed(str(err)) from None


def _enroll(args: argparse.Namespace) -> int:
    raise CommandFailed(ENROL_GONE)


def _row(sighting: Sighting, with_face: bool) -> dict[str, object]:
    row = sighting.as_json()
    if with_face:
        row["face"] = sighting.face
        if sighting.why:
            row["why"] = sighting.why
    return row


def _detect(args: argparse.Namespace) -> int:
    frame = _image(args.image)
    sightings = _recognizer(args)(frame)
    shown = [s for s in sightings if args.all or s.face == "up"]
    if args.json:
        print(json.dumps([_row(s, args.all) for s in shown]))
        return 0
    for s in shown:
        x, y = s.center
        why = f"  ({s.why})" if s.why else ""
        print(f"{s.card or s.face:>6}  at ({x:.0f}, {y:.0f})  confidence {s.confidence:.2f}{why}")
    faces = [s.face for s in sightings]
    down, unsure = faces.count("down"), faces.count("unsure")
    print(f"{faces.count('up')} card(s) read" + (f", {down} face down" if down else "")
          + (f", {unsure} unsure" if unsure else "") + ("" if args.all or not down + unsure
                                                        else " (--all lists them)"))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    frame = _image(args.image)
    zones = _zones(args.zones).scaled_to(frame.shape[1], frame.shape[0])
    sightings = _recognizer(args)(frame)
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
    recognize = _recognizer(args)

    def report(state: str, detail: str) -> None:
        print(f"camera {state}: {detail}", file=sys.stderr)

    try:
        for event in run_feed(FrameSource(args.source, on_state=report), recognize, feed):
            print(json.dumps(event), flush=True)
    except SourceError as err:
        raise CommandFailed(str(err)) from None
    return 0
