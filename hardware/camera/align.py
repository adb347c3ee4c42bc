"""Affine alignment of a card picture on a face (pure): the ECC criterion (Evangelidis and
Psarakis, 2008), in its inverse compositional form.

The face is the fixed side: its gradients, the six affine motion images and their sums
are worked out once per face (`Face`) and kept, so each step warps the picture once and
solves a 6x6 system. OpenCV's `findTransformECC` moves the picture's gradients instead and
recomputes all of that every step: about three times the time for the same alignment. As
there, face pixels that the map takes off the picture are left out (counted in, they pull
the map up to half a pixel off): here the face's edges, as margins of whole rows and
columns, whose terms are kept once made for each face (a few pixels at most each way).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

_DX = np.array([[-0.5, 0.0, 0.5]], np.float32)
_WARP_FLAGS = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP


class AlignError(ValueError):
    """The criterion stopped rising: the picture does not align on the face."""


class _Sums(NamedTuple):
    """Raw sums over some of a face's pixels."""

    n: float  # how many
    face: float  # of the face's values
    face2: float  # ... squared
    motion: np.ndarray  # (6,) of the motion images
    gram: np.ndarray  # (6, 6) of their products
    cross: np.ndarray  # (6,) of their products with the face

    def less(self, other: _Sums) -> _Sums:
        """The sums over these pixels but `other`'s (some of them)."""
        return _Sums(self.n - other.n, self.face - other.face, self.face2 - other.face2,
                     self.motion - other.motion, self.gram - other.gram, self.cross - other.cross)


@dataclass(frozen=True)
class _Terms:
    """A face's terms over the pixels kept, its values and motion centred over them."""

    inverse: np.ndarray  # (6, 6): the inverse of the centred motion's Gram matrix
    projection: np.ndarray  # (6,): the centred motion times the centred face
    norm2: float  # the centred face's squared norm
    residual: float  # norm2 less what the motion explains of it

    @classmethod
    def of(cls, sums: _Sums) -> _Terms:
        """From the raw sums over the pixels kept."""
        n, face, face2, motion, gram, cross = sums
        _, inverse = cv2.invert(gram - np.outer(motion, motion) / n, flags=cv2.DECOMP_CHOLESKY)
        projection = cross - motion * face / n
        norm2 = face2 - face * face / n
        return cls(inverse, projection, norm2, norm2 - float(projection @ inverse @ projection))


def _sums(face: np.ndarray, motion: np.ndarray) -> _Sums:
    """Of face values (pixels,) and motion (6, pixels)."""
    face, motion = face.astype(np.float64), motion.astype(np.float64)
    return _Sums(float(face.size), float(face.sum()), float(face @ face), motion.sum(axis=1),
                 motion @ motion.T, motion @ face)


@dataclass(frozen=True)
class Face:
    """What an alignment on one face needs of it, worked out once."""

    smooth: np.ndarray  # (height, width) float32: the face, smoothed
    motion: np.ndarray  # (6, height, width) float32: how each affine parameter moves it
    sums: _Sums  # over all its pixels (`_Terms.of`)
    # the terms over the face less margins (left, right, top, bottom), kept once made
    _terms: dict[tuple[int, int, int, int], _Terms] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, grey: np.ndarray) -> Face:
        face = cv2.GaussianBlur(grey.astype(np.float32), (3, 3), 0)
        h, w = face.shape
        gx, gy = cv2.filter2D(face, -1, _DX), cv2.filter2D(face, -1, _DX.T)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        motion = np.stack([gx * xs, gy * xs, gx * ys, gy * ys, gx, gy])
        return cls(face, motion, _sums(face.reshape(-1), motion.reshape(6, -1)))

    def margins(self, warp: np.ndarray) -> tuple[int, int, int, int]:
        """The narrowest margins (left, right, top, bottom, in pixels) inside which `warp`
        (2x3) keeps every face pixel on a picture of the face's size."""
        h, w = self.smooth.shape
        (a, b, c), (d, e, f) = warp.tolist()  # plain floats: a few corners, many times a card
        left = right = top = bottom = 0
        while 2 * max(0, w - left - right) * max(0, h - top - bottom) >= w * h:
            x0, x1, y0, y1 = left, w - 1 - right, top, h - 1 - bottom
            # how far the corners lie past each edge (top-left, top-right, bottom-right,
            # bottom-left)
            more = [math.ceil(max(0.0, -(a * x0 + b * y0 + c), -(a * x0 + b * y1 + c))),
                    math.ceil(max(0.0, a * x1 + b * y0 + c - w + 1, a * x1 + b * y1 + c - w + 1)),
                    math.ceil(max(0.0, -(d * x0 + e * y0 + f), -(d * x1 + e * y0 + f))),
                    math.ceil(max(0.0, d * x1 + e * y1 + f - h + 1, d * x0 + e * y1 + f - h + 1))]
            if not any(more):  # the map is affine: the pixels between the corners are kept too
                return left, right, top, bottom
            left, right, top, bottom = (left + more[0], right + more[1], top + more[2],
                                        bottom + more[3])
        raise AlignError("the map takes most of the face off the picture")

    def terms(self, margins: tuple[int, int, int, int]) -> _Terms:
        """The terms over the face less `margins`."""
        if margins not in self._terms:  # the sums over all less those over the margins
            self._terms[margins] = _Terms.of(self.sums.less(_sums(*_edges(
                self.smooth, self.motion, margins))))
        return self._terms[margins]


