"""Benchmark of the camera's learned recognizer against the issue's targets (issue 35).

Figures, each printed with its target and whether it is met, then one JSON object (the last
line) holding them all:

- Real photographs, ../shared/vision-real-dev/ (46 photos, 411 face-up cards), scored as its
  `score.py` scores them (reported codes matched to the true ones as multisets; its
  `score_photo` is imported from that folder at run time): found % of the readable face-up
  cards, % of the reported codes that are right, and card backs reported as faces. Half A
  (001-008, 012-026, 044: may be looked at while building) and half B (009-011, 027-043,
  045-046: report only) apart, per source (green felt 001-011, blue cloth 012-043, bridge
  fans 044-046) and overall.
- Rendered 1920x1080 overhead frames of the designs held out of training
  (`decks.HELD_OUT`, via `overhead.frames`, training/): found % of the face-up cards whose
  corners no hand or chip covers, right % of those found, face-down cards given a code;
  overall and per design, with the cards not found because they were read unsure.
- Speed, the frame pinned to one CPU core (onnxruntime on one thread, OpenCV on one):
  median and p95 milliseconds per 1920x1080 frame, and `vision detect` as a whole process
  (start, model load, one photo), median of 3 runs.

The recognizer of another commit, `--baseline-ref` (default 78bc417, the last commit with the
hand-tuned pipeline and its built-in model; a later commit's learned recognizer runs with that
commit's own model and settings, for a before/after), runs on the same photos and frames in
the same run, with the same Python: the commit is exported with `git archive` into a temporary folder
(the repository is not touched; the folder is removed afterwards) and its own recognizer is
imported from there in a worker process. `--no-baseline` skips it.

    .venv/bin/python benchmarks/vision.py [--frames 5] [--no-baseline] [--model DIR]

Rendered frames need Debian's card art (gnome-cards-data, kdegames-card-data-kf5,
librsvg2-bin); without it that part is skipped with a word, the photos are still scored.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks import vision_setup  # noqa: E402

vision_setup.one_core()
import cv2  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from hardware.camera.recognize import Recognizer, Settings  # noqa: E402
from training.art.decks import HELD_OUT, load_faces, missing_card_art  # noqa: E402
from training.frames.overhead import Frame, frames  # noqa: E402

REAL = REPO.parent / "shared" / "vision-real-dev"
HALF_A = (*range(1, 9), *range(12, 27), 44)
HALF_B = (9, 10, 11, *range(27, 44), 45, 46)
SOURCES = (("green felt", range(1, 12)), ("blue cloth", range(12, 44)),
           ("bridge fans", range(44, 47)))
BASELINE_REF = "78bc417"

# the targets: (figure, at least / at most, value)
TARGETS = {
    "real_b_found": (">=", 95.0), "real_b_right": (">=", 99.5), "real_backs_as_faces": ("<=", 0),
    "held_out_found": (">=", 99.0), "held_out_right": (">=", 99.5),
    "ms_median": ("<=", 50.0), "detect_process_s": ("<=", 1.0),
}

# the baseline's worker: its own recognizer (imported from the exported commit), one JSON line
# per image path read from stdin
BASELINE_WORKER = """
import json, sys, time
import cv2
import hardware.camera.recognize as r
print(r.__file__, file=sys.stderr, flush=True)
import importlib.util
try:  # a commit of the hand-tuned recognizer has hardware.camera.synth.generic
    hand_tuned = importlib.util.find_spec("hardware.camera.synth.generic") is not None
except ModuleNotFoundError:  # no hardware.camera.synth at all (training moved out)
    hand_tuned = False
if hand_tuned:
    from hardware.camera.synth.generic import GENERIC, generic_deck
    recognize = r.Recognizer(generic_deck(progress=False), **GENERIC)
else:  # a learned recognizer: that commit's own model and settings
    recognize = r.Recognizer().load()
