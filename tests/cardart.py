"""Real card art for the camera's and training's tests: Debian's SVG decks, rendered once and
cached, and the `faces` fixture both conftests take from here."""

from __future__ import annotations

import pytest

from training.art.decks import APT_PACKAGES, load_faces, missing_card_art

TEST_DESIGN = "tango"  # a held-out design: never used to tune the recognizer
TRAINING_DESIGN = "anglo"  # a training design: its faces have their indices in two corners


def faces_or_skip(design: str) -> dict:
    """The 52 faces of `design`, or a loud skip naming the Debian packages CI installs."""
    why = missing_card_art((design,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    return load_faces(design)


@pytest.fixture(scope="session")
def faces() -> dict:
    """The faces of the held-out `TEST_DESIGN`."""
    return faces_or_skip(TEST_DESIGN)
