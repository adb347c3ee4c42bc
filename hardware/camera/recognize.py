"""The card recognizer: a frame in, sightings out (pure, no IO besides loading the model once).

Three small networks trained on randomised renders of many card designs (`model/spec.py` is
their contract, `docs/vision.md` the whole story): the finder (`find.py`) sees where the
corner indices and the card backs are; the reader (`read.py`) reads each index from an
upright crop of the full-resolution frame; the merge (`merge.py`) makes one sighting of
the reads of one card, and asks the card reader (`read.py`) to read a card whole where its
corners alone leave it unsure. Any standard French-suited deck with English indices is read
with no enrolment and no calibration.

    recognize = Recognizer()          # the shipped model; loaded on the first frame
    sightings = recognize(frame)      # BGR uint8 H x W x 3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from hardware.camera.find import Finder, ModelMissing
from hardware.camera.merge import Sighting, merge
from hardware.camera.model.settings import Settings
from hardware.camera.read import CardReader, Reader

__all__ = ["ModelMissing", "Recognizer", "Settings", "Sighting"]


@dataclass
class Recognizer:
    """`Recognizer()(frame) -> list[Sighting]`: every card in the frame, face up (with its
    code), face down, or unsure (with why). The networks load on the first frame (onnxruntime,
    CPU, `settings.threads` threads); a missing or broken model file raises ModelMissing."""

    settings: Settings = field(default_factory=Settings)

    def __post_init__(self) -> None:
        self.finder = Finder(self.settings)
        self.reader = Reader(self.settings)
        self.card_reader = CardReader(self.settings)

    def load(self) -> Recognizer:
        """Load the networks now rather than on the first frame (a missing model is said at
        start, not mid-shift)."""
        _ = self.finder.session, self.reader.session, self.card_reader.session
        return self

    def __call__(self, frame: np.ndarray) -> list[Sighting]:
        if not (isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
                and frame.dtype == np.uint8):
            shape = getattr(frame, "shape", None)
            raise ValueError(f"a BGR colour frame (H x W x 3, uint8) is needed, not {shape}")
        if min(frame.shape[:2]) < self.settings.min_frame_side:
            return []
        spots, backs = self.finder(frame)
        reads = self.reader(frame, spots)
        read_card = None if self.card_reader.session is None else partial(self.card_reader, frame)
        return merge(reads, backs, frame.shape, self.settings, read_card)
