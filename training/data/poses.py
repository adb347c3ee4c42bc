"""Where the cards of one training picture lie on the table plane (`data.finder_sample`):
cards apart or in rows, fanned hands, a baccarat deal, a heap, close-ups, and the dense fans
of a bridge deal (`DENSE_FAN`), each as (centre, width, angle), with the share face down."""

from __future__ import annotations

import numpy as np


def card_corners(centre: np.ndarray, width: float, aspect: float, angle: float) -> np.ndarray:
    """A card's TL, TR, BR, BL on the table plane; `angle` in degrees, counter-clockwise."""
    h = width * aspect
    rad = np.deg2rad(angle)
    rot = np.array([[np.cos(rad), np.sin(rad)], [-np.sin(rad), np.cos(rad)]])
    local = np.array([[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2],
                      [-width / 2, h / 2]])
    return local @ rot.T + centre


DENSE_FAN = "dense fan"  # finder_sample's mode: the fans of a bridge deal


def dense_fans(rng: np.random.Generator, w: int, h: int) -> list[tuple[np.ndarray, float, float]]:
    """Two to four fans of 8-13 cards, as a bridge deal lies: each next card shows only 10-25%
    of a card width, so only its corner index is in view; straight, or turned a few degrees a
    card about a pivot below the fan, as a hand spreads them."""
    out: list[tuple[np.ndarray, float, float]] = []
    width = float(np.exp(rng.uniform(np.log(22), np.log(max(0.5 * max(w, h), 30.0)))))
    for _ in range(int(rng.integers(2, 5))):
        count = int(rng.integers(8, 14))
        start = rng.uniform([-0.3 * w, 0.0], [0.8 * w, h])
        base = rng.uniform(0, 360) if rng.random() < 0.5 else rng.normal(0, 5) + 90 * rng.integers(4)
        step = width * rng.uniform(0.1, 0.25)
        sign = 1.0 if rng.random() < 0.8 else -1.0
        turn = rng.uniform(1.5, 6.0) * sign if rng.random() < 0.5 else 0.0
        reach = step / max(np.deg2rad(abs(turn)), 1e-6)  # pivot distance: arc step = step
        rad0 = np.deg2rad(base)
        pivot = start - np.array([-np.sin(rad0), -np.cos(rad0)]) * reach
        for k in range(count):
            angle = base - turn * k
            rad = np.deg2rad(angle)
            if turn:
                centre = pivot + np.array([-np.sin(rad), -np.cos(rad)]) * reach
            else:
                centre = start + np.array([np.cos(rad), -np.sin(rad)]) * sign * step * k
            centre = centre + rng.normal(0, 0.015 * width, 2)
            out.append((centre, width, float(angle + rng.normal(0, 1.0))))
    return out


