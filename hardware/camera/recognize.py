"""The card recognizer: a 1920x1080 overhead frame in, sightings out (pure, no IO).

`detect.find_cards` finds card-shaped quads; each is warped upright and compared with a
deck model's faces, both ways up since a card may lie either way round (`reading`), and
what its corner index and body pips say is fused in. A card that looks like no face is face
down; one whose best code barely beats the next is "unsure".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from hardware.camera.deck import CODES, DeckModel
from hardware.camera.detect import Candidate, find_cards
from hardware.camera.edges import refine_quad
from hardware.camera.heap import keep_freed_memory
from hardware.camera.pairwise import contrast, discriminate, foreign_colour
from hardware.camera.reading import (
    LIKE_BACK,
    Reading,
    read_card,
    read_cards,
    unaligned_all,
    warp_card,
)
from hardware.camera.snap import snap


@dataclass(frozen=True)
class Sighting:
    """One card on the felt. `card` is set only when `face` is "up"; for a card not read,
    `why` says what stopped it ("like the back" or "like no face" when face down; when
    unsure, one of `_UNSURE` and the two leading codes)."""

    card: str | None
    face: str  # "up", "down" or "unsure"
    center: tuple[float, float]
    quad: tuple[tuple[float, float], ...]  # corners, clockwise from the card's own top-left
    confidence: float
    why: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "confidence": round(self.confidence, 3),
        }


# Why a card is left unsure, first reason first: the best code leads the next by less than
# `min_margin`; the best face beats the back by less than `back_margin`; the suit's shapes say
# the other colour (`max_colour_doubt`); the built-in model's witnesses do not all name it; no
# corner shows an index and the whole look is weak (`blind_below`).
_UNSURE = ("close call", "close to the back", "colour doubt", "index does not name it",
           "no index seen")


# A close call on a look at least this good is the likeness of two faces (a 6 of spades and
# of clubs), not a quad off: the mask's quad is not tried for it. Tuning frames (three sets,
# 7,868 clear-cornered cards): a third of the second reads saved; 7,830 found against 7,829,
# 16 read wrong against 14 (swaps of a card or two, either way)
_CLEAR_LOOK = 0.75


# A lead of this many `min_margin` is clear: the full-detail look at the two leading codes
# (`Recognizer._tell_apart`) is spared
_CLEAR_LEAD = 5


# A look agreeing less than this with its best face is read again on the other rectangles
# its blob's outline supports (`detect._others`): the best supported is not always the card
# (tuning frames, four sets: 33 more face-up cards read and 38 more read right, 6 and 7 of
# them with clear corners; no set read fewer right; under 0.5 only: one card fewer)
_OTHER_SHAPES_BELOW = 0.7

# ... the likeliest of them (by a quick look: not moved onto the edges, not aligned) read in
# full when it agrees within this of the look's agreement. Reading all of them in full cost
# 2.3 ms a frame; this 1.5, with 3 fewer reads on the four sets (0.1: 1.0 ms, 6 fewer)
_QUICK_SLACK = 0.2


def index_terms(deck: DeckModel, picture: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """What the corner indices say of each code, as rank and suit terms (52,) each, in CODES
    order (suit-major), zero where the index shows nothing; and the colour doubt of the
    suit pip read (NaN when none was)."""
    ranks, suits, doubts = deck.index.corner_scores(picture)
    seen = ~np.isnan(suits[:, 0])
    rank_row, suit_row = _clearest(ranks), _clearest(suits[seen])
    rank = ranks[rank_row] if rank_row is not None else np.zeros(13)
    suit = suits[seen][suit_row] if suit_row is not None else np.zeros(4)
    doubt = doubts[seen][suit_row] if suit_row is not None else float("nan")
    return np.tile(rank, 4), np.repeat(suit, 13), float(doubt)


def _clearest(rows: np.ndarray) -> int | None:
    """Which row (one corner's scores) has its best entry leading its second by most: a
    corner showing something else (a pip, a picture's edge) matches several glyphs about
    alike. None when there are no rows."""
    if not len(rows):
        return None
    top = np.sort(rows, axis=1)
    return int(np.argmax(top[:, -1] - top[:, -2]))


@dataclass(frozen=True)
class Look:
    """One card-shaped thing as the recognizer saw it: the quad, the whole-card reading, the
    fused score of each code, the corner index's rank and suit terms (52,) each, and the
    body pips' suit scores."""

    quad: np.ndarray
    reading: Reading
    fused: np.ndarray
    rank: np.ndarray
    suit: np.ndarray
    pips: np.ndarray  # (4,) the body pips' agreement with each suit; zeros when none show
    # (or when they were not read: the corner index and whole card had settled it)
    colour_doubt: float = float("nan")  # the larger of the corner pip's and body pips' (NaN: none)

    @property
    def lead(self) -> float:
        """How far the best code's fused score leads the next code's."""
        best, second = _two_best(self.fused)
        return float(self.fused[best] - self.fused[second])

    @property
    def clear(self) -> float:
        """How clearly a corner index shows: the weaker of its best rank and suit agreements."""
        return float(min(self.rank.max(), self.suit.max()))

    def index_names(self, code: int, suit_lead: float = 0.0, pip_weight: float = 0.0) -> bool:
        """Whether the corner index shows a rank, that of code `code` (CODES position), above
        every other rank, and its suit pip (plus `pip_weight` times the body pips' say) puts the
        code's suit ahead of every other suit by `suit_lead`."""
        suit = self.suit[::13] + pip_weight * self.pips
        ranked = np.sort(suit)
        return bool(self.rank.max() > 0 and self.rank[code] >= self.rank.max() and suit.any()
                    and suit[code // 13] >= ranked[-1] and ranked[-1] - ranked[-2] >= suit_lead)

    def suit_witnessed(self, code: int, lone_lead: float) -> bool:
        """Whether the suit of code `code` has a second witness: the body pips name it, or,
        on a card showing none (a court card, an ace's lone pip hidden), the corner's pip puts
        it ahead of every other suit by `lone_lead`."""
        if self.pips.any():
            return int(np.argmax(self.pips)) == code // 13
        ranked = np.sort(self.suit[::13])
        return bool(self.suit[code] >= ranked[-1] and ranked[-1] - ranked[-2] >= lone_lead)


def _two_best(fused: np.ndarray) -> tuple[int, int]:
    """The leading code and the next (CODES positions)."""
    order = np.argsort(fused)
    return int(order[-1]), int(order[-2])


#: Frames with a side shorter than this many pixels hold no card (a 1x1 or 2000x1 image).
SMALLEST_FRAME = 32


@dataclass
class Recognizer:
    """Frame in, sightings out.

    Each code's score is its whole-card agreement plus what the corner index says of its
    rank and suit (`rank_weight`, `suit_weight`) and what the body pips say of its suit
    (`pip_weight`). `min_score`: below it a card looks like no face (face down);
    `min_margin`: below this lead of the best code over the next the reading is "unsure", as
    it is when the best face beats the enrolled back by less than `back_margin`. `confidence`
    is the share of reads with such a lead that were right on the tuning designs
    (`calibration`: lead in units of `min_margin` -> share right).
    Defaults are tuned for an enrolled deck; `synth.generic.GENERIC` holds those for the
    built-in model, which also asks the corner index to name the card (`index_must_name`):
    faces of other designs alone are no evidence of a card's suit.
    """

    deck: DeckModel
    min_score: float = 0.3
    min_margin: float = 0.02
    back_margin: float = 0.05  # a face must beat the enrolled back by this much, else unsure
    rank_weight: float = 0.5
    suit_weight: float = 2.0
    index_cap: float = 0.1
    weak_look: float = 0.6  # below this whole-card agreement (a quad off, a hand), the index's
    cap_growth: float = 0.25  # ... cap grows by this much per unit it falls short
    index_clarity: tuple[float, float] = (0.3, 0.8)  # glyph match: no say .. its full say
    index_face_up: float = 0.7  # a clear index makes a card face up even unlike every face
    snap_below: float = 0.8  # a card not read, its whole-card agreement under this: move its quad
    snap_fit: float = 0.6  # ... onto the face, and read it there when it fits that well (and better)
    snap_close_calls: bool = True  # a close call's quad moved so too, whatever its agreement,
    # and read there when its best code leads by more
    back_snap_below: float = 0.5  # a card not face down, agreeing less: move its quad onto the back
    pair_weight: float = 0.3  # the full-detail look at the two leading codes (`pairwise`)
    pair_blur: float = 2.0  # ... also with the faces blurred this much, for a blurred picture
    pip_weight: float = 1.0  # the body pips' say on the suit (`pips`), costing at most
    pip_cap: float = 0.05  # ... this much
    pip_notch_weight: float = 0.0  # the body pips' notch count (`pips.notches`) this much
    count_bonus: float = 0.03  # too close to call: the code fitting the body pip count gains
    index_must_name: bool = False  # read a card only when its corner index names it too,
    index_suit_lead: float = 0.0  # ... its suit ahead of the next suit's by this much
    index_pip_weight: float = 0.0  # ... counting the body pips' say this much,
    look_must_agree: bool = False  # ... and the whole-card look's best rank being its rank,
    blind_below: float = 0.5  # a card whose corners show no index at all is read only when its
    # whole-card agreement reaches this (a back under a hand on a squashed quad: like a face)
    lone_suit_lead: float = 0.0  # ... and (when > 0) its suit witnessed twice (`suit_witnessed`)
    max_colour_doubt: float = float("inf")  # a suit's shape this far into the other colour: unsure
    rank_not_down: float = float("inf")  # a rank glyph matched this well: unsure, not face down
    # a card like no face is still face up when it beats the enrolled back by the first and its
    # best code leads by the second (a quad thrown off: a back never got near that far)
    far_from_back: tuple[float, float] = (0.35, 0.05)
    calibration: tuple[tuple[float, ...], tuple[float, ...]] = (
        (0.0, 1.0, 2.0, 3.0, 5.0, 10.0), (0.3, 0.7, 0.95, 0.97, 0.99, 0.998))
    _contrasts: dict[tuple[int, float], np.ndarray] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keep_freed_memory()  # a frame's megabytes of temporaries stay for the next (`heap`)

    def examine(self, frame: np.ndarray) -> list[Look]:
        """Every card-shaped thing, as the recognizer saw it (before deciding)."""
        return [look for look, _sighting in self._seen(frame)]

    def __call__(self, frame: np.ndarray) -> list[Sighting]:
        return [sighting for _look, sighting in self._seen(frame)]

    def _seen(self, frame: np.ndarray) -> list[tuple[Look, Sighting]]:
        """`examine`, each look with what it says (`decide`, made once a look)."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"expected a BGR colour frame, got an array of shape {frame.shape}")
        if min(frame.shape[:2]) < SMALLEST_FRAME:
            return []  # a frame narrower than a card's index holds no card
        out = []
        for quad, picture, reading, others in self._first_reads(frame, find_cards(frame)):
            look = self.look(picture, quad, reading)
            if others and reading.score < _OTHER_SHAPES_BELOW:
                look = self._other_shapes(frame, look, others)
            out.append(self._second_look(frame, look))
        return out

    def _first_reads(self, frame: np.ndarray, candidates: list[Candidate]
                     ) -> list[tuple[np.ndarray, np.ndarray, Reading, tuple[np.ndarray, ...]]]:
        """Each candidate's quad, upright picture, reading and other rectangles. A reading
        that is weak or a close call, and not like the back, is made again on the mask's
        quad, which is kept when it reads better (the edges may be misread). The pictures are
        read together (`read_cards`)."""
        pictures = [warp_card(frame, candidate.quad) for candidate in candidates]
        readings = read_cards(self.deck, pictures)
        doubtful = [k for k, reading in enumerate(readings)
                    if (reading.score < 0.6 or (reading.margin < 2 * self.min_margin
                                                and reading.score < _CLEAR_LOOK))
                    and reading.back < max(reading.score, LIKE_BACK)]
        coarse = [warp_card(frame, candidates[k].coarse) for k in doubtful]
        out = [(candidate.quad, picture, reading, candidate.others)
               for candidate, picture, reading in zip(candidates, pictures, readings, strict=True)]
        for k, picture, other in zip(doubtful, coarse, read_cards(self.deck, coarse), strict=True):
            if other.score > readings[k].score:  # the edges were misread: the mask's quad fits
                out[k] = (candidates[k].coarse, picture, other, candidates[k].others)
        return out

    def _other_shapes(self, frame: np.ndarray, look: Look,
                      others: tuple[np.ndarray, ...]) -> Look:
        """A weak first look not like the back read again on the likeliest of the other
        rectangles its blob's outline supports (`Candidate.others`), moved onto the card's
        edges: that look when it is a card agreeing better with its face than the first did;
        else the same look. Asked before the look is snapped (`_second_look`): a quad cut a
        quarter short of a nine snapped onto a seven's face and was read as the seven."""
        if look.reading.back >= look.reading.score:
            return look
        # by a quick look first: the likeliest is read in full when it is near (`_QUICK_SLACK`)
        looks = unaligned_all(self.deck, [warp_card(frame, other) for other in others])
        quick = [(float(scores.max()), k) for k, (_planes, _cells, scores) in enumerate(looks)]
        first, k = max(quick)
        if first < look.reading.score - _QUICK_SLACK:
            return look
        quad = refine_quad(frame, others[k])
        picture = warp_card(frame, quad)
        reading = read_card(self.deck, picture)
        if reading.score <= max(look.reading.score, reading.back):
            return look
        again = self.look(picture, quad, reading)
        return again if self.decide(again).face == "up" else look

    def _second_look(self, frame: np.ndarray, look: Look) -> tuple[Look, Sighting]:
        """A weak look again with its quad moved (`snap`) onto what it may be: a card not
        read onto the face it was read as, when the card there fits that face `snap_fit` and
        better than before (a back, pulled onto a face, fits it half-way at best), and a close
        call so however well it fitted, when its best code leads by more there (a quad a few
        pixels off hides where two faces differ: an index at the edge); a card not
        face down onto the enrolled back, when the back there fits `snap_fit` and better than
        any face (a back's quad off, its face-like pattern read as a card). Else the same.
        With what the look kept says (`decide`)."""
        reading = look.reading
        sighting = self.decide(look)
        face = sighting.face
        close = self.snap_close_calls and sighting.why.startswith(_UNSURE[0])
        if face != "up" and reading.back < reading.score and (reading.score < self.snap_below
                                                              or close):
            at = reading.face_of[CODES.index(reading.code)]
            best = self.deck.greys[at], self.deck.fine[at] if len(self.deck.fine) else None
            moved = self._moved(frame, look, best, lambda again: again.score >= max(
                self.snap_fit, reading.score), close)
        elif face != "down" and reading.score < self.back_snap_below and len(self.deck.back_greys):
            moved = self._moved(frame, look, (self.deck.back_greys[0], None), lambda again: (
                again.back >= max(self.snap_fit, again.score)))
        else:
            moved = look
        return (look, sighting) if moved is look else (moved, self.decide(moved))

    def _moved(self, frame: np.ndarray, look: Look,
               template: tuple[np.ndarray, np.ndarray | None],
               fits: Callable[[Reading], bool], clearer: bool = False) -> Look:
        """The look with its quad snapped onto `template` (a grey face or back, and the face
        at full detail or None: `snap`), when the reading there `fits` (and, with `clearer`,
        its best code leads by more); else the same look."""
        quad = np.roll(look.quad, 2, axis=0) if look.reading.flipped else look.quad
        moved = snap(frame, quad, *template)
        if moved is None:
            return look
        picture = warp_card(frame, moved)
        again = read_card(self.deck, picture)
        if not fits(again):
            return look
        moved_look = self.look(picture, moved, again)
        return look if clearer and moved_look.lead <= look.lead else moved_look

    def look(self, picture: np.ndarray, quad: np.ndarray, reading: Reading | None = None) -> Look:
        """The look at one upright card picture (warped from `quad`; `reading` when made)."""
        reading = reading if reading is not None else read_card(self.deck, picture)
        if reading.back > reading.score and self.rank_not_down == np.inf:
            # like the back, the card is face down whatever its corners show (`decide`): they
            # are not read (a third of the looks at a table)
            nothing = np.zeros(len(CODES))
            return Look(quad, reading, reading.per_code.copy(), nothing, nothing.copy(),
                        np.zeros(4))
        rank, suit, corner_doubt = index_terms(self.deck, picture)
        cap = self.index_cap + self.cap_growth * max(0.0, self.weak_look - reading.score)
        fused = (reading.per_code
                 + self._clarity(rank) * np.maximum(self.rank_weight * (rank - rank.max()), -cap)
                 + self._clarity(suit) * np.maximum(self.suit_weight * (suit - suit.max()), -cap))
        if self._settled(fused):  # the body pips could change neither the card nor its confidence
            pips, count, pips_doubt = np.zeros(4), 0, float("nan")
        else:
            pips, count, pips_doubt = self.deck.pips.read(picture, self.pip_notch_weight)
            fused += np.repeat(np.maximum(self.pip_weight * (pips - pips.max()), -self.pip_cap),
                               13)
        if len(self.deck.fine) and self.pair_weight:
            self._tell_apart(reading, fused)
        if count and self.count_bonus:
            self._count_pips(count, fused)
        return Look(quad, reading, fused, rank, suit, pips, float(np.fmax(corner_doubt, pips_doubt)))

    def _settled(self, fused: np.ndarray) -> bool:
        """Whether the body pips are not worth reading: their say (each code marked down by
        `pip_cap` at most) cannot bring the best code's lead under the lead whose confidence
        is the calibration's last (past which `_tell_apart` and `_count_pips` stay out too),
        and no rule of the built-in model's asks what they say. (A sixth of an enrolled deck's
        face-up looks on the tuning frames; the pips take a tenth of the time a card takes.)"""
        needs_pips = self.index_pip_weight or self.lone_suit_lead or self.max_colour_doubt < np.inf
        best, second = _two_best(fused)
        settled = max(self.calibration[0][-1], _CLEAR_LEAD) * self.min_margin + self.pip_cap
        return not needs_pips and float(fused[best] - fused[second]) >= settled

    def _clarity(self, scores: np.ndarray) -> float:
        """How much an index term may say, by how well its best glyph matched: nothing up to
        `index_clarity[0]` (glyphs of any kind match that well), all from `index_clarity[1]`."""
        low, high = self.index_clarity
        return float(np.clip((scores.max() - low) / (high - low), 0.0, 1.0))

    def _tell_apart(self, reading: Reading, fused: np.ndarray) -> None:
        """Mark down whichever of the two leading codes the full-detail look at the places
        where their faces differ speaks against (in place). Only the loser moves: that look
        says nothing of how either compares with a third code."""
        first, second = _two_best(fused)
        if fused[first] - fused[second] >= _CLEAR_LEAD * self.min_margin:
            return  # clear already (and most cards are): spare the time
        red_ink = first // 13 in (1, 2) or second // 13 in (1, 2)  # hearts or diamonds
        foreign = None if reading.red is None else foreign_colour(reading.red, red_ink)
        one, two = reading.face_of[first], reading.face_of[second]
        softer = ((self._fine_contrast(one, self.pair_blur),
                   self._fine_contrast(two, self.pair_blur)) if self.pair_blur else None)
        say = discriminate(reading.grey, self._fine_contrast(one), self._fine_contrast(two),
                           foreign, faces_contrast=True, softer=softer)
        fused[second if say > 0 else first] -= self.pair_weight * abs(say)

    def _fine_contrast(self, face: int, blur: float = 0.0) -> np.ndarray:
        """The deck's fine face `face` (blurred by `blur`) as `pairwise.contrast` makes it
        (kept once made)."""
        key = (face, blur)
        if key not in self._contrasts:
            grey = self.deck.fine[face].astype(np.float32)
            self._contrasts[key] = contrast(cv2.GaussianBlur(grey, (0, 0), blur) if blur
                                            else grey)
        return self._contrasts[key]

    def _count_pips(self, count: int, fused: np.ndarray) -> None:
        """Where the two leading codes are too close to call, the one whose enrolled pictures
        showed as many body pips as this card does gains `count_bonus` (in place)."""
        first, second = _two_best(fused)
        if fused[first] - fused[second] >= self.min_margin:
            return
        fits = self.deck.pips.fits(first, count), self.deck.pips.fits(second, count)
        if fits[0] != fits[1]:
            fused[first if fits[0] else second] += self.count_bonus

    def decide(self, look: Look) -> Sighting:
        """What one look says: face down, unsure, or a card with its confidence."""
        quad, reading, fused = look.quad, look.reading, look.fused
        if reading.flipped:
            quad = np.roll(quad, 2, axis=0)
        center = (float(quad[:, 0].mean()), float(quad[:, 1].mean()))
        corners = tuple((float(x), float(y)) for x, y in quad)
        best, second = _two_best(fused)
        lead = look.lead
        gap, clear_lead = self.far_from_back
        looks_unlike = (reading.score < self.min_score and look.clear < self.index_face_up
                        and not (reading.score - reading.back >= gap and lead >= clear_lead))
        if reading.back > reading.score or looks_unlike:
            confidence = float(np.clip(1.0 - reading.score, 0.0, 1.0))
            why = "like the back" if reading.back > reading.score else "like no face"
            if look.rank.max() >= self.rank_not_down:  # a corner shows a rank: not a back
                return Sighting(None, "unsure", center, corners, confidence,
                                f"{why}, but a corner shows a rank")
            return Sighting(None, "down", center, corners, confidence, why)
        knots, right = self.calibration
        confidence = float(np.interp(lead / self.min_margin, knots, right))
        close_to_back = reading.score - reading.back < self.back_margin
        named = look.index_names(best, self.index_suit_lead, self.index_pip_weight)
        if self.look_must_agree:  # the whole card's look (pip layout, court picture) too
            named &= int(np.argmax(reading.per_code)) % 13 == best % 13
        if self.lone_suit_lead:
            named &= look.suit_witnessed(best, self.lone_suit_lead)
        stops = (lead < self.min_margin, close_to_back, look.colour_doubt > self.max_colour_doubt,
                 self.index_must_name and not named,
                 reading.score < self.blind_below and not look.rank.any())  # in `_UNSURE` order
        if any(stops):
            why = next(reason for reason, stop in zip(_UNSURE, stops, strict=True) if stop)
            return Sighting(None, "unsure", center, corners, confidence,
                            f"{why}: {CODES[best]} or {CODES[second]}")
        return Sighting(CODES[best], "up", center, corners, confidence)
