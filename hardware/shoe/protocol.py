"""The reference card-shoe protocol (v1): a sans-IO decoder and encoder.

Frames are ASCII lines `$<body>*<checksum>\\r\\n`, body `SEQ,TYPE[,FIELD...]` of at most 72
characters, checksum the XOR of the body bytes as two upper-case hex digits.

`Decoder.feed(bytes)` returns, in stream order, the messages of accepted frames and a `Problem`
for everything else; it never raises on input and keeps at most one frame of bytes between
calls, whatever arrives. How it reads the stream:

- A frame starts at `$` and ends at the line end (`\\n`, the `\\r` before it is optional).
- Bytes outside frames are noise, counted and reported once per run (`noise`, `bytes`). A frame
  cut short by a new `$` is noise too: the reader resynchronises on the `$`.
- A complete frame is dropped, with a problem, for a non-ASCII byte (`non_ascii`), a body over
  72 characters (`too_long`, reported as soon as it is certain), a bad shape or field
  (`malformed`), a wrong checksum (`checksum`) or an unknown TYPE (`unknown_type`).
- Sequence is judged on accepted frames: the SEQ of the last accepted frame again, or of one of
  the few before it, is a retransmission (`duplicate`, dropped); a jump is a `gap` with how
  many frames were `missing`, and the frame is accepted.

Clean streams take a fast path: one regular expression over the whole buffer with table
lookups for checksums; anything it does not fully accept goes through the careful path.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

from hardware.cards import CARD_CODES

MAX_BODY = 72
SEQ_MODULO = 10_000
#: How many accepted SEQs back a repeated SEQ still counts as a retransmission, not a gap.
REPLAY_WINDOW = 32
BUTTONS = ("NEWSHOE", "CLOSE", "REVEAL", "ENDSHOE")
CUT_COLORS = ("B", "Y")
PROBLEM_KINDS = (
    "checksum", "malformed", "too_long", "non_ascii", "unknown_type", "gap", "duplicate", "noise",
)


class Card(NamedTuple):
    seq: int
    card: str
    multi: bool = False


class Unreadable(NamedTuple):
    seq: int
    multi: bool = False


class CutCard(NamedTuple):
    seq: int
    color: str  # "B" blue or "Y" yellow


class Button(NamedTuple):
    seq: int
    button: str  # one of BUTTONS


class Heartbeat(NamedTuple):
    seq: int


Message = Card | Unreadable | CutCard | Button | Heartbeat


class Problem(NamedTuple):
    kind: str  # one of PROBLEM_KINDS
    info: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.kind, **self.info}


def checksum(body: bytes) -> int:
    """XOR of every byte of `body`."""
    x = 0
    for b in body:
        x ^= b
    return x


def _fields(msg: Message) -> tuple[str, ...]:
    if isinstance(msg, Card):
        return ("CRD", msg.card, "M") if msg.multi else ("CRD", msg.card)
    if isinstance(msg, Unreadable):
        return ("CRD", "??", "M") if msg.multi else ("CRD", "??")
    if isinstance(msg, CutCard):
        return ("CUT", msg.color)
    if isinstance(msg, Button):
        return ("BTN", msg.button)
    return ("HBT",)


def encode(msg: Message) -> bytes:
    """The frame of a message, CR LF included."""
    if not 0 <= msg.seq < SEQ_MODULO:
        raise ValueError(f"SEQ must be 0-9999, got {msg.seq}")
    body = ",".join((f"{msg.seq:04d}", *_fields(msg))).encode("ascii")
    return b"$%s*%02X\r\n" % (body, checksum(body))


def _message(seq: int, kind: str, fields: list[str]) -> Message | None:
    """The message of a well-shaped body, or None if a field is wrong."""
    n = len(fields)
    if kind == "CRD" and (n == 1 or (n == 2 and fields[1] == "M")):
        multi = n == 2
        if fields[0] == "??":
            return Unreadable(seq, multi)
        return Card(seq, fields[0], multi) if fields[0] in _CARD_SET else None
    if kind == "CUT" and n == 1 and fields[0] in CUT_COLORS:
        return CutCard(seq, fields[0])
    if kind == "BTN" and n == 1 and fields[0] in BUTTONS:
        return Button(seq, fields[0])
    if kind == "HBT" and n == 0:
        return Heartbeat(seq)
    return None


_CARD_SET = frozenset(CARD_CODES)
_TYPES = ("CRD", "CUT", "BTN", "HBT")
_HEX_UPPER = frozenset(b"0123456789ABCDEF")
#: Longest frame text the decoder keeps waiting for a line end: `$` + body + `*XX` + `\r`.
_MAX_PARTIAL = 1 + MAX_BODY + 3 + 1

# Fast path: whole valid-looking frames, noise runs, and lone `$`.
_SCAN = re.compile(
    rb"(\$(\d{4})(,(?:CRD|CUT|BTN|HBT)(?:,[A-Z0-9?]{1,7})?(?:,M)?)\*([0-9A-F]{2})\r?\n)"
    rb"|([^$]+|\$)"
)
_SEQ_XOR = {b"%04d" % i: checksum(b"%04d" % i) for i in range(SEQ_MODULO)}
_HEX_OF = {i: b"%02X" % i for i in range(256)}
# `,TYPE[,FIELD...]` -> (XOR of those bytes, message class, its fields after SEQ)
_REST: dict[bytes, tuple[int, Any, tuple[Any, ...]]] = {}
for _fs in [("CRD", c, *m) for c in (*CARD_CODES, "??") for m in ((), ("M",))] + [
    ("CUT", c) for c in CUT_COLORS
] + [("BTN", b) for b in BUTTONS] + [("HBT",)]:
    _rest = ("," + ",".join(_fs)).encode("ascii")
    _msg = _message(0, _fs[0], list(_fs[1:]))
    assert _msg is not None
    _REST[_rest] = (checksum(_rest), type(_msg), tuple(_msg)[1:])


def _show(frame: bytes) -> str:
    text = frame.decode("ascii", "backslashreplace")
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= 90 else text[:87] + "..."


class Decoder:
    """Bytes in, messages and problems out; see the module doc. Never raises on input."""

    def __init__(self) -> None:
        self.offset = 0  # stream offset of the next byte fed
        self.last_seq: int | None = None
        self._recent: list[int] = []  # SEQs accepted lately, for retransmissions
        self._partial = b""  # an unfinished frame, from its `$`
        self._skip = False  # inside a dropped over-long frame: skip to `$` or line end
        self._noise = 0
        self._noise_at = 0
        self.counts: Counter[str] = Counter()  # "accepted", and every problem kind

    # ---- public -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Message | Problem]:
        out: list[Message | Problem] = []
        if not data:
            return out
        start = self.offset
        self.offset += len(data)
        if self._skip:
            cut = min((i for i in (data.find(b"$"), data.find(b"\n")) if i >= 0), default=-1)
            if cut < 0:
                return out
            self._skip = False
            if data[cut] == 10:
                cut += 1
            data, start = data[cut:], start + cut
        if self._partial:
            data, start = self._partial + data, start - len(self._partial)
            self._partial = b""
        self._scan(data, start, out)
        return out

    def flush(self) -> list[Problem]:
        """The stream ended: report pending noise and an unfinished frame."""
        out: list[Message | Problem] = []
        self._end_noise(out)
        if self._partial:
            at = self.offset - len(self._partial)
            self._problem(out, "malformed", at, self._partial, "the stream ends inside this frame")
            self._partial = b""
        self._skip = False
        return out  # type: ignore[return-value]

    def link_broke(self) -> list[Problem]:
        """The link broke: an unfinished frame can never complete. Sequence state is kept."""
        return self.flush()

    def report_noise(self) -> list[Problem]:
        """Report the noise counted so far now, without waiting for the next `$` (idle link)."""
        out: list[Message | Problem] = []
        self._end_noise(out)
        return out  # type: ignore[return-value]

    # ---- scanning ---------------------------------------------------------------------------

    def _scan(self, buf: bytes, pos: int, out: list[Message | Problem]) -> None:
        slow_from = -1  # start (in buf) of a run that needs the careful path
        i = 0
        for whole, seq, rest, cs, other in _SCAN.findall(buf):
            if other:
                if slow_from < 0:
                    slow_from = i
                i += len(other)
                continue
            if slow_from >= 0:
                self._careful(buf[slow_from:i], pos + slow_from, out, at_end=False)
                slow_from = -1
            known = _REST.get(rest)
            if known is None or _HEX_OF[_SEQ_XOR[seq] ^ known[0]] != cs:
                self._careful(whole, pos + i, out, at_end=False)
            else:
                if self._noise:
                    self._end_noise(out)
                self._accept(known[1](int(seq), *known[2]), pos + i, out)
            i += len(whole)
        if slow_from >= 0:
            self._careful(buf[slow_from:], pos + slow_from, out, at_end=True)

    def _careful(self, buf: bytes, pos: int, out: list[Message | Problem], at_end: bool) -> None:
        """Noise, broken frames and an unfinished tail, byte offsets from `pos`."""
        n = len(buf)
        i = 0
        while i < n:
            j = buf.find(b"$", i)
            if j < 0:
                self._add_noise(pos + i, n - i)
                return
            if j > i:
                self._add_noise(pos + i, j - i)
            window = min(n, j + _MAX_PARTIAL + 1)  # a frame's line end comes within this
            end = buf.find(b"\n", j + 1, window)
            nxt = buf.find(b"$", j + 1, window if end < 0 else end)
            if nxt >= 0:  # cut short by a new `$`: noise, resynchronise there
                self._add_noise(pos + j, nxt - j)
                i = nxt
                continue
            if end >= 0:
                self._end_noise(out)
                self._judge(buf[j:end + 1], pos + j, out)
                i = end + 1
                continue
            if window < j + _MAX_PARTIAL + 1:  # the buffer ends inside the frame
                if at_end:
                    self._partial = buf[j:]  # wait for the rest
                else:  # a `$` follows this run: the frame was cut short
                    self._add_noise(pos + j, n - j)
                return
            # Over-long: drop it up to its line end or the next `$`, whichever comes first.
            nxt, end = buf.find(b"$", window), buf.find(b"\n", window)
            stop = min(x for x in (nxt, end + 1 if end >= 0 else -1, n) if x >= 0)
            self._end_noise(out)
            star = buf.find(b"*", j + 1, j + MAX_BODY + 2)
            kind, why = ("malformed", "no line end after the checksum") if star > 0 else (
                "too_long", f"body longer than {MAX_BODY} characters")
            self._problem(out, kind, pos + j, buf[j:window] + b"...", why)
            if stop == n and at_end and not (n and buf[-1] in b"\n$"):
                self._skip = True  # the rest of it comes in later feeds
            i = stop

    def _judge(self, frame: bytes, at: int, out: list[Message | Problem]) -> None:
        """One complete frame `$...\\n` off the careful path."""
        line = frame[1:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        if not frame.isascii():
            return self._problem(out, "non_ascii", at, frame, "a byte outside ASCII")
        star = line.rfind(b"*")
        body = line[:star] if star >= 0 else line
        if len(body) > MAX_BODY:
            return self._problem(out, "too_long", at, frame,
                                 f"body of {len(body)} characters, at most {MAX_BODY}")
        tail = line[star + 1:]
        if star < 0 or len(tail) != 2 or not _HEX_UPPER.issuperset(tail):
            return self._problem(out, "malformed", at, frame,
                                 "no checksum of two upper-case hex digits after '*'")
        if checksum(body) != int(tail, 16):
            return self._problem(out, "checksum", at, frame,
                                 f"checksum {tail.decode()}, body gives {checksum(body):02X}")
        parts = body.decode("ascii").split(",")
        if len(parts) < 2 or len(parts[0]) != 4 or not parts[0].isdigit():
            return self._problem(out, "malformed", at, frame, "no SEQ,TYPE at the start of the body")
        if parts[1] not in _TYPES:
            return self._problem(out, "unknown_type", at, frame, f"unknown TYPE {parts[1]!r}")
        msg = _message(int(parts[0]), parts[1], parts[2:])
        if msg is None:
            return self._problem(out, "malformed", at, frame, f"bad field for {parts[1]}")
        self._accept(msg, at, out)
        return None

    # ---- sequence and bookkeeping -----------------------------------------------------------

    def _accept(self, msg: Message, at: int, out: list[Message | Problem]) -> None:
        seq = msg.seq
        last = self.last_seq
        if last is not None and seq != (last + 1) % SEQ_MODULO:
            if seq == last or seq in self._recent:
                self.counts["duplicate"] += 1
                out.append(Problem("duplicate", {"seq": seq, "at": at}))
                return
            missing = (seq - last - 1) % SEQ_MODULO
            self.counts["gap"] += 1
            out.append(Problem("gap", {"missing": missing, "after": last, "seq": seq, "at": at}))
        self.last_seq = seq
        recent = self._recent
        recent.append(seq)
        if len(recent) > REPLAY_WINDOW:
            del recent[0]
        self.counts["accepted"] += 1
        out.append(msg)

    def _problem(self, out: list[Message | Problem], kind: str, at: int, frame: bytes,
                 reason: str) -> None:
        self.counts[kind] += 1
        out.append(Problem(kind, {"at": at, "frame": _show(frame), "reason": reason}))

    def _add_noise(self, at: int, n: int) -> None:
        if not self._noise:
            self._noise_at = at
        self._noise += n

    def _end_noise(self, out: list[Message | Problem]) -> None:
        if self._noise:
            self.counts["noise"] += 1
            out.append(Problem("noise", {"bytes": self._noise, "at": self._noise_at}))
            self._noise = 0
