"""Audit throughput: full audit of a trace against parsing its JSON lines alone.

Generates 1,000 shoes (about 80,000 games) dealt by the rules, then in this one process times
(1) `json.loads` of every line and (2) the whole audit (`audit_lines`: parse, validate, table
machine, report). Prints events per second for each and the ratio audit / parse (goal: <= 3).
Then, as whole processes on the trace written to a file, `dealer-assist audit FILE --json` with
its output to /dev/null against `python -c` reading the file and `json.loads` of each line: the
physical floor, the parse itself (goal, issue 66: <= 1.5 times the floor). The two processes
take turns, run by run, so that a busy machine slows both alike; the last line gives the
figure, the floor and the ratio to the goal, in wall time and in CPU time (user + system).

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

from dealer_assist.devices.deal.dealing import deal_shoe  # noqa: E402
from dealer_assist.domain.house import HouseRules  # noqa: E402
from dealer_assist.services.audit import audit_lines  # noqa: E402

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


#: The whole process's goal, in times the floor (the parse-only process): issue 66.
PROCESS_GOAL = 1.5


def process_times(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one process, its output to /dev/null."""
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, argv)
    return wall, usage.ru_utime + usage.ru_stime


def whole_processes(lines: list[str], repeat: int) -> dict[str, tuple[float, float]]:
    """Best wall and CPU times of a parse-only process ("parse") and of `dealer-assist audit
    FILE --json > /dev/null` ("audit"), the two run in turn `repeat` times."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs: dict[str, list[tuple[float, float]]] = {"parse": [], "audit": []}
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        trace.write_text("\n".join(lines) + "\n")
        for _ in range(repeat):
            runs["parse"].append(process_times(["-c", PARSE_PROCESS, str(trace)], env))
            runs["audit"].append(process_times(
                ["-m", "dealer_assist.cli", "audit", str(trace), "--json"], env))
    return {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in runs.items()}


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

    best = whole_processes(lines, args.repeat)
    (parse_p, parse_cpu), (audit_p, audit_cpu) = best["parse"], best["audit"]
    ratio_p = audit_p / parse_p
    print(f"whole processes: parse {parse_p:.3f} s, `dealer-assist audit FILE --json` {audit_p:.3f} s")
    print(f"ratio, processes      : {ratio_p:7.2f}   (goal <= 3: {'met' if ratio_p <= 3 else 'NOT met'}, "
          f"aim 1.5: {'met' if ratio_p <= 1.5 else 'not yet'}; best of {args.repeat} runs)")
    ratio_cpu = audit_cpu / parse_cpu
    print(f"audit process {audit_p:.3f} s wall, {audit_cpu:.3f} s CPU; floor (the parse itself) "
          f"{parse_p:.3f} s wall, {parse_cpu:.3f} s CPU; {ratio_p:.2f}x / {ratio_cpu:.2f}x the floor, "
          f"{ratio_p / PROCESS_GOAL:.2f} / {ratio_cpu / PROCESS_GOAL:.2f} of the goal "
          f"({PROCESS_GOAL}x: {'met' if ratio_p <= PROCESS_GOAL else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
