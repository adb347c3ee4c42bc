"""The three networks of the learned recognizer (contract: `hardware/camera/model/spec.py`).

`Finder` (exported as corners.onnx): fully convolutional. A light encoder of plain and
depthwise-separable 3x3 convolutions (BatchNorm + ReLU) down to stride 32, so that one cell's
view spans several hundred pixels (an index ~100 px tall on a card that fills the frame), and a
small feature-pyramid decoder back to stride 4, where the head still resolves an index ~6 px
tall. Output: MAP_CHANNELS maps, sigmoid on the two heat channels inside the network, the
geometry channels raw (the runtime normalises the up vector).

`Reader` (exported as index.onnx): a small CNN over the upright CROP_H x CROP_W index crop,
logits over spec.CLASSES.

`WholeCard` (exported as card.onnx): a small CNN over the upright CARD_H x CARD_W crop of a
whole card, logits over the 52 codes. It ends flat rather than pooled: where the pips lie on
the face is what tells a 7 from an 8.

Both take BGR in [0, 1]; every BatchNorm folds into its convolution at export (eval mode).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from hardware.camera.model.spec import (
    CARD_H,
    CARD_W,
    CLASSES,
    HEAT_BACK,
    HEAT_INDEX,
    LOG_WIDTH,
    MAP_CHANNELS,
)
from hardware.cards import CODES_BY_SUIT

_HEAT = (HEAT_INDEX, HEAT_BACK)
#: the reader's layer widths (the shipped reader's; the one before it had 16, 32, 48, 96, 128)
READER_CHANNELS = (24, 48, 72, 144, 192)


def conv_bn(cin: int, cout: int, stride: int = 1, kernel: int = 3) -> nn.Sequential:
    """A plain convolution, BatchNorm and ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Separable(nn.Module):
    """Depthwise 3x3 then pointwise 1x1, each with BatchNorm and ReLU; a residual sum when
    the shape is kept."""

    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.depth = nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                                   nn.BatchNorm2d(cin), nn.ReLU(inplace=True))
        self.point = conv_bn(cin, cout, kernel=1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.point(self.depth(x))
        return x + y if self.residual else y


class Finder(nn.Module):
    """[1, 3, H, W] (H, W multiples of 32) -> [1, MAP_CHANNELS, H / 4, W / 4]."""

    def __init__(self, width: int = 40, channels: tuple[int, int, int, int] = (24, 48, 80, 128)
                 ) -> None:
        super().__init__()
        c4, c8, c16, c32 = channels
        self.stem = nn.Sequential(conv_bn(3, 16, 2), Separable(16, c4, 2))  # stride 4
        self.s8 = nn.Sequential(Separable(c4, c8, 2), Separable(c8, c8))
        self.s16 = nn.Sequential(Separable(c8, c16, 2), Separable(c16, c16), Separable(c16, c16))
        self.s32 = nn.Sequential(Separable(c16, c32, 2), Separable(c32, c32), Separable(c32, c32))
        self.lat32 = conv_bn(c32, width, kernel=1)
        self.lat16 = conv_bn(c16, width, kernel=1)
        self.lat8 = conv_bn(c8, width, kernel=1)
        self.lat4 = conv_bn(c4, width, kernel=1)
        self.mix16 = Separable(width, width)
        self.mix8 = Separable(width, width)
        self.mix4 = nn.Sequential(Separable(width, width), Separable(width, width))
        self.head = nn.Conv2d(width, MAP_CHANNELS, 1)
        with torch.no_grad():  # start the heat maps near "nothing here" (focal-loss practice)
            nn.init.normal_(self.head.weight, std=0.01)
            bias = torch.zeros(MAP_CHANNELS)
            bias[list(_HEAT)] = -4.0
            bias[LOG_WIDTH] = 4.0  # cards some 55 px wide
            self.head.bias = nn.Parameter(bias)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return heat_sigmoid(self.forward_train(image))

    def forward_train(self, image: torch.Tensor) -> torch.Tensor:
        """The head's raw output (heat as logits), for a numerically stable loss."""
        x4 = self.stem(image)
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        y = self.lat32(self.s32(x16))
        y = self.mix16(self.lat16(x16) + F.interpolate(y, scale_factor=2.0, mode="nearest"))
        y = self.mix8(self.lat8(x8) + F.interpolate(y, scale_factor=2.0, mode="nearest"))
        y = self.mix4(self.lat4(x4) + F.interpolate(y, scale_factor=2.0, mode="nearest"))
        return self.head(y)


def heat_sigmoid(raw: torch.Tensor) -> torch.Tensor:
    """Sigmoid on the heat channels, the geometry channels as they are."""
    chans = [torch.sigmoid(raw[:, c:c + 1]) if c in _HEAT else raw[:, c:c + 1]
             for c in range(raw.shape[1])]
    return torch.cat(chans, dim=1)


class Reader(nn.Module):
    """[N, 3, CROP_H, CROP_W] -> [N, len(CLASSES)] logits. `channels`: the five convolutions'
    widths (`load_reader` takes them from an exported network's layers)."""

    def __init__(self, channels: tuple[int, int, int, int, int] = READER_CHANNELS) -> None:
        super().__init__()
        c1, c2, c3, c4, c5 = channels
        self.features = nn.Sequential(
            conv_bn(3, c1), nn.MaxPool2d(2),                         # 32 x 20
            conv_bn(c1, c2), conv_bn(c2, c2), nn.MaxPool2d(2),       # 16 x 10
            conv_bn(c2, c3), conv_bn(c3, c3), nn.MaxPool2d(2),       # 8 x 5
            conv_bn(c3, c4), conv_bn(c4, c5, kernel=1),
        )
        self.drop = nn.Dropout(0.1)
        self.classify = nn.Linear(c5, len(CLASSES))

    @classmethod
    def of_conv_widths(cls, outs: list[int]) -> Reader | None:
        """The Reader whose seven convolutions have these output widths (c1, c2, c2, c3, c3,
        c4, c5, as an exported network lists them), or None where they are not seven."""
        if len(outs) != 7:
            return None
        return cls((outs[0], outs[1], outs[3], outs[5], outs[6]))

    def forward(self, crop: torch.Tensor) -> torch.Tensor:
        x = self.features(crop)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.classify(self.drop(x))


class WholeCard(nn.Module):
    """[N, 3, CARD_H, CARD_W] -> [N, 52] logits (`CODES_BY_SUIT` order)."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 24), nn.MaxPool2d(2),                         # 28 x 20
            conv_bn(24, 40), conv_bn(40, 40), nn.MaxPool2d(2),       # 14 x 10
            conv_bn(40, 64), conv_bn(64, 64), nn.MaxPool2d(2),       # 7 x 5
            conv_bn(64, 96), conv_bn(96, 32, kernel=1),
        )
        self.drop = nn.Dropout(0.2)
        self.classify = nn.Linear(32 * (CARD_H // 8) * (CARD_W // 8), len(CODES_BY_SUIT))

    def forward(self, card: torch.Tensor) -> torch.Tensor:
        return self.classify(self.drop(torch.flatten(self.features(card), 1)))


def parameter_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())
