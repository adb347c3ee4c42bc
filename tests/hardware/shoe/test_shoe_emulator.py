"""The shoe emulator over a real pty and over TCP, read by the real link, with faults."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest

from hardware.shoe.emulator import Faults, ShoeEmulator, Step, Tally, steps_from_events
from hardware.shoe.link import Received, ShoeLink
from hardware.shoe.protocol import CARD_CODES, Button, Card, CutCard, Heartbeat
from hardware.shoe.transport import PtyTransport, TcpTransport, Transport


def script(n: int, seed: int = 1) -> list[Step]:
    rng = random.Random(seed)
    steps = [Step(0.0, Button(0, "NEWSHOE"))]
    steps += [Step(0.01 * i, Card(0, rng.choice(CARD_CODES))) for i in range(1, n)]
    return steps


class Play:
    """Runs an emulator in a thread and a link reading it, collecting what the link hands out."""

    def __init__(self, transport: Transport, steps: list[Step], url: str | None = None,
                 **kwargs: object) -> None:
        where = transport.open()
        self.emulator = ShoeEmulator(transport, steps, rng=random.Random(7), **kwargs)  # type: ignore[arg-type]
        self.link = ShoeLink(url or where, reconnect=(0.05, 0.3))
        self.items: list[Received] = []
        self.transport = transport
        self.thread = threading.Thread(target=self.emulator.run, kwargs={"linger": None})

    def __enter__(self) -> Play:
        self.link.start()
        self.thread.start()
        return self

    def until(self, done, timeout: float = 8.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while not done(self.items):
            assert time.monotonic() < deadline, f"timed out: {[i.data for i in self.items]}"
            item = self.link.get(0.05)
            if item is not None:
                self.items.append(item)
        return self.items

    def __exit__(self, *exc: object) -> None:
        self.emulator.stop()
        self.thread.join(5)
        self.link.stop()
        self.transport.close()


def states(items: list[Received]) -> list[str]:
    return [i.data["status"] for i in items if i.kind == "link"]


def cards_seen(items: list[Received]) -> list[tuple[int, str]]:
    return [(i.data["seq"], i.data["card"]) for i in items
            if i.kind == "event" and i.data["type"] == "card"]


def sent_cards(steps: list[Step], skip: set[int] = frozenset()) -> list[tuple[int, str]]:  # type: ignore[assignment]
    return [(seq, s.message.card) for seq, s in enumerate(steps)
            if isinstance(s.message, Card) and seq not in skip]


def test_steps_from_trace_events() -> None:
    events = [
        {"ts": "2026-11-29T10:00:00.000Z", "src": "dealer", "type": "new_shoe", "shoe_id": "S1"},
        {"ts": "2026-11-29T10:00:01.500Z", "src": "shoe", "type": "card", "card": "KS"},
        {"ts": "2026-11-29T10:00:02.000Z", "src": "camera", "type": "card_seen", "card": "KS",
         "zone": "discard", "face": "up"},
        {"ts": "2026-11-29T10:00:03.000Z", "src": "shoe", "type": "card", "card": "2D",
         "multi": True},
        {"ts": "2026-11-29T10:00:04.000Z", "src": "dealer", "type": "bets_closed"},
        {"ts": "2026-11-29T10:00:05.250Z", "src": "shoe", "type": "cut_card", "color": "yellow"},
        {"ts": "2026-11-29T10:00:06.000Z", "src": "dealer", "type": "end_shoe"},
    ]
    assert steps_from_events(events) == [
        Step(0.0, Button(0, "NEWSHOE")), Step(1.5, Card(0, "KS")), Step(3.0, Card(0, "2D", True)),
        Step(4.0, Button(0, "CLOSE")), Step(5.25, CutCard(0, "Y")), Step(6.0, Button(0, "ENDSHOE")),
    ]


def test_faults_are_reported_and_every_whole_frame_arrives(tmp_path: Path) -> None:
    steps = script(300)
    faults = Faults(noise=0.2, bad_checksum=0.05, lose=0.05, retransmit=0.1)
    with Play(PtyTransport(tmp_path / "shoe"), steps, faults=faults) as play:
        tally: Tally = play.emulator.tally
        play.until(lambda items: tally.sent == 300
                   and cards_seen(items)[-1:] == sent_cards(steps, set(tally.missing_seqs))[-1:])
        items = play.items
    assert tally.lost and tally.corrupted and tally.retransmitted and tally.noise_bytes
    missing = set(tally.missing_seqs)
    assert cards_seen(items) == sent_cards(steps, missing)
    problems = [i.data for i in items if i.kind == "problem"]
    gaps = [p for p in problems if p["error"] == "gap" and p["seq"] < len(steps)]
    assert sum(g["missing"] for g in gaps) == len(missing)
    assert sum(p["error"] == "duplicate" for p in problems) >= 1
    assert sum(p["error"] == "checksum" for p in problems) >= tally.corrupted
    assert any(p["error"] == "noise" for p in problems)


def test_pty_disconnect_is_link_down_then_up_with_nothing_lost(tmp_path: Path) -> None:
    steps = script(40)
    faults = Faults(disconnects=((15, 0.4),))
    link_path = tmp_path / "shoe"
    with Play(PtyTransport(link_path), steps, url=str(link_path), faults=faults) as play:
        play.until(lambda items: len(cards_seen(items)) == 39 and len(states(items)) == 3)
        assert play.emulator.tally.disconnects == 1
    assert states(play.items) == ["up", "down", "up"]
    assert cards_seen(play.items) == sent_cards(steps)


def test_tcp_server_with_a_disconnect(tmp_path: Path) -> None:
    steps = script(30)
    faults = Faults(disconnects=((10, 0.3),))
    transport = TcpTransport("127.0.0.1", 0)
    with Play(transport, steps, faults=faults) as play:
        assert play.link.url.startswith("socket://127.0.0.1:")
        play.until(lambda items: len(cards_seen(items)) == 29 and len(states(items)) == 3)
    assert cards_seen(play.items) == sent_cards(steps)
    assert states(play.items) == ["up", "down", "up"]


def test_paced_play_sends_heartbeats_while_idle(tmp_path: Path) -> None:
    steps = [Step(0.0, Button(0, "NEWSHOE")), Step(1.0, Card(0, "9H")), Step(2.0, Card(0, "8S"))]
    with Play(PtyTransport(tmp_path / "shoe"), steps, speed=5.0, heartbeat=0.05) as play:
        start = time.monotonic()
        play.until(lambda items: len(cards_seen(items)) == 2)
        took = time.monotonic() - start
    assert 0.35 < took < 4.0  # 2 s of script at 5x
    assert play.emulator.tally.heartbeats >= 3
    assert not [i for i in play.items if i.kind == "problem"]  # heartbeats keep the SEQ whole
    assert cards_seen(play.items)[0][0] > 1  # heartbeats came between the frames


def test_faults_are_checked() -> None:
    with pytest.raises(ValueError, match="lose"):
        Faults(lose=1.5)
    with pytest.raises(ValueError, match="speed"):
        ShoeEmulator(TcpTransport(), [], speed=0)
    assert Heartbeat(0)._replace(seq=3).seq == 3
