"""The merge: the reader's reads and the finder's back spots in, one Sighting per card out.

Reads of one card (its two indices, or each index a fan leaves in view) are grouped by code
and predicted card centre (`group_cards`, rule by rule in docs/vision-details.md); a card is
read sure or unsure by the runtime's settings (`model/settings.py`); its quad follows from
its centre, up, width and `spec.CARD_ASPECT`, and a card seen by one index takes the frame's
other cards' scale (`_deck_scale`). A card its corners alone leave unsure is read whole
(`read.CardReader`, given to `merge` as `read_card`) and is sure when that read gives its
code at `settings.card_sure`. Back spots on no face are face-down cards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hardware.camera.find import BackSpot, IndexSpot
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_ASPECT, INDEX_SPAN, NOT_A_CARD
from hardware.camera.read import Read

#: reads a card whole: (centre, up, width) in frame pixels -> (code, probability)
CardRead = Callable[[tuple[float, float], tuple[float, float], float], tuple[str, float]]


@dataclass(frozen=True)
class Sighting:
    """One card in a frame. `card` is set only when `face` is "up"; for a card not read,
    `why` says why ("like a card back" when face down; when unsure, the code it leaned to and
    why it is not sure of it)."""

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


def card_quad(centre: tuple[float, float], up: tuple[float, float], width: float
              ) -> tuple[tuple[float, float], ...]:
    """The card's corners, clockwise from its own top-left (image coordinates, y down)."""
    c, u = np.asarray(centre, np.float64), np.asarray(up, np.float64)
    right = np.array([-u[1], u[0]])
    half_h, half_w = u * (CARD_ASPECT * width / 2), right * (width / 2)
    corners = (c + half_h - half_w, c + half_h + half_w, c - half_h + half_w, c - half_h - half_w)
    return tuple((float(x), float(y)) for x, y in corners)


@dataclass
class Card:
    """The reads taken to be one card's: its corner indices, each read once or more."""

    reads: list[Read]
    pair: tuple[Read, Read] | None = None  # its two opposite indices, when both are seen
    #: the finder's widths times this are the card's (`_deck_scale`); a pair needs none
    scale: float = 1.0

    @property
    def votes(self) -> dict[str, float]:
        """Each code the card's reads give, with the best probability any read gives it."""
        votes: dict[str, float] = {}
        for read in self.reads:
            votes[read.code] = max(votes.get(read.code, 0.0), read.prob)
        return votes

    @property
    def best(self) -> Read:
        return max(self.reads, key=lambda r: r.prob)

    @property
    def centre(self) -> tuple[float, float]:
        if self.pair is not None:  # the middle of its two indices: surer than either's guess
            a, b = self.pair[0].spot.at, self.pair[1].spot.at
            return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        k = self.scale  # each index's way to the centre is in its card widths
        xs = [r.spot.at[0] + k * (r.spot.card_centre[0] - r.spot.at[0]) for r in self.reads]
        ys = [r.spot.at[1] + k * (r.spot.card_centre[1] - r.spot.at[1]) for r in self.reads]
        return float(np.mean(xs)), float(np.mean(ys))

    @property
    def up(self) -> tuple[float, float]:
        """The card's up: its surest read's, or with both indices seen, the mean of theirs
        (the far one's turned half round)."""
        if self.pair is None:
            return self.best.spot.up
        (ax, ay), (bx, by) = self.pair[0].spot.up, self.pair[1].spot.up
        x, y = ax - bx, ay - by
        norm = float(np.hypot(x, y)) or 1.0
        return x / norm, y / norm

    @property
    def width(self) -> float:
        if self.pair is not None:  # its two indices' distance: surer than the finder's guess
            a, b = self.pair[0].spot.at, self.pair[1].spot.at
            return float(np.hypot(a[0] - b[0], a[1] - b[1])) / INDEX_SPAN
        return self.scale * float(np.mean([r.spot.width for r in self.reads]))

    def both_indices_agree(self, at_least: float) -> bool:
        """Whether its two opposite indices are both seen, each read as its code at
        `at_least` or more: two corners read alike are surer than either read."""
        return self.pair is not None and min(r.prob for r in self.pair) >= at_least

    def near(self, point: tuple[float, float], reach: float) -> bool:
        x, y = self.centre
        return float(np.hypot(point[0] - x, point[1] - y)) <= reach * self.width


