"""The recognizer's decision on one look (synthetic looks, no frames): which corner speaks
for the index, when the index names a card, and when a card is read, unsure or face down."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware.camera import recognize
from hardware.camera.deck import CODES
from hardware.camera.index import RANKS
from hardware.camera.pips import PipModel
from hardware.camera.recognize import Look, Reading, Recognizer, _clearest
from hardware.camera.synth.generic import GENERIC
from tests.hardware.camera.looks import QUAD, faceless_deck, look_at


def test_the_clearest_corner_speaks_for_the_index() -> None:
    """A corner showing a pip or a picture's edge matches several glyphs about alike; the
    corner whose best glyph stands out is the one believed, whatever its top score."""
    clear = np.full(13, 0.2)
    clear[6] = 0.9  # a 7, well ahead of the rest
    muddled = np.full(13, 0.5)
    muddled[[0, 10]] = 0.98, 0.97  # an ace or a jack, nothing to choose between them
    assert _clearest(np.stack([muddled, clear])) == 1
    assert _clearest(np.zeros((0, 4))) is None


def test_the_index_names_a_card_only_with_its_rank_and_a_suit_pip() -> None:
    rank = np.tile(np.linspace(0, 0.6, 13), 4)  # K (last rank) reads best
    suit = np.repeat([0.1, 0.8, 0.3, 0.2], 13)  # hearts
    look = Look(np.zeros((4, 2)), None, np.zeros(52), rank, suit,  # type: ignore[arg-type]
                np.zeros(4))
    assert look.index_names(CODES.index("KH"))
    assert not look.index_names(CODES.index("KD"))
    assert not look.index_names(CODES.index("QH"))
    no_pip = Look(look.quad, None, look.fused, rank, np.zeros(52),  # type: ignore[arg-type]
                  np.zeros(4))
    assert not no_pip.index_names(CODES.index("KS"))
    # hearts lead diamonds by 0.5: enough for a lead of 0.4, not for one of 0.6
    assert look.index_names(CODES.index("KH"), suit_lead=0.4)
    assert not look.index_names(CODES.index("KH"), suit_lead=0.6)
    # the body pips say diamonds: counted in, they overrule the corner's small pip
    pips = replace(look, pips=np.array([0.0, 0.0, 0.9, 0.0]))
    assert pips.index_names(CODES.index("KH"), suit_lead=0.4)
    assert pips.index_names(CODES.index("KD"), pip_weight=1.0)
    assert not pips.index_names(CODES.index("KH"), pip_weight=1.0)
    # no rank glyph read at all: the index names nothing, whatever the pips say
    blank = replace(pips, rank=np.zeros(52))
    assert not blank.index_names(CODES.index("KD"), pip_weight=1.0)


def test_the_built_in_rule_asks_the_whole_card_look_for_the_rank() -> None:
    """`look_must_agree`: the index's glyph shapes alone do not make a read of an unseen
    design; the whole card's best face (its pip layout, its picture) must have that rank."""
    rank = np.tile(np.where(np.arange(13) == RANKS.index("7"), 0.9, 0.1), 4)
    suit = np.repeat([0.1, 0.9, 0.2, 0.1], 13)  # hearts
    per_code = np.full(52, 0.2)
    per_code[CODES.index("8H")] = 0.5  # the whole card looks most like an eight
    fused = per_code.copy()
    fused[CODES.index("7H")] = 0.9
    reading = Reading("8H", 0.5, 0.1, 0.0, False, per_code, np.arange(52), np.zeros((2, 2)))
    look = look_at(reading, fused, rank, suit)
    deck = faceless_deck()
    sure = Recognizer(deck, index_must_name=True).decide(look)
    assert (sure.face, sure.card) == ("up", "7H")
    assert Recognizer(deck, index_must_name=True, look_must_agree=True).decide(look).face == "unsure"
    agreeing = replace(look, reading=replace(reading, per_code=np.roll(per_code, -1)))
    assert Recognizer(deck, index_must_name=True, look_must_agree=True).decide(agreeing).card == "7H"


