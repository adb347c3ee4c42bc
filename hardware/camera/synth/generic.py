"""The recognizer's built-in model for decks nobody enrolled: every tuning design at once.

Built from the SVG decks (never from the held-out designs) on first use and cached beside
the rendered faces; needs the same Debian packages as the generator.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hardware.camera.deck import DeckModel
from hardware.camera.synth.decks import TUNING, default_cache, load_faces, render_design

VERSION = 15
# Readings of unseen designs lean on the corner index and are less sure: these settings of
# `Recognizer` were chosen by leave-one-design-out runs on the tuning designs only; the
# index rule (`index_must_name`, `index_suit_lead`) by leaving out a whole family (the GNOME
# designs, or the KDE ones): spades and clubs of one family read as the other's otherwise;
# `look_must_agree` by leaving one design out (a second witness of the rank besides the
# index's glyph shapes: 99.6% -> 100% right at 43% -> 39% found, 12 designs x 26 frames);
# `lone_suit_lead` by leaving a family out (a second witness of the suit: 97.8% -> 99.0%
# right at 33% -> 30% found); `max_colour_doubt` by leaving one design or a family out (no
# right read of those doubts more than 0.13; blue or green ink, infinite doubt, makes any
# four-colour deck unsure: its colours say nothing of its suits to the built-in model);
# `rank_not_down` by leaving one design out: of the face-up cards it called face down (like
# no face it knew, or like another design's back), 34 of 76 showed a rank glyph matched at
# 0.85 or better, and 4 of 171 face-down cards did: those are unsure rather than face down.
# `pip_notch_weight` by leaving a family out (five tuning seed sets, 30 frames a design): the
# body pips' notches (`pips.notches`) tell a club from a spade where other designs' templates
# do not: GNOME left out, 1,456 -> 1,576 cards read and 21 -> 0 read wrong; KDE left out,
# 452 -> 502 read, 2 -> 2 wrong. Three cards read right before became unsure. Leaving one
# design out (three sets): 1,345 -> 1,443 read, none wrong, none lost.
GENERIC: dict[str, Any] = {
    "min_margin": 0.1,
    "rank_weight": 0.5,
    "suit_weight": 4.0,
    "index_cap": 0.2,
    "calibration": ((0.0, 0.5, 1.0, 2.0, 3.0, 5.0), (0.5, 0.75, 0.9, 0.95, 0.98, 0.995)),
    "pip_weight": 0.0,
    "pip_notch_weight": 0.3,
    "index_must_name": True,
    "index_suit_lead": 0.15,
    "index_pip_weight": 2.0,
    "look_must_agree": True,
    "lone_suit_lead": 0.3,
    "count_bonus": 0.0,  # other designs' pip counts: not tried
    "max_colour_doubt": 0.15,
    "rank_not_down": 0.85,
    "far_from_back": (float("inf"), float("inf")),  # other designs' backs: no such evidence
    "snap_below": 0.0,  # another design's face or back is no outline to move a quad onto
    "back_snap_below": 0.0,
    "snap_close_calls": False,
}


def model_path(cache: Path | None = None) -> Path:
    """Where the built-in model is cached (it is built there on first use)."""
    return (cache or default_cache()) / f"generic-v{VERSION}.npz"


def generic_deck(cache: Path | None = None, progress: bool = False) -> DeckModel:
    """A deck model holding the faces of all tuning designs (cached as an .npz)."""
    folder = cache or default_cache()
    path = model_path(folder)
    if path.exists():
        return DeckModel.load(path)
    decks = []
    for name in TUNING:
        render_design(name, folder, progress=progress)
        decks.append(DeckModel.from_faces(name, load_faces(name, folder)))
    model = DeckModel.merge("generic", decks)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(path)
    return model
