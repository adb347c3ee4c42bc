"""Reader crops for training (`reader_sample`): one crop cut with `model.crop.cut_index`
exactly as the runtime cuts it, around a corner index (its code is the class) or around
something that is not one (`NOT_A_CARD`: a card's middle, a back, the table, a covered index),
the card among neighbours scattered about it or in a dense fan of its deck, under the light,
glare and camera faults of `scenes`, cut with the finder's errors. Reproducible from the
generator it is given. The cards are laid as the finder's pictures lay them (`data`).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.model.crop import cut_index
from hardware.camera.model.spec import CLASSES, NOT_A_CARD
from hardware.cards import CODES_BY_SUIT
from training.art.artwork import Artwork
from training.art.textures import background
from training.data import scenes
from training.data.pictures import MAX_TILT, Laid, index_geometry, pick_face
from training.data.poses import card_corners
from training.data.scenes import Canvas

# a reader crop's index is read (its code the class) when this share of it shows, "not a card"
# below the second figure, and drawn again in between; in a dense fan, where a neighbour's
# edge crosses the index, a code needs more of it in view
READ_SHARE = (0.7, 0.45)
FAN_READ_SHARE = (0.9, 0.6)
_NONE = CLASSES.index(NOT_A_CARD)
# the reader learns a suit by its shape, not its colour: this share of the face-up cards in
# its crops is printed in another ink colour (`scenes.recolour_ink`), and this share of its
# crops is grey
RECOLOUR, GREY = 0.35, 0.08
# the finder's errors a reader's crop is cut with, on synthetic and real crops alike: its width
# off by a factor exp(N(0, WIDTH_SPREAD)), its index centre by N(0, SHIFT_SPREAD) card widths
# in x and y, its up by N(0, TURN_SPREAD) degrees, at most TURN_MOST. The shipped finder errs
# more on rendered frames of ten training designs (width |log| error median 0.12; up off 6
# degrees at the median, 21 at the 90th percentile), but a reader fine-tuned with 0.17, 8 and
# 30 lost cards of those frames, and readers trained anew with 0.14, 7 and 25 read less surely
# and lost real cards (docs/vision-history.md)
WIDTH_SPREAD, SHIFT_SPREAD, TURN_SPREAD, TURN_MOST = 0.08, 0.03, 5.0, 12.0


def reader_sample(rng: np.random.Generator, art: Artwork, code: str | None = None,
                  fans: float = 0.0) -> tuple[np.ndarray, int]:
    """One reader crop (uint8 [CROP_H, CROP_W, 3]) and its class id in `spec.CLASSES`: the
    code of the index it is cut around (`code` when given, else any), or `NOT_A_CARD` for a
    crop around something else (a card's middle, a back, the table, a covered index).
    `fans` of the crops lie in a dense fan of their deck (`_fan_around`), read only when
    `FAN_READ_SHARE` of the index shows; with none, crop *i* of a seed is what it was before
    the option existed."""
    asked = code
    # the card's width where the crop is cut: from a 50 px card in a full frame (the crop
    # enlarges it) to one sharper than the crop needs (the crop shrinks it)
    render_width = float(np.exp(rng.uniform(np.log(45), np.log(200))))
    side = int(np.ceil(0.7 * render_width)) + 8
    canvas = Canvas.over(background(rng, art.bank, (side, side), layout=0.2, second=0.1))
    design = int(rng.integers(len(art.faces)))
    wanted = code or CODES_BY_SUIT[int(rng.integers(len(CODES_BY_SUIT)))]
    having = [d for d, faces in enumerate(art.faces) if wanted in faces]
    if having and wanted not in art.faces[design]:
        design = having[int(rng.integers(len(having)))]
    face = art.faces[design].get(wanted)
    if face is None:
        face, wanted = pick_face(rng, art, design)
    code = wanted
    negative = asked is None and rng.random() < 0.15
    # the target card lies with its chosen point (an index centre, or elsewhere) mid-canvas
    homography = camera_view(rng, side, render_width)
    centre = np.array([side / 2, side / 2])
    angle = float(rng.uniform(0, 360))
    quad = scenes.project(homography, card_corners(centre, render_width, face.aspect, angle))
    card = Laid(face, code, quad, 0)
    box = face.indices[int(rng.integers(len(face.indices)))]
    kind = rng.choice(["middle", "back", "table"]) if negative else "index"
    if kind == "back":
        card = Laid(art.backs[int(rng.integers(len(art.backs)))], None, quad, 0)
    matrix = card.to_picture()
    _, at, up = index_geometry(card, box, matrix)
    if kind == "middle":  # somewhere on the face that is not an index
        u, v = rng.uniform(0.25, 0.75), rng.uniform(0.2, 0.8)
        if rng.random() < 0.3 and len(face.indices) == 2:
            u, v = rng.choice([[0.88, 0.12], [0.12, 0.88]]) + rng.normal(0, 0.03, 2)
        at = cv2.perspectiveTransform(np.array([[[u, v]]], np.float32), matrix)[0, 0]
    shift = centre - at
    card.quad = card.quad + shift
    if kind == "table":
        card.quad = card.quad + rng.choice([-1, 1], 2) * render_width * 1.6
    fanned = bool(fans and rng.random() < fans)
    if fanned:
        laid = _fan_around(rng, art, card, design, render_width, angle, canvas)
    else:
        laid = _scattered_around(rng, art, card, render_width, angle, canvas)
    if rng.random() < 0.15:
        scenes.draw_chips(canvas, rng, centre + rng.normal(0, 0.4 * render_width, 2),
                          render_width * rng.uniform(0.3, 0.6))
    if kind == "table" and rng.random() < 0.5:  # a letter or number printed on the layout
        scenes.draw_text(canvas, rng, centre, 0.12 * render_width)
    label = _NONE
    if kind == "index":
        poly, _, _ = index_geometry(card, box, card.to_picture())
        share = scenes.visible_share(canvas.owner, poly, card.who)
        read, blank = FAN_READ_SHARE if fanned else READ_SHARE
        label = CLASSES.index(code) if share >= read else _NONE if share < blank else -1
        if label == -1:  # half covered: neither a clear read nor clearly nothing; draw again
            return reader_sample(rng, art, asked, fans)
    if label == _NONE and _index_near(laid, card, centre, 0.2 * render_width):
        return reader_sample(rng, art, asked, fans)  # another card's index is where it is cut
    frame = photograph(rng, canvas, render_width)
    # the runtime's errors: the finder's centre, up and width are a little off
    jitter = rng.normal(0, SHIFT_SPREAD * render_width, 2)
    turn = np.deg2rad(float(np.clip(rng.normal(0, TURN_SPREAD), -TURN_MOST, TURN_MOST)))
    if kind != "index" and rng.random() < 0.5:
        turn = float(rng.uniform(0, 2 * np.pi))
    elif kind == "index" and asked is None and rng.random() < 0.06:
        # the finder's up badly wrong: an index on its side or upside down (a 6 read as a 9)
        # is not read
        turn = float(rng.choice([0.5, 1.0, 1.5]) * np.pi + np.deg2rad(rng.normal(0, 8)))
        label = _NONE
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    crop_up = rot @ up
    width = card.width * float(np.exp(rng.normal(0, WIDTH_SPREAD)))
    crop = cut_index(frame, (float(centre[0] + jitter[0]), float(centre[1] + jitter[1])),
                     (float(crop_up[0]), float(crop_up[1])), width)
    if rng.random() < GREY:
        crop = cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return crop, label


def camera_view(rng: np.random.Generator, side: int, width: float) -> np.ndarray:
    """The homography of a camera whose frame is a few cards `width` wide, leaning as
    `scenes.view` draws it, centred on a square canvas of `side` pixels."""
    frame_side = int(4 * width)
    move = np.array([[1, 0, (side - frame_side) / 2], [0, 1, (side - frame_side) / 2], [0, 0, 1]])
    return move @ scenes.view(rng, (frame_side, frame_side), MAX_TILT) @ np.linalg.inv(move)


def photograph(rng: np.random.Generator, canvas: Canvas, width: float) -> np.ndarray:
    """The canvas as a camera gives it: the light, perhaps glare, and the camera's faults,
    as strong as suits cards `width` pixels wide."""
    image = scenes.light(canvas.image, rng)
    if rng.random() < 0.15:
        image, _ = scenes.glare(image, rng)
    return scenes.degrade(image, rng, float(np.clip(width / 110, 0.4, 1.0)))


def _printed(rng: np.random.Generator, card: Laid) -> np.ndarray:
    """The picture of `card` to paste at its size: its face's, or, `RECOLOUR` of the time for a
    face up, the same face printed in another ink colour."""
    level = scenes.pick_level(card.face.levels, float(np.linalg.norm(card.quad[3] - card.quad[0])))
    if card.code is not None and rng.random() < RECOLOUR:
        level = scenes.recolour_ink(level, scenes.ink_colour(rng))
    return level


def paste(rng: np.random.Generator, canvas: Canvas, card: Laid) -> None:
    """`card` pasted where it lies (`_printed`), with a soft shadow under it."""
    scenes.paste(canvas, _printed(rng, card), card.quad, card.who, rng, None,
                 shadow=float(rng.uniform(0, 0.3)))


def _paste_all(rng: np.random.Generator, canvas: Canvas, laid: list[Laid]) -> None:
    for k, c in enumerate(laid):
        c.who = k
        paste(rng, canvas, c)


def _scattered_around(rng: np.random.Generator, art: Artwork, card: Laid, width: float,
                      angle: float, canvas: Canvas) -> list[Laid]:
    """`card` laid with perhaps a card of any deck underneath, showing past its edge, and
    perhaps one or two on top covering its right part: the cards laid, bottom first."""
    laid = [card]
    if rng.random() < 0.3:
        laid.insert(0, neighbour(rng, art, card, width, angle, 1))
    _paste_all(rng, canvas, laid)
    if rng.random() < 0.45:
        for n in range(int(rng.integers(1, 3))):
            other = neighbour(rng, art, card, width, angle, 2 + n)
            paste(rng, canvas, other)
            laid.append(other)
    return laid


def _fan_around(rng: np.random.Generator, art: Artwork, card: Laid, design: int,
                width: float, angle: float, canvas: Canvas) -> list[Laid]:
    """`card` in a dense fan of its own deck (as `DENSE_FAN` lays them): one to four cards
    under it to its left and none to three on it to its right, each showing a tenth to a
    quarter of a card width past the last and turned a few degrees on, so that beside the
    crop's index lie the narrow strips of its neighbours' indices. The cards, bottom first."""
    def next_to(last: Laid, turned: float, side: int) -> tuple[Laid, float]:
        face, code = pick_face(rng, art, design)
        across, down = last.quad[1] - last.quad[0], last.quad[3] - last.quad[0]
        turned += side * float(rng.uniform(0, 5))
        quad = card_corners(np.zeros(2), width, face.aspect, turned)
        shift = side * across * rng.uniform(0.1, 0.25) + down * rng.normal(0, 0.03)
        quad = quad - quad.mean(axis=0) + last.quad.mean(axis=0) + shift
        return Laid(face, code, quad, 0), turned

    under: list[Laid] = []
    over: list[Laid] = []
    last, turned = card, angle
    for _ in range(int(rng.integers(1, 5))):
        last, turned = next_to(last, turned, -1)
        under.insert(0, last)
    last, turned = card, angle
    for _ in range(int(rng.integers(0, 4))):
        last, turned = next_to(last, turned, 1)
        over.append(last)
    laid = [*under, card, *over]
    _paste_all(rng, canvas, laid)
    return laid


def neighbour(rng: np.random.Generator, art: Artwork, card: Laid, width: float, angle: float,
               who: int) -> Laid:
    """Another card beside `card`: shifted along the card's width (as in a fan) or anywhere."""
    face_up = rng.random() < 0.8
    if face_up:
        face, code = pick_face(rng, art, int(rng.integers(len(art.faces))))
    else:
        face, code = art.backs[int(rng.integers(len(art.backs)))], None
    across = card.quad[1] - card.quad[0]
    down = card.quad[3] - card.quad[0]
    offset = across * rng.uniform(0.2, 0.9) * rng.choice([-1, 1]) + down * rng.normal(0, 0.15)
    if rng.random() < 0.3:
        offset = rng.normal(0, 0.6, 2) * width
    turn = angle + float(rng.normal(0, 8))
    quad = card_corners(np.zeros(2), width, face.aspect, turn)
    quad = quad - quad.mean(axis=0) + card.quad.mean(axis=0) + offset
    return Laid(face, code, quad, who)


def _index_near(laid: list[Laid], target: Laid, at: np.ndarray, reach: float) -> bool:
    """Whether a face-up card other than `target` has an index centre within `reach` of `at`."""
    for card in laid:
        if card is target or card.code is None:
            continue
        matrix = card.to_picture()
        for box in card.face.indices:
            _, centre, _ = index_geometry(card, box, matrix)
            if float(np.linalg.norm(centre - at)) < reach:
                return True
    return False