cv2.setNumThreads(1)
for path in sys.stdin:
    image = cv2.imread(path.strip(), cv2.IMREAD_COLOR)
    start = time.perf_counter()
    found = recognize(image)
    ms = 1000 * (time.perf_counter() - start)
    print(json.dumps({"ms": ms, "found": [{"card": s.card, "face": s.face,
                                           "center": list(s.center)} for s in found]}),
          flush=True)
"""


class Seen:
    """What a recognizer said of one image: its sightings' (card, face, centre)."""

    def __init__(self, found: list[dict[str, Any]], ms: float) -> None:
        self.found, self.ms = found, ms

    @property
    def codes(self) -> list[str]:
        return [f["card"] for f in self.found if f["face"] == "up" and f["card"]]


def _score_photo() -> Callable[[list[str], list[str]], dict[str, Any]]:
    """`score_photo(truth, reported)` of ../shared/vision-real-dev/score.py, imported from
    there (the scorer is the set's own; it is not copied)."""
    spec = importlib.util.spec_from_file_location("vision_real_dev_score", REAL / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score_photo


def _photos() -> list[tuple[int, Path, dict[str, Any]]]:
    out = []
    for number in range(1, 47):
        truth = REAL / f"{number:03d}.json"
        if truth.is_file():
            out.append((number, REAL / f"{number:03d}.jpg",
                        json.loads(truth.read_text(encoding="utf-8"))))
    return out


def ours(recognizer: Recognizer, paths: list[Path], label: str) -> list[Seen]:
    seen = []
    for path in tqdm(paths, desc=label, unit="image", file=sys.stderr):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"{path}: not a readable image")
        start = time.perf_counter()
        found = recognizer(image)
        ms = 1000 * (time.perf_counter() - start)
        seen.append(Seen([{"card": s.card, "face": s.face, "center": s.center} for s in found],
                         ms))
    return seen


