"""Drawing a training picture: cards pasted in order, hands, chips, light, the camera's faults.

A `Canvas` holds the picture (float32 BGR) and, for every pixel, who owns it: the card drawn
there last (its number), a hand or chip (`COVER`), or the table (`TABLE`). The owner map is
how `visible_share` knows how much of a corner index still shows after everything on top.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TABLE, COVER = -1, -2
_SKINS = ((120, 160, 225), (90, 130, 190), (60, 90, 140), (150, 185, 235), (40, 60, 95))
_CHIPS = ((40, 40, 200), (200, 60, 30), (30, 30, 30), (40, 150, 40), (230, 230, 230),
          (30, 140, 220), (150, 40, 130))


@dataclass
class Canvas:
    image: np.ndarray  # float32 [H, W, 3] BGR, 0..255
    owner: np.ndarray  # int16 [H, W]

    @classmethod
    def over(cls, background: np.ndarray) -> Canvas:
        h, w = background.shape[:2]
        return cls(background, np.full((h, w), TABLE, np.int16))


def _box(quad: np.ndarray, shape: tuple[int, ...], pad: int) -> tuple[int, int, int, int] | None:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + pad + 1
    x0, y0 = max(int(x0), 0), max(int(y0), 0)
    x1, y1 = min(int(x1), shape[1]), min(int(y1), shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def pick_level(levels: list[np.ndarray], side: float) -> np.ndarray:
    """The smallest picture of a face's pyramid (largest first) at least `side` pixels tall."""
    for art in reversed(levels):
        if art.shape[0] >= side:
            return art
    return levels[0]


def paste(canvas: Canvas, art: np.ndarray, quad: np.ndarray, who: int, rng: np.random.Generator,
          tint: np.ndarray | None = None, shadow: float = 0.0) -> None:
    """Warp a BGRA picture so its corners land on `quad` (its TL, TR, BR, BL), with a soft
    shadow of strength `shadow` under it; the pixels it covers become `who`'s."""
    side = float(np.linalg.norm(quad[3] - quad[0]))
    pad = max(2, round(side * 0.03)) if shadow > 0 else 1
    box = _box(quad, canvas.image.shape, pad)
    if box is None:
        return
    x0, y0, x1, y1 = box
    ah, aw = art.shape[:2]
    src = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], np.float32)
    local = (quad - [x0, y0]).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, local)
    warped = cv2.warpPerspective(art, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = warped[:, :, 3].astype(np.float32) * (1.0 / 255.0)
    region = canvas.image[y0:y1, x0:x1]
    if shadow > 0:
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        shift = rng.uniform(-0.02, 0.03, 2) * side
        cv2.fillConvexPoly(mask, np.round((local + shift) * 4).astype(np.int32), 1.0,
                           cv2.LINE_AA, shift=2)
        soft = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(1.0, side * 0.015)), np.float32)
        region *= (1.0 - shadow * soft)[:, :, None]
    colour = warped[:, :, :3].astype(np.float32)
    if tint is not None:
        colour *= tint
    region += (colour - region) * alpha[:, :, None]
    canvas.owner[y0:y1, x0:x1][alpha > 0.5] = who


def visible_share(owner: np.ndarray, poly: np.ndarray, who: int) -> float:
    """The share of polygon `poly` (its whole area, in or out of the picture) whose pixels
    still belong to `who`."""
    area = float(cv2.contourArea(poly.astype(np.float32)))
    if area < 1.0:
        return 0.0
    box = _box(poly, owner.shape, 0)
    if box is None:
        return 0.0
    x0, y0, x1, y1 = box
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(poly - [x0, y0]).astype(np.int32), 1)
    mine = np.count_nonzero((owner[y0:y1, x0:x1] == who) & (inside > 0))
    return min(1.0, mine / area)


