"""The runtime's settings: every threshold the recognizer decides by, in one place.

The networks' own numbers (sizes, channels, classes) are the contract in `spec.py`; these are
the few choices the runtime makes on their outputs. None is fitted to a photograph: each is a
round value with the reason it has beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    #: a corner index is where the finder's index heat peaks (3x3 maximum) above this
    index_heat: float = 0.3
    #: a face-down card is where the back heat peaks above this
    back_heat: float = 0.4
    #: an index read whose best class has less than this probability is not sure ("unsure")
    sure: float = 0.8
    #: reads of the same code whose predicted card centres lie within this many card widths
    #: are the indices of one card (the plan's 0.35: a card's two indices predict one centre,
    #: fanned cards sit further apart than that to show their indices)
    same_card: float = 0.35
    #: reads of different codes whose card centres lie within this many card widths are two
    #: indices of one card that disagree: both "unsure" (tighter than `same_card`, so that a
    #: tight fan's neighbours are not taken for one card)
    clash: float = 0.2
    #: a back peak within this many card widths of a face's centre is that face, not a back
    back_near_face: float = 0.6
    #: the reader was trained on crops of cards 90-220 px wide: a bigger card is cut from a
    #: halved (blurred, then subsampled) copy of the frame until it is at most this wide
    crop_card_width: float = 200.0
    #: an index read on a card narrower than this (frame pixels) is too small to trust
    min_card_width: float = 12.0
    #: frames with a side shorter than this hold no card
    min_frame_side: int = 16
    #: face-down cards carry no size of their own: this share of the frame's long side when
    #: no face in the frame gives the card width
    back_width_share: float = 0.08
    #: onnxruntime's intra-op threads (one core by default: the table has other work)
    threads: int = 1
    #: a folder holding corners.onnx and index.onnx in place of the shipped ones (a model
    #: just trained, say); None: the package's own `hardware/camera/model/`
    model_dir: Path | None = None