def baseline(checkout: Path, paths: list[Path], label: str) -> list[Seen]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    worker = subprocess.Popen([sys.executable, "-c", BASELINE_WORKER], cwd=checkout, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert worker.stdin is not None and worker.stdout is not None and worker.stderr is not None
    said = ""
    while not said.strip().endswith("recognize.py"):  # the worker names what it imported
        said = worker.stderr.readline()
        if not said:
            raise RuntimeError("the baseline's recognizer did not start")
    if not Path(said.strip()).is_relative_to(checkout):
        raise RuntimeError(f"the baseline imported {said.strip()}, not the commit's own code")
    worker.stdin.write("".join(f"{p}\n" for p in paths))
    worker.stdin.close()
    seen = []
    for _ in tqdm(paths, desc=label, unit="image", file=sys.stderr):
        line = worker.stdout.readline()
        if not line:
            err = worker.stderr.read() if worker.stderr else ""
            raise RuntimeError(f"the baseline's recognizer stopped: {err[-2000:]}")
        row = json.loads(line)
        seen.append(Seen(row["found"], row["ms"]))
    worker.wait()
    return seen


def export(ref: str, into: Path) -> Path:
    """Commit `ref` of this repository as plain files in `into` (git archive: read only)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref],
                             capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _share(part: float, whole: float) -> float | None:
    """A percentage, or None where there is nothing to count (no card reported)."""
    return round(100.0 * part / whole, 2) if whole else None


def _pc(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.2f}"


def score_real(photos: list, seen: list[Seen], score_photo: Callable) -> dict[str, Any]:
    groups: dict[str, Counter] = {}
    for (number, _, truth), s in zip(photos, seen, strict=True):
        result = score_photo(truth["cards"], s.codes)
        names = ["A" if number in HALF_A else "B", "all"]
        names += [f"{name}" for name, numbers in SOURCES if number in numbers]
        for name in names:
            t = groups.setdefault(name, Counter())
            t["true"] += result["n_true"]
            t["reported"] += result["n_reported"]
            t["matched"] += result["matched"]
            if truth.get("face_down"):
                t["backs"] += truth["face_down"]
                t["backs_as_faces"] += len(result["wrong"])
    return {name: {"found": _share(t["matched"], t["true"]),
                   "right": _share(t["matched"], t["reported"]),
                   "cards": t["true"], "reported": t["reported"],
                   "backs_as_faces": t["backs_as_faces"], "backs": t["backs"]}
            for name, t in groups.items()}


def score_rendered(batch: list[Frame], seen: list[Seen]) -> dict[str, Any]:
    t: Counter = Counter()
    for frame, s in zip(batch, seen, strict=True):
        for truth in frame.cards:
            reach = 0.25 * float(np.linalg.norm(truth.quad[3] - truth.quad[0]))
            around = [f for f in s.found if np.hypot(
                f["center"][0] - truth.center[0], f["center"][1] - truth.center[1]) < reach]
            near = [f for f in around if f["face"] == "up"]
            if not truth.face_up:
                t["down"] += 1
                t["down_as_card"] += bool(near)
            elif truth.corners_clear:
                t["up"] += 1
                t["found"] += bool(near)
                t["right"] += any(f["card"] == truth.card for f in near)
                t["unsure"] += not near and any(f["face"] == "unsure" for f in around)
    return {"found": _share(t["found"], t["up"]), "right": _share(t["right"], t["found"]),
            "cards": t["up"], "unsure": t["unsure"], "down_as_card": t["down_as_card"],
            "down": t["down"]}


def process_seconds(root: Path, image: Path, model: Path | None) -> float:
    """Median wall time of `vision detect IMAGE --json` as a whole process, run from `root`."""
    command = [sys.executable, "-m", "dealer_assist.cli", "vision", "detect", str(image),
               "--json"]
    if model is not None:
        command += ["--model", str(model)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _verdict(key: str, value: float | None) -> str:
    sign, target = TARGETS[key]
    if value is None:
        return f"target {sign} {target:g}: NOT met (nothing reported)"
    met = value >= target if sign == ">=" else value <= target
    return f"target {sign} {target:g}: {'met' if met else 'NOT met'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=5,
                        help="rendered frames per held-out design (default 5)")
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--model", type=Path, metavar="DIR",
                        help="a model folder (corners.onnx, index.onnx) in place of the shipped")
    parser.add_argument("--baseline-ref", default=BASELINE_REF, metavar="REF",
                        help=f"the commit whose recognizer runs beside (default {BASELINE_REF})")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):  # one core, for this process and its workers
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    recognizer = Recognizer(Settings(model_dir=args.model, threads=1)).load()
    figures: dict[str, Any] = {"baseline_ref": None if args.no_baseline else args.baseline_ref}

    with tempfile.TemporaryDirectory(prefix="vision-bench-") as tmp:
        work = Path(tmp)
        photos = _photos()
        if not photos:
            print(f"no real photographs at {REAL}: that part is skipped")
        batch: list[Frame] = []
        designs: list[str] = []  # each frame's design
        why = missing_card_art(HELD_OUT)
        if why:
            print(f"rendered frames skipped: {why}")
        else:
            for k, name in enumerate(HELD_OUT):
                batch += frames(load_faces(name), args.frames, args.seed + k)
                designs += [name] * args.frames
        rendered = []
        for k, frame in enumerate(batch):
            rendered.append(work / f"frame{k:03d}.png")
            cv2.imwrite(str(rendered[-1]), frame.image)
        photo_paths = [p for _, p, _ in photos]

        runs = {"ours": (ours(recognizer, photo_paths, "photos"),
                         ours(recognizer, rendered, "held-out frames"))}
        base_root = None
        if not args.no_baseline:
            base_root = export(args.baseline_ref, work / "baseline")
            runs["baseline"] = (baseline(base_root, photo_paths, f"{args.baseline_ref} photos"),
                                baseline(base_root, rendered, f"{args.baseline_ref} frames"))

        score_photo = _score_photo() if photos else None
        for who, (on_photos, on_frames) in runs.items():
            got: dict[str, Any] = {}
            if photos and score_photo is not None:
                got["real"] = score_real(photos, on_photos, score_photo)
            if batch:
                got["held_out"] = score_rendered(batch, on_frames)
                got["held_out_by_design"] = {name: score_rendered(
                    [f for f, d in zip(batch, designs, strict=True) if d == name],
                    [s for s, d in zip(on_frames, designs, strict=True) if d == name])
                    for name in HELD_OUT}
                ms = np.array([s.ms for s in on_frames])
                got["ms_median"] = round(float(np.median(ms)), 1)
                got["ms_p95"] = round(float(np.percentile(ms, 95)), 1)
            probe = photo_paths[0] if photo_paths else (rendered[0] if rendered else None)
            if probe is not None:
                root = REPO if who == "ours" else base_root
                assert root is not None
                got["detect_process_s"] = round(process_seconds(
                    root, probe, args.model if who == "ours" else None), 2)
            figures[who] = got
        if base_root is not None:
            shutil.rmtree(base_root, ignore_errors=True)

    _print(figures)
    print(json.dumps(figures, sort_keys=True))
    return 0


def _print(figures: dict[str, Any]) -> None:
    whos = [w for w in ("ours", "baseline") if w in figures]
    ref = figures.get("baseline_ref")
    head = "the learned recognizer" + (f"   |   baseline {ref}" if ref else "")
    print(f"\n== {head} ==")
    mine = figures["ours"]
    if "real" in mine:
        print("real photographs (../shared/vision-real-dev), found % / right % "
              "[cards, reported, backs as faces]:")
        for name in ("A", "B", "green felt", "blue cloth", "bridge fans", "all"):
            cells = []
            for who in whos:
                r = figures[who]["real"].get(name)
                if r:
                    cells.append(f"{_pc(r['found'])} / {_pc(r['right'])}  [{r['cards']}, "
                                 f"{r['reported']}, {r['backs_as_faces']}]")
            label = {"A": "half A", "B": "half B (held back)"}.get(name, name)
            print(f"  {label:<20} " + "   |   ".join(cells))
    if "held_out" in mine:
        cells = [f"{_pc(figures[w]['held_out']['found'])} / {_pc(figures[w]['held_out']['right'])}"
                 f"  [{figures[w]['held_out']['cards']} cards, "
                 f"{figures[w]['held_out']['down_as_card']} backs as cards]" for w in whos]
        print(f"  {'held-out designs':<20} " + "   |   ".join(cells))
        for name in HELD_OUT:  # where the misses and misreads are
            cells = [f"{_pc(d['found'])} / {_pc(d['right'])}  [{d['cards']} cards, "
                     f"{d['unsure']} unsure]"
                     for d in (figures[w]["held_out_by_design"][name] for w in whos)]
            print(f"    {name:<18} " + "   |   ".join(cells))
        cells = [f"median {figures[w]['ms_median']:.1f} ms, p95 {figures[w]['ms_p95']:.1f} ms"
                 for w in whos]
        print(f"  {'1920x1080, 1 core':<20} " + "   |   ".join(cells))
    if "detect_process_s" in mine:
        cells = [f"{figures[w].get('detect_process_s', float('nan')):.2f} s" for w in whos]
        print(f"  {'vision detect':<20} " + "   |   ".join(cells))
    print("\n== the targets (the learned recognizer) ==")
    values = {}
    if "real" in mine:
        values["real_b_found"] = mine["real"]["B"]["found"]
        values["real_b_right"] = mine["real"]["B"]["right"]
        values["real_backs_as_faces"] = mine["real"]["all"]["backs_as_faces"]
    if "held_out" in mine:
        values["held_out_found"] = mine["held_out"]["found"]
        values["held_out_right"] = mine["held_out"]["right"]
        values["ms_median"] = mine["ms_median"]
    if "detect_process_s" in mine:
        values["detect_process_s"] = mine["detect_process_s"]
    for key, value in values.items():
        print(f"  {key:<22} {_pc(value) if value is None else f'{value:8g}'}   "
              f"{_verdict(key, value)}")
    figures["targets"] = {k: {"value": v, "met": "NOT" not in _verdict(k, v)}
                          for k, v in values.items()}


if __name__ == "__main__":
    sys.exit(main())