def _centres_within(a: IndexSpot, b: IndexSpot, reach: float) -> bool:
    width = (a.width + b.width) / 2
    return float(np.hypot(a.card_centre[0] - b.card_centre[0],
                          a.card_centre[1] - b.card_centre[1])) <= reach * width


def _one_index(a: IndexSpot, b: IndexSpot, settings: Settings) -> bool:
    """Two peaks on one corner index: the finder's heat can peak twice on a big index."""
    width = (a.width + b.width) / 2
    return (_dot(a.up, b.up) >= 0.5
            and float(np.hypot(a.at[0] - b.at[0], a.at[1] - b.at[1])) <= settings.same_index * width)


def _suit_in_doubt(a: Read, b: Read, settings: Settings) -> bool:
    """Two reads of one rank and two suits that are one index read twice: ups alike, closer
    than `settings.same_rank_index` card widths."""
    if a.code[:-1] != b.code[:-1] or a.code == b.code or _dot(a.spot.up, b.spot.up) < 0.5:
        return False
    width = (a.spot.width + b.spot.width) / 2
    return float(np.hypot(a.spot.at[0] - b.spot.at[0],
                          a.spot.at[1] - b.spot.at[1])) <= settings.same_rank_index * width


def _shadows(reads: list[Read], settings: Settings) -> list[Read]:
    """`reads` less each weak peak's read (below `settings.firm_peak_heat`) that is a firm peak's
    index read again in another suit (`_suit_in_doubt`): the firm peak sits on the index, the
    weak one beside it sees part of it. Two firm peaks there are a fan's neighbours."""
    firm = [r for r in reads if r.spot.heat >= settings.firm_peak_heat]
    return [r for r in reads if r.spot.heat >= settings.firm_peak_heat
            or not any(_suit_in_doubt(r, f, settings) for f in firm)]


def _facing(a: IndexSpot, b: IndexSpot, settings: Settings) -> bool:
    """Whether two indices could be one card's two: ups turned half round, as far apart as a
    card's two indices lie."""
    if _dot(a.up, b.up) > -settings.pair_turn:
        return False
    dist = float(np.hypot(b.at[0] - a.at[0], b.at[1] - a.at[1]))
    low, high = settings.pair_reach
    return low * (a.width + b.width) / 2 <= dist <= high * (a.width + b.width) / 2


def _opposite_indices(a: IndexSpot, b: IndexSpot, settings: Settings) -> bool:
    """Whether `b` sits where the opposite corner index of `a`'s card would: `_facing`, below
    `a` along its card and to its right, both predicted centres near the middle of the two."""
    if not _facing(a, b, settings):
        return False
    dx, dy = b.at[0] - a.at[0], b.at[1] - a.at[1]
    dist = float(np.hypot(dx, dy))
    down = -(dx * a.up[0] + dy * a.up[1])
    across = dx * -a.up[1] + dy * a.up[0]
    low, high = settings.pair_across
    if down < settings.pair_down * dist or not low * down <= across <= high * down:
        return False
    mid = ((a.at[0] + b.at[0]) / 2, (a.at[1] + b.at[1]) / 2)
    return all(float(np.hypot(s.card_centre[0] - mid[0], s.card_centre[1] - mid[1]))
               <= settings.pair_centre * dist for s in (a, b))


def _dot(u: tuple[float, float], v: tuple[float, float]) -> float:
    return u[0] * v[0] + u[1] * v[1]


def _top_indices(a: IndexSpot, b: IndexSpot, settings: Settings) -> bool:
    """Whether two indices could be the two top ones of a card with an index in every corner:
    ups alike, side by side across the up, about a card's width less its margins apart. Along
    and across are taken in the two ups' mean, so that neither read's up decides (a few
    degrees between them move the other index along by a tenth of a card's width)."""
    if _dot(a.up, b.up) < settings.top_pair_turn:
        return False
    width = (a.width + b.width) / 2
    ux, uy = a.up[0] + b.up[0], a.up[1] + b.up[1]
    norm = float(np.hypot(ux, uy))
    ux, uy = ux / norm, uy / norm
    dx, dy = b.at[0] - a.at[0], b.at[1] - a.at[1]
    along, across = dx * ux + dy * uy, dx * -uy + dy * ux
    low, high = settings.top_pair
    return (abs(along) <= settings.top_pair_along * width
            and low * width <= abs(across) <= high * width)


