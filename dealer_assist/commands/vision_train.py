"""`dealer-assist vision train`: train the camera's networks anew (needs the `[train]` extra).

`dealer-assist vision` adds this action with `register_train(vision_subparsers)`. The training
code is the checkout's top-level `training` package, which the wheel does not carry: it is
imported by name (`importlib`) only when the command runs, so the CLI works without it (and
without PyTorch), and the import contracts see no import of `training` from `dealer_assist`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from dealer_assist.commands import command
from dealer_assist.commands.failed import CommandFailed

DEFAULT_OUT = Path("var/vision-model")
DEFAULT_MINUTES = 100.0  # keep in step with training.fit.full.DEFAULT_MINUTES
READER_ONLY_MINUTES = 20.0  # --reader-only's budget unless --minutes says otherwise
CARD_ONLY_MINUTES = 10.0  # --card-only's budget for its steps, after its crops are drawn
CARD_POOL = 40_000  # keep in step with training.fit.card_reader.POOL

HELP = f"""\
Train the overhead camera's three networks on randomised synthetic pictures and write
corners.onnx (the finder), index.onnx (the reader), card.onnx (the card reader) and
report.json into --out.

Pictures are drawn from every Debian SVG card design (the held-out ones excepted: they
score the result) and the project's own drawn deck, on procedural felt, wood, cloth,
paper and carpet, with tilt, light, glare, blur, noise, JPEG, fanned hands, hands and
chips on top, and card backs. The finder gets about 66% of the time budget, the reader
20%, the card reader 5% after drawing its --card-pool crops (about 5 minutes); the rest
loads the card art and scores the networks on the held-out designs. A progress bar per
network shows the loss.

The run is reproducible from --seed: every picture is drawn from its own generator
seeded by (seed, network, picture number), and the weights start from the seed. With
--minutes the number of steps follows the machine's speed (report.json records it);
--finder-steps and --reader-steps (and --steps, every network) repeat a run step for
step. CPU thread scheduling can still make two runs differ in the last bits of the
losses.

--faces DIR (enrolment, optional): a folder of the house's own face pictures, one per
card named by its code (AS.png, TH.jpg or 10H.jpg, QS.png, ...; 52 files) and optionally
back.png, added to the training pictures as one more design. It may improve reading
that deck; the recognizer reads standard decks without it.

--reader-only --photos DIR (fine-tuning on real photographs): the reader alone learns on,
from a trained model (--from, default the shipped one), with crops of real photographs
mixed into its synthetic batches; the finder is copied as it is. DIR holds NAME.jpg
beside NAME.json, whose "cards" lists the face-up codes the photo shows (as in the
vision-real-dev set); --take picks photos by name (001-008,012-026,044). The labels say
which cards lie in a photo, not where: the model's own reads, narrowed to the photo's
codes and matched one to one, put them on the indices, and only confident matches are
kept. Train only on photographs you are allowed to tune on, and score the model on
others (docs/vision.md: half A of vision-real-dev trains, half B is only reported).
--dense-fans SHARE cuts that share of its synthetic crops in a dense fan of the crop's
deck, the neighbours' index strips beside the index read (default none); such a crop is
read only when 90% of its index shows. --blend A writes the reader A of the way from
where it started to its fine-tune (the shipped reader is the 0.25 blend of one).

