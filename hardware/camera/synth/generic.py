"""The recognizer's built-in model for decks nobody enrolled: every tuning design at once.

Built from the SVG decks (never from the held-out designs) on first use and cached beside
the rendered faces; needs the same Debian packages as the generator.
"""

from __future__ import annotations

from pathlib import Path

from hardware.camera.deck import DeckModel
from hardware.camera.synth.decks import TUNING, default_cache, load_faces, render_design

VERSION = 2
# Readings of unseen designs are less sure: ask for a wider lead of the best face.
MIN_MARGIN = 0.04


def generic_deck(cache: Path | None = None, progress: bool = False) -> DeckModel:
    """A deck model holding the faces of all tuning designs (cached as an .npz)."""
    folder = cache or default_cache()
    path = folder / f"generic-v{VERSION}.npz"
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
