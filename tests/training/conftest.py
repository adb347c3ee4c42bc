"""Fixtures for the training tests (real card art, rendered once). Every test here is `slow`
(tests/conftest.py: `make check-fast` leaves them out, as it does the camera's)."""

from __future__ import annotations

import pytest

from tests.cardart import TRAINING_DESIGN, faces  # noqa: F401 - the fixture
from training.art.artwork import Artwork
from training.art.decks import APT_PACKAGES, missing_card_art


@pytest.fixture(scope="session")
def art() -> Artwork:
    """The training renderer's art of one training design, without its printing variants."""
    why = missing_card_art((TRAINING_DESIGN,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    return Artwork.load([TRAINING_DESIGN], progress=False, variants=False)