def _edges(face: np.ndarray, motion: np.ndarray, margins: tuple[int, int, int, int]
           ) -> tuple[np.ndarray, np.ndarray]:
    """The face values (pixels,) and motion (6, pixels) of the face's pixels in `margins`
    (left, right, top, bottom): whole rows at the top and bottom, and the rest of whole
    columns at the left and right."""
    left, right, top, bottom = margins
    h, w = face.shape
    rows = slice(top, h - bottom)
    parts = [(face[:top], motion[:, :top]), (face[h - bottom:], motion[:, h - bottom:]),
             (face[rows, :left], motion[:, rows, :left]),
             (face[rows, w - right:], motion[:, rows, w - right:])]
    return (np.concatenate([values.reshape(-1) for values, _ in parts]),
            np.concatenate([moves.reshape(6, -1) for _, moves in parts], axis=1))


def _inside(planes: np.ndarray, margins: tuple[int, int, int, int]) -> np.ndarray:
    """Planes (..., height, width) less margins (left, right, top, bottom)."""
    left, right, top, bottom = margins
    h, w = planes.shape[-2:]
    return planes[..., top : h - bottom, left : w - right]


def _compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The 2x3 affine map `outer` of `inner` (`inner` applied first), in plain floats: as
    the product with `inner`'s 3x3 matrix, to the bit, without numpy's overhead."""
    (a, b, c), (d, e, f) = outer.tolist()
    (p, q, r), (s, t, u) = inner.tolist()
    return np.array([[a * p + b * s, a * q + b * t, a * r + b * u + c],
                     [d * p + e * s, d * q + e * t, d * r + e * u + f]])


def align(face: Face, picture: np.ndarray, steps: int, eps: float) -> np.ndarray:
    """The 2x3 affine map from face pixels to `picture` pixels (a float32 plane of the
    face's size) under which the two correlate best: from no motion, until the correlation
    changes by under `eps` in a step or `steps` are taken. Raises AlignError when a step
    would not raise it."""
    smooth = cv2.GaussianBlur(picture, (3, 3), 0)
    h, w = smooth.shape
    warp = np.eye(2, 3)
    last = -np.inf
    for _ in range(steps):
        margins = face.margins(warp)
        terms = face.terms(margins)
        seen = cv2.warpAffine(smooth, warp.astype(np.float32), (w, h), flags=_WARP_FLAGS,
                              borderMode=cv2.BORDER_REPLICATE)
        # centred over the pixels kept, nothing elsewhere: sums over all are theirs
        kept = _inside(seen, margins)
        kept -= kept.sum() / kept.size  # its mean (np.mean's own sum, at half the cost)
        if any(margins):
            left, right, top, bottom = margins
            seen[:top], seen[h - bottom:], seen[:, :left], seen[:, w - right:] = 0, 0, 0, 0
        seen = seen.reshape(-1)
        agree = float(face.smooth.reshape(-1) @ seen)  # the face's mean falls out: seen sums to 0
        rho = agree / (np.sqrt(float(seen @ seen) * terms.norm2) + 1e-12)
        if abs(rho - last) < eps:
            break
        last = rho
        projected = (face.motion.reshape(6, -1) @ seen).astype(np.float64)
        denominator = agree - float(projected @ terms.inverse @ terms.projection)
        if denominator <= 0:
            raise AlignError("the correlation does not rise")
        dp = terms.inverse @ (terms.residual / denominator * projected - terms.projection)
        back = cv2.invertAffineTransform(np.array([[1 + dp[0], dp[2], dp[4]],
                                                   [dp[1], 1 + dp[3], dp[5]]]))
        warp = _compose(warp, back)
    return warp.astype(np.float32)
