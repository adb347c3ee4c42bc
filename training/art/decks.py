"""Card faces from Debian's SVG decks, rendered with `rsvg-convert` and cached as PNG.

Each design is one `.svgz` file holding every card as an element with a known id
(`club_queen`/`queen_club`, `back`). `render_design` writes `CODE.png` (and `back.png`)
for the 52 cards into a cache folder, cropped to the card and scaled to a fixed height.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import cv2
import numpy as np
import platformdirs

from hardware.cards import CODES_BY_SUIT

FACE_HEIGHT = 480
APT_PACKAGES = ("gnome-cards-data", "kdegames-card-data-kf5", "librsvg2-bin")

_GNOME = Path("/usr/share/aisleriot/cards")
_KDE = Path("/usr/share/carddecks")
_SUIT_WORD = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
_RANK_WORD = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}


@dataclass(frozen=True)
class Design:
    """One SVG card design: its name, file, and how its element ids are spelled."""

    name: str
    svg: Path
    scheme: str  # "gnome": club_queen, "kde": queen_club

    def element_id(self, code: str) -> str:
        if code == "back":
            return "back"
        rank = _RANK_WORD.get(code[0], code[0])
        suit = _SUIT_WORD[code[1]]
        return f"{suit}_{rank}" if self.scheme == "gnome" else f"{rank}_{suit}"


_GNOME_NAMES = (
    "anglo", "anglo_modern", "gnomangelo", "neoclassical", "paris", "simplistic", "tango",
    "ornamental", "guyenne-classic",
)
_KDE_NAMES = {
    "svg-standard": "standard", "svg-oxygen": "oxygen", "svg-oxygen-white": "oxygen-white",
    "svg-konqi-modern": "konqi", "svg-future": "future", "svg-dondorf": "dondorf",
    "svg-penguins": "penguins",
}
# More designs of the same two packages, not in the list, with the English corner
# letters (A K Q J) a baccarat table's cards carry. The hand-tuned recognizer kept them as a
# second estimate for unseen cards; the learned model trains on them
# (`artwork.designs_for_training`), and only `HELD_OUT` is unseen. Left out: variants of a listed design (tango_nuevo, the _4_color and _bitmap
# ones, gnome dondorf), the other designs of the held-out ones' artist (svg-nicu-*), decks
# whose court letters are not English (svg-xskat-french, ancient_french, berlin, rheinland,
# lattmann, slavic_costumes) and a Swiss-suited one (swiss-xvii).
_GNOME_UNLISTED = ("anglo_poker", "bellot", "plastic", "orell", "atlasnye")
_KDE_UNLISTED = {
    "svg-jolly-royal": "jolly-royal", "svg-tigullio-international": "tigullio-international",
    "svg-gm-paris": "paris", "svg-ancient-egyptians": "Ancient_Egyptians",
}
DESIGNS: dict[str, Design] = {  # the listed ones first: a design's place seeds its frames
    **{n: Design(n, _GNOME / f"{n}.svgz", "gnome") for n in _GNOME_NAMES},
    **{n: Design(n, _KDE / n / f"{f}.svgz", "kde") for n, f in _KDE_NAMES.items()},
    **{n: Design(n, _GNOME / f"{n}.svgz", "gnome") for n in _GNOME_UNLISTED},
    **{n: Design(n, _KDE / n / f"{f}.svgz", "kde") for n, f in _KDE_UNLISTED.items()},
}

# Designs never looked at while tuning the recognizer or training its generic model:
# their figures are the honest estimate for a casino's unseen cards.
HELD_OUT = ("tango", "ornamental", "svg-konqi-modern", "svg-penguins")
UNLISTED = (*_GNOME_UNLISTED, *_KDE_UNLISTED)
LISTED = (*_GNOME_NAMES, *_KDE_NAMES)  # the designs
TUNING = tuple(n for n in LISTED if n not in HELD_OUT)
GROUPS = {"listed": LISTED, "held-out": HELD_OUT, "unlisted": UNLISTED, "tuning": TUNING}


def design_names(spec: str) -> list[str]:
    """The designs a comma-separated list names, where a group's name (`GROUPS`) stands for
    its designs; an unknown name is a ValueError that lists the known ones."""
    names: list[str] = []
    for word in (w.strip() for w in spec.split(",")):
        if word in GROUPS:
            names += GROUPS[word]
        elif word in DESIGNS:
            names.append(word)
        else:
            raise ValueError(f"unknown design {word!r}: the designs are {', '.join(DESIGNS)}; "
                             f"the groups {', '.join(GROUPS)}")
    return list(dict.fromkeys(names))


class MissingCardArt(RuntimeError):
    """The SVG decks or the SVG renderer are not installed."""


def missing_card_art(names: tuple[str, ...] = tuple(DESIGNS)) -> str | None:
    """Why card art cannot be rendered here (None when it can)."""
    if shutil.which("rsvg-convert") is None:
        return "rsvg-convert not found: apt-get install " + " ".join(APT_PACKAGES)
    lost = [n for n in names if not DESIGNS[n].svg.exists()]
    if lost:
        return f"card designs {', '.join(lost)} not found: apt-get install " + " ".join(
            APT_PACKAGES
        )
    return None


def default_cache() -> Path:
    """The cache folder: $DEALER_ASSIST_CARD_CACHE, else `cards` in the user's cache folder
    (`~/.cache/dealer-assist/cards` on Linux): never inside the installed package."""
    env = os.environ.get("DEALER_ASSIST_CARD_CACHE")
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir("dealer-assist")) / "cards"


def _rsvg(svg: Path, element: str, zoom: float, out: Path) -> np.ndarray:
    pick = ["-i", element] if element else []
    cmd = ["rsvg-convert", "-u", *pick, "-z", f"{zoom:.4f}", "-o", str(out), str(svg)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MissingCardArt(f"rsvg-convert failed on {svg} #{element}: {done.stderr.strip()}")
    image = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise MissingCardArt(f"rsvg-convert gave no RGBA image for {svg} #{element}")
    return image


def _page_crop(svg: Path, element: str, zoom: float, out: Path) -> np.ndarray:
    """Fallback for bitmap cards (`<image x y width height>`) that `-i` cannot export."""
    with gzip.open(svg) if svg.suffix == ".svgz" else open(svg, "rb") as handle:
        root = ElementTree.parse(handle).getroot()
    node = next((n for n in root.iter() if n.get("id") == element), None)
    if node is None:
        raise MissingCardArt(f"{svg} has no element #{element}")
    x, y, w, h = (float(node.get(k, "0")) for k in ("x", "y", "width", "height"))
    page = out.with_suffix(f".page{zoom:.3f}.png")
    if not page.exists():
        _rsvg(svg, "", zoom, page)
    image = cv2.imread(str(page), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise MissingCardArt(f"rsvg-convert gave no page image for {svg}")
    x0, y0 = round(x * zoom), round(y * zoom)
    return image[y0 : y0 + round(h * zoom), x0 : x0 + round(w * zoom)]


def _render_card(svg: Path, element: str, zoom: float, out: Path) -> np.ndarray:
    try:
        return _crop_to_card(_rsvg(svg, element, zoom, out))
    except MissingCardArt as err:
        if "no dimensions" not in str(err):
            raise
        return _crop_to_card(_page_crop(svg, element, zoom, out))


def _crop_to_card(rgba: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(rgba[:, :, 3] > 24)
    if len(ys) == 0:
        raise MissingCardArt("rendered card is empty")
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def render_design(name: str, cache: Path | None = None, progress: bool = True) -> Path:
    """Render the 52 faces and the back of a design into `cache/name/`; returns that folder.

    Already rendered designs are reused (a `done` marker is written last).
    """
    why = missing_card_art((name,))
    if why:
        raise MissingCardArt(why)
    design = DESIGNS[name]
    folder = (cache or default_cache()) / name
    if (folder / "done").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp) / "card.png"
        probe = _render_card(design.svg, design.element_id("AS"), 1.0, scratch)
        zoom = 1.15 * FACE_HEIGHT / probe.shape[0]
        items = [*CODES_BY_SUIT, "back"]
        for i, code in enumerate(items):
            card = _render_card(design.svg, design.element_id(code), zoom, scratch)
            scale = FACE_HEIGHT / card.shape[0]
            width = max(1, round(card.shape[1] * scale))
            card = cv2.resize(card, (width, FACE_HEIGHT), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(folder / f"{code}.png"), card)
            if progress:
                _bar(f"rendering {name}", i + 1, len(items))
    (folder / "done").write_text("ok\n")
    return folder


def load_faces(name: str, cache: Path | None = None) -> dict[str, np.ndarray]:
    """The 52 faces and `back` of a design as BGRA arrays (rendered first if needed)."""
    folder = render_design(name, cache, progress=False)
    faces = {}
    for code in [*CODES_BY_SUIT, "back"]:
        image = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise MissingCardArt(f"cached card {folder / code}.png is unreadable; delete {folder}")
        faces[code] = image
    return faces


def four_colour(faces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The faces as a four-colour deck prints them: diamonds blue where they were red, clubs
    green where they were black (all of their ink: pips, index and picture alike)."""
    out = dict(faces)
    for code, face in faces.items():
        if code[-1:] not in ("D", "C"):
            continue
        art = face.astype(np.float32)
        b, g, r = art[..., 0], art[..., 1], art[..., 2]
        if code[-1] == "D":  # red -> blue, in proportion to how red
            share = np.clip((r - np.maximum(g, b)) / 120.0, 0.0, 1.0)
            coloured = np.stack([r, 0.4 * g + 0.3 * r, b], axis=-1)
        else:  # dark grey -> green, in proportion to how dark
            top, bottom = art[..., :3].max(axis=-1), art[..., :3].min(axis=-1)
            share = np.clip((140.0 - top) / 100.0, 0.0, 1.0) * (top - bottom < 40)
            coloured = np.stack([0.3 * top, 0.6 * top + 90.0, 0.3 * top], axis=-1)
        art[..., :3] += (coloured - art[..., :3]) * share[..., None]
        out[code] = np.clip(art, 0, 255).astype(np.uint8)
    return out


