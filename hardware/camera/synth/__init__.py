"""Synthetic overhead frames with real card art, for tests, tuning and benchmarks.

The card faces come from Debian's SVG decks (`gnome-cards-data`, `kdegames-card-data-kf5`),
rendered once with `rsvg-convert` (Debian's `librsvg2-bin`) into a cache folder; `scene`
lays them on a procedurally drawn felt and degrades the frame the way a real camera does.
"""
