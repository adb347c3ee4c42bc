"""`dealer-assist verify-log DB`: walk a table's event log and check its hash chain."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tqdm import tqdm

from dealer_assist.logformat import DEFAULT_CHECKPOINT_EVERY
from dealer_assist.signing_keys import KeyProblem, load_public_key, public_check
from dealer_assist.store.signed_checkpoints import check_signed
from dealer_assist.store.sqlite_log import NotAnEventLog, SqliteEventReader
from dealer_assist.store.verify import Verdict, verify_chain

HELP = """\
Walk the hash chain of a table's event log (an SQLite file written by the table service)
and check every event: that it matches its hash, chains to the event before it, and agrees
with the recorded checkpoints. The file is opened read-only.

Prints OK with the chain head, or the first event that does not verify and why:
  edited     an event was changed (or an event at or before a checkpoint, and the chain
             recomputed after it)
  deleted    events are missing (in the middle, or at the end before a checkpoint)
  inserted   events were added between two that chain to each other
  reordered  an event chains to one stored after it
A warning is printed when the triggers that keep the log append-only are missing.

With --pubkey (the table's public key), the checkpoints the table signed are checked too, and
the log fails, naming what was found, when a signature does not verify or the log was
rewritten under a signed checkpoint, cut back past one, or signed checkpoints were removed
(a break in their own chain, or more than --unsigned-tail events after the last one). See
docs/log-integrity.md for what this anchors and what it cannot.

Exit status: 0 OK, 1 the chain (or its signed checkpoints) does not verify, 2 the file cannot
be read as an event log or the key cannot be read.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify-log",
        help="check the hash chain of a table's event log",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("db", metavar="DB", help="the table's event log (SQLite file)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--pubkey", metavar="FILE",
                        help="the table's public key: check the signed checkpoints too")
    parser.add_argument("--table", metavar="ID",
                        help="with --pubkey: the table id the checkpoints must be signed as")
    parser.add_argument("--unsigned-tail", type=int, default=DEFAULT_CHECKPOINT_EVERY,
                        metavar="N", help="with --pubkey: the most events an honest log holds "
                        f"after its last signed checkpoint (default {DEFAULT_CHECKPOINT_EVERY})")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        holds = public_check(load_public_key(args.pubkey)) if args.pubkey else None
    except KeyProblem as exc:
        print(f"verify-log: {exc}", file=sys.stderr)
        return 2
    signed: str | None = None
    try:
        reader = SqliteEventReader(args.db)
        checkpoints = reader.checkpoints()
        missing = reader.missing_triggers()
        total = reader.head().seq
        with tqdm(total=total, desc="verifying", unit="event", file=sys.stderr,
                  disable=not sys.stderr.isatty() or args.json, mininterval=0.5) as bar:
            verdict = verify_chain(reader.raw_records, checkpoints,
                                   lambda count: bar.update(count - bar.n))
        if holds is not None:
            signed = check_signed(reader, holds, args.unsigned_tail, args.table)
    except (FileNotFoundError, NotAnEventLog) as exc:
        print(f"verify-log: {exc}", file=sys.stderr)
        return 2
    if missing:
        print(
            f"verify-log: warning: {args.db} lacks the append-only triggers "
            f"{', '.join(missing)}: someone dropped them",
            file=sys.stderr,
        )
    if args.json:
        result = _as_json(verdict, missing)
        if holds is not None:
            result["signed_checkpoints_problem"] = signed
        print(json.dumps(result))
    else:
        checked = "; signed checkpoints verify" if holds is not None and signed is None else ""
        print(_as_text(verdict) + (checked if verdict.ok else ""))
        if signed is not None:
            print(f"FAIL: signed checkpoints: {signed}")
    return 0 if verdict.ok and signed is None else 1


def _as_text(verdict: Verdict) -> str:
    if verdict.problem is None:
        return (
            f"OK: {verdict.events} events, chain head seq {verdict.head.seq} "
            f"hash {verdict.head.hash}, {verdict.checkpoints} checkpoints"
        )
    problem = verdict.problem
    return f"FAIL at seq {problem.seq}: {problem.kind}: {problem.detail}"


def _as_json(verdict: Verdict, missing: list[str]) -> dict[str, Any]:
    problem = verdict.problem
    return {
        "ok": verdict.ok,
        "events_verified": verdict.events,
        "head": {"seq": verdict.head.seq, "hash": verdict.head.hash},
        "checkpoints": verdict.checkpoints,
        "problem": None
        if problem is None
        else {"seq": problem.seq, "kind": problem.kind, "detail": problem.detail},
        "missing_triggers": missing,
    }
