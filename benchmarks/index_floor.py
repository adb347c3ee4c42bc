"""The floor the issue sets the camera recognizer against: a plain template matcher on the
corner index, run by `benchmarks/vision.py` on the same frames, in the same process.

Plain at every step, as a first attempt would be:
- finding: card paper is bright and unsaturated, the felt is not; each bright blob of card
  size is a card, its minimum-area rectangle its quad (a hand or chips touching a card make
  one blob with it, and it is lost);
- reading: the card warped upright, each way up, its top-left corner is matched
  (`cv2.matchTemplate`, normalised correlation) against the 52 enrolled faces' corners;
  the best match names the card, and under `MIN_MATCH` nothing is reported (a back).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.deck import WARP, on_grey, upright
from hardware.camera.index import CODES
from hardware.camera.reading import warp_card
from hardware.camera.recognize import Sighting

MIN_MATCH = 0.5  # below this best correlation a quad is no face (nothing reported)
_CORNER = (0.27, 0.36)  # share of the upright card's width and height searched
_TEMPLATE = (0.03, 0.22, 0.03, 0.30)  # the face's index: x0, x1, y0, y1 as shares
_SCALE = 0.5  # blobs are looked for on a half-size frame


class IndexFloor:
    """Frame in, sightings out, by the plain method above, for one enrolled design."""

    def __init__(self, faces: dict[str, np.ndarray]) -> None:
        w, h = WARP
        x0, x1, y0, y1 = (round(share * size) for share, size in zip(
            _TEMPLATE, (w, w, h, h), strict=True))
        self.templates = []
        for code in CODES:
            face = cv2.resize(on_grey(upright(faces[code])), (w, h), interpolation=cv2.INTER_AREA)
            grey = cv2.cvtColor(cv2.GaussianBlur(face, (0, 0), 0.8), cv2.COLOR_BGR2GRAY)
            self.templates.append(grey[y0:y1, x0:x1])

    def __call__(self, frame: np.ndarray) -> list[Sighting]:
        out = []
        for quad in _blobs(frame):
            code, match = self._read(frame, quad)
            if match >= MIN_MATCH:
                centre = quad.mean(axis=0)
                out.append(Sighting(code, "up", (float(centre[0]), float(centre[1])),
                                    tuple((float(x), float(y)) for x, y in quad), match))
        return out

    def _read(self, frame: np.ndarray, quad: np.ndarray) -> tuple[str, float]:
        """The best-matching code and its correlation, both ways up."""
        w, h = WARP
        grey = cv2.cvtColor(warp_card(frame, quad), cv2.COLOR_BGR2GRAY)
        best, code = -1.0, CODES[0]
        for picture in (grey, grey[::-1, ::-1]):
            corner = np.ascontiguousarray(picture[: round(_CORNER[1] * h), : round(_CORNER[0] * w)])
            for k, template in enumerate(self.templates):
                match = float(cv2.matchTemplate(corner, template, cv2.TM_CCOEFF_NORMED).max())
                if match > best:
                    best, code = match, CODES[k]
        return code, best


def _blobs(frame: np.ndarray, min_height: float = 105, max_height: float = 300) -> list[np.ndarray]:
    """Card-sized bright, unsaturated blobs as quads (full-frame pixels, clockwise, the
    first edge a short side)."""
    small = cv2.resize(frame, None, fx=_SCALE, fy=_SCALE, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    bright = ((hsv[:, :, 2] > 150) & (hsv[:, :, 1] < 60)).astype(np.uint8) * 255
    paper = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        (cx, cy), (a, b), angle = cv2.minAreaRect(contour)
        long, short = max(a, b) / _SCALE, min(a, b) / _SCALE
        if min_height <= long <= max_height and 0.6 <= short / long <= 0.8:
            box = cv2.boxPoints(((cx, cy), (a, b), angle)).astype(np.float64) / _SCALE
            if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
                box = np.roll(box, -1, axis=0)  # the first edge a short side
            quads.append(box)
    return quads
