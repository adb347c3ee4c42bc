"""Rank glyphs printed in free typefaces, for the drawn decks' corner indices.

Real decks print their indices in many typefaces (a condensed grotesque, a Bookman, a
Century, a rounded sans ...); a reader that has seen one font reads a 9 it has never seen
as a J. `glyph_mask(text, key)` renders a rank ("A", "2".."10", "J", "Q", "K") in one of
`TYPEFACES` with `rsvg-convert` (its text goes through Pango and fontconfig, so the fonts
are the machine's installed ones) and gives it as a tight uint8 coverage mask.

The fonts come from Debian packages with free licences (`FONT_PACKAGES`); nothing of them
ships with the product. `missing_typefaces()` says which families are not installed and the
packages that bring them: fontconfig would quietly print a missing family in another font.
`DECKS` are training's typeface decks: the drawn deck (`hardware/camera/drawn/`) with each card's rank
in a typeface and the index moved and sized per deck (`deck_layout`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from hardware.camera.drawn.faces import Layout
from hardware.cards import CODES_BY_SUIT

# key: (family, weight, Debian package). Mostly bold, as indices are printed.
TYPEFACES: dict[str, tuple[str, str, str]] = {
    "heros": ("TeX Gyre Heros", "bold", "fonts-texgyre"),
    "heros-cn": ("TeX Gyre Heros Cn", "bold", "fonts-texgyre"),
    "heros-cn-regular": ("TeX Gyre Heros Cn", "normal", "fonts-texgyre"),
    "schola": ("TeX Gyre Schola", "bold", "fonts-texgyre"),
    "bonum": ("TeX Gyre Bonum", "bold", "fonts-texgyre"),
    "termes": ("TeX Gyre Termes", "bold", "fonts-texgyre"),
    "termes-regular": ("TeX Gyre Termes", "normal", "fonts-texgyre"),
    "pagella": ("TeX Gyre Pagella", "bold", "fonts-texgyre"),
    "adventor": ("TeX Gyre Adventor", "bold", "fonts-texgyre"),
    "cursor": ("TeX Gyre Cursor", "bold", "fonts-texgyre"),
    "libertine": ("Linux Libertine O", "bold", "fonts-linuxlibertine"),
    "biolinum": ("Linux Biolinum O", "bold", "fonts-linuxlibertine"),
    "old-standard": ("Old Standard TT", "bold", "fonts-oldstandard"),
    "spartan": ("League Spartan", "bold", "fonts-league-spartan"),
    "comfortaa": ("Comfortaa", "bold", "fonts-comfortaa"),
    "quicksand": ("Quicksand", "bold", "fonts-quicksand"),
    "cabin": ("Cabin", "bold", "fonts-cabin"),
    "pt-sans-narrow": ("PT Sans Narrow", "bold", "fonts-paratype"),
    "pt-serif": ("PT Serif", "bold", "fonts-paratype"),
    "open-sans-cond": ("Open Sans Condensed", "bold", "fonts-open-sans"),
    "roboto-cond": ("Roboto Condensed", "bold", "fonts-roboto-unhinted"),
    "lato-black": ("Lato", "900", "fonts-lato"),
    "go": ("Go", "bold", "fonts-go"),
    "b612": ("B612", "bold", "fonts-b612"),
    "gillius-cond": ("Gillius ADF Cond", "bold", "fonts-adf-gillius"),
    "universalis": ("Universalis ADF Std", "bold", "fonts-adf-universalis"),
    "baskervald": ("Baskervald ADF Std", "bold", "fonts-adf-baskervald"),
    "berenis": ("Berenis ADF Pro", "bold", "fonts-adf-berenis"),
    "accanthis": ("Accanthis ADF Std", "bold", "fonts-adf-accanthis"),
    "free-sans": ("FreeSans", "bold", "fonts-freefont-ttf"),
    "free-serif": ("FreeSerif", "bold", "fonts-freefont-ttf"),
    "carlito": ("Carlito", "bold", "fonts-crosextra-carlito"),
    "caladea": ("Caladea", "bold", "fonts-crosextra-caladea"),
    "dejavu-cond": ("DejaVu Sans Condensed", "bold", "fonts-dejavu-core"),
    "dejavu-serif-cond": ("DejaVu Serif Condensed", "bold", "fonts-dejavu-extra"),
    "liberation-narrow": ("Liberation Sans Narrow", "bold", "fonts-liberation"),
    "liberation-serif": ("Liberation Serif", "bold", "fonts-liberation"),
    "cantarell": ("Cantarell", "bold", "fonts-cantarell"),
    "inter-black": ("Inter", "900", "fonts-inter"),
}
FONT_PACKAGES = tuple(sorted({package for _, _, package in TYPEFACES.values()}))
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SIZE = 200  # font size the glyphs are rendered at, in pixels
_CELL = 2 * _SIZE  # each glyph's own square of the sheet


def missing_typefaces(keys: tuple[str, ...] = tuple(TYPEFACES)) -> str | None:
    """Why the named typefaces cannot be rendered here (None when they can)."""
    if shutil.which("rsvg-convert") is None or shutil.which("fc-list") is None:
        return "rsvg-convert or fc-list not found: apt-get install librsvg2-bin fontconfig"
    installed = _installed_families()
    lost = [k for k in keys if TYPEFACES[k][0].lower() not in installed]
    if not lost:
        return None
    packages = sorted({TYPEFACES[k][2] for k in lost})
    return (f"fonts {', '.join(TYPEFACES[k][0] for k in lost)} not installed: "
            f"apt-get install {' '.join(packages)}")


@lru_cache(maxsize=1)
def _installed_families() -> frozenset[str]:
    done = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True,
                          check=False)
    return frozenset(name.strip().lower() for line in done.stdout.splitlines()
                     for name in line.split(","))


def glyph_mask(text: str, key: str) -> np.ndarray:
    """The rank `text` in typeface `key`, cropped tight to its ink, as uint8 coverage
    (0 paper, 255 ink; antialiased edges)."""
    if text not in RANKS:
        raise ValueError(f"not a rank: {text!r}")
    return _sheet(key)[RANKS.index(text)]


@lru_cache(maxsize=64)
def _sheet(key: str) -> tuple[np.ndarray, ...]:
    """Every rank in typeface `key`, rendered at once: one rsvg-convert run per typeface."""
    if key not in TYPEFACES:
        raise ValueError(f"unknown typeface {key!r}: the typefaces are {', '.join(TYPEFACES)}")
    why = missing_typefaces((key,))
    if why:
        raise RuntimeError(why)
    family, weight, _ = TYPEFACES[key]
    texts = "".join(
        f'<text x="{k * _CELL + _SIZE // 4}" y="{_SIZE + _SIZE // 4}">{rank}</text>'
        for k, rank in enumerate(RANKS)
    )
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(RANKS) * _CELL}" '
           f'height="{_CELL}"><g font-family="{family}" font-weight="{weight}" '
           f'font-size="{_SIZE}" fill="black">{texts}</g></svg>')
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "sheet.svg", Path(tmp) / "sheet.png"
        source.write_text(svg, encoding="utf-8")
        done = subprocess.run(["rsvg-convert", "-o", str(out), str(source)],
                              capture_output=True, text=True, check=False)
        image = cv2.imread(str(out), cv2.IMREAD_UNCHANGED) if done.returncode == 0 else None
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise RuntimeError(f"rsvg-convert could not render typeface {family}: "
                           f"{done.stderr.strip()}")
    ink = image[:, :, 3]
    glyphs = []
    for k, rank in enumerate(RANKS):
        cell = ink[:, k * _CELL : (k + 1) * _CELL]
        ys, xs = np.nonzero(cell > 127)
        if not len(ys):
            raise RuntimeError(f"typeface {family} printed no ink for {rank!r}")
        glyph = np.ascontiguousarray(cell[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
        glyph.setflags(write=False)
        glyphs.append(glyph)
    return tuple(glyphs)


# ------------------------------------------------------------------------- typeface decks

DECKS = tuple(f"drawn-t{k}" for k in range(1, 9))  # training's typeface decks, by name


def deck_layout(name: str) -> Layout:
    """The typeface deck `name`'s corner index (`DECKS`): where it lies and how large, drawn
    from the deck's number, each card's rank in a typeface drawn the same way, so that the
    decks together print every rank in most typefaces, and the deck's own suit shapes."""
    if name not in DECKS:
        raise ValueError(f"unknown typeface deck {name!r}: the decks are {', '.join(DECKS)}")
    rng = np.random.default_rng([35, DECKS.index(name)])
    keys = tuple(TYPEFACES)
    index_x = float(rng.uniform(0.085, 0.125))
    rank_top = float(rng.uniform(0.025, 0.05))
    rank_h = float(rng.uniform(0.07, 0.11))
    rank_w = float(rng.uniform(0.11, 0.16))
    return Layout(
        index_x=index_x, rank_top=rank_top, rank_h=rank_h, rank_w=rank_w,
        rank_w_ten=min(1.4 * rank_w, 2 * (index_x - 0.02)),  # "10" stays on the card
        pip_top=rank_top + rank_h + float(rng.uniform(0.004, 0.02)),
        pip_h=float(rng.uniform(0.045, 0.07)),
        fonts=tuple(keys[int(i)] for i in rng.integers(len(keys), size=len(CODES_BY_SUIT))),
        pip_aspect=float(rng.uniform(0.72, 1.0)),
        pip_style=DECKS.index(name) + 1,
        typeface=glyph_mask,
    )
