"""Training the learned recognizer (issue 35): synthetic data (`data`: the finder's pictures,
`crops`: the reader's; drawn by `scenes` on `textures`, with corner indices found by
`indices`; `preview` to look at it), the networks, their training, export and report. Needs the
optional `[train]` extra only for the networks."""
