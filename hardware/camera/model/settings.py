"""The runtime's settings: every threshold the recognizer decides by, in one place.

The networks' own numbers (sizes, channels, classes) are the contract in `spec.py`; these are
the few choices the runtime makes on their outputs. Each carries one line of reason; how each
value was chosen (the data, the rule written first, the figures of the values tried) is in
docs/vision-history.md, "The runtime's settings: how each value was chosen".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    #: a corner index is where the finder's index heat peaks (3x3 maximum) above this
    index_heat: float = 0.25
    #: a peak at least this hot is firm: two cards read sure from firm peaks stay two cards
    firm_peak_heat: float = 0.5
    #: a face-down card is where the back heat peaks above this
    back_heat: float = 0.45
    #: a card whose best read is below this probability is not sure ("unsure")
    sure: float = 0.8
    #: a read below `sure` but at least this, with a clear lead over the second choice, is sure
    sure_by_lead_min: float = 0.75
    #: the clear lead: the reader's second choice for the index this many times less likely
    sure_by_lead_ratio: float = 12.0
    #: a card whose two opposite indices are both read as its code at this or more is sure
    pair_sure: float = 0.5
    #: a card not sure by its corners is sure when the card reader gives its code at this
    card_sure: float = 0.9
    #: reads of one code whose predicted card centres lie within this many card widths: one card
    same_card: float = 0.35
    #: reads of one code this many widths apart across their up (low, high): a card's top pair
    top_pair: tuple[float, float] = (0.5, 0.9)
    #: ... and at most this many card widths apart along their up
    top_pair_along: float = 0.15
    #: ... and their ups this alike (cosine at least)
    top_pair_turn: float = 0.9
    #: reads of two codes whose centres lie within this many widths are one card; 0: off (fans)
    two_codes_one_card: float = 0.0
    #: two heat peaks closer than this many card widths, their ups alike: one index read twice
    same_index: float = 0.12
    #: one rank read as two suits this close (card widths), a peak weak: one index read twice
    same_rank_index: float = 0.22
    #: a card's two corner indices have their ups turned half round (cosine at most -this)
    pair_turn: float = 0.7
    #: ... and lie this many card widths apart (low, high): the finder's width runs short or long
    pair_reach: tuple[float, float] = (0.6, 2.6)
    #: ... for two codes: the second at least this share of the distance down its card
    pair_down: float = 0.5
    #: ... and to its right by this many times the way down (low, high)
    pair_across: tuple[float, float] = (0.25, 1.4)
    #: ... and each predicted centre within this share of the distance from their middle
    pair_centre: float = 0.35
    #: with this many cards seen by both indices, a one-index card takes their scale; 0: never
    pairs_for_deck_scale: int = 1
    #: a card read two ways stands as its surest code only if every other is below this
    rival_code_max: float = 0.8
    #: a back peak within this many card widths of a face's centre is that face, not a back
    back_near_face: float = 0.6
    #: a card wider than this (pixels) is cut from a halved frame: the reader learnt 90-220 px
    crop_card_width: float = 200.0
    #: an index read on a card narrower than this (frame pixels) is too small to trust
    min_card_width: float = 12.0
    #: frames with a side shorter than this hold no card
    min_frame_side: int = 16
    #: face-down cards carry no size: this share of the frame's long side when no face gives one
    back_width_share: float = 0.08
    #: onnxruntime's intra-op threads (one core by default: the table has other work)
    threads: int = 1
    #: a model folder (corners.onnx, index.onnx, card.onnx optional); None: the shipped one
    model_dir: Path | None = None
