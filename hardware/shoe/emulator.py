"""The shoe emulator: plays a script of shoe messages over a transport, like a real shoe.

A script is a list of `Step(at, message)`: `at` seconds after the start, the shoe sends
`message` (its SEQ is the emulator's to give: one more for every frame sent, wrapping at 9999).
While idle the shoe sends a heartbeat every second. `speed` scales the script's clock
(1.0 real time, 10.0 ten times faster, None as fast as the port takes it).

Faults, drawn with the emulator's own `random.Random`, each a chance per frame:

- `noise`: a burst of random bytes goes out before the frame;
- `bad_checksum`: the frame goes out with a wrong checksum (the reader must drop it);
- `lose`: the frame never arrives (its SEQ is used all the same);
- `retransmit`: the frame goes out twice.

and `disconnects`: `(after, seconds)`, the port goes away after the `after`-th frame of the
script for `seconds`. The shoe keeps its pace, so what it sends meanwhile is lost; played as
fast as possible, the dealer waits instead, and goes on once a reader is back.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hardware.shoe.adapters.reference import message_for
from hardware.shoe.protocol import SEQ_MODULO, Heartbeat, Message, encode
from hardware.shoe.transport import Transport

HEARTBEAT_S = 1.0
DRAIN_S = 0.2


@dataclass(frozen=True, slots=True)
class Step:
    at: float
    message: Message


@dataclass(frozen=True, slots=True)
class Faults:
    noise: float = 0.0
    bad_checksum: float = 0.0
    lose: float = 0.0
    retransmit: float = 0.0
    disconnects: tuple[tuple[int, float], ...] = ()

    def __post_init__(self) -> None:
        for name in ("noise", "bad_checksum", "lose", "retransmit"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"fault {name} is a chance per frame from 0 to 1, got {v}")
        for after, seconds in self.disconnects:
            if after < 0 or seconds < 0:
                raise ValueError(f"disconnect after frame {after} for {seconds} s: both >= 0")


@dataclass(slots=True)
class Tally:
    """What the emulator did: frames by fate, so a test knows what the reader must report."""

    sent: int = 0
    heartbeats: int = 0
    lost: int = 0
    corrupted: int = 0
    retransmitted: int = 0
    noise_bytes: int = 0
    undelivered: int = 0  # frames the transport dropped (no reader, port gone)
    disconnects: int = 0
    #: SEQs of the script's frames that were not received whole (lost, corrupted, undelivered).
    missing_seqs: list[int] = field(default_factory=list)


class ShoeEmulator:
    def __init__(
        self,
        transport: Transport,
        steps: list[Step],
        *,
        faults: Faults | None = None,
        speed: float | None = None,
        rng: random.Random | None = None,
        first_seq: int = 0,
        heartbeat: float = HEARTBEAT_S,
        say: Callable[[str], None] | None = None,
    ) -> None:
        if speed is not None and speed <= 0:
            raise ValueError(f"speed must be above 0 (or None: as fast as possible), got {speed}")
        self.transport = transport
        self.steps = steps
        self.faults = faults or Faults()
        self.speed = speed
        self.rng = rng or random.Random()
        self.seq = first_seq % SEQ_MODULO
        self.heartbeat = heartbeat
        self.say = say or (lambda text: None)
        self.tally = Tally()
        self.stop_event = threading.Event()
        self._disconnects = sorted(self.faults.disconnects)
        self._last_send = time.monotonic()
        self._down_until: float | None = None

    def stop(self) -> None:
        self.stop_event.set()

    def run(self, linger: float | None = 0.0, wait_reader: bool = True) -> Tally:
        """Play the script; then keep heartbeating for `linger` seconds (None: until stopped)."""
        if wait_reader:
            self.say("waiting for a reader")
            if not self.transport.wait_reader(self.stop_event):
                return self.tally
        start = time.monotonic()
        for index, step in enumerate(self.steps):
            if self.speed is not None and not self._idle_until(start + step.at / self.speed):
                return self.tally
            if self.stop_event.is_set():
                return self.tally
            self._send(step.message, script=True)
            while self._disconnects and self._disconnects[0][0] <= index + 1:
                _, seconds = self._disconnects.pop(0)
                self._disconnect(seconds)
        self.say("the script is played")
        end = None if linger is None else time.monotonic() + linger
        while not self.stop_event.is_set() and (end is None or time.monotonic() < end):
            self._idle_until(end if end is not None else time.monotonic() + 3600)
        return self.tally

    def _idle_until(self, when: float) -> bool:
        """Heartbeat until `when`; False if stopped meanwhile."""
        while True:
            self._check_down()
            now = time.monotonic()
            if now >= when:
                return True
            beat = self._last_send + self.heartbeat
            if beat <= now:
                self._send(Heartbeat(0), script=False)
                continue
            if self.stop_event.wait(min(when, beat) - now):
                return False

    def _send(self, message: Message, script: bool) -> None:
        self._check_down()
        seq = self.seq
        self.seq = (seq + 1) % SEQ_MODULO
        frame = encode(message._replace(seq=seq))
        self._last_send = time.monotonic()
        tally, faults, rng = self.tally, self.faults, self.rng
        if script:
            tally.sent += 1
        else:
            tally.heartbeats += 1
        if faults.noise and rng.random() < faults.noise:
            burst = bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
            self.transport.send(burst)
            tally.noise_bytes += len(burst)
        if faults.lose and rng.random() < faults.lose:
            tally.lost += 1
            if script:
                tally.missing_seqs.append(seq)
            return
        if faults.bad_checksum and rng.random() < faults.bad_checksum:
            star = frame.rindex(b"*")
            wrong = (int(frame[star + 1:star + 3], 16) ^ 0x5A) & 0xFF
            frame = frame[:star + 1] + b"%02X\r\n" % wrong
            tally.corrupted += 1
            if script:
                tally.missing_seqs.append(seq)
        delivered = self.transport.send(frame)
        if not delivered:
            tally.undelivered += 1
            if script and (not tally.missing_seqs or tally.missing_seqs[-1] != seq):
                tally.missing_seqs.append(seq)
        if faults.retransmit and rng.random() < faults.retransmit:
            self.transport.send(frame)
            tally.retransmitted += 1

    def _disconnect(self, seconds: float) -> None:
        self.tally.disconnects += 1
        # Frames already sent reach the reader before the cable goes (a pty that closes
        # discards what its reader has not read yet).
        self.stop_event.wait(DRAIN_S)
        self.say(f"disconnected for {seconds:g} s")
        self.transport.drop()
        self._down_until = time.monotonic() + seconds
        if self.speed is None:  # as fast as possible: the dealer waits for the port
            self._idle_until(self._down_until)  # heartbeats meanwhile go nowhere
            self._check_down()
            self.transport.wait_reader(self.stop_event)

    def _check_down(self) -> None:
        if self._down_until is not None and time.monotonic() >= self._down_until:
            self._down_until = None
            self.say(f"reconnected: {self.transport.open()}")


def steps_from_events(events: list[dict[str, Any]]) -> list[Step]:
    """A script from trace events (dicts): what a shoe sends for them, at their `ts` offsets.

    Events no shoe sends (camera, supervisor, gap) are left out; an event without a readable
    `ts` takes the time of the one before it.
    """
    steps: list[Step] = []
    first: datetime | None = None
    at = 0.0
    for event in events:
        message = message_for(event, 0)
        if message is None:
            continue
        try:
            when = datetime.fromisoformat(str(event.get("ts")))
            first = first or when
            at = max(at, (when - first).total_seconds())
        except (ValueError, TypeError):
            pass  # keep the time of the event before
        steps.append(Step(at, message))
    return steps
