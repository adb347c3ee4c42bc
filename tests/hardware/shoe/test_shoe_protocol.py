"""The reference protocol codec on byte fixtures, and properties under arbitrary bytes."""

from __future__ import annotations

import random
from functools import reduce

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.shoe.protocol import (
    CARD_CODES,
    MAX_BODY,
    PROBLEM_KINDS,
    Button,
    Card,
    CutCard,
    Decoder,
    Heartbeat,
    Problem,
    Unreadable,
    encode,
)


def frame(body: str, checksum: int | None = None, end: bytes = b"\r\n") -> bytes:
    """A frame built here independently of `encode`, optionally with a given checksum."""
    raw = body.encode("latin-1")
    cs = reduce(lambda a, b: a ^ b, raw, 0) if checksum is None else checksum
    return b"$" + raw + b"*" + f"{cs:02X}".encode() + end


def decode(data: bytes) -> list:
    d = Decoder()
    return d.feed(data) + d.flush()


def kinds(items: list) -> list[str]:
    return [i.kind if isinstance(i, Problem) else type(i).__name__ for i in items]


# ---- every frame type ---------------------------------------------------------------------

@pytest.mark.parametrize("body, message", [
    ("0042,CRD,QS", Card(42, "QS")),
    ("0043,CRD,TD,M", Card(43, "TD", multi=True)),
    ("0044,CRD,??", Unreadable(44)),
    ("0045,CRD,??,M", Unreadable(45, multi=True)),
    ("0046,CUT,B", CutCard(46, "B")),
    ("0047,CUT,Y", CutCard(47, "Y")),
    ("0048,BTN,NEWSHOE", Button(48, "NEWSHOE")),
    ("0049,BTN,CLOSE", Button(49, "CLOSE")),
    ("0050,BTN,REVEAL", Button(50, "REVEAL")),
    ("0051,BTN,ENDSHOE", Button(51, "ENDSHOE")),
    ("0052,HBT", Heartbeat(52)),
])
def test_every_frame_type_decodes_and_encodes(body: str, message: object) -> None:
    raw = frame(body)
    assert decode(raw) == [message]
    assert encode(message) == raw  # type: ignore[arg-type]
    assert decode(raw[:-2] + b"\n") == [message]  # a bare LF ends a frame too


def test_spec_example_checksum() -> None:
    body = b"0042,CRD,QS"
    assert encode(Card(42, "QS")) == b"$0042,CRD,QS*%02X\r\n" % reduce(lambda a, b: a ^ b, body)


def test_every_card_code_round_trips() -> None:
    data = b"".join(encode(Card(i, c)) for i, c in enumerate(CARD_CODES))
    assert [m.card for m in decode(data)] == list(CARD_CODES)


# ---- every corruption kind ----------------------------------------------------------------

@pytest.mark.parametrize("raw, kind", [
    (frame("0001,CRD,QS", checksum=0x00), "checksum"),
    (frame("0001,CRD,QS")[:-4] + b"5a\r\n", "malformed"),  # lower-case hex
    (b"$0001,CRD,QS\r\n", "malformed"),  # no checksum
    (frame("0001,CRD,QS").replace(b"\r\n", b"xx\r\n"), "malformed"),  # junk after checksum
    (frame("001,CRD,QS"), "malformed"),  # SEQ not four digits
    (frame("00A1,CRD,QS"), "malformed"),
    (frame("0001"), "malformed"),  # no TYPE
    (frame("0001,CRD,1S"), "malformed"),  # bad card
    (frame("0001,CRD,qs"), "malformed"),
    (frame("0001,CRD,QS,X"), "malformed"),  # bad flag
    (frame("0001,CRD"), "malformed"),  # no card
    (frame("0001,CUT,R"), "malformed"),
    (frame("0001,BTN,PUSH"), "malformed"),
    (frame("0001,HBT,1"), "malformed"),
    (frame("0001,XYZ,1"), "unknown_type"),
    (frame("0001,crd,QS"), "unknown_type"),
    (frame("0001,CRD,Q\xe9"), "non_ascii"),
    (frame("0001,HBT," + "A" * (MAX_BODY - 8)), "too_long"),
])
def test_every_corruption_kind_is_dropped_and_named(raw: bytes, kind: str) -> None:
    items = decode(raw + encode(Card(7, "AS")))
    assert kinds(items) == [kind, "Card"]
    assert items[0].info["at"] == 0
    assert items[1] == Card(7, "AS")


def test_a_body_of_exactly_72_characters_is_not_too_long() -> None:
    raw = frame("0001,HBT," + "A" * (MAX_BODY - 9))
    assert len(raw) == 1 + MAX_BODY + 5
    assert kinds(decode(raw)) == ["malformed"]  # a bad field, but within the length


def test_noise_is_counted_once_per_run_and_resynchronised_on_dollar() -> None:
    data = b"\x00\xffhello" + encode(Card(1, "2C")) + b"\r\n" + encode(Card(2, "3C"))
    items = decode(data)
    assert kinds(items) == ["noise", "Card", "noise", "Card"]
    assert items[0].info == {"bytes": 7, "at": 0}
    assert items[2].info["bytes"] == 2


def test_a_frame_cut_short_by_a_dollar_is_noise() -> None:
    data = b"$0001,CR" + encode(Card(2, "3C"))
    assert [(k, i.info.get("bytes")) for k, i in zip(kinds(decode(data)), decode(data),
                                                     strict=True) if k == "noise"] == [("noise", 8)]


