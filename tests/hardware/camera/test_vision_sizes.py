"""The card size of a frame (`sizes`): learnt from the clean card-shaped blobs of a mask,
where two cards touching, a panel inside a card's frame, a lone paper blob or half a card
would each mislead a plain median (through the finder's `_from_mask`, which asks it)."""

from __future__ import annotations

import cv2
import numpy as np

import hardware.camera.sizes as sizes
from hardware.camera.detect import _from_mask
from hardware.camera.quads import long_side
from hardware.camera.sizes import ringed_longs
from tests.hardware.camera.boxes import card_box


def test_a_card_and_a_pair_of_cards_set_the_size_of_one_card() -> None:
    """Two paper blobs of card shape: one card, and two cards side by side joined by a
    chip's white rim. Their median (78 half-size pixels) is neither's size and left both out:
    the card size is the one card's, and the pair's outline gives two cards of it.
    (simplistic, tuning frames: a ten of hearts never found so, a seven of diamonds merged
    with a back.)"""
    paper = np.zeros((300, 400), np.uint8)
    cv2.rectangle(paper, (40, 60), (83, 121), 255, -1)  # a card, 44 x 62
    cv2.rectangle(paper, (180, 60), (223, 121), 255, -1)  # two cards, 6 apart,
    cv2.rectangle(paper, (230, 60), (273, 121), 255, -1)
    cv2.circle(paper, (226, 90), 7, 255, -1)  # ... joined by a chip's rim
    found, lo, hi, *_ = _from_mask(paper, 52.5, 150.0, 0.7, sized=False, solid=True)
    assert lo <= 62 <= hi < 94
    assert sorted(round(float(quad[:, 0].mean())) for quad, _ in found) == [61, 202, 250]
    assert all(58 <= long_side(quad) <= 64 for quad, _ in found)


def test_a_blob_as_wide_as_a_card_is_long_is_two_cards_side_by_side() -> None:
    """Small cards whose paper the corner indices cut away leave the not-felt mask alone to
    set the card size: one card, and two cards touching side by side, as wide as the card
    is long. Their median (76 half-size pixels) is neither's size and left all three out:
    the pair gives the one card's size twice, and its outline gives two cards of it. A card
    half covered by another (a blob filling its rectangle by half) is no such measure.
    (A fresh tuning sample: three svg-dondorf cards of a frame never found, two paris cards
    read as one.)"""
    not_felt = np.zeros((300, 400), np.uint8)
    cv2.rectangle(not_felt, (40, 60), (83, 121), 255, -1)  # a card, 44 x 62
    cv2.rectangle(not_felt, (180, 60), (268, 121), 255, -1)  # two cards touching, 89 x 62
    found, lo, hi, *_ = _from_mask(not_felt, 52.5, 150.0, 0.7, sized=False, solid=False)
    assert lo <= 62 <= hi < 89
    centres = sorted(float(quad[:, 0].mean()) for quad, _ in found)
    assert len(centres) == 3 and np.abs(np.array(centres) - [61.5, 202, 246]).max() < 2
    assert all(58 <= long_side(quad) <= 64 for quad, _ in found)
    # in the paper mask, the card touching another whose paper is broken (a court card's
    # art): their not-felt blob holds the card at one end, not in its middle as a panel
    outer = not_felt.copy()
    cv2.rectangle(outer, (40, 60), (128, 121), 255, -1)
    _, lo, hi, *_ = _from_mask(not_felt, 52.5, 150.0, 0.7, sized=False, solid=True, outer=outer)
    assert lo <= 62 <= hi < 89
    paper = np.zeros((300, 500), np.uint8)
    for x in (40, 160, 280):  # cards of 62 x 88 ...
        cv2.rectangle(paper, (x, 60), (x + 61, 147), 255, -1)
    cv2.rectangle(paper, (400, 60), (443, 121), 255, -1)  # ... and the paper left of one,
    cv2.rectangle(paper, (420, 75), (443, 106), 0, -1)  # 44 x 62 with a side bitten out
    found, lo, hi, *_ = _from_mask(paper, 52.5, 150.0, 0.7, sized=False, solid=True)
    assert lo <= 88 <= hi
    assert sum(84 <= long_side(quad) <= 92 for quad, _ in found) == 3