def test_the_body_pip_count_settles_a_card_too_close_to_call() -> None:
    """Two codes too close to call (a blurred index): the one whose enrolled pictures show as
    many body pips as the card gains `count_bonus`; a clear lead is left alone."""
    counts = np.zeros(52, np.int64)
    counts[CODES.index("2D")] = 1 << 2
    counts[CODES.index("7D")] = 1 << 3
    deck = faceless_deck(pips=PipModel(np.zeros((0, 400), np.float32), np.zeros(0, int), counts))
    recognizer = Recognizer(deck)
    fused = np.zeros(52)
    fused[CODES.index("7D")], fused[CODES.index("2D")] = 0.30, 0.29
    recognizer._count_pips(2, fused)
    assert fused[CODES.index("2D")] == pytest.approx(0.32)
    clear = np.zeros(52)
    clear[CODES.index("7D")], clear[CODES.index("2D")] = 0.40, 0.29
    recognizer._count_pips(2, clear)
    assert clear[CODES.index("2D")] == pytest.approx(0.29)


def test_a_face_barely_beating_the_back_is_not_read() -> None:
    """A face-down card under a hand: its back agrees less, a face nearly as much. Unless the
    best face beats the enrolled back by `back_margin`, the card is unsure, not read."""
    per_code = np.full(52, 0.1)
    per_code[CODES.index("JH")] = 0.32

    def look(back: float) -> Look:
        reading = Reading("JH", 0.32, 0.22, back, False, per_code, np.arange(52),
                          np.zeros((2, 2)))
        return look_at(reading, rank=_index_shows("J"))
    recognizer = Recognizer(faceless_deck())
    assert recognizer.decide(look(0.30)).face == "unsure"
    assert recognizer.decide(look(0.30)).why.startswith("close to the back: JH or ")
    assert (recognizer.decide(look(0.40)).face, recognizer.decide(look(0.40)).why) == (
        "down", "like the back")
    assert (recognizer.decide(look(0.05)).face, recognizer.decide(look(0.05)).card) == ("up", "JH")


def test_a_weak_glyph_match_has_little_say() -> None:
    """Any glyph matches another at about 0.3: an index term counts for nothing at that
    agreement, in full from 0.8, in proportion between."""
    deck = faceless_deck()
    recognizer = Recognizer(deck)
    assert recognizer._clarity(np.array([0.1, 0.29])) == 0.0
    assert recognizer._clarity(np.array([0.2, 0.55])) == pytest.approx(0.5)
    assert recognizer._clarity(np.array([0.95, 0.4])) == 1.0


def test_the_built_in_rule_asks_for_a_second_witness_of_the_suit() -> None:
    """`suit_witnessed`: the body pips name the suit when the card shows them; a card that
    shows none needs its corner pip clearly ahead."""
    suit = np.repeat([0.2, 0.9, 0.75, 0.1], 13)  # the corner pip: hearts, diamonds close
    look = Look(np.zeros((4, 2)), None, np.zeros(52), np.zeros(52), suit,  # type: ignore[arg-type]
                np.array([0.1, 0.95, 0.6, 0.05]))
    assert look.suit_witnessed(CODES.index("7H"), 0.3)
    assert not look.suit_witnessed(CODES.index("7D"), 0.3)
    diamonds = replace(look, pips=np.array([0.1, 0.6, 0.95, 0.05]))
    assert not diamonds.suit_witnessed(CODES.index("7H"), 0.3)
    court = replace(look, pips=np.zeros(4))  # hearts lead diamonds by 0.15 only
    assert not court.suit_witnessed(CODES.index("KH"), 0.3)
    assert court.suit_witnessed(CODES.index("KH"), 0.1)


def test_a_card_showing_a_rank_is_not_called_face_down_by_the_built_in_model() -> None:
    """A face of a design the built-in model never saw looks like no face it knows (or like
    another design's back); a corner showing a rank glyph clearly says it is no back: the
    card is unsure, not face down. An enrolled deck knows its own back: no such rule."""
    per_code = np.full(52, 0.1)
    reading = Reading("7H", 0.15, 0.0, 0.05, False, per_code, np.arange(52), np.zeros((2, 2)))
    rank = np.zeros(52)
    rank[CODES.index("7H")] = 0.9
    look = look_at(reading, rank=rank)
    deck = faceless_deck()
    assert Recognizer(deck).decide(look).face == "down"
    built_in = Recognizer(deck, **GENERIC).decide(look)
    assert (built_in.face, built_in.why) == ("unsure", "like no face, but a corner shows a rank")
    faint = replace(look, rank=rank * 0.5)  # a back's pattern matches a glyph about this well
    assert Recognizer(deck, **GENERIC).decide(faint).face == "down"


