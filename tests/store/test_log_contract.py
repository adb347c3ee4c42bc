"""The event log contract: every test runs against the in-memory log and the SQLite log."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.logformat import GENESIS, ChainHead
from dealer_assist.store.chain import InvalidEvent, canonical_json


def test_append_returns_consecutive_seqs_and_read_gives_the_events_back(make_log, make_event):
    log = make_log()
    events = [make_event(n) for n in range(5)]
    seqs = [log.append(event) for event in events]
    assert seqs == [1, 2, 3, 4, 5]
    assert list(log.read()) == list(zip(seqs, events, strict=True))


def test_read_after_seq_gives_only_later_events(make_log, make_event):
    log = make_log()
    for n in range(6):
        log.append(make_event(n))
    assert [seq for seq, _ in log.read(after_seq=4)] == [5, 6]
    assert list(log.read(after_seq=6)) == []


def test_an_event_is_stored_exactly_as_given(make_log):
    log = make_log()
    event = {
        "ts": "2026-11-29T10:15:02.417Z", "src": "supervisor", "type": "decision",
        "game": 3, "action": "correct", "by": "S-104", "reason": "กรรมการแก้ไพ่ — ok",
        "player": ["7H", "2C"], "banker": ["TS", "3D", "4C"], "note": None, "flag": True,
    }
    log.append(event)
    [(_, stored)] = list(log.read())
    assert stored == event


def test_reads_are_copies_the_caller_cannot_change_the_log_through(make_log, make_event):
    log = make_log()
    event = make_event(1)
    log.append(event)
    event["card"] = "AS"
    [(_, first)] = list(log.read())
    first["card"] = "KD"
    assert next(log.replay())["card"] == make_event(1)["card"]


def test_empty_log_head_is_genesis(make_log):
    log = make_log()
    assert log.head() == ChainHead(0, GENESIS)
    assert list(log.read()) == []
    assert list(log.replay()) == []


def test_each_record_chains_to_the_one_before(make_log, make_event):
    log = make_log()
    events = [make_event(n) for n in range(4)]
    for event in events:
        log.append(event)
    prev = GENESIS
    records = list(log.records())
    for record, event in zip(records, events, strict=True):
        text = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert record.prev_hash == prev
        assert record.hash == hashlib.sha256((prev + text).encode("utf-8")).hexdigest()
        prev = record.hash
    assert log.head() == ChainHead(4, prev)


def test_canonical_json_keeps_non_ascii_as_utf8_and_sorts_keys():
    text = canonical_json({"type": "x", "by": "สมชาย", "a": [1, {"z": 1, "b": 2}]})
    assert text == '{"a":[1,{"b":2,"z":1}],"by":"สมชาย","type":"x"}'


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (["not", "a", "dict"], "JSON object"),
        ({"src": "shoe", "type": "card"}, "'ts'"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "", "type": "card"}, "'src'"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": 7}, "'type'"),
        ({"ts": "yesterday", "src": "shoe", "type": "card"}, "ISO 8601"),
        ({"ts": "2026-11-29T10:15:02", "src": "shoe", "type": "card"}, "UTC"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": "card", "x": {1, 2}}, "JSON"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": "card", "x": float("nan")},
         "JSON"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": "card", "x": (1, 2)},
         "unchanged"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": "card", "x": {3: "a"}},
         "unchanged"),
        ({"ts": "2026-11-29T10:15:02Z", "src": "shoe", "type": "card", "x": "\ud800"}, "JSON"),
    ],
)
def test_a_bad_event_is_refused_with_the_reason_and_nothing_is_lost(make_log, make_event, bad,
                                                                   says):
    log = make_log()
    log.append(make_event(0))
    head = log.head()
    with pytest.raises(InvalidEvent, match=says):
        log.append(bad)
    assert log.head() == head
    assert [seq for seq, _ in log.read()] == [1]
    assert log.append(make_event(1)) == 2


def test_append_many_appends_in_order_and_returns_the_seqs(make_log, make_event):
    log = make_log()
    log.append(make_event(0))
    seqs = log.append_many(make_event(n) for n in range(1, 5))
    assert list(seqs) == [2, 3, 4, 5]
    assert [event for _, event in log.read()] == [make_event(n) for n in range(5)]
    assert list(log.append_many([])) == []


def test_append_many_is_all_or_none(make_log, make_event):
    log = make_log()
    log.append(make_event(0))
    batch: list[Any] = [make_event(1), make_event(2), {"ts": "bad"}, make_event(3)]
    with pytest.raises(InvalidEvent, match="event 3 of the batch"):
        log.append_many(batch)
    assert log.head().seq == 1
    assert [seq for seq, _ in log.read()] == [1]
    assert log.append(make_event(4)) == 2


def test_replay_yields_every_event_in_order(make_log, make_event):
    log = make_log()
    events = [make_event(n) for n in range(7)]
    log.append_many(events[:3])
    for event in events[3:]:
        log.append(event)
    assert list(log.replay()) == events


def test_a_checkpoint_records_the_head_and_the_time(make_log, make_event, clock):
    log = make_log(clock=clock, checkpoint_every=None, checkpoint_interval=None)
    assert log.checkpoint().seq == 0
    log.append_many(make_event(n) for n in range(3))
    clock.advance(seconds=1.5)
    point = log.checkpoint()
    assert (point.seq, point.hash) == (log.head().seq, log.head().hash)
    assert point.at == "2026-11-29T10:00:01.500Z"
    assert [p.seq for p in log.checkpoints()] == [0, 3]


def test_checkpoints_come_every_n_events(make_log, make_event, clock):
    log = make_log(clock=clock, checkpoint_every=3, checkpoint_interval=None)
    for n in range(7):
        log.append(make_event(n))
    assert [p.seq for p in log.checkpoints()] == [3, 6]
    heads = {record.seq: record.hash for record in log.records()}
    assert all(p.hash == heads[p.seq] for p in log.checkpoints())


def test_checkpoints_come_when_the_interval_has_passed(make_log, make_event, clock):
    log = make_log(clock=clock, checkpoint_every=None, checkpoint_interval=timedelta(minutes=1))
    log.append(make_event(0))
    clock.advance(seconds=30)
    log.append(make_event(1))
    assert log.checkpoints() == []
    clock.advance(seconds=31)
    log.append(make_event(2))
    assert [(p.seq, p.at) for p in log.checkpoints()] == [(3, "2026-11-29T10:01:01.000Z")]
    log.append(make_event(3))
    assert len(log.checkpoints()) == 1


def test_a_closed_log_refuses_appends(make_log, make_event):
    log = make_log()
    log.close()
    with pytest.raises(RuntimeError, match="closed"):
        log.append(make_event(0))


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8,
)


_extra_fields = st.dictionaries(
    st.text(min_size=1, max_size=6).filter(lambda k: k not in ("ts", "src", "type")),
    _json_values,
    max_size=4,
)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=_extra_fields)
def test_any_plain_json_event_round_trips_and_chains(make_log, make_event, extra):
    log = make_log()
    try:
        event = {**make_event(0), **extra}
        seq = log.append(event)
        assert list(log.read(after_seq=seq - 1)) == [(seq, event)]
        assert list(log.replay())[-1] == event
    finally:
        log.close()
