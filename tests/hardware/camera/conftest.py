"""Fixtures for the camera tests: real card art from Debian's SVG decks, rendered once."""

from __future__ import annotations

import pytest

from hardware.camera.learn.artwork import Artwork
from hardware.camera.synth.decks import APT_PACKAGES, missing_card_art
from tests.cardart import faces_or_skip

TEST_DESIGN = "tango"  # a held-out design: never used to tune the recognizer
TRAINING_DESIGN = "anglo"  # a training design: its faces have their indices in two corners


@pytest.fixture(scope="session")
def faces() -> dict:
    return faces_or_skip(TEST_DESIGN)


@pytest.fixture(scope="session")
def art() -> Artwork:
    """The training renderer's art of one training design, without its printing variants."""
    why = missing_card_art((TRAINING_DESIGN,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    return Artwork.load([TRAINING_DESIGN], progress=False, variants=False)
