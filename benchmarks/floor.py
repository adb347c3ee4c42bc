"""The floor under load: N emulated tables dealing into their own logs and shipping to one
central PostgreSQL, the lag from each table's commit to the central commit, and the catch-up
after an outage of the central store.

Each table deals shoe after shoe by the rules (`devices.deal.deal_shoe_detailed`, a
dealer mistake in every shoe), at `--speed` times the built-in shoe's live pace
(`devices.shoe.step_times`: `PACE[...].live_s`), each event appended to the table's own SQLite
log (`store.sqlite_log`, one file per table, stamped with the time it is appended), and
shipped with the table's own `shipping.shipper.Shipper` on its own connection, as its own role.
The tables are shared among `--procs` processes; in each, one thread deals for every table
(a timer heap) and `--workers` threads ship: a table is queued for shipping as soon as it
appends (no polling; `--window MS` waits that long first, so one batch takes what follows),
and a table that fails (the store is down) is retried after a pause that grows from 0.25 s
to 2 s. The window (100 ms by default) stands for the shipper's own pace: the table service's
shipper polls its log every 0.5 s; shipping every event on its own costs one transaction per
event, and at 500 tables on 2 cores that overhead, not the events, is what fills the machine
(docs/floor.md, "Catch-up and the benchmark"). `--poll SECONDS` runs each table's Shipper in its own thread instead, as the table
service does, polling its log every SECONDS. The floor service's folder (floor/fold.py) runs
beside them, in the main process, on the store's owner: it folds the read models from the
stored events as the floor service does (woken by each stored batch), so the store carries
both loads; what it has left at the end is folded before the figures, which it does not change.

Without `--dsn` the benchmark starts its own throwaway cluster (initdb, pg_ctl: floor.cluster)
with `track_commit_timestamp = on` and `max_connections` above N, so a central commit time is
exact: `pg_xact_commit_timestamp(xmin)` of each stored event. With `--dsn` (a store's owner)
the central time is the event's `received_at`, its transaction's start (a little early).

Figures (the last line of the output, JSON):
  tables, events (appended locally), events_per_s (appended per second of dealing),
  lag_ms_p50, lag_ms_p99: from an event's local commit to its central commit (events appended
      in the first --warmup seconds, and during the outage until the floor caught up, are left
      out: the first warm new server processes, the others wait by design),
  lost: events of a table's log missing centrally; duplicated: central events that are not
      the table's (a seq stored twice, or a hash that differs),
  catch_up_s: from the store's restart after `--outage SECONDS` (pg_ctl stop, the tables keep
      dealing, pg_ctl start) until every table's oldest unshipped event is under 1 s old
      (null without an outage).
Goal (issue 36): 500 tables at --speed 10, p99 <= 500 ms, 0 lost, 0 duplicated, and after a
300 s outage caught up in <= 30 s, on a 2-core machine.

    .venv/bin/python benchmarks/floor.py --tables 50 --minutes 1 --speed 10 [--outage 60] --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import pickle
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.floor_shipping import run_share  # noqa: E402

# ---- the floor ---------------------------------------------------------------------------

def make_floor(owner_dsn: str, count: int) -> list[tuple[str, str]]:
    """Migrate the store and add `count` tables with fresh ids: [(table, role password)]."""
    import psycopg

    from dealer_assist.floor.migrations import migrate
    from dealer_assist.floor.roles import add_table, role_of

    run = secrets.token_hex(2)
    made = []
    with psycopg.connect(owner_dsn) as conn:
        migrate(conn)
        for i in range(count):
            table = f"B{run}-{i + 1:03d}"
            made.append((table, add_table(conn, table)[1]))
            assert role_of(table)
    return made


def central_rows(owner_dsn: str, tables: list[str]) -> tuple[dict[tuple[str, int], tuple[str,
                                                                                       float]],
                                                                int, bool]:
    import psycopg

    with psycopg.connect(owner_dsn) as conn:
        setting = conn.execute("SHOW track_commit_timestamp").fetchone()
        exact = setting is not None and setting[0] == "on"
        when = "pg_xact_commit_timestamp(xmin)" if exact else "received_at"
        rows = conn.execute(f"SELECT table_id, seq, hash, extract(epoch FROM {when})::float8 "
                            "FROM events WHERE table_id = ANY(%s)", (tables,)).fetchall()
    return {(t, s): (h, at) for t, s, h, at in rows}, len(rows), exact


def local_rows(path: Path) -> dict[int, str]:
    from dealer_assist.store.sqlite_log import SqliteEventReader

    reader = SqliteEventReader(path)
    try:
        return {r.seq: r.hash for r in reader.raw_records()}
    finally:
        reader.close()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 1000) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50, help="emulated tables (default 50)")
    parser.add_argument("--minutes", type=float, default=1.0,
                        help="minutes of dealing, the outage not counted (default 1)")
    parser.add_argument("--speed", type=float, default=10.0,
                        help="times the live pace of a real table (default 10)")
    parser.add_argument("--outage", type=float, default=0.0, metavar="SECONDS",
                        help="stop the central store this long, 30 s into the dealing (or half-way "
                             "if shorter; own cluster only; default: no outage)")
    parser.add_argument("--dsn", help="an existing store's owner, without its password (that "
                        "is in libpq's password file, PGPASSFILE); default: a throwaway cluster")
    parser.add_argument("--procs", type=int, default=min(os.cpu_count() or 2, 4),
                        help="processes the tables are shared among (default: the CPUs, <= 4)")
    parser.add_argument("--workers", type=int, default=4,
                        help="shipping threads per process (default 4)")
    parser.add_argument("--window", type=float, default=100.0, metavar="MS",
                        help="wait this long after a table's first unshipped event before "
                             "shipping it, so one batch takes what follows (default 100; "
                             "counted in the lag. 0: ship each event as it is appended, a "
                             "transaction per event, which costs the store and the tables "
                             "more than it saves in lag once the machine is busy)")
    parser.add_argument("--poll", type=float, metavar="SECONDS",
                        help="instead: each Shipper in its own thread, as the table service "
                             "runs it, polling its log every SECONDS")
    parser.add_argument("--warmup", type=float, default=10.0, metavar="SECONDS",
                        help="leave the events of the first SECONDS of dealing out of the lag "
                             "figures: each table's first batches warm a new server process's "
                             "caches (default 10)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--json", action="store_true", help="only the JSON line on stdout")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.minutes <= 0 or args.speed <= 0 or args.outage < 0:
        parser.error("--tables, --minutes and --speed must be positive, --outage not negative")
    if args.outage and args.dsn:
        parser.error("--outage stops the benchmark's own cluster: it cannot be used with --dsn")

    from dealer_assist.floor.cluster import Cluster, ClusterProblem, bin_dir

    if not args.dsn and bin_dir() is None:
        print("floor benchmark skipped: PostgreSQL is not installed (no initdb; on Debian, "
              "apt-get install postgresql), and no --dsn was given", file=sys.stderr)
        return 0
    work = Path(tempfile.mkdtemp(prefix="floor-bench-",
                                 dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    os.chmod(work, 0o755)
    cluster = None
    try:
        if args.dsn:
            owner = args.dsn
        else:
            cluster = Cluster(work / "pg", settings={
                "max_connections": str(args.tables + 40), "track_commit_timestamp": "on",
                "synchronous_commit": "on", "shared_buffers": "256MB"})
            cluster.init()
            cluster.start()
            import psycopg

            with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE floor")
            owner = cluster.dsn(dbname="floor")
        result = run(args, owner, cluster, work)
    except ClusterProblem as exc:
        print(f"floor benchmark: {exc}", file=sys.stderr)
        return 2
    finally:
        if cluster is not None and cluster.running():
            cluster.stop("immediate")
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))
    return 0


def _role_dsn(owner: str, role: str, password: str) -> str:
    import psycopg.conninfo

    return psycopg.conninfo.make_conninfo(owner, user=role, password=password)


def fold_left(owner: str) -> int:
    """Fold what the folder had not folded yet when the dealing ended; the number folded."""
    import psycopg

    from dealer_assist.floor.fold import fold_pending

    with psycopg.connect(owner, autocommit=True) as conn:
        return fold_pending(conn)


def run(args: argparse.Namespace, owner: str, cluster: Any, work: Path) -> dict[str, Any]:
    from tqdm import tqdm

    from dealer_assist.floor.fold import Folder
    from dealer_assist.floor.roles import role_of

    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    made = make_floor(owner, args.tables)
    logs = work / "logs"
    logs.mkdir()
    tables = [(t, _role_dsn(owner, role_of(t), pw), str(logs / f"{t}.db")) for t, pw in made]
    procs = max(1, min(args.procs, args.tables))
    deal_s = args.minutes * 60 + args.outage
    start = time.time() + 5.0 + 0.04 * args.tables / procs  # after every table has connected
    until = start + deal_s
    ctx = mp.get_context("spawn")
    up_at = ctx.Value("d", 0.0)
    outs = [str(work / f"share-{i}.pickle") for i in range(procs)]
    children = [ctx.Process(target=run_share, args=(
        tables[i::procs], args.speed, args.seed + 1000 * i, args.workers, args.window / 1000.0,
        args.poll, start, until, up_at,
        60.0 + args.outage, outs[i])) for i in range(procs)]
    say(f"floor benchmark: {args.tables} tables at {args.speed:g}x for {deal_s:.0f} s in "
        f"{procs} processes" + (f", outage of {args.outage:g} s" if args.outage else ""))
    folder = Folder(owner, backoff=(0.25, 2.0)).start()
    for child in children:
        child.start()
    down_at = start + min(30.0, args.minutes * 30) if args.outage else None
    up = None
    with tqdm(total=int(deal_s), unit="s", desc="dealing", file=sys.stderr,
              disable=None) as bar:
        while (now := time.time()) < until:
            if down_at is not None and now >= down_at and up is None:
                bar.set_postfix_str("central store stopped")
                cluster.stop("fast")
                time.sleep(max(0.0, down_at + args.outage - time.time()))
                cluster.start()
                up = time.time()
                up_at.value = up
                bar.set_postfix_str("central store back")
            time.sleep(min(0.5, max(0.0, until - now)))
            bar.n = int(min(deal_s, max(0.0, time.time() - start)))
            bar.refresh()
    if up is None:
        up_at.value = -1.0  # no outage: the watchers stop at once
    for child in children:
        child.join()
    folder.stop()
    say(f"read models: {folder.folded} events folded as they were stored, "
        f"{fold_left(owner)} left at the end")
    shares = [pickle.loads(Path(out).read_bytes()) for out in outs if Path(out).exists()]
    if len(shares) != procs:
        raise SystemExit("floor benchmark: a table process failed (see above)")
    return figures(args, owner, tables, shares, start, deal_s, down_at, up)


def figures(args: argparse.Namespace, owner: str, tables: list[tuple[str, str, str]],
            shares: list[dict[str, Any]], start: float, deal_s: float, down_at: float | None,
            up: float | None) -> dict[str, Any]:
    central, stored, exact = central_rows(owner, [t for t, _, _ in tables])
    if not exact:
        print("floor benchmark: track_commit_timestamp is off: the central time is each "
              "event's transaction start (received_at)", file=sys.stderr)
    lost = duplicated = 0
    locals_total = 0
    by_table: dict[str, dict[int, str]] = {}
    for (table, seq), (digest, _) in central.items():
        by_table.setdefault(table, {})[seq] = digest
    for table, _, path in tables:
        mine, theirs = local_rows(Path(path)), by_table.get(table, {})
        locals_total += len(mine)
        lost += sum(1 for seq in mine if seq not in theirs)
        # stored but not the table's: a seq the table never wrote, or another hash there
        duplicated += sum(1 for seq, digest in theirs.items() if mine.get(seq) != digest)
    duplicated += stored - len(central)
    for share in shares:
        for alarm in share["alarms"]:
            print(f"floor benchmark: {alarm}", file=sys.stderr)
    caught = [s["caught"] for s in shares]
    catch_up = None
    if up is not None:
        catch_up = None if None in caught else round(max(caught) - up, 2)
    skip_from = down_at if down_at is not None else float("inf")
    # never caught up: every event after the outage began is left out
    never = float("inf") if None in caught else max(c for c in caught if c is not None)
    skip_to = skip_from if up is None else never
    lags = []
    warm = start + args.warmup
    for share in shares:
        for table, seq, at in share["times"]:
            if skip_from <= at <= skip_to or at < warm:
                continue
            got = central.get((table, seq))
            if got is not None:
                lags.append((got[1] - at) * 1000.0)
    events = sum(len(s["times"]) for s in shares)
    p50, p99 = percentile(lags, 0.5), percentile(lags, 0.99)
    return {
        "tables": len(tables),
        "events": events,
        "events_per_s": round(events / deal_s, 1),
        "lag_ms_p50": None if p50 is None else round(p50, 1),
        "lag_ms_p99": None if p99 is None else round(p99, 1),
        "lost": lost + max(0, events - locals_total),
        "duplicated": duplicated,
        "catch_up_s": catch_up,
    }


if __name__ == "__main__":
    raise SystemExit(main())
