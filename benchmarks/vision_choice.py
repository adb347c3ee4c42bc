"""The choice sets a candidate camera model is chosen on (issue 35): never half B of the real
photographs, never the held-out designs (those are `benchmarks/vision.py`'s, and decide
or report only).

Four sets, each scored for the candidate (`--model DIR`) and the model it would replace (the
shipped one, or `--against DIR`) in the same run:

- half A: the real photographs that may be looked at while building (`vision.HALF_A`),
  scored as `vision-real-dev/score.py` scores them;
- ten designs: rendered 1920x1080 overhead frames of ten training designs (`TEN`, 8 frames
  each from seed 777 + the design's place), scored as `vision.py` scores rendered frames,
  with the face-down cards reported face down and the phantom face-down reports (near no
  card: an empty printed box, the felt), which the live feed would log as cards;
- third set: eight more training designs and the drawn deck (`THIRD`, 8 frames each from seed
  9000 + the design's place), scored alike;
- dense fans: 288 pictures of a bridge deal's fans in the training designs (`report/fans.py`, seed
  4040), scored by code multisets; the wrong codes are listed with their picture.

A candidate is eligible (docs/vision-details.md, "Choosing a model") when on half A, the ten designs
and the third set it finds at least as many cards and is right at least as often, finding more
on one of them, gives no more phantom face-down reports on the two rendered sets, and gives no
more wrong codes on the dense fans. The last line is one JSON
object holding every figure and the verdict.

    .venv/bin/python benchmarks/vision_choice.py --model var/vision-model [--against DIR]

Needs Debian's card art (as `vision.py` does) and the training extra (the fans are drawn by
the training renderer); it says so and stops when either is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import vision_setup  # noqa: E402

vision_setup.one_core()
import cv2  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from benchmarks.vision import (  # noqa: E402
    HALF_A,
    Seen,
    _pc,
    _photos,
    _score_photo,
    score_real,
    score_rendered,
)
from hardware.camera.drawn.faces import drawn_faces  # noqa: E402
from hardware.camera.find import ModelMissing  # noqa: E402
from hardware.camera.recognize import Recognizer, Settings  # noqa: E402
from training.art.decks import load_faces, missing_card_art  # noqa: E402
from training.frames.overhead import Frame, frames  # noqa: E402

TEN = ("anglo", "paris", "svg-dondorf", "neoclassical", "bellot", "orell", "gnomangelo",
       "plastic", "svg-standard", "atlasnye")
THIRD = ("anglo_modern", "simplistic", "guyenne-classic", "anglo_poker", "svg-jolly-royal",
         "svg-tigullio-international", "svg-gm-paris", "svg-ancient-egyptians", "drawn")
FANS, FAN_SEED = 288, 4040  # 72 gave each model 3-5 wrong codes: too few to tell two apart
RENDERED = ("ten designs", "third set")
GATED = ("half A", *RENDERED)  # the sets on which a candidate must find and read as well


def _seen(recognizer: Recognizer, image: Any) -> Seen:
    return Seen([{"card": s.card, "face": s.face, "center": s.center}
                 for s in recognizer(image)], 0.0)


def _rendered(label: str, designs: tuple[str, ...], seed: int) -> list[Frame]:
    out: list[Frame] = []
    for k, name in enumerate(tqdm(designs, desc=f"drawing {label}", unit="design",
                                  file=sys.stderr)):
        faces = drawn_faces() if name == "drawn" else load_faces(name)
        out += frames(faces, 8, seed + k)
    return out


def _face_down(batch: list[Frame], seen: list[Seen]) -> tuple[int, int, int]:
    """Face-down cards, those reported face down (a "down" sighting within half a card's
    height of it), and phantom face-down reports (a "down" sighting within 0.6 of a card's
    height of no card at all: an empty printed box, a chip, the felt)."""
    backs = seen_down = phantom = 0
    for frame, s in zip(batch, seen, strict=True):
        downs = [f["center"] for f in s.found if f["face"] == "down"]
        cards = [(t, float(np.linalg.norm(t.quad[3] - t.quad[0]))) for t in frame.cards]
        for truth, height in cards:
            if not truth.face_up:
                backs += 1
                seen_down += any(_apart(at, truth.center) < 0.5 * height for at in downs)
        phantom += sum(all(_apart(at, t.center) >= 0.6 * height for t, height in cards)
                       for at in downs)
    return backs, seen_down, phantom


def _apart(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))


def score_sets(recognizer: Recognizer, label: str, sets: dict[str, Any]) -> dict[str, Any]:
    """One model's figures on every set."""
    from training.report.fans import FanTally

    photos = [p for p in _photos() if p[0] in HALF_A]
    seen = [_seen(recognizer, cv2.imread(str(path), cv2.IMREAD_COLOR))
            for _, path, _ in tqdm(photos, desc=f"{label}: half A", unit="photo",
                                   file=sys.stderr)]
    half_a = score_real(photos, seen, _score_photo())["A"]
    out: dict[str, Any] = {"half A": {"found": half_a["found"], "right": half_a["right"],
                                      "cards": half_a["cards"]}}
    for name in RENDERED:
        batch = sets[name]
        seen = [_seen(recognizer, f.image)
                for f in tqdm(batch, desc=f"{label}: {name}", unit="frame", file=sys.stderr)]
        r = score_rendered(batch, seen)
        backs, seen_down, phantom = _face_down(batch, seen)
        out[name] = {"found": r["found"], "right": r["right"], "cards": r["cards"],
                     "backs": backs, "backs_seen": seen_down, "phantom_downs": phantom}
    tally, wrong = FanTally(), []
    for k, picture in enumerate(tqdm(sets["dense fans"], desc=f"{label}: dense fans",
                                     unit="picture", file=sys.stderr)):
        codes = [s.card for s in recognizer(picture.image) if s.face == "up" and s.card]
        wrong += [f"{k} ({picture.design}): {code}" for code in tally.add(picture, codes)]
    out["dense fans"] = {"found": round(tally.found, 2), "right": round(tally.right, 2),
                         "cards": tally.required, "wrong": tally.wrong, "wrong_codes": wrong}
    return out


