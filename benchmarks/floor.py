"""The floor under load, on the product's own path: N emulated tables dealing into their own
logs and shipped by the table service's own shipper to one central PostgreSQL, the floor
service folding the pit's read models and telling `--browsers` pit boards; the lag from each
table's append to the central commit and to the pit boards, and the catch-up after an outage.

Each table deals shoe after shoe by the rules (`devices.deal.deal_shoe_detailed`, a
dealer mistake in every shoe), at `--speed` times the built-in shoe's live pace
(`devices.shoe.step_times`: `PACE[...].live_s`), each event appended to the table's own SQLite
log (`store.sqlite_log`, one file per table, stamped with the time it is appended) and
shipped by the table's own `shipping.shipper.Shipper`, in its own thread, on its own
connection, as its own role, built as the table service builds it: woken by each commit of
the log's writer, polling as a safety net, with its own backoff (benchmarks/floor_shipping.py;
no scheduler here). `--poll SECONDS`: the shippers are not woken and only poll (the table
service before the wake-up). The tables are shared among `--procs` processes.

The floor service (floor/web/app.py, on its own login, in its own process) folds the read
models from the stored events and sends the pit board's server-sent events; `--browsers`
clients log in as a supervisor and read `/pit/stream` as a browser's EventSource does
(benchmarks/floor_board.py). What it has left to fold at the end is folded before the figures.

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
      (null without an outage),
  board_lag_ms_p50, board_lag_ms_p99: from an event's local commit to its arrival on each
      pit board (the first `table` event for its table after its central commit), the same
      events left out (null with `--browsers 0`).
Goals (issue 63): 500 tables at --speed 10, lag p99 <= 500 ms, board lag p99 <= 1,000 ms with
10 browsers, 0 lost, 0 duplicated, and after a 300 s outage caught up in <= 30 s, on a 2-core
machine.

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

from benchmarks.floor_board import Browsers, FloorService, board_lags  # noqa: E402
from benchmarks.floor_shipping import run_share  # noqa: E402

# ---- the floor ---------------------------------------------------------------------------

def make_floor(owner_dsn: str, count: int) -> tuple[list[tuple[str, str]], str, tuple[str, str]]:
    """Migrate the store and add `count` tables with fresh ids: [(table, role password)]; a
    floor service login (its DSN) and the pit boards' supervisor (name, password)."""
    import psycopg
    from argon2 import PasswordHasher

    from dealer_assist.floor.migrations import migrate
    from dealer_assist.floor.roles import add_reader, add_table, role_of
    from dealer_assist.floor.users import add_user

    run = secrets.token_hex(2)
    made = []
    with psycopg.connect(owner_dsn) as conn:
        migrate(conn)
        for i in range(count):
            table = f"B{run}-{i + 1:03d}"
            made.append((table, add_table(conn, table)[1]))
            assert role_of(table)
        service = f"floor_bench_{run}"
        service_dsn = _role_dsn(owner_dsn, service, add_reader(conn, service, "floor_service"))
        board = (f"bench{run}", secrets.token_urlsafe(16))
        add_user(conn, board[0], "supervisor", board[1],
                 hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
        conn.commit()
    return made, service_dsn, board


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
    parser.add_argument("--browsers", type=int, default=10, metavar="B",
                        help="pit boards reading the floor service's stream (default 10)")
    parser.add_argument("--poll", type=float, metavar="SECONDS",
                        help="the shippers are not woken by the tables' appends and only poll "
                             "their logs every SECONDS (the table service before the "
                             "wake-up; default: woken, polling every 0.5 s as a safety net)")
    parser.add_argument("--warmup", type=float, default=10.0, metavar="SECONDS",
                        help="leave the events of the first SECONDS of dealing out of the lag "
                             "figures: each table's first batches warm a new server process's "
                             "caches (default 10)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--json", action="store_true", help="only the JSON line on stdout")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.minutes <= 0 or args.speed <= 0 or args.outage < 0 \
            or args.browsers < 0:
        parser.error("--tables, --minutes and --speed must be positive, --outage and "
                     "--browsers not negative")
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
                "max_connections": str(args.tables + 60), "track_commit_timestamp": "on",
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
    """Fold what the floor service had not folded yet when the run ended; the number folded."""
    import psycopg

    from dealer_assist.floor.fold import fold_pending

    with psycopg.connect(owner, autocommit=True) as conn:
        return fold_pending(conn)


def wait_folded(owner: str, timeout: float) -> None:
    """Wait (up to `timeout` s) until the floor service has folded every stored event."""
    import psycopg

    from dealer_assist.floor.fold import pending_tables

    deadline = time.time() + timeout
    with psycopg.connect(owner, autocommit=True) as conn:
        while pending_tables(conn) and time.time() < deadline:
            time.sleep(0.2)
    time.sleep(0.5)  # the last notifications on their way to the boards


def run(args: argparse.Namespace, owner: str, cluster: Any, work: Path) -> dict[str, Any]:
    from dealer_assist.floor.roles import role_of

    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    made, service_dsn, (name, password) = make_floor(owner, args.tables)
    logs = work / "logs"
    logs.mkdir()
    tables = [(t, _role_dsn(owner, role_of(t), pw), str(logs / f"{t}.db")) for t, pw in made]
    procs = max(1, min(args.procs, args.tables))
    deal_s = args.minutes * 60 + args.outage
    service = FloorService(service_dsn)
    browsers = None
    try:
        url = service.start()
        if args.browsers:
            browsers = Browsers(url, args.browsers, name, password)
            browsers.open()
        say(f"floor benchmark: {args.tables} tables at {args.speed:g}x for {deal_s:.0f} s in "
            f"{procs} processes, the floor service at {url} with {args.browsers} pit boards"
            + (f", outage of {args.outage:g} s" if args.outage else ""))
        start, down_at, up, shares = deal(args, cluster, tables, procs, deal_s, work)
        wait_folded(owner, 30.0)
    finally:
        service.stop()
        if browsers is not None:
            browsers.close()
    say(f"read models: {fold_left(owner)} events left to fold at the end")
    boards = [b.arrivals for b in browsers.boards] if browsers else []
    return figures(args, owner, tables, shares, boards, start, deal_s, down_at, up)


def deal(args: argparse.Namespace, cluster: Any, tables: list[tuple[str, str, str]],
         procs: int, deal_s: float,
         work: Path) -> tuple[float, float | None, float | None, list[dict[str, Any]]]:
    """The tables deal and ship in `procs` processes (and the store stops for the outage);
    (when the dealing started, the store stopped and came back, what each process measured)."""
    from tqdm import tqdm

    start = time.time() + 5.0 + 0.04 * args.tables / procs  # after every table has connected
    until = start + deal_s
    ctx = mp.get_context("spawn")
    up_at = ctx.Value("d", 0.0)
    outs = [str(work / f"share-{i}.pickle") for i in range(procs)]
    children = [ctx.Process(target=run_share, args=(
        tables[i::procs], args.speed, args.seed + 1000 * i, args.poll, args.poll is None,
        start, until, up_at, 60.0 + args.outage, outs[i])) for i in range(procs)]
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
    shares = [pickle.loads(Path(out).read_bytes()) for out in outs if Path(out).exists()]
    if len(shares) != procs:
        raise SystemExit("floor benchmark: a table process failed (see above)")
    return start, down_at, up, shares


def figures(args: argparse.Namespace, owner: str, tables: list[tuple[str, str, str]],
            shares: list[dict[str, Any]], boards: list[dict[str, list[float]]], start: float,
            deal_s: float, down_at: float | None, up: float | None) -> dict[str, Any]:
    central, stored, exact = central_rows(owner, [t for t, _, _ in tables])
    if not exact:
        print("floor benchmark: track_commit_timestamp is off: the central time is each "
              "event's transaction start (received_at)", file=sys.stderr)
    lost, duplicated, locals_total = compare(tables, central, stored)
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
    warm = start + args.warmup
    kept = [(table, at, got[1]) for share in shares for table, seq, at in share["times"]
            if not (skip_from <= at <= skip_to or at < warm)
            and (got := central.get((table, seq))) is not None]
    lags = [(committed - at) * 1000.0 for _, at, committed in kept]
    on_boards, missed = board_lags(kept, boards)
    if missed:
        print(f"floor benchmark: {missed} arrivals on the pit boards never came (of "
              f"{len(kept) * len(boards)})", file=sys.stderr)
    events = sum(len(s["times"]) for s in shares)
    return {
        "tables": len(tables),
        "events": events,
        "events_per_s": round(events / deal_s, 1),
        "lag_ms_p50": rounded(percentile(lags, 0.5)),
        "lag_ms_p99": rounded(percentile(lags, 0.99)),
        "lost": lost + max(0, events - locals_total),
        "duplicated": duplicated,
        "catch_up_s": catch_up,
        "board_lag_ms_p50": rounded(percentile(on_boards, 0.5)),
        "board_lag_ms_p99": rounded(percentile(on_boards, 0.99)),
    }


def compare(tables: list[tuple[str, str, str]], central: dict[tuple[str, int], tuple[str, float]],
            stored: int) -> tuple[int, int, int]:
    """(lost, duplicated, events in the tables' logs): each log against the central copy."""
    lost = duplicated = locals_total = 0
    by_table: dict[str, dict[int, str]] = {}
    for (table, seq), (digest, _) in central.items():
        by_table.setdefault(table, {})[seq] = digest
    for table, _, path in tables:
        mine, theirs = local_rows(Path(path)), by_table.get(table, {})
        locals_total += len(mine)
        lost += sum(1 for seq in mine if seq not in theirs)
        # stored but not the table's: a seq the table never wrote, or another hash there
        duplicated += sum(1 for seq, digest in theirs.items() if mine.get(seq) != digest)
    return lost, duplicated + stored - len(central), locals_total


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


if __name__ == "__main__":
    raise SystemExit(main())
