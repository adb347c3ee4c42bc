"""Restart of the live table: from a snapshot and its tail vs replaying the whole log.

Builds a table's SQLite log of about `--events` events (shoes dealt by the rules from
`devices/deal/`, every variant, a dealer mistake and a supervisor decision in each
shoe, some made after the next shoe began), appended in batches straight into the file. Then,
each in a child process of its own, as `dealer-assist run` builds the table (the SQLite log,
its snapshots, the side-bet guard, the live table ready with its public view):

  (b) full replay: no snapshot yet; the whole log is replayed (and the first snapshot
      written once the table is ready, not timed);
  then `--tail` more events are dealt into the log (half a shoe: the table stopped mid-shoe),
  (a) restart: the snapshot, then the tail (and the current shoe again for the guard).

Times exclude the interpreter's start and imports (printed apart). Goal: (a) in 2 s or less
at 1,000,000 events. The last line is JSON: {"events", "restart_s", "full_replay_s"}.

    .venv/bin/python benchmarks/restart.py [--events 1000000] [--tail 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.export import BATCH, MISTAKES, VARIANTS, peak_mb  # noqa: E402

GOAL_S = 2.0


def dealt_events(seed: int) -> Any:
    """Shoe after shoe of events, each shoe with a mistake and a decision or two."""
    from dealer_assist.devices.deal.dealing import deal_shoe_detailed
    from dealer_assist.domain.house import HouseRules

    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    shoes = 0
    while True:
        house = HouseRules(variant=VARIANTS[shoes % 3], burn_after_each_game=shoes % 2 == 1)
        dealt = deal_shoe_detailed(rng, house, shoe_id=f"S{shoes + 1}",
                                   mistakes=[MISTAKES[shoes % len(MISTAKES)]], start=start)
        shoes += 1
        events = dealt.events
        flagged = [game for _, game in dealt.expected_flags if game is not None]
        if flagged:
            events.append({"ts": events[-1]["ts"], "src": "supervisor", "type": "decision",
                           "game": flagged[0], "action": "accept", "by": "S-104",
                           "reason": "checked on the surveillance video"})
        if shoes % 10 == 0:  # a ruling on the shoe before, made late
            events.insert(40, {"ts": events[39]["ts"], "src": "supervisor", "type": "decision",
                               "game": 1, "action": "void", "by": "S-007",
                               "reason": "late ruling", "shoe_id": f"S{shoes - 1}"})
        yield from events
        start += timedelta(hours=1, minutes=15)


def append(path: Path, source: Any, count: int, what: str) -> None:
    """Append the next `count` events of `source` to the log at `path`, in batches."""
    from tqdm import tqdm

    from dealer_assist.store.sqlite_log import SqliteEventLog

    log = SqliteEventLog(path, checkpoint_interval=None)
    with tqdm(total=count, desc=what, unit="event", unit_scale=True, file=sys.stderr) as bar:
        left = count
        while left:
            batch = [next(source) for _ in range(min(BATCH, left))]
            log.append_many(batch)
            left -= len(batch)
            bar.update(len(batch))
    log.close()


def child(db: Path) -> dict[str, Any]:
    """Start the table over `db` in a child process; its figures."""
    proc = subprocess.run([sys.executable, __file__, "--child", str(db)], stdout=subprocess.PIPE,
                          stderr=None, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the child failed with status {proc.returncode}:\n{proc.stdout}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_child(db: Path) -> int:
    """In the child: build the table as bootstrap does and time it until it is ready."""
    t0 = time.perf_counter()
    from dealer_assist.bootstrap import SideBetGuard
    from dealer_assist.config import load_paytables
    from dealer_assist.domain.house import HouseRules
    from dealer_assist.services.live_table import LiveTable
    from dealer_assist.store.snapshot import TableSnapshots
    from dealer_assist.store.snapshot_seal import SnapshotSeal
    from dealer_assist.store.sqlite_log import SqliteEventLog

    paytables = load_paytables()
    imports = time.perf_counter() - t0
    t0 = time.perf_counter()
    log = SqliteEventLog(db)
    seal = SnapshotSeal("T1", b"the benchmark's sealing key, no secret")
    live = LiveTable(log, table_id="T1", house=HouseRules(), paytables=paytables,
                     watchers=[SideBetGuard(paytables)], snapshots=TableSnapshots(log, db, seal))
    live.public()
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    live.close()  # the snapshot it took once ready
    written = time.perf_counter() - t0
    log.close()
    print(json.dumps({"seconds": seconds, "imports": imports, "started": live.started,
                      "snapshot_write_s": written, "peak_mb": peak_mb()}))
    return 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return run_child(Path(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--tail", type=int, default=300,
                        help="events dealt after the snapshot, before the restart (300)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="(the last line is JSON anyway)")
    args = parser.parse_args()
    if args.events < 1 or args.tail < 0:
        parser.error("--events must be 1 or more, --tail 0 or more")

    with tempfile.TemporaryDirectory(prefix="restart-bench-") as tmp:
        db = Path(tmp) / "T1.events.db"
        source = dealt_events(args.seed)
        t0 = time.perf_counter()
        append(db, source, args.events, "building the log")
        print(f"built the log: {args.events:,} events in {time.perf_counter() - t0:.1f} s "
              f"({db.stat().st_size / 2**20:.0f} MB)")
        full = child(db)
        print(f"full replay   : {full['seconds']:7.2f} s  ({full['started']}; peak RSS "
              f"{full['peak_mb']:.0f} MB; imports {full['imports']:.2f} s apart)")
        (snapshot,) = Path(tmp).glob("T1.events.db.snapshot.*")
        print(f"snapshot      : {snapshot.stat().st_size / 2**20:.1f} MB, written in "
              f"{full['snapshot_write_s']:.2f} s off the lock")
        append(db, source, args.tail, "dealing on after the snapshot")
        restart = child(db)
        print(f"restart       : {restart['seconds']:7.2f} s  ({restart['started']}; peak RSS "
              f"{restart['peak_mb']:.0f} MB)")
        verdict = "met" if restart["seconds"] <= GOAL_S else "NOT met"
        print(f"restart / goal ({GOAL_S:.0f} s): {restart['seconds'] / GOAL_S:.2f} ({verdict}); "
              f"full replay / restart: {full['seconds'] / restart['seconds']:.0f}x")
        print(json.dumps({"events": args.events, "restart_s": round(restart["seconds"], 3),
                          "full_replay_s": round(full["seconds"], 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