def verdict(candidate: dict[str, Any], against: dict[str, Any]) -> tuple[bool, list[str]]:
    """Whether the candidate is eligible, and why not."""
    why = []
    for name in GATED:
        for figure in ("found", "right"):
            if (candidate[name][figure] or 0) < (against[name][figure] or 0):
                why.append(f"{name}: {figure} {candidate[name][figure]} < "
                           f"{against[name][figure]}")
    if not any((candidate[n]["found"] or 0) > (against[n]["found"] or 0) for n in GATED):
        why.append("finds no more on half A, the ten designs or the third set")
    phantoms = [sum(f[n]["phantom_downs"] for n in RENDERED) for f in (candidate, against)]
    if phantoms[0] > phantoms[1]:
        why.append(f"phantom face-down reports on the rendered frames: {phantoms[0]} > "
                   f"{phantoms[1]}")
    if candidate["dense fans"]["wrong"] > against["dense fans"]["wrong"]:
        why.append(f"dense fans: {candidate['dense fans']['wrong']} wrong codes > "
                   f"{against['dense fans']['wrong']}")
    return not why, why


def _settings(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs as Settings fields, each value of its field's type."""
    defaults = {f.name: getattr(Settings(), f.name) for f in fields(Settings)
                if f.name != "model_dir"}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in defaults or not value:
            raise ValueError(f"{pair!r}: not KEY=VALUE with KEY one of {', '.join(defaults)}")
        default = defaults[key]
        try:
            out[key] = type(default)(value) if not isinstance(default, tuple) else tuple(
                float(v) for v in value.split(","))
        except ValueError:
            raise ValueError(f"{pair!r}: {key} takes {type(default).__name__} values, "
                             f"not {value!r}") from None
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, metavar="DIR", required=True,
                        help="the candidate model folder (corners.onnx, index.onnx)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="the model it would replace (default: the shipped model)")
    parser.add_argument("--fans", type=int, default=FANS, metavar="N",
                        help=f"pictures in the dense-fan set (default {FANS}; the first N of "
                        "a longer set are the same pictures)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a runtime setting (model/settings.py) for the candidate only, "
                        "e.g. back_heat=0.5; repeatable")
    args = parser.parse_args()
    if args.fans < 1:
        print("--fans: at least one picture", file=sys.stderr)
        return 2
    try:
        chosen = _settings(args.set)
    except ValueError as err:
        print(f"--set: {err}", file=sys.stderr)
        return 2
    missing = missing_card_art()
    if missing:
        print(f"the choice sets are drawn from Debian's card art: {missing}", file=sys.stderr)
        return 2
    try:
        from training.art.artwork import Artwork, designs_for_training
        from training.report.fans import fan_pictures
    except ImportError as err:
        print(f"the dense fans are drawn by the training renderer; install the training "
              f"extra (pip install -e '.[train]'): {err}", file=sys.stderr)
        return 2
    models = {"candidate": args.model, "against": args.against}
    recognizers = {}
    for role, folder in models.items():
        try:
            settings = Settings(**(chosen if role == "candidate" else {}))
            if folder:
                settings = replace(settings, model_dir=folder)
            recognizers[role] = Recognizer(settings).load()
        except ModelMissing as err:
            print(err, file=sys.stderr)
            return 2
    art = Artwork.load(designs_for_training(), variants=False, progress=True)
    sets = {"ten designs": _rendered("ten designs", TEN, 777),
            "third set": _rendered("third set", THIRD, 9000),
            "dense fans": fan_pictures(art, args.fans, FAN_SEED, progress=True)}
    figures = {role: score_sets(r, role, sets) for role, r in recognizers.items()}
    eligible, why = verdict(figures["candidate"], figures["against"])
    print(f"{'set':<12} {'candidate found / right':>24} {'against found / right':>22}")
    for name in figures["candidate"]:
        c, a = figures["candidate"][name], figures["against"][name]
        print(f"{name:<12} {_pc(c['found']):>14} / {_pc(c['right'])} {_pc(a['found']):>12} / "
              f"{_pc(a['right'])}   ({c['cards']} cards)")
    for role in models:
        print(f"face down, {role}: " + "; ".join(
            f"{n}: {figures[role][n]['backs_seen']} of {figures[role][n]['backs']} backs seen, "
            f"{figures[role][n]['phantom_downs']} phantom" for n in RENDERED))
    for role in models:
        fans = figures[role]["dense fans"]
        print(f"dense fans, {role}: {fans['wrong']} wrong codes"
              + "".join(f"\n  {w}" for w in fans["wrong_codes"]))
    print("eligible" if eligible else "not eligible: " + "; ".join(why))
    print(json.dumps({"model": str(args.model), "settings": chosen,
                      "against": str(args.against or "shipped"),
                      "sets": figures, "eligible": eligible, "why": why}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