_MIDDLE = 0.65  # how much a large-index deck shrinks the middle of its cards


def large_index(faces: dict[str, np.ndarray], scale: float = 1.4) -> dict[str, np.ndarray]:
    """The faces as a large-index ("jumbo index") deck prints them: each corner index (rank and
    suit pip) `scale` times larger, reaching further down the card, and the middle of the card
    (pips, court picture) shrunk to make room. The back is left as it is."""
    out = dict(faces)
    for code, face in faces.items():
        if code == "back":
            continue
        h, w = face.shape[:2]
        mx, my = round(0.035 * w), round(0.025 * h)  # the card's margin, kept as printed
        art = face.copy()
        paper = np.percentile(face[my : h - my, mx : w - mx].reshape(-1, face.shape[2]), 90, axis=0)
        art[my : h - my, mx : w - mx] = paper.astype(np.uint8)
        middle = face[my : h - my, round(0.175 * w) : w - round(0.175 * w)]
        small = cv2.resize(middle, None, fx=_MIDDLE, fy=_MIDDLE, interpolation=cv2.INTER_AREA)
        top, left = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
        art[top : top + small.shape[0], left : left + small.shape[1]] = small
        for source, target in ((face, art), (face[::-1, ::-1], art[::-1, ::-1])):
            index = source[my : my + round(0.29 * h), mx : mx + round(0.14 * w)]
            big = cv2.resize(index, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            big = big[: h // 2 - my, : w // 2 - mx]  # never past the middle of the card
            target[my : my + big.shape[0], mx : mx + big.shape[1]] = big
        out[code] = art
    return out


def _bar(label: str, done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r{label:<28} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


if __name__ == "__main__":
    for design_name in sys.argv[1:] or list(DESIGNS):
        render_design(design_name)