def _index_shows(rank: str, agreement: float = 0.4) -> np.ndarray:
    """The rank terms (52,) of a corner index showing `rank` weakly."""
    terms = np.zeros(52)
    terms[[CODES.index(rank + suit) for suit in "SHDC"]] = agreement
    return terms


def test_a_weak_look_with_no_index_in_sight_is_not_read() -> None:
    """A back under a hand, its quad squashed onto the part in sight (svg-oxygen dealt with
    ancient_french's back, seed 777): the picture agreed with the jack of spades 0.42 and
    with the back 0.33, and no corner showed an index. A card whose corners show no index is
    read only when its whole look agrees `blind_below` (0.5); one showing an index, or
    agreeing that well, is read as before."""
    per_code = np.full(52, 0.1)

    def look(score: float, rank: np.ndarray | None = None) -> Look:
        per_code[CODES.index("JS")] = score
        reading = Reading("JS", score, score - 0.1, 0.1, False, per_code.copy(), np.arange(52),
                          np.zeros((2, 2)))
        return look_at(reading, rank=rank)
    recognizer = Recognizer(faceless_deck())
    assert recognizer.decide(look(0.42)).face == "unsure"
    assert recognizer.decide(look(0.42)).why.startswith("no index seen: JS or ")
    assert recognizer.decide(look(0.42, _index_shows("J"))).card == "JS"
    assert recognizer.decide(look(0.55)).card == "JS"


def test_a_card_far_from_the_enrolled_back_is_not_called_face_down() -> None:
    """A quad thrown off (a corner cut, the card's border taken in) leaves a face-up card
    like no face; when it is still far less like the enrolled back, and its best code leads
    clearly, it is read. No face-down card of the tuning frames came within 0.12 of that."""
    def look(back: float, lead: float) -> Look:
        per_code = np.full(52, 0.0)
        per_code[CODES.index("AD")] = 0.2
        per_code[CODES.index("5D")] = 0.2 - lead
        reading = Reading("AD", 0.2, lead, back, False, per_code, np.arange(52),
                          np.zeros((2, 2)))
        return look_at(reading, rank=_index_shows("A"))
    deck = faceless_deck()
    recognizer = Recognizer(deck)
    assert recognizer.decide(look(-0.2, 0.08)).card == "AD"
    assert recognizer.decide(look(0.0, 0.08)).why == "like no face"  # not far enough
    assert recognizer.decide(look(-0.2, 0.03)).why == "like no face"  # no clear lead
    assert Recognizer(deck, **GENERIC).decide(look(-0.2, 0.08)).face == "down"  # other backs


def test_body_pips_are_read_unless_they_could_not_move_the_card_or_its_confidence(
        monkeypatch) -> None:
    """Body pips saying another suit take `pip_cap` off the card's code. A look leading by
    that much more than the lead of the calibration's last confidence is settled: its pips
    are not read, and read they would change neither its card nor its confidence. A look
    leading by a little less has them read, and they lower its confidence."""
    monkeypatch.setattr(recognize, "index_terms",
                        lambda deck, picture: (np.zeros(52), np.zeros(52), float("nan")))
    read: list[bool] = []
    monkeypatch.setattr(PipModel, "read", lambda model, *args: (
        read.append(True), (np.array([0.9, 0.1, 0.1, 0.1]), 0, float("nan")))[1])  # spades
    recognizer = Recognizer(faceless_deck(), pip_weight=1.0)
    top = recognizer.calibration[1][-1]
    settled = recognizer.calibration[0][-1] * recognizer.min_margin + recognizer.pip_cap
    always = replace(recognizer)
    always._settled = lambda fused: False  # type: ignore[method-assign]

    def told(decider: Recognizer, lead: float) -> tuple[str | None, float]:
        per_code = np.full(52, 0.3)
        per_code[CODES.index("7H")] = 0.3 + lead
        reading = Reading("7H", 0.3 + lead, lead, 0.0, False, per_code, np.arange(52),
                          np.zeros((2, 2)))
        sighting = decider.decide(decider.look(np.zeros((4, 4, 3), np.uint8), QUAD, reading))
        return sighting.card, sighting.confidence

    assert told(recognizer, settled) == ("7H", top) and read == []
    assert told(always, settled) == ("7H", top) and read == [True]
    card, confidence = told(recognizer, settled - 0.01)
    assert card == "7H" and confidence < top and read == [True, True]
