"""Export and verify a log of 1,000,000 events: seconds and peak memory of each.

Builds a table's SQLite log of about `--events` events (shoes dealt by the rules, every
variant, a dealer mistake and a supervisor decision in each shoe, and some decisions made
after the next shoe has started), in batches through `append_many`. Then runs, each in a
child process of its own, `dealer-assist export` of the whole log and `dealer-assist verify`
of the zip, and prints each one's wall time and peak resident memory (VmHWM of that child,
which includes the interpreter and its imports; the import-only baseline is printed too).

Beside each figure it prints the physical floor, measured in this process: for the export,
reading the log (every row, as the export reads it) and hashing it once (each event's link
in the chain: SHA-256 of prev_hash and the event); for verify, inflating events.jsonl from the
zip and hashing it once (SHA-256 of the whole file, and of each line). Goals: 10 s or less
for each at 1,000,000 events, peak memory under 200 MB for both, verify time under 2x export
time.

    .venv/bin/python benchmarks/export.py [--events 1000000] [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
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

from tqdm import tqdm  # noqa: E402

VARIANTS = ("standard", "super6", "7up")
MISTAKES = ("unneeded_draw", "cards_pulled_together", "missed_draw")
BATCH = 50_000
GOAL_S = 10.0
GOAL_MB = 200.0


def build_log(path: Path, events: int, seed: int) -> tuple[int, int]:
    """A log of about `events` events; returns (events, shoes)."""
    from dealer_assist.devices.deal.dealing import deal_shoe_detailed
    from dealer_assist.domain.house import HouseRules
    from dealer_assist.store.sqlite_log import SqliteEventLog

    rng = random.Random(seed)
    log = SqliteEventLog(path)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    batch: list[dict[str, Any]] = []
    shoes = written = 0
    with tqdm(total=events, desc="building the log", unit="event", unit_scale=True,
              file=sys.stderr) as bar:
        while written + len(batch) < events:
            house = HouseRules(variant=VARIANTS[shoes % 3], burn_after_each_game=shoes % 2 == 1)
            mistake = MISTAKES[shoes % len(MISTAKES)]
            dealt = deal_shoe_detailed(rng, house, shoe_id=f"S{shoes + 1}", mistakes=[mistake],
                                       start=start)
            shoes += 1
            batch.extend(dealt.events)
            last_ts = dealt.events[-1]["ts"]
            flagged = [game for code, game in dealt.expected_flags if game is not None]
            if flagged:
                batch.append({"ts": last_ts, "src": "supervisor", "type": "decision",
                              "game": flagged[0], "action": "accept", "by": "S-104",
                              "reason": "checked on the surveillance video"})
            if shoes % 10 == 0 and shoes > 1:  # a ruling on the shoe before, made late
                batch.append({"ts": last_ts, "src": "supervisor", "type": "decision",
                              "game": 1, "action": "void", "by": "S-007",
                              "reason": "late ruling", "shoe_id": f"S{shoes - 1}"})
            start += timedelta(hours=1, minutes=15)
            if len(batch) >= BATCH:
                log.append_many(batch)
                written += len(batch)
                bar.update(len(batch))
                batch = []
        if batch:
            log.append_many(batch)
            written += len(batch)
            bar.update(len(batch))
    log.close()
    return written, shoes


def child(command: list[str]) -> tuple[float, float, str]:
    """Run this script as a child doing `command`; (seconds, peak RSS in MB, its output)."""
    proc = subprocess.run([sys.executable, __file__, "--child", *command],
                          stdout=subprocess.PIPE, stderr=None, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child {command[0]} failed with status {proc.returncode}:\n"
                         f"{proc.stdout}")
    lines = proc.stdout.strip().splitlines()
    result = json.loads(lines[-1])
    return result["seconds"], result["peak_mb"], "\n".join(lines[:-1])


def export_floor(db: Path) -> float:
    """Seconds to read every row of the log and hash each event's link once."""
    import hashlib
    import sqlite3

    sha256 = hashlib.sha256
    t0 = time.perf_counter()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    cursor = conn.execute("SELECT seq, body, prev_hash, hash FROM events ORDER BY seq")
    while rows := cursor.fetchmany(8192):
        for _seq, body, prev, _digest in rows:
            sha256((prev + body).encode()).hexdigest()
    conn.close()
    return time.perf_counter() - t0


