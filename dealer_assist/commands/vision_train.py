"""`dealer-assist vision train`: train the camera's two networks anew (needs the `[train]` extra).

`dealer-assist vision` adds this action with `register_train(vision_subparsers)`; PyTorch is
imported only when the command runs, so the CLI works without it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dealer_assist.commands import CommandFailed, command

DEFAULT_OUT = Path("var/vision-model")
DEFAULT_MINUTES = 100.0  # keep in step with hardware.camera.learn.train.DEFAULT_MINUTES

HELP = f"""\
Train the overhead camera's two networks on randomised synthetic pictures and write
corners.onnx (the finder), index.onnx (the reader) and report.json into --out.

Pictures are drawn from every Debian SVG card design (the held-out ones excepted: they
score the result) and the project's own drawn deck, on procedural felt, wood, cloth,
paper and carpet, with tilt, light, glare, blur, noise, JPEG, fanned hands, hands and
chips on top, and card backs. The finder gets about 72% of the time budget, the reader
22%; the rest loads the card art and scores both networks on the held-out designs.
A progress bar per network shows the loss.

The run is reproducible from --seed: every picture is drawn from its own generator
seeded by (seed, network, picture number), and the weights start from the seed. With
--minutes the number of steps follows the machine's speed (report.json records it);
--finder-steps and --reader-steps repeat a run step for step. CPU thread scheduling can
still make two runs differ in the last bits of the losses.

--faces DIR (enrolment, optional): a folder of the house's own face pictures, one per
card named by its code (AS.png, TH.jpg or 10H.jpg, QS.png, ...; 52 files) and optionally
back.png, added to the training pictures as one more design. It may improve reading
that deck; the recognizer reads standard decks without it.

To use the result: dealer-assist vision detect IMAGE --model {DEFAULT_OUT}, or copy the
three files into hardware/camera/model/ to ship them.
Needs PyTorch: pip install -e '.[train]'.
"""


def register(subparsers: Any) -> None:
    """No command of its own: `dealer-assist vision` adds this one as its action `train`
    (`register_train`)."""


def register_train(vision_subparsers: Any) -> argparse.ArgumentParser:
    """Add `train` to the actions of `dealer-assist vision`."""
    parser = command(vision_subparsers, "train", "train the finder and reader networks anew", HELP)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help=f"where the model files go (default {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    parser.add_argument("--minutes", type=float, default=DEFAULT_MINUTES, metavar="M",
                        help=f"time budget of the whole run (default {DEFAULT_MINUTES:g}: under 2 "
                        "hours on a 2-core machine)")
    parser.add_argument("--finder-steps", type=int, metavar="N",
                        help="train the finder exactly N steps (in place of its time share)")
    parser.add_argument("--reader-steps", type=int, metavar="N",
                        help="train the reader exactly N steps (in place of its time share)")
    parser.add_argument("--steps", type=int, metavar="N",
                        help="both networks exactly N steps (short runs, tests)")
    parser.add_argument("--designs", metavar="A,B,...",
                        help="card designs to train on, by name, separated by commas (default: "
                        "every design but the held-out ones)")
    parser.add_argument("--faces", type=Path, metavar="DIR",
                        help="the house's own card faces, named by code (enrolment, optional)")
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="CPU threads for the networks (default 1: with one --workers "
                        "process that fills 2 cores; more threads than free cores slow "
                        "PyTorch down badly)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="processes drawing training pictures alongside (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(func=_train)
    return parser


def _train(args: argparse.Namespace) -> int:
    try:
        from hardware.camera.learn.train import Plan, TrainError, train
    except ImportError as e:
        raise CommandFailed(f"training needs PyTorch ({e.name} is missing): "
                            "pip install -e '.[train]'") from None
    for name in ("minutes", "threads", "steps", "finder_steps", "reader_steps"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise CommandFailed(f"--{name.replace('_', '-')} must be above 0")
    if args.workers < 0:
        raise CommandFailed("--workers must be 0 or more")
    designs = [d.strip() for d in args.designs.split(",") if d.strip()] if args.designs else None
    plan = Plan(out=args.out, seed=args.seed, minutes=args.minutes,
                finder_steps=args.finder_steps or args.steps,
                reader_steps=args.reader_steps or args.steps, designs=designs,
                faces=args.faces, threads=args.threads, workers=args.workers,
                progress=not args.quiet,
                log=lambda line: print(line, file=sys.stderr))
    try:
        report = train(plan)
    except TrainError as e:
        raise CommandFailed(str(e)) from None
    except OSError as e:
        raise CommandFailed(f"cannot write the model into {args.out}: {e.strerror}") from None
    reader, finder = report["reader_scores"], report["finder_scores"]["index"]
    print(f"wrote {args.out}/corners.onnx, index.onnx, report.json in "
          f"{report['wall_seconds'] / 60:.1f} min; on {report['scored_on']}: reader accuracy "
          f"{reader['accuracy']:.1%}, finder recall {_pct(finder['recall'])}, precision "
          f"{_pct(finder['precision'])}; finder {report['speed_one_thread']['finder_ms_1024x576']} "
          "ms per 1024x576 frame on one thread")
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
