"""`dealer-assist run`: start one table's live service (display, console, shoe, log)."""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from dealer_assist import logs
from dealer_assist.commands import command, invoked_as
from dealer_assist.config import ConfigError, load_table_config
from dealer_assist.systemd_notify import Notifier, table_problem

DEFAULT_CONFIG = Path("config/table.toml")

HELP = """\
Start one table's live service from its configuration file: the event log (SQLite, one per
table, append-only), the card shoe's link (its port by URL; with url = "emulator", no hardware
at all: a built-in shoe on a pseudo-terminal deals shoe after shoe at a realistic pace), the
public table display at /, the supervisor console at /supervisor, the dealer's page at
/dealer and the regulator's pages at /regulator.

At start-up the pay tables are checked: a bet with a negative house edge refuses to start
unless --allow-negative-edge is given. The service rebuilds the table from its newest
snapshot (beside the log) and the events after it, or from the whole log when no snapshot
matches it, so after a restart it carries on where it was. It prints the pages' addresses and
what the overhead camera is, then runs until Ctrl-C.

Accounts for the console: dealer-assist user add NAME --role supervisor --db <users file>.
"""


def register(subparsers: Any) -> None:
    p = command(subparsers, "run", "start a table's live service: display, supervisor console, shoe, log",
                HELP)
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE",
                   help=f"the table's configuration (default {DEFAULT_CONFIG})")
    p.add_argument("--host", help="address to listen on (default: [web] host of the config)")
    p.add_argument("--port", type=int, help="port to listen on, 0 for any free one "
                   "(default: [web] port of the config)")
    p.add_argument("--allow-negative-edge", action="store_true",
                   help="start even if a pay table gives a bet a negative house edge")
    p.set_defaults(func=run)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _camera(config: Any, table: Any) -> str:
    """What the overhead camera is: it has no page of its own; its light is on the display
    and the console."""
    if table.virtual_camera is not None:
        return (f"the built-in shoe's virtual camera, {config.camera.fps:g} frames a second "
                "read by the recognizer (its light is on the display and the console)")
    if table.camera is not None:
        return f"{config.camera.source} (its light is on the display and the console)"
    return "off (the dealer presses REVEAL)"


def run(args: argparse.Namespace) -> int:
    from dealer_assist import bootstrap  # heavy imports only when the service starts

    logs.setup()
    try:
        config = load_table_config(args.config)
    except ConfigError as e:
        _say(f"dealer-assist run: {e}")
        return 2
    web = replace(config.web, host=args.host or config.web.host,
                  port=config.web.port if args.port is None else args.port)
    config = replace(config, web=web)
    try:
        sock = bootstrap.bind(web.host, web.port)
        table = bootstrap.open_table(config, allow_negative_edge=args.allow_negative_edge,
                                     say=_say)
    except bootstrap.StartError as e:
        _say(f"dealer-assist run: {e}")
        return 2
    _say(table.paytable_report)
    _say(f"event log {config.database} ({table.live.started})")
    _say(f"shoe: {'built-in emulator on ' + table.shoe.path if table.shoe else config.shoe.url}")
    if not any(u.role == "supervisor" for u in table.users.all()):
        _say(f"no supervisor yet: {invoked_as()} user add NAME --role supervisor --db "
             f"{config.users}")
    url = bootstrap.address(sock)
    systemd = Notifier()  # READY, the watchdog and STOPPING under systemd; else nothing

    def ready() -> None:
        print(f"table display:      {url}", flush=True)
        print(f"supervisor console: {url}supervisor", flush=True)
        print(f"dealer's page:      {url}dealer", flush=True)
        print(f"regulator's pages:  {url}regulator", flush=True)
        print(f"overhead camera:    {_camera(config, table)}", flush=True)
        systemd.ready(f"table {config.table_id} at {url}")
        systemd.keep_alive(table_problem(url, config.database))

    # systemd stops with SIGTERM: uvicorn stops cleanly, then passes it on like Ctrl-C
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        bootstrap.serve(table, sock, ready)
    except KeyboardInterrupt:
        pass  # uvicorn has stopped cleanly and passes the Ctrl-C on
    finally:
        systemd.stopping()
        table.close()
        sock.close()
    _say(f"stopped; the event log holds {table.live.seq} events")
    return 0