def draw_hand(canvas: Canvas, rng: np.random.Generator, at: np.ndarray, size: float) -> None:
    """A hand (palm and fingers) reaching over `at` from one side, with its arm to the edge."""
    h, w = canvas.owner.shape
    layer = np.zeros((h, w), np.uint8)
    angle = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    palm = at - direction * size * 0.6
    axes = (max(2, round(size * 0.5)), max(2, round(size * 0.42)))
    cv2.ellipse(layer, (int(palm[0]), int(palm[1])), axes, float(np.degrees(angle)), 0, 360, 255, -1)
    arm_end = palm - direction * size * 5
    cv2.line(layer, (int(palm[0]), int(palm[1])), (int(arm_end[0]), int(arm_end[1])), 255,
             max(3, round(size * rng.uniform(0.6, 0.85))))
    fingers = int(rng.integers(2, 5))
    for k in range(fingers):
        base = palm + direction * size * 0.3 + normal * size * (k - (fingers - 1) / 2) * 0.21
        tip = base + (direction + normal * rng.normal(0, 0.15)) * size * rng.uniform(0.45, 0.75)
        cv2.line(layer, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255,
                 max(2, round(size * 0.18)))
    thumb = palm + normal * size * 0.4 * rng.choice([-1, 1])
    thumb_tip = thumb + (direction * 0.5 + (thumb - palm) / size) * size * 0.6
    cv2.line(layer, (int(thumb[0]), int(thumb[1])), (int(thumb_tip[0]), int(thumb_tip[1])), 255,
             max(2, round(size * 0.2)))
    soft = cv2.GaussianBlur(layer, (0, 0), 1.0).astype(np.float32) * (1.0 / 255.0)
    skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))], np.float32) * rng.uniform(0.8, 1.15)
    shade = 0.75 + 0.35 * cv2.GaussianBlur(soft, (0, 0), max(1.0, size * 0.15))
    hand = skin[None, None, :] * shade[:, :, None]
    # the hand's own shadow on the table, offset away from the light
    shadow = np.roll(soft, (int(size * 0.12), int(size * 0.08)), axis=(0, 1))
    canvas.image *= (1.0 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), max(1.0, size * 0.1)))[:, :, None]
    canvas.image += (hand - canvas.image) * soft[:, :, None]
    canvas.owner[layer > 127] = COVER