def test_a_paper_panel_inside_a_cards_frame_gives_the_cards_size() -> None:
    """svg-dondorf prints a wide frame round a white panel, and the frame's thin line opens
    the white border away from the paper mask: the panel (0.7 of the card) is the paper blob.
    The clean not-felt blob holding it gives the card's size, so a card a little larger
    than these (104 against 98 half-size pixels) is still in the size range. (Tuning frames:
    a ten and a nine of clubs read face down, an eight read at 0.28.)"""
    paper = np.zeros((300, 400), np.uint8)
    not_felt = np.zeros_like(paper)
    cv2.rectangle(not_felt, (40, 60), (107, 157), 255, -1)  # a card, 68 x 98
    cv2.rectangle(paper, (50, 75), (97, 142), 255, -1)  # ... its panel, 48 x 68
    cv2.rectangle(not_felt, (200, 60), (267, 157), 255, -1)  # a white card, 68 x 98
    cv2.rectangle(paper, (200, 60), (267, 157), 255, -1)
    _, lo, hi, *_ = _from_mask(paper, 52.5, 150.0, 0.7, sized=False, solid=True,
                               outer=not_felt)
    assert lo < 98 and hi > 104
    _, lo, hi, *_ = _from_mask(paper, 52.5, 150.0, 0.7, sized=False, solid=True)
    assert hi < 104  # the median of the panel and the card


def test_a_lone_paper_blob_gives_way_to_the_size_the_not_felt_cards_agree_on(monkeypatch) -> None:
    """svg-dondorf, a fresh tuning sample: the face-up cards' paper was cut up by their
    pips and pictures, and the one clean paper blob was a band of a face-down card's light
    pattern under a hand, 62 half-size pixels long; learnt as the card size, the three
    face-up cards (95 long, clean blobs of the not-felt mask) were searched at it, cut in
    halves across and read face down. Two or more clean not-felt blobs agreeing on another
    size than one paper blob's give the size; a second paper blob, or not-felt blobs that
    disagree, leave it to the paper."""
    paper = np.zeros((300, 500), np.uint8)
    not_felt = np.zeros_like(paper)
    cv2.rectangle(paper, (40, 60), (101, 102), 255, -1)  # a band, 62 x 43
    for x in (150, 250, 350):
        cv2.rectangle(not_felt, (x, 60), (x + 66, 60 + 94), 255, -1)  # cards, 67 x 95
    def size_range() -> tuple[float, float]:
        _, lo, hi, *_ = _from_mask(paper, 52.5, 150.0, 0.7, sized=False, solid=True,
                                   outer=not_felt)
        return lo, hi

    lo, hi = size_range()
    assert 62 < lo < 95 < hi
    with monkeypatch.context() as patched:
        patched.setattr(sizes, "_lone_paper", lambda typical, *_: typical)  # as before
        assert size_range()[1] < 95
    cv2.rectangle(not_felt, (40, 170), (40 + 86, 170 + 122), 255, -1)  # two cards, 87 x 123
    lo, hi = size_range()
    assert lo < 62 < hi < 95  # they disagree: the paper's


def test_the_halves_of_a_card_in_its_border_give_the_cards_size() -> None:
    """With no paper card, the not-felt mask's quads set the card size. A court card whose
    art cuts it across gives halves as long as its short side, in its light border: they
    count as the card's size. Two cards in a printed box (a ring as well) are shorter than its
    short side, and a card as long as it lies away from its corners: they count as
    themselves. (Tuning frames: guyenne-classic's court cards read as four halves, one of them
    wrong; svg-oxygen's cards on green felt cut by a hand.)"""
    ring = (card_box(100, 100, 77, 110), 0.9)  # a card's border, 110 long
    halves = [card_box(100, 100, 77, 54), card_box(100, 156, 77, 54)]
    assert [round(v) for v in ringed_longs(halves + [card_box(300, 100, 77, 110)], [ring])] == [110] * 3
    assert [round(v) for v in ringed_longs(halves[:1], [ring])] == [110]  # one half alone too
    assert [round(v) for v in ringed_longs([card_box(100, 100, 77, 110)], [ring])] == [110]  # the card
    printed = (card_box(100, 100, 132, 92), 0.9)  # a printed box holding two cards
    two = [card_box(105, 105, 42, 60), card_box(160, 105, 42, 60)]
    assert [round(v) for v in ringed_longs(two, [printed])] == [60, 60]
    sized = (card_box(100, 100, 108, 86), 0.9)  # a box as wide as a card is long
    assert [round(v) for v in ringed_longs([card_box(111, 113, 86, 60)], [sized])] == [86]  # in its middle
