"""The contract between training (`training/`) and the runtime (find, read).

Every number both sides must agree on lives here, once. Three networks, each an ONNX file in
this folder:

**corners.onnx**, the finder. Input `image`: float32 [1, 3, H, W], BGR in [0, 1], the frame
resized so that its longer side is `WORK_LONG_SIDE` (never enlarged past it), then padded on
the right and bottom with zeros to multiples of `STRIDE_PAD`. Output `maps`: float32
[1, MAP_CHANNELS, H / MAP_STRIDE, W / MAP_STRIDE], one cell per MAP_STRIDE x MAP_STRIDE pixels:

- `HEAT_INDEX`: probability (sigmoid applied in the network) that the cell holds the centre
  of a corner index (the rank glyph and the suit pip under it, as one group);
- `HEAT_BACK`: probability that the cell holds the centre of a face-down card;
- `UP_COS`, `UP_SIN`: at an index, the unit vector of the card's "up" in image
  coordinates (x right, y down): from the index's suit pip toward its rank glyph;
- `LOG_WIDTH`: at an index, log of the card's width (short side) in working pixels;
- `TO_CENTRE_X`, `TO_CENTRE_Y`: at an index, the offset from the index centre to the card's
  centre, in card widths, in image coordinates.

Cells away from any index or back carry no meaning in the geometry channels.

**index.onnx**, the reader. Input `crop`: float32 [N, 3, CROP_H, CROP_W], BGR in [0, 1], an
upright crop of one corner index cut from the *full-resolution* frame: centred on the index
centre, rotated so the card's up points up, `CROP_H_CARD` card widths tall and
`CROP_W_CARD` card widths wide. Output `logits`: float32 [N, len(CLASSES)], CLASSES = the 52
codes in `CODES_BY_SUIT` order, then `NOT_A_CARD` (a crop that holds no readable index).

**card.onnx**, the card reader. Input `card`: float32 [N, 3, CARD_H, CARD_W], BGR in [0, 1],
the whole card cut upright from the full-resolution frame (`crop.cut_card`): centred on the
card's centre, its up pointing up or down (a card seen by its two opposite indices has no
telling which is its top), `CARD_W` pixels to one card width and `CARD_ASPECT` widths tall.
Output `logits`: float32 [N, 52], the codes in `CODES_BY_SUIT` order. It reads a card by its
whole face (a number card's pips lie the same way on every standard deck) and only ever
confirms a corner read (`merge.py`).
"""

from __future__ import annotations

from hardware.cards import CODES_BY_SUIT

WORK_LONG_SIDE = 1024
STRIDE_PAD = 32
MAP_STRIDE = 4

HEAT_INDEX, HEAT_BACK, UP_COS, UP_SIN, LOG_WIDTH, TO_CENTRE_X, TO_CENTRE_Y = range(7)
MAP_CHANNELS = 7

CROP_H, CROP_W = 64, 40
CROP_H_CARD = 0.46
CROP_W_CARD = 0.29

NOT_A_CARD = "none"
CLASSES: tuple[str, ...] = (*CODES_BY_SUIT, NOT_A_CARD)

#: Card height over width (short side): standard poker and bridge cards are 1.40 and 1.56.
CARD_ASPECT = 1.43

#: How far apart a card's two opposite corner indices lie (the finder's peaks, centre to
#: centre), in card widths: median 1.29 (1.24-1.33 by design) on rendered frames of seven
#: training designs (anglo, paris, svg-standard, orell, plastic, svg-dondorf, bellot; none
#: held out). Where both of a card's indices are seen, their distance gives its width better
#: than the finder's guess (which runs a third long or short on designs it has not seen).
INDEX_SPAN = 1.29

CARD_H, CARD_W = 56, 40

CORNERS_FILE = "corners.onnx"
INDEX_FILE = "index.onnx"
CARD_FILE = "card.onnx"
REPORT_FILE = "report.json"
