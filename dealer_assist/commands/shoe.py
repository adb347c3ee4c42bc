"""`dealer-assist shoe decode|listen|emulate`: the card shoe's link, and a shoe with no hardware."""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.devices.deal.mistakes import MISTAKES, DealError, parse_mistake
from dealer_assist.domain.house import HouseRules, SettingsError
from dealer_assist.domain.rules import VARIANTS
from hardware.shoe.adapters import AdapterError, adapter_names, create_adapter, gap_event
from hardware.shoe.emulator import Faults, ShoeEmulator, steps_from_events
from hardware.shoe.link import HEARTBEAT_TIMEOUT, Received, ShoeLink
from hardware.shoe.transport import PtyTransport, TcpTransport, Transport

_CHUNK = 1 << 16
_PROGRESS_OVER = 1 << 25  # show decode progress on a terminal for captures over 32 MiB


def _dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True)


def _say(text: str) -> None:
    print(f"dealer-assist shoe: {text}", file=sys.stderr, flush=True)


def register(sub: Any) -> None:
    shoe = sub.add_parser(
        "shoe", help="read a card shoe, decode a capture, or emulate a shoe",
        description="The card shoe's serial link (shoe-protocol.md), and a shoe emulator so the "
                    "whole system runs with no hardware. See docs/shoe.md.")
    shoe.set_defaults(func=lambda args: (shoe.print_help(), 2)[1])
    cmds = shoe.add_subparsers(dest="shoe_command", metavar="COMMAND")
    for name, help_text, options, run in _COMMANDS:
        p = cmds.add_parser(name, help=help_text, description=run.__doc__)
        options(p)
        p.set_defaults(func=run)


# ---- decode -------------------------------------------------------------------------------


def _decode_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("capture", help="capture file of raw bytes, or - for standard input")
    p.add_argument("--adapter", default="reference", choices=adapter_names(),
                   help="the shoe's protocol (default: reference)")


def run_decode(args: argparse.Namespace) -> int:
    """Read raw bytes captured from a shoe's port and print one JSON object per line: the
    decoded events in the trace format (cards, cut cards, and the buttons as the dealer events
    new_shoe, bets_closed, reveal, end_shoe) and, for every problem, {"error": KIND, ...} with
    KIND one of checksum, malformed, too_long, non_ascii, unknown_type, gap (missing: frames
    lost), duplicate, noise (bytes). Exit status 0; 2 if the capture cannot be read."""
    adapter = create_adapter(args.adapter)
    out = sys.stdout
    try:
        source = sys.stdin.buffer if args.capture == "-" else open(args.capture, "rb")  # noqa: SIM115
    except OSError as e:
        _say(f"cannot read capture {args.capture}: {e.strerror}")
        return 2
    total = 0 if args.capture == "-" else Path(args.capture).stat().st_size
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="decoded", file=sys.stderr,
               disable=not sys.stderr.isatty() or total <= _PROGRESS_OVER)
    with source, bar:
        while chunk := source.read(_CHUNK):
            out.writelines(_dumps(item) + "\n" for item in adapter.feed(chunk))
            bar.update(len(chunk))
    out.writelines(_dumps(item) + "\n" for item in adapter.flush())
    out.flush()
    return 0


# ---- listen -------------------------------------------------------------------------------


def _listen_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("url", help="the shoe's port, e.g. /dev/shoe or socket://127.0.0.1:7000")
    p.add_argument("--adapter", default="reference", choices=adapter_names(),
                   help="the shoe's protocol (default: reference)")
    p.add_argument("--baud", type=int, default=115_200, help="baud rate (default 115200)")
    p.add_argument("--capture", type=Path, metavar="FILE",
                   help="also append every raw byte to FILE, and when it came to FILE.times")
    p.add_argument("--heartbeat-timeout", type=float, default=HEARTBEAT_TIMEOUT, metavar="S",
                   help=f"link down after S seconds without a frame (default {HEARTBEAT_TIMEOUT:g})")
    _house_options(p)
    p.add_argument("--exit-on-end-shoe", action="store_true",
                   help="stop after the first end_shoe")
    p.add_argument("--max-seconds", type=float, metavar="S", help="stop after S seconds")