def lay_out(rng: np.random.Generator, w: int, h: int, mode: str | None = None
           ) -> tuple[list[tuple[np.ndarray, float, float]], float]:
    """Where the cards of one picture lie on the table plane: (centre, width, angle) each,
    drawn in order; and the share of them that lie face down. `mode`: DENSE_FAN forces the
    picture to be dense fans (None: drawn)."""
    if mode == DENSE_FAN:
        return dense_fans(rng, w, h), 0.0
    mode = rng.choice(["apart", "fan", "deal", "heap", "close"], p=[0.3, 0.25, 0.15, 0.15, 0.15])
    size = float(max(w, h))
    if mode == "close":
        width = float(np.exp(rng.uniform(np.log(0.3 * size), np.log(1.2 * size))))
    else:
        width = float(np.exp(rng.uniform(np.log(25), np.log(max(0.4 * size, 40.0)))))
    out: list[tuple[np.ndarray, float, float]] = []
    down = 0.15
    if mode == "apart" and rng.random() < 0.4:  # laid out in rows, as for a photograph
        row = float(rng.normal(0, 10) + 90 * rng.integers(4))
        rad = np.deg2rad(row)
        along, aside = np.array([np.cos(rad), -np.sin(rad)]), np.array([np.sin(rad), np.cos(rad)])
        gap_x, gap_y = width * rng.uniform(1.1, 1.8), width * rng.uniform(1.5, 2.0)
        origin = rng.uniform([0.0, 0.0], [0.5 * w, 0.5 * h])
        for i in range(int(rng.integers(1, 5))):
            for j in range(int(rng.integers(2, 7))):
                centre = origin + along * gap_x * j + aside * gap_y * i
                angle = row + float(rng.normal(0, 6)) + (180.0 if rng.random() < 0.4 else 0.0)
                out.append((centre + rng.normal(0, 0.08 * width, 2), width, angle))
    elif mode == "apart":
        count = int(rng.integers(1, max(2, min(16, int(1.2 * w * h / (width * width * 2.5))))))
        for _ in range(count):
            centre = rng.uniform([-0.1 * w, -0.1 * h], [1.1 * w, 1.1 * h])
            angle = rng.uniform(0, 360) if rng.random() < 0.5 else rng.normal(0, 8) + 90 * rng.integers(4)
            out.append((centre, width * rng.uniform(0.97, 1.03), float(angle)))
    elif mode == "fan":
        for _ in range(int(rng.integers(1, 4))):
            count = int(rng.integers(3, 14))
            start = rng.uniform([0, 0], [w, h])
            base = rng.uniform(0, 360)
            step = width * rng.uniform(0.12, 0.4)
            spread = rng.uniform(0, 10) if rng.random() < 0.6 else 0.0
            sign = 1.0 if rng.random() < 0.8 else -1.0  # the next card on the left or the right
            if rng.random() < 0.4:  # held in a hand: every card turned about one pivot
                turn = rng.uniform(4, 14) * sign
                reach = width * rng.uniform(0.35, 0.6)
                for k in range(count):
                    angle = base - turn * (k - count / 2)
                    rad = np.deg2rad(angle)
                    up = np.array([-np.sin(rad), -np.cos(rad)])
                    out.append((start + up * reach + rng.normal(0, 0.01 * width, 2), width,
                                float(angle + rng.normal(0, 1))))
                continue
            for k in range(count):
                angle = base - sign * spread * (k - count / 2)
                rad = np.deg2rad(angle)
                along = np.array([np.cos(rad), -np.sin(rad)]) * sign
                centre = start + along * step * k + rng.normal(0, 0.02 * width, 2)
                out.append((centre, width, float(angle + rng.normal(0, 1.5))))
            down = 0.05
    elif mode == "deal":  # a row of game positions, third cards sideways across the pair
        row = float(rng.uniform(0, 360))
        rad = np.deg2rad(row)
        along, aside = np.array([np.cos(rad), -np.sin(rad)]), np.array([np.sin(rad), np.cos(rad)])
        origin = rng.uniform([0.0, 0.0], [w, h]) - along * width * 2
        for col in range(int(rng.integers(2, 7))):
            centre = origin + along * col * width * rng.uniform(1.05, 1.4)
            flip = 180.0 * (rng.random() < 0.3)
            out.append((centre, width, row + float(rng.normal(0, 4)) + flip))
            if rng.random() < 0.3:
                across = centre + along * width * 0.5 + aside * width * rng.uniform(0.3, 0.9)
                out.append((across, width, row + 90 + float(rng.normal(0, 5))))
        down = 0.3
    elif mode == "heap":
        middle = rng.uniform([0.2 * w, 0.2 * h], [0.8 * w, 0.8 * h])
        for _ in range(int(rng.integers(2, 10))):
            out.append((middle + rng.normal(0, width * 0.8, 2), width, float(rng.uniform(0, 360))))
        down = 0.2
    else:
        for _ in range(int(rng.integers(1, 4))):
            centre = rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h])
            out.append((centre, width * rng.uniform(0.95, 1.05), float(rng.uniform(0, 360))))
    if rng.random() < 0.1:
        down = 0.8  # a picture of backs
    return out, down
