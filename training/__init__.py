"""Training the overhead camera's three networks: a checkout's package, never in the wheel.

The runtime (`hardware/camera/`: find, read, merge, feed, the shipped `model/`) only runs the
networks; this package makes them. It needs the `[train]` extra (PyTorch, onnx) for `fit/` and
`report/figures.py`; the rest draws pictures with numpy and OpenCV. `dealer-assist vision train`
(dealer_assist/commands/vision_train.py) runs it from a checkout: `pip install -e '.[train]'`.

The stages, one folder each:

- `art/`: the card art the pictures are drawn with.
  `decks.py` Debian's SVG decks rendered into the card cache, and the design sets (`DESIGNS`,
  `HELD_OUT` kept for scoring, `TUNING`); `typefaces.py` rank glyphs in free fonts and the
  typeface decks; `indices.py` where a face's corner indices lie, found from its ink;
  `artwork.py` the faces, backs and surfaces loaded for a run; `textures.py` table surfaces.
- `data/`: what the networks learn from.
  `poses.py` where a picture's cards lie; `scenes.py` pasting cards, hands, chips, light and
  camera faults on a canvas; `pictures.py` the finder's pictures and target maps;
  `crops.py` the reader's index crops; `photos.py` real photographs labelled for fine-tuning;
  `preview.py` a look at the data (`python -m training.data.preview`).
- `nets.py`: the three networks; `onnx_files.py`: ONNX files written from them and the check
  that onnxruntime agrees (both `fit/` and `report/` use them).
- `fit/`: the training. `loop.py` the loop, losses and learning rate the modes share;
  `reload.py` an ONNX file loaded back into PyTorch (where the fine-tunes start); then one
  module per `vision train` mode: `full.py` a full training (finder, reader, card reader; the default),
  `card_reader.py` the whole-card reader (`--card-only`, and the last part of a full run),
  `reader_tune.py` the reader fine-tuned on real photographs (`--reader-only --photos`),
  `finder_tune.py` the finder fine-tuned on dense fans (`--finder-only`).
- `report/`: the figures. `figures.py` scores on held-out designs and writes report.json;
  `fans.py` the dense-fan choice set `benchmarks/vision_choice.py` compares models on.
- `frames/`: whole overhead frames of a baccarat layout with their truth (`overhead.py`,
  `layout.py`), for the camera's tests and the benchmarks.
"""