--new-reader (the reader anew): a new reader trained on synthetic pictures with the whole
--minutes budget, beside the finder of a trained model (--from, default the shipped one),
which is copied as it is with its records; --reader-widths sets the reader's five layer
widths (default 24,48,72,144,192, the shipped reader's; a full training uses them too).
Then fine-tune it with --reader-only --photos.

--new-finder (the finder anew): a new finder trained on synthetic pictures with the whole
--minutes budget, beside the reader of a trained model (--from, default the shipped one),
which is copied as it is with its records. --dense-fans SHARE makes that share of its
pictures (and of a full training's finder pictures; default none) the fans of a bridge
deal.

--finder-only (fine-tuning the finder on dense fans): the finder alone learns on, from a
trained model (--from, default the shipped one), on synthetic pictures of which
--dense-fans (default 0.5) are the fans of a bridge deal, each next card showing only its
corner index; the reader is copied as it is.

--card-only (the card reader): the third network, which reads a card by its whole face
where its two corner indices leave it unsure (a number card's pips lie the same way on
every standard deck), trained on synthetic crops of whole cards beside the finder and
reader of a trained model (--from, default the shipped one), which are copied. It draws
--card-pool crops first (default {CARD_POOL}, about 5 minutes with one --workers
process), then trains for --minutes (default {CARD_ONLY_MINUTES:g}) or --steps. The other
modes that keep a network of --from keep its card reader too; a model folder without
card.onnx reads cards by their corners alone.

To use the result: dealer-assist vision detect IMAGE --model {DEFAULT_OUT}, or copy the
model files into hardware/camera/model/ to ship them.
Needs PyTorch: pip install -e '.[train]'.
"""


def register(subparsers: Any) -> None:
    """No command of its own: `dealer-assist vision` adds this one as its action `train`
    (`register_train`)."""


def register_train(vision_subparsers: Any) -> argparse.ArgumentParser:
    """Add `train` to the actions of `dealer-assist vision`."""
    parser = command(vision_subparsers, "train", "train the camera's networks anew", HELP)
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
                        help="every network exactly N steps (short runs, tests)")
    parser.add_argument("--designs", metavar="A,B,...",
                        help="card designs to train on, by name, separated by commas (default: "
                        "every design but the held-out ones); drawn-t1 .. drawn-t8 add the "
                        "typeface decks, the drawn deck with its ranks in free fonts (Debian "
                        "font packages; named, never by default)")
    parser.add_argument("--faces", type=Path, metavar="DIR",
                        help="the house's own card faces, named by code (enrolment, optional)")
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="CPU threads for the networks (default 1: with one --workers "
                        "process that fills 2 cores; more threads than free cores slow "
                        "PyTorch down badly)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="processes drawing training pictures alongside (default 1)")
    parser.add_argument("--reader-only", action="store_true",
                        help="fine-tune the reader alone on --photos (the finder is copied)")
    parser.add_argument("--new-reader", action="store_true",
                        help="train a new reader alone, keeping the finder of --from")
    parser.add_argument("--new-finder", action="store_true",
                        help="train a new finder alone, keeping the reader of --from")
    parser.add_argument("--reader-widths", metavar="A,B,C,D,E",
                        help="the new reader's five layer widths (default 24,48,72,144,192)")
    parser.add_argument("--finder-only", action="store_true",
                        help="fine-tune the finder alone on more dense fans (the reader is "
                        "copied)")
    parser.add_argument("--card-only", action="store_true",
                        help="train the card reader (card.onnx) alone, beside the finder and "
                        "reader of --from")
    parser.add_argument("--card-pool", type=int, default=CARD_POOL, metavar="N",
                        help="the card reader's synthetic crops, drawn before it trains "
                        f"(default {CARD_POOL})")
    parser.add_argument("--dense-fans", type=float, metavar="SHARE",
                        help="the share of the finder's pictures that are dense fans "
                        "(default 0.5 with --finder-only, else none); with --reader-only, the "
                        "share of the reader's synthetic crops cut in a dense fan (default "
                        "none)")
    parser.add_argument("--blend", type=float, metavar="A",
                        help="with --reader-only: write the reader A of the way from its start "
                        "to its fine-tune, (1 - A) * start + A * fine-tune, weight by weight "
                        "(default 1: the fine-tune itself)")
    parser.add_argument("--photos", type=Path, metavar="DIR",
                        help="labelled real photographs (NAME.jpg + NAME.json) for --reader-only")
    parser.add_argument("--take", metavar="NAMES",
                        help="only these photos of --photos, by name: 001-008,012-026,044")
    parser.add_argument("--from", dest="base", type=Path, metavar="DIR",
                        help="--reader-only or --finder-only starts from this model folder; "
                        "--new-reader or --new-finder keeps its other network (default: the "
                        "shipped model)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(func=_train)
    return parser


def _train(args: argparse.Namespace) -> int:
    full = _training("fit.full")
    shipped_model = _training("report.figures").SHIPPED_MODEL
    for name in ("minutes", "threads", "steps", "finder_steps", "reader_steps", "card_pool"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise CommandFailed(f"--{name.replace('_', '-')} must be above 0")
    if args.workers < 0:
        raise CommandFailed("--workers must be 0 or more")
    if args.blend is not None and not args.reader_only:
        raise CommandFailed("--blend goes with --reader-only: it blends a fine-tuned reader "
                            "with the one it started from")
    designs = [d.strip() for d in args.designs.split(",") if d.strip()] if args.designs else None
    if args.card_only:
        return _card_only(args, designs)
    if args.finder_only:
        return _finder_tune(args, designs)
    if args.new_reader and args.new_finder:
        raise CommandFailed("--new-reader and --new-finder each keep the other network: "
                            "for both anew, give neither")
    if args.new_reader:
        if args.reader_only or args.photos or args.take or args.finder_steps is not None \
                or args.dense_fans is not None:
            raise CommandFailed("--new-reader trains a new reader beside the finder of --from: "
                                "no --reader-only, --photos, --take, --finder-steps, "
                                "--dense-fans")
    elif args.new_finder:
        if args.reader_only or args.photos or args.take or args.faces is not None \
                or args.reader_steps is not None or args.reader_widths:
            raise CommandFailed("--new-finder trains a new finder beside the reader of --from: "
                                "no --reader-only, --photos, --take, --faces, --reader-steps, "
                                "--reader-widths")
    elif args.reader_only or args.photos or args.take or args.base:
        return _fine_tune(args, designs)
    if args.reader_widths and not args.new_reader:
        raise CommandFailed("--reader-widths goes with --new-reader")
    plan = full.Plan(out=args.out, seed=args.seed, minutes=args.minutes,
                     finder_steps=args.finder_steps or args.steps,
                     reader_steps=args.reader_steps or args.steps, designs=designs,
                     faces=args.faces, threads=args.threads, workers=args.workers,
                     dense_fans=args.dense_fans or 0.0, card_pool=args.card_pool,
                     card_steps=args.steps, progress=not args.quiet,
                     log=lambda line: print(line, file=sys.stderr))
    if args.new_reader:
        plan.finder_from = args.base or shipped_model
        if args.reader_widths:
            plan.reader_channels = _widths(args.reader_widths)
    if args.new_finder:
        plan.reader_from = args.base or shipped_model
    report = _run(full.train, plan, args.out)
    reader = (f"the reader kept from {plan.reader_from}" if args.new_finder
              else f"reader accuracy {report['reader_scores']['accuracy']:.1%}")
    if args.new_reader:
        finder = f"the finder kept from {plan.finder_from}"
    else:
        index = report["finder_scores"]["index"]
        finder = f"finder recall {_pct(index['recall'])}, precision {_pct(index['precision'])}"
    if "card_run" in report:
        card_said = f"; the card reader kept from {report['card_run']['kept_from']}"
    elif "card_reader" in report:
        card_said = f"; card reader {report['card_reader']['scores']['accuracy']:.1%} right"
    else:
        card_said = "; no card reader (--from has none): cards are read by their corners"
    card_file = ", card.onnx" if "card_reader" in report else ""
    print(f"wrote {args.out}/corners.onnx, index.onnx{card_file}, report.json in "
          f"{report['wall_seconds'] / 60:.1f} min; on {report['scored_on']}: {reader}; "
          f"{finder}{card_said}; finder "
          f"{report['speed_one_thread']['finder_ms_1024x576']} ms per 1024x576 frame on one "
          "thread")
    return 0


NO_CHECKOUT = ("vision train runs from a checkout of the repository: the training code "
               "(its training/ folder) is not in the installed package. In the checkout: "
               "pip install -e '.[train]', then run dealer-assist vision train there")


def _training(module: str) -> ModuleType:
    """`training.<module>`: found where Python finds it (a checkout's folder on the path), else
    in the checkout this `dealer_assist` runs from (an editable install's), else a clear
    refusal; a missing PyTorch (the `[train]` extra) is one too."""
    name = f"training.{module}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] != "training":
            raise _no_torch(e) from None
    except ImportError as e:
        raise _no_torch(e) from None
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / "training" / "__init__.py").is_file():
        raise CommandFailed(NO_CHECKOUT)
    sys.path.append(str(checkout))
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise _no_torch(e) from None


def _no_torch(e: ImportError) -> CommandFailed:
    return CommandFailed(f"training needs PyTorch ({e.name} is missing): "
                         "pip install -e '.[train]'")


def _run(step: Callable[[Any], dict[str, Any]], plan: Any, out: Path) -> dict[str, Any]:
    """A training step's report; its refusals, and a model folder it cannot write, as the
    command's clear error."""
    train_error = _training("fit.loop").TrainError
    try:
        return step(plan)
    except train_error as e:
        raise CommandFailed(str(e)) from None
    except OSError as e:
        raise CommandFailed(f"cannot write the model into {out}: {e.strerror}") from None


def _widths(spec: str) -> tuple[int, int, int, int, int]:
    """`24,48,72,144,192` -> the reader's five layer widths."""
    try:
        widths = tuple(int(w) for w in spec.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 5 or min(widths) < 1:
        raise CommandFailed(f"--reader-widths {spec}: five whole numbers above 0, as "
                            "24,48,72,144,192")
    return widths


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def photo_names(spec: str) -> list[str]:
    """`001-008,012,044` -> ['001', ..., '008', '012', '044'] (a range keeps its zero padding)."""
    names: list[str] = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        low, dash, high = item.partition("-")
        if dash and low.isdigit() and high.isdigit():
            if int(high) < int(low):
                raise CommandFailed(f"--take {item}: the range runs backwards")
            names += [f"{n:0{len(low)}d}" for n in range(int(low), int(high) + 1)]
        else:
            names.append(item)
    if not names:
        raise CommandFailed("--take names no photo")
    return names


def _fine_tune(args: argparse.Namespace, designs: list[str] | None) -> int:
    if not (args.reader_only and args.photos):
        raise CommandFailed("--photos, --take and --from go with --reader-only, and "
                            "--reader-only needs --photos DIR")
    if args.faces is not None or args.finder_steps is not None:
        raise CommandFailed("--reader-only trains the reader alone: no --faces, --finder-steps")
    reader_tune = _training("fit.reader_tune")

    take = photo_names(args.take) if args.take else None
    minutes = args.minutes if args.minutes != DEFAULT_MINUTES else READER_ONLY_MINUTES
    plan = reader_tune.FineTune(
        photos=args.photos, take=take, out=args.out, base=args.base, seed=args.seed,
        minutes=minutes, steps=args.reader_steps or args.steps, designs=designs,
        fans=args.dense_fans or 0.0, blend=1.0 if args.blend is None else args.blend,
        threads=args.threads, workers=args.workers, progress=not args.quiet,
        log=lambda line: print(line, file=sys.stderr))
    report = _run(reader_tune.fine_tune, plan, args.out)["reader_fine_tune"]
    before, after = report["before"], report["after"]
    print(f"wrote {args.out}/index.onnx (fine-tuned), corners.onnx, report.json in "
          f"{report['wall_seconds'] / 60:.1f} min; {report['labelled_cards']} cards of "
          f"{report['listed_cards']} labelled on {len(report['photos'])} photos; reader on "
          f"those crops {_pct(before['photo_accuracy'])} -> {_pct(after['photo_accuracy'])}, "
          f"on {report['scored_on']} {_pct(before['held_out']['accuracy'])} -> "
          f"{_pct(after['held_out']['accuracy'])}")
    return 0


def _finder_tune(args: argparse.Namespace, designs: list[str] | None) -> int:
    if args.reader_only or args.new_reader or args.new_finder or args.photos or args.take \
            or args.faces is not None or args.reader_steps is not None:
        raise CommandFailed("--finder-only trains the finder alone: no --reader-only, "
                            "--new-reader, --new-finder, --photos, --take, --faces, --reader-steps")
    finder_tune = _training("fit.finder_tune")
    minutes = args.minutes if args.minutes != DEFAULT_MINUTES else READER_ONLY_MINUTES
    plan = finder_tune.FinderTune(
        out=args.out, base=args.base, seed=args.seed, minutes=minutes,
        steps=args.finder_steps or args.steps,
        dense_fans=0.5 if args.dense_fans is None else args.dense_fans, designs=designs,
        threads=args.threads, workers=args.workers, progress=not args.quiet,
        log=lambda line: print(line, file=sys.stderr))
    report = _run(finder_tune.finder_tune, plan, args.out)["finder_fine_tune"]
    before, after = report["before"]["index"], report["after"]["index"]
    print(f"wrote {args.out}/corners.onnx (fine-tuned), index.onnx, report.json in "
          f"{report['wall_seconds'] / 60:.1f} min; finder on {report['scored_on']}: recall "
          f"{_pct(before['recall'])} -> {_pct(after['recall'])}, precision "
          f"{_pct(before['precision'])} -> {_pct(after['precision'])}")
    return 0


def _card_only(args: argparse.Namespace, designs: list[str] | None) -> int:
    if args.reader_only or args.finder_only or args.new_reader or args.new_finder \
            or args.photos or args.take or args.faces is not None \
            or args.finder_steps is not None or args.reader_steps is not None \
            or args.dense_fans is not None or args.reader_widths:
        raise CommandFailed("--card-only trains the card reader alone: no --reader-only, "
                            "--finder-only, --new-reader, --new-finder, --photos, --take, "
                            "--faces, --finder-steps, --reader-steps, --dense-fans, "
                            "--reader-widths")
    card_reader = _training("fit.card_reader")
    minutes = args.minutes if args.minutes != DEFAULT_MINUTES else CARD_ONLY_MINUTES
    plan = card_reader.CardTrain(
        out=args.out, base=args.base, seed=args.seed, minutes=minutes, steps=args.steps,
        pool=args.card_pool, designs=designs, threads=args.threads, workers=args.workers,
        progress=not args.quiet, log=lambda line: print(line, file=sys.stderr))
    report = _run(card_reader.train_card_reader, plan, args.out)["card_reader"]
    scores = report["scores"]
    print(f"wrote {args.out}/card.onnx, corners.onnx, index.onnx (copied), report.json in "
          f"{report['wall_seconds'] / 60:.1f} min; card reader on {report['scored_on']}: "
          f"{_pct(scores['accuracy'])} right, {_pct(scores['sure_share'])} read at "
          f"{scores['sure_at']:g} or more, {scores['wrong_among_sure']} of them wrong")
    return 0