def _house_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shoe-id", help="shoe id for new_shoe (default: the time it came, UTC)")
    p.add_argument("--decks", type=int, default=8, help="decks in the shoe (default 8)")
    p.add_argument("--variant", choices=VARIANTS, default="standard",
                   help="game variant (default standard)")
    p.add_argument("--burn-after-each-game", action="store_true",
                   help="the house burns one card after every game")


def _house(args: argparse.Namespace) -> HouseRules:
    return HouseRules(decks=args.decks, variant=args.variant,
                      burn_after_each_game=args.burn_after_each_game)


class _Printer:
    """Turns link items into trace lines (stdout) and problem lines (stderr)."""

    def __init__(self, house: HouseRules, shoe_id: str | None, out: TextIO, err: TextIO) -> None:
        self.house, self.shoe_id, self.out, self.err = house, shoe_id, out, err
        self.shoes = 0
        self.ended = threading.Event()

    def __call__(self, item: Received) -> None:
        data = item.data
        if item.kind == "problem":
            print(_dumps({"ts": item.ts, **data}), file=self.err, flush=True)
            if data["error"] != "gap":
                return
            data = gap_event(data)
        elif item.kind == "link":
            print(_dumps({"ts": item.ts, "link": data["status"], "reason": data["reason"]}),
                  file=self.err, flush=True)
            data = {"src": "shoe", "type": "link_status", **data}
        event = {"ts": item.ts, **data}
        if event.get("type") == "new_shoe":
            event.update(self._settings(item.ts))
        print(_dumps(event), file=self.out, flush=True)
        if event.get("type") == "end_shoe":
            self.ended.set()

    def _settings(self, ts: str) -> dict[str, Any]:
        self.shoes += 1
        if self.shoe_id is None:
            shoe_id = "shoe-" + ts[:19].replace("-", "").replace(":", "")
        else:
            shoe_id = self.shoe_id if self.shoes == 1 else f"{self.shoe_id}-{self.shoes}"
        return {"shoe_id": shoe_id, "decks": self.house.decks, "variant": self.house.variant,
                "burn_after_each_game": self.house.burn_after_each_game}


def run_listen(args: argparse.Namespace) -> int:
    """Open the shoe's port by URL (a device path, hwgrep://VID:PID, socket://host:port,
    loop://) and print trace events (JSON Lines, with ts) as they arrive. A lost frame becomes
    a gap event. Problems and changes of the link (down after no frame for the heartbeat
    timeout, up again) go to standard error; link changes are also link_status events. The
    shoe's NEWSHOE button carries no settings: new_shoe gets them from the options."""
    try:
        house = _house(args)
    except SettingsError as e:
        _say(str(e))
        return 2
    printer = _Printer(house, args.shoe_id, sys.stdout, sys.stderr)
    try:
        link = ShoeLink(args.url, adapter=args.adapter, baudrate=args.baud, capture=args.capture,
                        heartbeat_timeout=args.heartbeat_timeout, on_receive=printer)
    except (AdapterError, OSError) as e:
        _say(str(e))
        return 2
    link.start()
    try:
        stop_on = printer.ended if args.exit_on_end_shoe else threading.Event()
        stop_on.wait(args.max_seconds)
    finally:
        link.stop()
    return 0


# ---- emulate ------------------------------------------------------------------------------


def _emulate_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--link", type=Path, metavar="PATH",
                       help="pty: keep PATH a symlink to the pty (it changes on a reconnect)")
    where.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of a pty")
    p.add_argument("--trace", type=Path, metavar="FILE",
                   help="play the shoe events of a trace file instead of dealing a shoe")
    p.add_argument("--seed", type=int, help="seed of the shuffle and the faults (default random)")
    _house_options(p)
    p.add_argument("--mistake", action="append", default=[], metavar="KIND[:GAME]",
                   help=f"a dealer mistake, on GAME or a random game: {', '.join(MISTAKES)}")
    p.add_argument("--reveal", action="store_true",
                   help="press REVEAL once each game is complete")
    pace = p.add_mutually_exclusive_group()
    pace.add_argument("--fast", action="store_true", help="as fast as the reader takes it")
    pace.add_argument("--speed", type=float, default=1.0,
                      help="pace: 1 is a realistic deal (default), 10 ten times faster")
    for name, what in (("noise", "a burst of line noise before a frame"),
                       ("bad-checksum", "a frame with a wrong checksum"),
                       ("lose", "a frame lost"), ("retransmit", "a frame sent twice")):
        p.add_argument(f"--{name}", type=float, default=0.0, metavar="P",
                       help=f"chance per frame of {what} (0-1)")
    p.add_argument("--disconnect", action="append", default=[], metavar="AFTER:SECONDS",
                   help="the port goes away after the AFTER-th frame for SECONDS")
    p.add_argument("--linger", type=float, default=None, metavar="S",
                   help="after the shoe, heartbeat S seconds then exit (default: until Ctrl-C)")
    p.add_argument("--record-trace", type=Path, metavar="FILE",
                   help="write what the shoe deals as a trace (with the shoe's settings)")


