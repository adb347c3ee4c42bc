"""Real card art for the camera tests: Debian's SVG decks, rendered once and cached."""

from __future__ import annotations

import pytest

from hardware.camera.synth.decks import APT_PACKAGES, load_faces, missing_card_art


def faces_or_skip(design: str) -> dict:
    """The 52 faces of `design`, or a loud skip naming the Debian packages CI installs."""
    why = missing_card_art((design,))
    if why:
        pytest.skip(f"SKIPPED LOUDLY: no card art ({why}); CI installs {' '.join(APT_PACKAGES)}")
    return load_faces(design)
