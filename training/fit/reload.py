"""Loading an exported network back into PyTorch: where the fine-tunes start
(`finder_tune.py` from a model's `corners.onnx`, `reader_tune.py` from its `index.onnx`).

The exporter folds every BatchNorm into its convolution (`export.py`), so a convolution's
ONNX weight and bias are loaded into the PyTorch convolution and its BatchNorm, the
BatchNorm set to pass the bias through (scale 1, mean 0, variance 1 - eps: statistics frozen).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from training.fit.loop import TrainError
from training.nets import Finder, Reader


def _onnx_convs(path: Path, network: str) -> tuple[dict[str, np.ndarray], list[list[str]]]:
    """The ONNX file's weights by name, and each convolution's weight and bias names in the
    order the file holds them; a file onnx cannot read is no `network` network."""
    try:
        model = onnx.load(str(path))
    except Exception as e:  # onnx raises its own errors on a bad file
        raise TrainError(f"{path}: not a {network} network ({e})") from None
    weights = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    return weights, [list(n.input[1:]) for n in model.graph.node if n.op_type == "Conv"]


def _load_folded(conv: nn.Conv2d, norm: nn.BatchNorm2d, weight: np.ndarray,
                 bias: np.ndarray) -> None:
    """A folded convolution's weight into `conv`; its bias through `norm`, an identity."""
    conv.weight.copy_(torch.from_numpy(weight))
    norm.weight.fill_(1.0)  # the folded bias passes through an identity BatchNorm
    norm.bias.copy_(torch.from_numpy(bias))
    assert norm.running_mean is not None and norm.running_var is not None
    norm.running_mean.zero_()
    norm.running_var.fill_(1.0 - norm.eps)


def _convs_in_order(net: nn.Module) -> list[nn.Conv2d]:
    """The network's convolutions in the order a forward pass runs them (the order the
    exporter writes them), found by running it once."""
    order: list[nn.Conv2d] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append(mod))
             for m in net.modules() if isinstance(m, nn.Conv2d)]
    try:
        with torch.no_grad():
            net.eval()
            net(torch.zeros(1, 3, 64, 64))
    finally:
        for hook in hooks:
            hook.remove()
    return order


def _norm_after(net: nn.Module) -> dict[int, nn.BatchNorm2d]:
    """Each convolution's BatchNorm (the next module in its Sequential), by id of the conv."""
    pairs: dict[int, nn.BatchNorm2d] = {}
    for seq in net.modules():
        if isinstance(seq, nn.Sequential):
            parts = list(seq)
            for a, b in zip(parts, parts[1:], strict=False):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    pairs[id(a)] = b
    return pairs


def load_finder(path: Path) -> Finder:
    """A PyTorch Finder holding the weights of the exported `corners.onnx` at `path`."""
    weights, convs = _onnx_convs(path, "finder")
    net = Finder()
    mine = _convs_in_order(net)
    norms = _norm_after(net)
    if len(convs) != len(mine):
        raise TrainError(f"{path}: its layers are not the Finder's ({len(convs)} convolutions)")
    with torch.no_grad():
        for names, conv in zip(convs, mine, strict=True):
            w = weights.get(names[0])
            if w is None or tuple(conv.weight.shape) != w.shape or len(names) < 2:
                raise TrainError(f"{path}: a layer's shape is not the Finder's")
            norm = norms.get(id(conv))
            if norm is None:  # the head: a convolution with its own bias
                assert conv.bias is not None
                conv.weight.copy_(torch.from_numpy(w))
                conv.bias.copy_(torch.from_numpy(weights[names[1]]))
                continue
            _load_folded(conv, norm, w, weights[names[1]])
    return net



def load_reader(path: Path) -> Reader:
    """A PyTorch Reader holding the weights of the exported `index.onnx` at `path`."""
    weights, inputs = _onnx_convs(path, "reader")
    convs = [(names[0], names[1]) for names in inputs]
    net = Reader.of_conv_widths([int(weights[w].shape[0]) for w, _ in convs])
    if net is None or "classify.weight" not in weights:
        raise TrainError(f"{path}: its layers are not the Reader's ({len(convs)} convolutions)")
    layers = [m for m in net.features if isinstance(m, nn.Sequential)]
    with torch.no_grad():
        for (w, b), layer in zip(convs, layers, strict=True):
            conv, norm = layer[0], layer[1]
            assert isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d)
            if tuple(conv.weight.shape) != weights[w].shape:
                raise TrainError(f"{path}: layer shape {weights[w].shape} is not the Reader's")
            _load_folded(conv, norm, weights[w], weights[b])
        net.classify.weight.copy_(torch.from_numpy(weights["classify.weight"]))
        net.classify.bias.copy_(torch.from_numpy(weights["classify.bias"]))
    return net