def test_unfinished_frame_at_the_end_is_malformed() -> None:
    assert kinds(decode(encode(Card(1, "2C"))[:-3])) == ["malformed"]


# ---- sequence -----------------------------------------------------------------------------

def test_retransmission_is_ignored_and_reported() -> None:
    data = encode(Card(1, "2C")) + encode(Card(1, "2C")) + encode(Card(2, "3C"))
    items = decode(data)
    assert kinds(items) == ["Card", "duplicate", "Card"]
    assert items[1].info["seq"] == 1


def test_an_older_frame_sent_again_is_a_duplicate_not_a_gap() -> None:
    data = b"".join(encode(Card(i, "2C")) for i in (1, 2, 3, 2, 3, 4))
    assert kinds(decode(data)) == ["Card", "Card", "Card", "duplicate", "duplicate", "Card"]


def test_gap_reports_how_many_frames_were_lost() -> None:
    data = encode(Card(5, "2C")) + encode(Heartbeat(9)) + encode(Card(10, "3C"))
    items = decode(data)
    assert kinds(items) == ["Card", "gap", "Heartbeat", "Card"]
    assert items[1].info["missing"] == 3


def test_sequence_wraps_from_9999_to_0000() -> None:
    data = encode(Card(9998, "2C")) + encode(Card(9999, "3C")) + encode(Card(0, "4C"))
    assert kinds(decode(data)) == ["Card", "Card", "Card"]
    gap = decode(encode(Card(9999, "3C")) + encode(Card(2, "4C")))[1]
    assert gap.kind == "gap" and gap.info["missing"] == 2


def test_sequence_is_judged_on_accepted_frames_only() -> None:
    data = encode(Card(1, "2C")) + frame("0002,CRD,3C", checksum=0) + encode(Card(3, "4C"))
    items = decode(data)
    assert kinds(items) == ["Card", "checksum", "gap", "Card"]
    assert items[2].info["missing"] == 1


# ---- streaming and bounded memory ---------------------------------------------------------

def test_byte_by_byte_feeding_gives_the_same_result() -> None:
    data = (b"xx" + encode(Card(1, "2C")) + frame("0002,CRD,3C", checksum=1) + b"$00"
            + encode(Card(2, "3C")) + encode(Card(2, "3C")) + encode(Button(5, "CLOSE"))
            + frame("0006,HBT," + "B" * 90) + encode(Heartbeat(7)))
    whole = decode(data)
    d = Decoder()
    pieces: list = []
    for b in data:
        pieces += d.feed(bytes([b]))
    pieces += d.flush()
    assert pieces == whole
    assert "too_long" in kinds(whole)


@pytest.mark.parametrize("junk", [b"\x00" * 1_000_000, b"$" + b"A" * 1_000_000,
                                  b"$0001,HBT*" + b"\xff" * 1_000_000])
def test_a_megabyte_without_frames_keeps_memory_bounded(junk: bytes) -> None:
    d = Decoder()
    problems = []
    for i in range(0, len(junk), 4096):
        problems += d.feed(junk[i:i + 4096])
        assert len(d._partial) <= MAX_BODY + 5
    problems += d.feed(encode(Card(1, "KD")))
    assert problems[-1] == Card(1, "KD")
    assert len(problems) <= 3


# ---- properties ---------------------------------------------------------------------------

_messages = st.one_of(
    st.builds(Card, st.just(0), st.sampled_from(CARD_CODES), st.booleans()),
    st.builds(Unreadable, st.just(0), st.booleans()),
    st.builds(CutCard, st.just(0), st.sampled_from(["B", "Y"])),
    st.builds(Button, st.just(0), st.sampled_from(["NEWSHOE", "CLOSE", "REVEAL", "ENDSHOE"])),
    st.builds(Heartbeat, st.just(0)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), _messages), max_size=25),
       st.integers(0, 9999), st.randoms(use_true_random=False))
def test_valid_frames_in_arbitrary_noise_are_all_decoded_in_order(
        pairs: list, first_seq: int, rnd: random.Random) -> None:
    sent = [m._replace(seq=(first_seq + i) % 10_000) for i, (_, m) in enumerate(pairs)]
    data = b"".join(noise + encode(m) for (noise, _), m in zip(pairs, sent, strict=True))
    d = Decoder()
    got: list = []
    i = 0
    while i < len(data):  # arbitrary chunking
        n = rnd.randint(1, 64)
        got += d.feed(data[i:i + n])
        i += n
    got += d.flush()
    assert [m for m in got if not isinstance(m, Problem)] == sent
    assert {p.kind for p in got if isinstance(p, Problem)} <= set(PROBLEM_KINDS) - {"gap"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_random_bytes_never_raise(chunks: list[bytes]) -> None:
    d = Decoder()
    for c in chunks:
        for item in d.feed(c):
            assert isinstance(item, Problem) or item.seq >= 0
    d.flush()
    assert len(d._partial) <= MAX_BODY + 5


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b.replace(b"Z", b"$").replace(b"Y", b"\n")))
def test_chunking_never_changes_the_result(data: bytes) -> None:
    whole = decode(data)
    d = Decoder()
    split: list = []
    for i in range(0, len(data), 7):
        split += d.feed(data[i:i + 7])
    split += d.flush()
    assert split == whole