def _events_to_play(args: argparse.Namespace, rng: random.Random) -> list[dict[str, Any]]:
    if args.trace is not None:
        events = []
        with open(args.trace, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    try:
                        events.append(json.loads(line))
                    except ValueError as e:
                        raise ValueError(f"{args.trace}, line {number}: not valid JSON ({e})") \
                            from None
        return events
    mistakes = [parse_mistake(m) for m in args.mistake]
    shoe_id = args.shoe_id or "emulated-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    dealt = deal_shoe_detailed(rng, _house(args), shoe_id, mistakes, reveal=args.reveal)
    return dealt.events


def _faults(args: argparse.Namespace) -> Faults:
    disconnects = []
    for text in args.disconnect:
        after, _, seconds = text.partition(":")
        try:
            disconnects.append((int(after), float(seconds)))
        except ValueError:
            raise ValueError(f"bad --disconnect {text!r}: write AFTER:SECONDS, e.g. 40:5") from None
    return Faults(noise=args.noise, bad_checksum=args.bad_checksum, lose=args.lose,
                  retransmit=args.retransmit, disconnects=tuple(disconnects))


def run_emulate(args: argparse.Namespace) -> int:
    """Open a pseudo-terminal (its path is printed first on standard output; --link keeps a
    fixed symlink to it) or a TCP server (--tcp), wait for a reader, and play a freshly
    shuffled shoe dealt by the rules, or a trace file, as the reference protocol's frames.
    Faults and dealer mistakes can be injected. What was dealt can be written as a trace
    (--record-trace)."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    try:
        faults = _faults(args)
        events = _events_to_play(args, random.Random(seed))
    except (ValueError, OSError, DealError, SettingsError) as e:
        _say(str(e))
        return 2
    if args.record_trace is not None:
        args.record_trace.write_text("".join(_dumps(e) + "\n" for e in events), encoding="utf-8")
    if not args.fast and args.speed <= 0:
        _say(f"--speed must be above 0, got {args.speed:g}")
        return 2
    transport: Transport
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not port.isdigit():
            _say(f"bad --tcp {args.tcp!r}: write HOST:PORT, e.g. 127.0.0.1:7000")
            return 2
        transport = TcpTransport(host or "127.0.0.1", int(port))
    else:
        transport = PtyTransport(args.link)
    try:
        where = transport.open()
    except OSError as e:
        _say(f"cannot open the port: {e}")
        return 2
    print(where, flush=True)
    if args.link:
        _say(f"pty {where}, linked as {args.link}")
    _say(f"seed {seed}")
    emulator = ShoeEmulator(transport, steps_from_events(events), faults=faults,
                            speed=None if args.fast else args.speed,
                            rng=random.Random(f"{seed}:faults"), say=_say)
    try:
        tally = emulator.run(linger=args.linger)
    except KeyboardInterrupt:
        tally = emulator.tally
    finally:
        transport.close()
    _say("done: " + _dumps(asdict(tally)))
    return 0


#: The shoe's commands: name, one line of help, their options, and what runs them (whose
#: docstring is the command's description in `--help`).
_COMMANDS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None],
                       Callable[[argparse.Namespace], int]], ...] = (
    ("decode", "decode raw bytes captured from a shoe's port", _decode_options, run_decode),
    ("listen", "read a live shoe and print its trace events", _listen_options, run_listen),
    ("emulate", "a shoe with no hardware: deal a shoe over a pty or TCP", _emulate_options,
     run_emulate),
)
