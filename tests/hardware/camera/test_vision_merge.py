"""The runtime's merge on hand-made reads: the reader's reads to one sighting per card (no
model needed)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware.camera.find import BackSpot, IndexSpot
from hardware.camera.merge import card_quad, merge
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import (
    CARD_ASPECT,
    INDEX_SPAN,
    NOT_A_CARD,
)
from hardware.camera.read import Read

SETTINGS = Settings()


def _read(code: str, at: tuple[float, float], centre: tuple[float, float], prob: float = 0.99,
          up: tuple[float, float] = (0.0, -1.0), width: float = 100.0,
          runner_up: float | None = None) -> Read:
    return Read(IndexSpot(at, up, width, centre, 0.9), code, prob, runner_up)


def test_a_cards_two_indices_make_one_face_up_sighting() -> None:
    reads = [_read("QS", (420, 330), (500, 400)), _read("QS", (580, 470), (504, 398), 0.95,
                                                         up=(0.0, 1.0))]
    (s,) = merge(reads, [], (1080, 1920), SETTINGS)
    assert (s.card, s.face, s.why) == ("QS", "up", "")
    assert s.center == pytest.approx((500, 400))  # the middle of its two indices
    assert s.confidence == pytest.approx(0.99)
    # its width from its two indices' distance (INDEX_SPAN card widths), not the finder's 100
    width = np.hypot(580 - 420, 470 - 330) / INDEX_SPAN
    quad = np.array(s.quad)
    assert np.linalg.norm(quad[3] - quad[0]) == pytest.approx(width * CARD_ASPECT)
    assert np.linalg.norm(quad[1] - quad[0]) == pytest.approx(width)
    assert quad[0, 1] < quad[3, 1] and quad[0, 0] < quad[1, 0]  # clockwise from top-left


def test_a_cards_up_is_the_mean_of_its_two_indices_ups() -> None:
    tilt = np.deg2rad(10)
    reads = [_read("QS", (420, 330), (500, 400), up=(np.sin(tilt), -np.cos(tilt))),
             _read("QS", (580, 470), (504, 398), 0.95, up=(np.sin(tilt), np.cos(tilt)))]
    (s,) = merge(reads, [], (1080, 1920), SETTINGS)
    quad = np.array(s.quad)
    up = (quad[0] - quad[3]) / np.linalg.norm(quad[0] - quad[3])
    assert up == pytest.approx((0.0, -1.0))  # 10 degrees one way and the other: straight up
    (alone,) = merge(reads[:1], [], (1080, 1920), SETTINGS)  # one index: its own up and width
    quad = np.array(alone.quad)
    assert (quad[0] - quad[3]) / np.linalg.norm(quad[0] - quad[3]) == pytest.approx(
        (np.sin(tilt), -np.cos(tilt)))
    assert np.linalg.norm(quad[1] - quad[0]) == pytest.approx(100)


def test_a_card_seen_by_one_index_is_scaled_as_the_frames_cards_seen_by_two() -> None:
    """The finder's width runs long on a design it has not seen, alike on every card of it: a
    card whose two indices give its width (100 px, where the finder says 130) scales the
    width and the way to the centre of a card seen by one index only."""
    a = (400.0, 300.0)
    b = (a[0] + 0.6 * 100 * INDEX_SPAN, a[1] + 0.8 * 100 * INDEX_SPAN)  # 100 px wide
    pair = [_read("QS", a, (470, 400), width=130.0),
            _read("QS", b, (476, 398), 0.95, up=(0.0, 1.0), width=130.0)]
    alone = _read("7H", (1000, 300), (1000 + 0.36 * 130, 300 + 0.57 * 130), width=130.0)
    seen = {s.card: s for s in merge([*pair, alone], [], (1080, 1920), SETTINGS)}
    assert seen["7H"].center == pytest.approx((1000 + 0.36 * 100, 300 + 0.57 * 100))
    quad = np.array(seen["7H"].quad)
    assert np.linalg.norm(quad[1] - quad[0]) == pytest.approx(100)
    assert seen["QS"].center == pytest.approx(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
    # off, or with no card seen by both indices, the finder's own width and centre stand
    unscaled = replace(SETTINGS, pairs_for_deck_scale=0)
    for reads, settings in (([*pair, alone], unscaled), ([alone], SETTINGS)):
        (s,) = [s for s in merge(reads, [], (1080, 1920), settings) if s.card == "7H"]
        assert s.center == pytest.approx(alone.spot.card_centre)
        assert np.linalg.norm(np.array(s.quad)[1] - np.array(s.quad)[0]) == pytest.approx(130)


def test_a_fans_cards_stay_apart_and_not_a_card_reads_are_dropped() -> None:
    reads = [_read("2H", (400, 330), (480, 400)), _read("3H", (440, 330), (520, 400)),
             _read("4H", (480, 330), (560, 400)), _read(NOT_A_CARD, (700, 700), (780, 760))]
    found = merge(reads, [], (1080, 1920), SETTINGS)
    assert sorted((s.card, s.face) for s in found) == [("2H", "up"), ("3H", "up"), ("4H", "up")]


def test_a_weak_read_or_indices_that_disagree_give_unsure_never_a_code() -> None:
    (weak,) = merge([_read("8C", (420, 330), (500, 400), prob=0.6)], [], (1080, 1920), SETTINGS)
    assert (weak.card, weak.face) == (None, "unsure") and "8C" in weak.why
    # one index read twice (two heat peaks), two sure codes: one card, and not sure which
    (clash,) = merge([_read("6S", (420, 330), (500, 400)), _read("6C", (425, 332), (505, 402))],
                     [], (1080, 1920), SETTINGS)
    assert (clash.card, clash.face) == (None, "unsure")
    assert clash.why == "indices disagree: 6S or 6C"


# a big card's two indices as the finder saw them on a real photograph (half A, 012.jpg): its
# width a quarter short, so each predicted centre falls well short of the card's middle
_BIG_A = dict(at=(283, 446), centre=(218, 368), up=(0.0, 1.0), width=170.0)
_BIG_B = dict(at=(121, 173), centre=(170, 252), up=(0.0, -1.0), width=144.0)


def test_a_big_cards_opposite_indices_are_one_card_though_their_centres_miss() -> None:
    reads = [_read("AD", **_BIG_A, prob=0.98), _read("AD", **_BIG_B, prob=0.93)]
    (s,) = merge(reads, [], (720, 1280), SETTINGS)
    assert (s.card, s.face) == ("AD", "up")
    assert s.center == pytest.approx((202, 309.5))  # the middle of the two indices


def test_two_corners_read_alike_make_a_card_sure_when_asked() -> None:
    """Both opposite indices read as one code, each below `sure`: with `pair_sure` at or below
    both reads, the card is that code; off, or with one corner only, it stays unsure."""
    on, off = replace(SETTINGS, pair_sure=0.6), replace(SETTINGS, pair_sure=1.01)
    both = [_read("AD", **_BIG_A, prob=0.7), _read("AD", **_BIG_B, prob=0.65)]
    (s,) = merge(both, [], (720, 1280), on)
    assert (s.card, s.face) == ("AD", "up")
    (s,) = merge(both, [], (720, 1280), off)
    assert (s.card, s.face, s.why) == (None, "unsure", "not sure: AD at 0.70")
    (s,) = merge(both[:1], [], (720, 1280), on)
    assert (s.card, s.face) == (None, "unsure")
    weak_corner = [both[0], _read("AD", **_BIG_B, prob=0.5)]
    (s,) = merge(weak_corner, [], (720, 1280), on)
    assert (s.card, s.face) == (None, "unsure")


def test_a_read_below_sure_with_a_clear_lead_is_sure() -> None:
    """Below `sure`, a read stands when it is at least `sure_by_lead_min` and the reader's
    second choice is `sure_by_lead_ratio` times less likely; a close second, a lower read or a
    second choice not known leave the card unsure."""
    lead = replace(SETTINGS, sure=0.8, sure_by_lead_min=0.7, sure_by_lead_ratio=12.0)

    def face(prob: float, runner_up: float | None, settings: Settings = lead
             ) -> tuple[str | None, str]:
        (s,) = merge([_read("9S", **_BIG_A, prob=prob, runner_up=runner_up)], [], (720, 1280),
                     settings)
        return s.card, s.face

    assert face(0.72, 0.05) == ("9S", "up")
    assert face(0.72, 0.07) == (None, "unsure")  # 0.72 < 12 x 0.07
    assert face(0.69, 0.01) == (None, "unsure")  # under the floor
    assert face(0.75, None) == (None, "unsure")  # the rest may all be one other code
    assert face(0.8, 0.2) == ("9S", "up")  # `sure` needs no lead
    assert face(0.72, 0.05, replace(lead, sure_by_lead_min=1.01)) == (None, "unsure")  # off


def test_a_big_cards_indices_that_disagree_give_the_surer_one_or_unsure() -> None:
    sure_and_not = [_read("AD", **_BIG_A, prob=0.97), _read("AH", **_BIG_B, prob=0.6)]
    (s,) = merge(sure_and_not, [], (720, 1280), SETTINGS)
    assert (s.card, s.face) == ("AD", "up")
    unsure_twice = [_read("AD", **_BIG_A, prob=0.7), _read("AH", **_BIG_B, prob=0.6)]
    (s,) = merge(unsure_twice, [], (720, 1280), SETTINGS)
    assert (s.card, s.face) == (None, "unsure") and "AD" in s.why
    # two sure reads at opposite corners are two cards (the hands of a bridge deal face each
    # other so): each is reported
    both_sure = [_read("AD", **_BIG_A, prob=0.97), _read("AH", **_BIG_B, prob=0.95)]
    assert sorted(s.card or "" for s in merge(both_sure, [], (720, 1280), SETTINGS)) == [
        "AD", "AH"]


def test_indices_at_opposite_corners_with_another_index_between_stay_two_cards() -> None:
    between = _read("5C", (200, 310), (200, 380), prob=0.95, width=150.0)
    reads = [_read("AD", **_BIG_A, prob=0.97), _read("AH", **_BIG_B, prob=0.6), between]
    found = merge(reads, [], (720, 1280), SETTINGS)
    assert sorted((s.card or "", s.face) for s in found) == [
        ("", "unsure"), ("5C", "up"), ("AD", "up")]


def test_a_weak_stray_peak_does_not_make_two_sure_fan_neighbours_unsure() -> None:
    """Two fanned cards, each read sure from a firm peak, and between them a weak peak read
    unsure as one of them: both cards are still reported."""
    a, b = _read("AD", (400, 330), (480, 400)), _read("5D", (430, 330), (510, 400))
    stray = Read(IndexSpot((408, 331), (0.0, -1.0), 100.0, (490, 400), 0.33), "5D", 0.46)
    found = merge([a, b, stray], [], (1080, 1920), SETTINGS)
    assert sorted((s.card, s.face) for s in found) == [("5D", "up"), ("AD", "up")]


def test_one_index_read_as_two_suits_gives_the_firm_peaks_read_when_asked() -> None:
    """A weak second peak beside a firm one, the same rank read in another suit (as on a real
    webcam photo of the clubs): with `same_rank_index` on, the weak peak is the firm one's
    shadow and the firm read stands; two weak peaks so are one card, unsure; two firm peaks
    so are a fan's neighbours of one rank, two cards. Off (0), two sure
    reads stay two cards."""
    on, off = replace(SETTINGS, same_rank_index=0.2), replace(SETTINGS, same_rank_index=0.0)
    width, up = 80.0, (-0.99, 0.11)
    firm = Read(IndexSpot((262, 437), up, width, (300, 400), 0.8), "3C", 0.97)
    beside = (262 - 0.16 * width, 441)
    weak = Read(IndexSpot(beside, (-0.99, -0.11), width, (290, 410), 0.36), "3S", 0.94)
    assert [(s.card, s.face) for s in merge([firm, weak], [], (800, 1280), on)] == [
        ("3C", "up")]
    assert sorted(s.card for s in merge([firm, weak], [], (800, 1280), off)) == ["3C", "3S"]
    weak_too = Read(replace(firm.spot, heat=0.4), "3C", 0.97)
    (card,) = merge([weak_too, weak], [], (800, 1280), on)
    assert (card.card, card.face, card.why) == (None, "unsure", "indices disagree: 3C or 3S")
    fan = Read(replace(weak.spot, heat=0.85), "3S", 0.94)  # the next card of a fan, one rank
    assert sorted(s.card for s in merge([firm, fan], [], (800, 1280), on)) == ["3C", "3S"]
    neighbour = Read(weak.spot, "4C", 0.94)  # another rank there is a fan's neighbour
    assert sorted(s.card for s in merge([firm, neighbour], [], (800, 1280), on)) == ["3C", "4C"]
    apart = Read(IndexSpot((262 - 0.4 * width, 441), up, width, (250, 410), 0.36), "3S", 0.94)
    assert sorted(s.card for s in merge([firm, apart], [], (800, 1280), on)) == ["3C", "3S"]


def test_the_same_code_far_apart_is_two_cards() -> None:
    """Eight decks hold each code eight times: the same code two card widths off, side by
    side, the same way up, is two cards."""
    reads = [_read("9H", (300, 300), (350, 370)), _read("9H", (520, 300), (570, 370))]
    assert [s.card for s in merge(reads, [], (1080, 1920), SETTINGS)] == ["9H", "9H"]


def test_a_four_index_cards_two_top_indices_are_one_card() -> None:
    """A card printed with an index in every corner (svg-dondorf) shows its two top indices
    side by side, the same way up, three quarters of its width apart, and the finder may put
    each one's centre below it as though each were a top-left index: one card, centred
    between the two guesses. A card width apart, one above the other, or turned another way,
    the same code is two cards; with `top_pair` off, so are the two top indices."""
    left, right = _read("QS", (400, 300), (450, 370)), _read("QS", (475, 300), (525, 370))
    (s,) = merge([left, right], [], (1080, 1920), SETTINGS)
    assert (s.card, s.face) == ("QS", "up") and s.center == pytest.approx((487.5, 370))
    off = replace(SETTINGS, top_pair=(2.0, 2.0))
    assert [c.card for c in merge([left, right], [], (1080, 1920), off)] == ["QS", "QS"]
    for other in (_read("QS", (510, 300), (560, 370)),  # 1.1 card widths across
                  _read("QS", (440, 350), (490, 420)),  # half a card lower
                  _read("QS", (475, 300), (545, 250), up=(1.0, 0.0))):  # turned a quarter
        assert [c.card for c in merge([left, other], [], (1080, 1920), SETTINGS)] == ["QS", "QS"]



def test_a_four_index_cards_top_indices_are_one_card_whichever_is_surer() -> None:
    """The two top indices' ups differ by a few degrees (8 here, as in a dense fan): measured
    in either one's up, the other lies a tenth of a card higher or lower than in the other's.
    The test takes the mean up, so which read is surer does not decide."""
    turn = np.deg2rad(4.0)
    for first in (0.99, 0.9):
        left = _read("7H", (300, 300), (350, 370), first, up=(-np.sin(turn), -np.cos(turn)))
        right = _read("7H", (386, 290), (436, 360), 0.95, up=(np.sin(turn), -np.cos(turn)))
        assert [c.card for c in merge([left, right], [], (1080, 1920), SETTINGS)] == ["7H"]

def test_backs_are_face_down_cards_unless_on_a_face() -> None:
    reads = [_read("KD", (420, 330), (500, 400))]
    backs = [BackSpot((505, 395), 0.7), BackSpot((900, 500), 0.8)]
    found = merge(reads, backs, (1080, 1920), SETTINGS)
    assert [(s.card, s.face) for s in found] == [("KD", "up"), (None, "down")]
    down = found[1]
    assert down.center == (900, 500) and down.why == "like a card back"
    assert np.linalg.norm(np.array(down.quad[1]) - down.quad[0]) == pytest.approx(100)
    (alone,) = merge([], [BackSpot((300, 300), 0.9)], (1080, 1920), SETTINGS)
    assert alone.card is None and alone.face == "down"


def test_card_quad_turns_with_the_cards_up() -> None:
    quad = np.array(card_quad((100, 100), (1.0, 0.0), 50))  # the card's top points right
    assert quad[0] == pytest.approx((100 + 0.5 * 50 * CARD_ASPECT, 75))
    assert quad[1] == pytest.approx((100 + 0.5 * 50 * CARD_ASPECT, 125))