def draw_chips(canvas: Canvas, rng: np.random.Generator, at: np.ndarray, size: float) -> None:
    """One to four casino chips (or a short stack) around `at`, `size` about their diameter,
    their edges marked as real chips' are: spots, a light rim, or striped inserts. A chip's
    coloured middle in a light rim looks like a card back's pattern in its border: the finder
    must see both, and learn which is a back."""
    for _ in range(int(rng.integers(1, 5))):
        colour = tuple(float(c) for c in _CHIPS[int(rng.integers(len(_CHIPS)))])
        centre = at + rng.normal(0, size * 0.4, 2)
        c = (int(centre[0]), int(centre[1]))
        radius = max(2, round(size * rng.uniform(0.4, 0.6)))
        cv2.circle(canvas.image, (c[0] + 2, c[1] + 2), radius, (20, 20, 20), -1, cv2.LINE_AA)
        cv2.circle(canvas.image, c, radius, colour, -1, cv2.LINE_AA)
        light = (float(rng.uniform(215, 250)),) * 3
        edge = rng.random()
        if edge < 0.4:  # the edge spots
            for k in range(6):
                a = k * np.pi / 3 + rng.uniform(0, 1)
                p = (int(c[0] + np.cos(a) * radius * 0.85), int(c[1] + np.sin(a) * radius * 0.85))
                cv2.circle(canvas.image, p, max(1, radius // 6), light, -1)
        elif edge < 0.7:  # a light rim
            rim = max(1, round(radius / rng.uniform(4, 8)))
            cv2.circle(canvas.image, c, radius - rim // 2, light, rim, cv2.LINE_AA)
        else:  # striped inserts round the edge
            turn = float(rng.uniform(0, 45))
            for k in range(8):
                cv2.ellipse(canvas.image, c, (radius - 1, radius - 1), 0, turn + 45 * k,
                            turn + 45 * k + 20, light, max(1, radius // 4))
        cv2.circle(canvas.image, c, round(radius * 0.6), light, 1, cv2.LINE_AA)
        cv2.circle(canvas.owner, c, radius, COVER, -1)


def draw_blank(canvas: Canvas, rng: np.random.Generator, quad: np.ndarray) -> None:
    """Something white and flat that is not a card face: a paper note, a blank card."""
    shade = float(rng.uniform(170, 250))
    cv2.fillConvexPoly(canvas.image, np.round(quad).astype(np.int32),
                       (shade * rng.uniform(0.9, 1.0), shade, shade * rng.uniform(0.9, 1.05)),
                       cv2.LINE_AA)
    cv2.fillConvexPoly(canvas.owner, np.round(quad).astype(np.int32), COVER)


_GLYPHS = ("A", "K", "Q", "J", "10", "7", "8", "6", "9", "2", "1:1", "8:1", "$", "TIE", "P", "B")


def draw_text(canvas: Canvas, rng: np.random.Generator, at: np.ndarray, tall: float) -> None:
    """A short word or number printed on the table around `at`, `tall` pixels high: what a
    layout prints and a finder may mistake for an index."""
    text = _GLYPHS[int(rng.integers(len(_GLYPHS)))]
    font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX]))
    scale = max(0.2, tall / 22.0)
    thick = max(1, round(scale * rng.uniform(1, 3)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    mask = np.zeros(canvas.owner.shape, np.uint8)
    cv2.putText(mask, text, (int(at[0] - tw / 2), int(at[1] + th / 2)), font, scale, 255, thick,
                cv2.LINE_AA)
    ink = np.array([rng.uniform(0, 255) for _ in range(3)], np.float32)
    share = mask.astype(np.float32) * (1.0 / 255.0)
    canvas.image += (ink - canvas.image) * share[:, :, None]


def ink_colour(rng: np.random.Generator) -> np.ndarray:
    """A colour a deck might print its ink in (BGR, float32): any hue, dark enough to read on
    white paper, sometimes black or grey. Four-colour decks differ in which suit gets which
    colour (one prints its spades red and its hearts green), so the reader must learn a suit
    by its shape: `recolour_ink` uses these to break the link between suit and colour."""
    if rng.random() < 0.2:
        return np.full(3, rng.uniform(0, 110), np.float32)
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(120, 255), rng.uniform(70, 220)]]],
                   np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def recolour_ink(art: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """A BGRA face with all of its ink (whatever is far from the paper's colour: index, pips,
    picture) turned `colour`, in proportion to how far it was from the paper."""
    h, w = art.shape[:2]
    bgr = art[:, :, :3].astype(np.float32)
    paper = np.median(bgr[round(0.02 * h) : max(round(0.3 * h), 1),
                          round(0.03 * w) : max(round(0.25 * w), 1)].reshape(-1, 3), axis=0)
    distance = np.sqrt(((bgr - paper) ** 2).sum(axis=2))
    share = np.clip((distance - 25.0) / 110.0, 0.0, 1.0)[:, :, None]
    out = art.copy()
    out[:, :, :3] = np.clip(bgr + (colour - bgr) * share, 0, 255).astype(np.uint8)
    return out


def light(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uneven light: a gradient, a darker corner, sometimes a long soft shadow (an arm)."""
    h, w = image.shape[:2]
    small = (max(2, w // 16), max(2, h // 16))
    yy, xx = np.mgrid[0 : small[1], 0 : small[0]].astype(np.float32)
    xx, yy = xx / small[0] - 0.5, yy / small[1] - 0.5
    gx, gy = rng.uniform(-0.5, 0.5, 2)
    gain = 1.0 + gx * xx + gy * yy
    cx, cy = rng.uniform(-0.5, 0.5, 2)
    gain -= rng.uniform(0.0, 0.6) * ((xx - cx) ** 2 + (yy - cy) ** 2)
    if rng.random() < 0.3:  # a shadow band across the picture
        a = rng.uniform(0, np.pi)
        off = np.cos(a) * xx + np.sin(a) * yy - rng.uniform(-0.4, 0.4)
        width = rng.uniform(0.05, 0.25)
        gain *= 1.0 - rng.uniform(0.2, 0.55) * (np.abs(off) < width)
    gain = cv2.GaussianBlur(gain.astype(np.float32), (0, 0), rng.uniform(0.6, 2.0))
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR) * rng.uniform(0.6, 1.25)
    return image * gain[:, :, None]


def glare(image: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A lamp's reflection: a bright soft ellipse. Returns the picture and the glare's
    strength per pixel (0..1), so that an index under strong glare is not asked for."""
    h, w = image.shape[:2]
    small = np.zeros((max(2, h // 8), max(2, w // 8)), np.float32)
    centre = (int(rng.integers(0, small.shape[1])), int(rng.integers(0, small.shape[0])))
    axes = (int(rng.integers(2, max(3, small.shape[1] // 3))),
            int(rng.integers(1, max(2, small.shape[0] // 5))))
    cv2.ellipse(small, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(1.0, 4.0))
    strength = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR) * rng.uniform(0.3, 1.0)
    return image + strength[:, :, None] * 255.0, strength


def degrade(image: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """The camera: colour cast, blur or motion blur, sensor noise, JPEG. `scale` is the
    share of the usual blur and noise to apply (less where the cards are small). Returns
    uint8 BGR."""
    cast = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    image = image * cast
    kind = rng.random()
    if kind < 0.45:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.5) * scale)
    elif kind < 0.6:
        length = max(2, round(rng.uniform(2, 8) * scale))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0
        turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        turned = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
        image = cv2.filter2D(image, -1, turned / max(float(turned.sum()), 1e-6))
    h, w = image.shape[:2]
    sigma = float(rng.uniform(0, 8)) * (0.5 + 0.5 * scale)
    if sigma > 0.5:
        grain = rng.standard_normal((h, w), dtype=np.float32) * sigma
        image = image + grain[:, :, None]
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        quality = int(rng.integers(round(70 - 35 * scale), 95))
        ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    return out


def view(rng: np.random.Generator, size: tuple[int, int], max_tilt: float) -> np.ndarray:
    """A camera tilted up to `max_tilt` degrees off straight down, as a homography from the
    table plane (pixels, centred on the picture) to the picture."""
    w, h = size
    tilt = np.deg2rad(rng.uniform(0, max_tilt) if rng.random() < 0.7 else 0.0)
    axis = rng.uniform(0, 2 * np.pi)
    f = max(w, h) * rng.uniform(0.8, 2.0)
    ax, ay = np.cos(axis), np.sin(axis)
    k = np.array([[ax * ax, ax * ay, 0], [ax * ay, ay * ay, 0], [0, 0, 0]])
    cross = np.array([[0, 0, ay], [0, 0, -ax], [-ay, ax, 0]])
    turn = np.eye(3) * np.cos(tilt) + np.sin(tilt) * cross + (1 - np.cos(tilt)) * k
    camera = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    plane = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, f]])
    homography = camera @ turn @ plane
    # keep the plane's centre where it was and its scale there about the same
    centre = homography @ np.array([w / 2, h / 2, 1.0])
    homography = np.array([[1, 0, w / 2 - centre[0] / centre[2]],
                           [0, 1, h / 2 - centre[1] / centre[2]], [0, 0, 1]]) @ (homography / centre[2])
    return homography


def in_front(homography: np.ndarray, points: np.ndarray, margin: float = 0.3) -> bool:
    """Whether every table point lies well before the horizon of `view`'s camera (its scale
    there at least `margin` of the scale at the picture's centre): cards past it are left
    out rather than drawn inside out."""
    flat = np.asarray(points, np.float64).reshape(-1, 2)
    depth = flat @ homography[2, :2] + homography[2, 2]
    return bool(depth.min() > margin)


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    flat = np.asarray(points, np.float64).reshape(-1, 2)
    out = cv2.perspectiveTransform(flat[None], homography)[0]
    return out.reshape(np.shape(points))