def _same_card(a: Read, b: Read, settings: Settings) -> bool:
    """Whether two reads of one code are of one card: one index read twice, the card's two
    indices (`_facing`: one code turned half round a card's length away is one card; the
    stricter `_opposite_indices` fails where a low camera squeezes the card; `_top_indices`:
    a four-index card's two top ones), or reads whose predicted card centres meet."""
    return (_one_index(a.spot, b.spot, settings)
            or _centres_within(a.spot, b.spot, settings.same_card)
            or _facing(a.spot, b.spot, settings)
            or _top_indices(a.spot, b.spot, settings))


def _between(a: IndexSpot, b: IndexSpot, spot: IndexSpot, settings: Settings) -> bool:
    """Whether `spot` lies on the card whose opposite indices would be `a` and `b`: inside the
    box the two span (in `a`'s card axes), away from both."""
    dx, dy = b.at[0] - a.at[0], b.at[1] - a.at[1]
    sx, sy = spot.at[0] - a.at[0], spot.at[1] - a.at[1]
    right = (-a.up[1], a.up[0])
    down, across = -(dx * a.up[0] + dy * a.up[1]), dx * right[0] + dy * right[1]
    s_down, s_across = -(sx * a.up[0] + sy * a.up[1]), sx * right[0] + sy * right[1]
    inside = 0.0 < s_down < down and 0.0 < s_across < across
    return inside and not (_one_index(spot, a, settings) or _one_index(spot, b, settings))


def _disagree(a: Card, b: Card, reads: list[Read], settings: Settings) -> bool:
    """Whether two cards of different codes are one card the reader read two ways: one index
    read as both, or (two weak peaks) one index read in two suits (`_suit_in_doubt`); the
    card's two opposite indices, one of them read unsure, with no other
    card's index between them (two sure reads there are two cards: where the hands of a
    bridge deal face each other, indices often lie just so); or, when
    `settings.two_codes_one_card` is above 0, predicted centres that all but coincide. Two cards
    each read sure from a firm peak (`settings.firm_peak_heat`) are one card only when those
    reads are one index read twice: in a fan, a stray weak peak between two sure cards must not make
    both unsure."""
    if all(c.best.prob >= settings.sure and c.best.spot.heat >= settings.firm_peak_heat
           for c in (a, b)):
        return _one_index(a.best.spot, b.best.spot, settings)
    for x in a.reads:
        for y in b.reads:
            weak = max(x.spot.heat, y.spot.heat) < settings.firm_peak_heat
            if (_one_index(x.spot, y.spot, settings) or (weak and _suit_in_doubt(x, y, settings))
                    or _centres_within(x.spot, y.spot, settings.two_codes_one_card)):
                return True
            if min(x.prob, y.prob) >= settings.sure:
                continue  # two sure reads at opposite corners: two cards, as in facing fans
            for p, q in ((x.spot, y.spot), (y.spot, x.spot)):
                if _opposite_indices(p, q, settings) and not any(
                        _between(p, q, r.spot, settings) for r in reads):
                    return True
    return False