def verify_floor(out: Path) -> float:
    """Seconds to inflate events.jsonl, hash the file once and each line once."""
    import hashlib
    import zipfile

    sha256 = hashlib.sha256
    t0 = time.perf_counter()
    whole, pending = sha256(), b""
    with zipfile.ZipFile(out) as zf, zf.open("events.jsonl") as member:
        while chunk := member.read(1 << 20):
            whole.update(chunk)
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                sha256(line).hexdigest()
    whole.hexdigest()
    return time.perf_counter() - t0


def peak_mb() -> float:
    """This process's peak resident memory: VmHWM (Linux resets it at exec, unlike ru_maxrss,
    which a child inherits from the parent it was forked from)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(argv: list[str]) -> int:
    """In the child: import only what the command needs, run it, print its time as JSON."""
    import argparse as ap

    from dealer_assist.commands import export as export_cmd
    from dealer_assist.commands import verify as verify_cmd

    if argv[0] == "baseline":
        print(json.dumps({"seconds": 0.0, "peak_mb": peak_mb()}))
        return 0
    module = {"export": export_cmd, "verify": verify_cmd}[argv[0]]
    parser = ap.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    status = module.run(args)
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb()}))
    return status


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return run_child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--keep", type=Path, help="build in this folder and keep the files")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()

    from dealer_assist.signing_keys import generate_keys

    with tempfile.TemporaryDirectory(prefix="export-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db, out = folder / "T1.events.db", folder / "T1.zip"
        if not db.exists():
            t0 = time.perf_counter()
            events, shoes = build_log(db, args.events, args.seed)
            print(f"built the log: {events:,} events, {shoes:,} shoes in "
                  f"{time.perf_counter() - t0:.1f} s ({db.stat().st_size / 2**20:.0f} MB)")
        pair = generate_keys(folder / f"keys-{os.getpid()}")
        out.unlink(missing_ok=True)
        _, base_mb, _ = child(["baseline"])
        export_s, export_mb, said = child([
            "export", "--from", "2000-01-01", "--to", "2100-01-01", "--db", str(db),
            "--out", str(out), "--signing-key", str(pair.private)])
        print(said)
        verify_s, verify_mb, said = child(["verify", str(out), "--pubkey", str(pair.public)])
        print(said[:300])
        floors = {"export": export_floor(db), "verify": verify_floor(out)}
        load = os.getloadavg()
        figures = {"export": (export_s, export_mb), "verify": (verify_s, verify_mb)}
        print(f"zip: {out.stat().st_size / 2**20:.0f} MB; load average "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
        print(f"imports only : peak RSS {base_mb:7.1f} MB")
        for name, (seconds, mb) in figures.items():
            print(f"{name:<13}: {seconds:7.1f} s  peak RSS {mb:7.1f} MB  floor {floors[name]:5.1f} s"
                  f" (x{seconds / floors[name]:.1f} the floor)  {seconds / GOAL_S:.2f} of the "
                  f"goal ({GOAL_S:.0f} s: {'met' if seconds <= GOAL_S else 'NOT met'})")
        ratio = verify_s / export_s
        print(f"verify / export time: {ratio:.2f}  (goal < 2: {'met' if ratio < 2 else 'NOT met'})")
        worst = max(export_mb, verify_mb)
        verdict = "met" if worst < GOAL_MB else "NOT met"
        print(f"peak memory: {worst:.1f} MB  (goal < {GOAL_MB:.0f} MB: {verdict})")
        if args.json:
            print(json.dumps({
                "events": args.events, "load_average": load, "imports_peak_mb": base_mb,
                **{name: {"seconds": seconds, "peak_mb": mb, "floor_s": floors[name],
                          "goal_ratio": seconds / GOAL_S}
                   for name, (seconds, mb) in figures.items()},
            }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
