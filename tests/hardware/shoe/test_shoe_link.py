"""The shoe link over a real pseudo-terminal pair (os.openpty), reached through a symlink as a
udev rule would name a real shoe."""

from __future__ import annotations

import json
import os
import select
import time
import tty
from pathlib import Path

import pytest

from hardware.shoe.adapters import create_adapter
from hardware.shoe.link import HEARTBEAT_TIMEOUT, Received, ShoeLink
from hardware.shoe.protocol import Button, Card, Heartbeat, encode


class PtyShoe:
    """The shoe's end of a pty pair; `link` always points at the current pty."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self.open()

    def open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        path = os.ttyname(slave)
        os.close(slave)  # the master now sees a hang-up until the reader opens the slave
        tmp = self.link.with_name("tmp-link")
        tmp.symlink_to(path)
        os.replace(tmp, self.link)
        self.master = master

    def wait_reader(self, timeout: float = 5.0) -> None:
        poller = select.poll()
        poller.register(self.master, select.POLLHUP)
        deadline = time.monotonic() + timeout
        while any(ev & select.POLLHUP for _, ev in poller.poll(0)):
            assert time.monotonic() < deadline, "the link never opened the pty"
            time.sleep(0.01)
        time.sleep(0.1)  # let the reader finish setting the port up (it flushes on open)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)  # type: ignore[arg-type]

    def close(self) -> None:
        if self.master is not None:
            os.close(self.master)
            self.master = None


@pytest.fixture
def shoe(tmp_path: Path):
    s = PtyShoe(tmp_path / "shoe")
    yield s
    s.close()


def collect(link: ShoeLink, until, timeout: float = 5.0) -> list[Received]:
    got: list[Received] = []
    deadline = time.monotonic() + timeout
    while not until(got):
        item = link.get(max(0.0, deadline - time.monotonic()))
        assert item is not None, f"timed out; got {[g.data for g in got]}"
        got.append(item)
    return got


def events(items: list[Received]) -> list[dict]:
    return [i.data for i in items if i.kind == "event"]


def status(name: str):
    return lambda got: any(i.kind == "link" and i.data["status"] == name for i in got)


def n_events(n: int):
    return lambda got: len(events(got)) >= n


def frames(first: int, n: int) -> tuple[bytes, list[dict]]:
    cards = ["AS", "KD", "7H", "TC", "2S", "QH", "9D", "3C"]
    data, expected = b"", []
    for i in range(n):
        seq = first + i
        data += encode(Card(seq, cards[seq % len(cards)]))
        expected.append({"src": "shoe", "type": "card", "card": cards[seq % len(cards)],
                         "seq": seq})
    return data, expected


def test_cards_flow_in_order(shoe: PtyShoe) -> None:
    with ShoeLink(str(shoe.link)) as link:
        shoe.wait_reader()
        data, expected = frames(1, 40)
        data = encode(Button(0, "NEWSHOE")) + data
        for i in range(0, len(data), 13):  # arbitrary pieces, as a UART delivers them
            shoe.write(data[i:i + 13])
        got = collect(link, lambda got: n_events(41)(got) and status("up")(got))
        assert events(got) == [{"src": "dealer", "type": "new_shoe", "seq": 0}, *expected]
        assert link.up
        assert [i.data["status"] for i in got if i.kind == "link"] == ["up"]
        assert all(i.ts.endswith("Z") and len(i.ts) == 24 for i in got)


def test_link_down_on_close_then_resumes_without_loss_or_duplicates(shoe: PtyShoe) -> None:
    with ShoeLink(str(shoe.link), reconnect=(0.05, 0.5)) as link:
        shoe.wait_reader()
        data, expected = frames(1, 10)
        shoe.write(data + encode(Card(11, "5H"))[:7])  # the cable goes mid-frame
        before = collect(link, n_events(10))
        closed = time.monotonic()
        shoe.close()
        down = collect(link, status("down"))
        assert time.monotonic() - closed < HEARTBEAT_TIMEOUT
        assert not link.up

        shoe.open()  # the port comes back
        shoe.wait_reader()
        # The shoe sends its last frame again, then frame 11 whole, then loses 12-14.
        again = encode(Card(10, "TC")) + encode(Card(11, "5H"))
        more, more_expected = frames(15, 5)
        shoe.write(again + more)
        after = collect(link, lambda got: n_events(6)(got) and status("up")(got))
        got = events(before) + events(after)
        seqs = [e["seq"] for e in got]
        assert seqs == [*range(1, 12), *range(15, 20)]  # nothing lost, nothing twice
        assert events(after)[1:] == more_expected
        problems = [i.data for i in before + down + after if i.kind == "problem"]
        assert [i.data["status"] for i in before + down + after if i.kind == "link"] == \
            ["up", "down", "up"]
        assert [p["error"] for p in problems] == ["malformed", "duplicate", "gap"]
        assert problems[2]["missing"] == 3
        assert link.up and link.reconnects == 1


def test_silence_is_link_down_and_a_heartbeat_brings_it_up(shoe: PtyShoe) -> None:
    assert HEARTBEAT_TIMEOUT == 3.0  # the spec's figure; a short one keeps this test quick
    with ShoeLink(str(shoe.link), heartbeat_timeout=0.3) as link:
        shoe.wait_reader()
        shoe.write(encode(Heartbeat(1)))
        assert collect(link, lambda g: len(g) == 1)[0].data["status"] == "up"
        start = time.monotonic()
        down = collect(link, lambda g: len(g) == 1)[0]
        assert down.data["status"] == "down" and "no frame" in down.data["reason"]
        assert 0.25 < time.monotonic() - start < 2.5
        shoe.write(b"line noise" + encode(Heartbeat(2)))
        got = collect(link, status("up"))
        assert [i.data["error"] for i in got if i.kind == "problem"] == ["noise"]


def test_capture_keeps_every_byte_for_replay(shoe: PtyShoe, tmp_path: Path) -> None:
    capture = tmp_path / "capture.bin"
    data, expected = frames(1, 20)
    data = b"\x00junk" + data[:51] + b"$0099,CRD,QS*00\r\n" + data[51:]  # between frames
    with ShoeLink(str(shoe.link), capture=capture) as link:
        shoe.wait_reader()
        for i in range(0, len(data), 29):
            shoe.write(data[i:i + 29])
            time.sleep(0.002)
        live = collect(link, lambda got: n_events(20)(got) and status("up")(got))
    assert capture.read_bytes() == data
    times = [json.loads(line) for line in capture.with_name("capture.bin.times").open()]
    reads = [t for t in times if "bytes" in t]
    assert sum(t["bytes"] for t in reads) == len(data)
    assert [t["offset"] for t in reads] == sorted(t["offset"] for t in reads)
    assert any(t.get("link") == "up" for t in times)
    replay = create_adapter("reference")
    replayed = replay.feed(capture.read_bytes()) + replay.flush()
    assert replayed == [i.data for i in live if i.kind != "link"]
    assert events(live) == expected


def test_a_port_that_is_not_there_is_reported_down_and_retried(tmp_path: Path) -> None:
    with ShoeLink(str(tmp_path / "no-such-port"), reconnect=(0.05, 0.1)) as link:
        item = link.get(3.0)
        assert item is not None and item.kind == "link" and item.data["status"] == "down"
        assert "cannot open" in item.data["reason"]
        time.sleep(0.3)
        assert link.get(0) is None  # reported once, not at every try