def group_cards(reads: list[Read], settings: Settings) -> list[Card]:
    """The reads grouped into cards: reads of one code that `_same_card` links (transitively:
    one deck holds a code once, eight decks seldom twice side by side), then each card, the
    surest first, takes in the cards of other codes it `_disagree`s with (not transitively:
    in a tight fan that would chain neighbours into one card)."""
    reads = sorted(_shadows([r for r in reads if r.code != NOT_A_CARD], settings),
                   key=lambda r: -r.prob)
    root = list(range(len(reads)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, a in enumerate(reads):
        for j in range(i + 1, len(reads)):
            b = reads[j]
            if a.code == b.code and find(i) != find(j) and _same_card(a, b, settings):
                root[find(j)] = find(i)
    groups: dict[int, Card] = {}
    for i, read in enumerate(reads):
        groups.setdefault(find(i), Card([])).reads.append(read)
    for card in groups.values():
        pairs = [(a, b) for k, a in enumerate(card.reads) for b in card.reads[k + 1:]
                 if _facing(a.spot, b.spot, settings)]
        if pairs:
            card.pair = max(pairs, key=lambda p: min(p[0].prob, p[1].prob))
    left = sorted(groups.values(), key=lambda c: -c.best.prob)
    cards = []
    while left:
        card = left.pop(0)
        taken = [o for o in left if _disagree(card, o, reads, settings)]
        for other in taken:
            card.reads += other.reads
            left.remove(other)
        cards.append(card)
    return cards


def _deck_scale(cards: list[Card], settings: Settings) -> float:
    """How much this frame's finder widths are to be scaled: the median, over the cards whose
    two opposite indices are both seen, of the width their distance gives over the finder's
    widths at them. A table holds one deck, and the finder's width runs long or short by
    design (by a third on some it has not seen), alike on each card of it. 1 with fewer than
    `settings.pairs_for_deck_scale` such cards."""
    ratios = [card.width / float(np.mean([r.spot.width for r in card.pair]))
              for card in cards if card.pair is not None]
    if not settings.pairs_for_deck_scale or len(ratios) < settings.pairs_for_deck_scale:
        return 1.0
    return float(np.median(ratios))


def _sure(card: Card, settings: Settings) -> bool:
    """Whether the card's surest read may stand: at `sure`, or at `sure_by_lead_min` with the
    reader's second choice `sure_by_lead_ratio` times less likely, or with both its opposite
    indices read its code at `pair_sure` or more."""
    best = card.best
    clear_lead = best.prob >= settings.sure_by_lead_ratio * best.second
    return (best.prob >= settings.sure
            or (best.prob >= settings.sure_by_lead_min and clear_lead)
            or card.both_indices_agree(settings.pair_sure))


def _read_whole(card: Card, read_card: CardRead | None, settings: Settings) -> bool:
    """Whether the card, cut at its centre, up and width (its two opposite indices give them
    well; one index, as the finder guesses them, scaled as the deck's pairs say), is read
    whole as its surest read's code at `settings.card_sure` or more."""
    if read_card is None:
        return False
    code, prob = read_card(card.centre, card.up, card.width)
    return code == card.best.code and prob >= settings.card_sure


def merge(reads: list[Read], backs: list[BackSpot], frame_shape: tuple[int, ...],
          settings: Settings, read_card: CardRead | None = None) -> list[Sighting]:
    """One Sighting per card (`group_cards` says which reads are one card's). Its code is the
    one its surest read gives; the card is "unsure" when that read is not sure (`_sure`) and
    the card is not read whole as that code (`_read_whole`), or when another of its reads
    gives another code at `settings.rival_code_max` or more (its indices disagree). Back spots
    not on a face are face-down cards."""
    cards = group_cards(reads, settings)
    scale = _deck_scale(cards, settings)
    for card in cards:
        card.scale = scale  # a card seen by both indices has its own width
    sightings = []
    for card in cards:
        best = card.best
        votes = card.votes
        rivals = sorted(c for c, p in votes.items()
                        if c != best.code and p >= settings.rival_code_max)
        quad = card_quad(card.centre, card.up, card.width)
        if rivals:
            why = f"indices disagree: {best.code} or {' or '.join(rivals)}"
            sightings.append(Sighting(None, "unsure", card.centre, quad, best.prob, why))
        elif not (_sure(card, settings) or _read_whole(card, read_card, settings)):
            why = f"not sure: {best.code} at {best.prob:.2f}"
            sightings.append(Sighting(None, "unsure", card.centre, quad, best.prob, why))
        else:
            sightings.append(Sighting(best.code, "up", card.centre, quad, best.prob))
    widths = [c.width for c in cards]
    back_width = (float(np.median(widths)) if widths
                  else settings.back_width_share * max(frame_shape[:2]))
    for back in backs:
        if any(c.near(back.at, settings.back_near_face) for c in cards):
            continue
        quad = card_quad(back.at, (0.0, -1.0), back_width)
        sightings.append(Sighting(None, "down", back.at, quad, back.heat, "like a card back"))
    return sightings
