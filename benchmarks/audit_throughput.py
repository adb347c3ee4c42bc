"""Audit throughput: full audit of a trace against parsing its JSON lines alone.

Generates 1,000 shoes (about 80,000 games) dealt by the rules, then in this one process times
(1) `json.loads` of every line and (2) the whole audit (`audit_lines`: parse, validate, table
machine, report). Prints events per second for each and the ratio audit / parse (goal: <= 3).
Then, as whole processes on the trace written to a file, `dealer-assist audit FILE --json` with
its output to /dev/null against `python -c` reading the file and `json.loads` of each line
(goal: <= 3, aim 1.5).

    .venv/bin/python benchmarks/audit_throughput.py [--shoes 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from dealer_assist.domain.house import HouseRules  # noqa: E402
from dealer_assist.services.audit import audit_lines  # noqa: E402
from dealer_assist.services.shoe_deal import deal_shoe  # noqa: E402

VARIANTS = ("standard", "super6", "7up")


def generate(shoes: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    lines: list[str] = []
    for i in tqdm(range(shoes), desc="dealing shoes", unit="shoe", file=sys.stderr):
        house = HouseRules(variant=VARIANTS[i % 3], burn_after_each_game=i % 2 == 1)
        for event in deal_shoe(rng, house, shoe_id=f"S{i + 1}", start=start):
            lines.append(json.dumps(event, separators=(",", ":")))
    return lines


def timed(repeat: int, fn) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


PARSE_PROCESS = "import json, sys\nfor line in open(sys.argv[1], 'rb'): json.loads(line)"


def whole_processes(lines: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time of `dealer-assist audit FILE --json > /dev/null` and of a parse-only process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        trace.write_text("\n".join(lines) + "\n")

        def process(*argv: str) -> float:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, check=True,
                           stdout=subprocess.DEVNULL)
            return time.perf_counter() - t0

        parse = min(process("-c", PARSE_PROCESS, str(trace)) for _ in range(repeat))
        audit = min(process("-m", "dealer_assist.cli", "audit", str(trace), "--json")
                    for _ in range(repeat))
    return parse, audit


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shoes", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the best is reported")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()

    lines = generate(args.shoes, args.seed)
    report = audit_lines(lines)
    games = sum(len(s["games"]) for s in report["shoes"])
    flagged = sum(1 for s in report["shoes"] for g in s["games"] if g["flags"])
    loads = json.loads

    def parse_only() -> None:
        for line in lines:
            loads(line)

    parse_runs = timed(args.repeat, parse_only)
    audit_runs = timed(args.repeat, lambda: audit_lines(lines))
    parse_s, audit_s = min(parse_runs), min(audit_runs)
    n = len(lines)
    print(f"trace: {args.shoes} shoes, {games} games, {n} events ({flagged} games flagged)")
    print(f"parse JSON lines only : {parse_s:7.3f} s  {n / parse_s:12,.0f} events/s")
    print(f"full audit            : {audit_s:7.3f} s  {n / audit_s:12,.0f} events/s")
    ratio = audit_s / parse_s
    print(f"ratio audit / parse   : {ratio:7.2f}   (goal <= 3: {'met' if ratio <= 3 else 'NOT met'})")
    print(f"per event: parse {parse_s / n * 1e6:.2f} us, audit {audit_s / n * 1e6:.2f} us "
          f"(best of {args.repeat} runs; median ratio "
          f"{statistics.median(audit_runs) / statistics.median(parse_runs):.2f})")

    parse_p, audit_p = whole_processes(lines, args.repeat)
    ratio_p = audit_p / parse_p
    print(f"whole processes: parse {parse_p:.3f} s, `dealer-assist audit FILE --json` {audit_p:.3f} s")
    print(f"ratio, processes      : {ratio_p:7.2f}   (goal <= 3: {'met' if ratio_p <= 3 else 'NOT met'}, "
          f"aim 1.5: {'met' if ratio_p <= 1.5 else 'not yet'}; best of {args.repeat} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
