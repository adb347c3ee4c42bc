"""The overhead camera's runtime: frame sources and the card recognizer (inference only).

`source` (frames by index, file or URL) -> `find` (the finder network: corner indices and
backs) -> `read` (the readers: an index's code, a whole card's) -> `merge` (reads to one
sighting per card) -> `feed` (sightings held for some frames, by zone: `zones`); `recognize`
runs find, read and merge on a frame. `model/` holds the network files, their contract
(`spec`), the crops they read (`crop`) and the thresholds (`settings`). `virtual` is the
built-in shoe's camera, drawing our own deck (`drawn/`). The networks are trained by the
checkout's `training/` package, which the wheel does not carry.
"""
