"""Writing the trained networks as ONNX files the runtime loads (`model/spec.py`), and checking
that onnxruntime computes what PyTorch computes.

The TorchScript exporter (`dynamo=False`, opset 17) folds every BatchNorm into its
convolution (the networks are put in eval mode first); the finder's H and W and the readers' N
are dynamic axes.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper
from torch import nn

from hardware.camera.model.spec import CARD_H, CARD_W, CROP_H, CROP_W
from training.nets import Finder, Reader, WholeCard

OPSET = 17
TOLERANCE = 1e-4


class ExportError(RuntimeError):
    """The exported file does not compute what the network computes."""


def _to_onnx(net: nn.Module, example: torch.Tensor, names: tuple[str, str],
             axes: dict[str, dict[int, str]]) -> bytes:
    net.eval()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter announces it is the older one
        path = Path(folder) / "net.onnx"
        torch.onnx.export(net, (example,), path, dynamo=False, opset_version=OPSET,
                          input_names=[names[0]], output_names=[names[1]], dynamic_axes=axes,
                          do_constant_folding=True)
        return path.read_bytes()


def session(model: bytes | Path, threads: int = 1) -> ort.InferenceSession:
    """An onnxruntime session on the CPU with `threads` threads (the runtime uses one)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    source = str(model) if isinstance(model, Path) else model
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def largest_difference(model: bytes, net: nn.Module, example: torch.Tensor) -> float:
    """The largest absolute difference between onnxruntime's and PyTorch's outputs."""
    net.eval()
    with torch.no_grad():
        expected = net(example).numpy()
    run = session(model)
    got = run.run(None, {run.get_inputs()[0].name: example.numpy()})[0]
    if got.shape != expected.shape:
        raise ExportError(f"ONNX output shape {got.shape}, PyTorch {expected.shape}")
    return float(np.max(np.abs(got - expected)))


def _write_checked(model: bytes, net: nn.Module, checks: list[torch.Tensor], path: Path) -> float:
    worst = max(largest_difference(model, net, x) for x in checks)
    if not worst <= TOLERANCE:
        raise ExportError(f"{path.name}: onnxruntime differs from PyTorch by {worst:.2e} "
                          f"(allowed {TOLERANCE:.0e})")
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(path.suffix + ".part")
    part.write_bytes(model)
    part.replace(path)
    return worst


def export_finder(net: Finder, path: Path, seed: int = 0) -> float:
    """Write the finder to `path` (input `image` [1, 3, H, W], output `maps`); checked on two
    frame shapes. Returns the largest difference found."""
    gen = torch.Generator().manual_seed(seed)
    model = _to_onnx(net, torch.rand(1, 3, 256, 320, generator=gen), ("image", "maps"),
                     {"image": {2: "height", 3: "width"}, "maps": {2: "rows", 3: "cols"}})
    checks = [torch.rand(1, 3, 256, 320, generator=gen), torch.rand(1, 3, 576, 1024, generator=gen)]
    return _write_checked(model, net, checks, path)


def export_reader(net: Reader, path: Path, seed: int = 0) -> float:
    """Write the reader to `path` (input `crop` [N, 3, CROP_H, CROP_W], output `logits`);
    checked on batches of 1 and 7. Returns the largest difference found."""
    return _export_batched(net, path, seed, "crop", (CROP_H, CROP_W))


def export_card_reader(net: WholeCard, path: Path, seed: int = 0) -> float:
    """Write the card reader to `path` (input `card` [N, 3, CARD_H, CARD_W], output
    `logits`); checked on batches of 1 and 7. Returns the largest difference found."""
    return _export_batched(net, path, seed, "card", (CARD_H, CARD_W))


def _export_batched(net: nn.Module, path: Path, seed: int, name: str, size: tuple[int, int]
                    ) -> float:
    gen = torch.Generator().manual_seed(seed)
    model = _to_onnx(net, torch.rand(2, 3, *size, generator=gen), (name, "logits"),
                     {name: {0: "n"}, "logits": {0: "n"}})
    checks = [torch.rand(n, 3, *size, generator=gen) for n in (1, 7)]
    return _write_checked(model, net, checks, path)


def copy_networks(base: Path, out: Path, files: tuple[str, ...]) -> None:
    """The networks `files` of the model folder `base` copied into `out` as they are (a
    training step keeps the networks it does not train); one that `base` lacks (card.onnx
    of a folder trained before the card reader) is removed from `out`, so that the folder
    holds one model's networks."""
    out.mkdir(parents=True, exist_ok=True)
    for file in files:
        if not (base / file).is_file():
            (out / file).unlink(missing_ok=True)
        elif (out / file).resolve() != (base / file).resolve():
            shutil.copyfile(base / file, out / file)


def blend_weights(start: bytes, tuned: Path, share: float, path: Path) -> None:
    """Write to `path` the network of `tuned` with every float weight taken `share` of the way
    from `start`'s (an ONNX file's bytes) to `tuned`'s, (1 - share) * start + share * tuned,
    on the exported (folded) weights, so the file is what the runtime reads. A fine-tune taken
    only part of the way from where it started keeps more of what the start knew
    (weight-space ensembling). The two must be one network's shape."""
    if not 0.0 <= share <= 1.0:
        raise ExportError(f"a blend's share is 0 to 1, not {share}")
    first = {i.name: numpy_helper.to_array(i)
             for i in onnx.load_model_from_string(start).graph.initializer}
    model = onnx.load(str(tuned))
    for k, init in enumerate(model.graph.initializer):
        weight = numpy_helper.to_array(init)
        if init.name not in first or first[init.name].shape != weight.shape:
            raise ExportError(f"{tuned.name} is not the shape of the network it started from "
                              f"({init.name})")
        if weight.dtype.kind == "f":
            mixed = ((1 - share) * first[init.name] + share * weight).astype(weight.dtype)
            model.graph.initializer[k].CopyFrom(numpy_helper.from_array(mixed, init.name))
    part = path.with_suffix(path.suffix + ".part")
    part.write_bytes(model.SerializeToString())
    part.replace(path)
