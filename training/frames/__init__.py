"""Synthetic overhead frames with real card art, for the camera's tests, tuning and benchmarks.

The card faces come from Debian's SVG decks (`training/art/decks.py`: `gnome-cards-data`,
`kdegames-card-data-kf5`, rendered once with `rsvg-convert` into the card cache);
`overhead.py` lays them on a procedurally drawn felt (`layout.py` says where) and degrades the
frame the way a real camera does.
"""
