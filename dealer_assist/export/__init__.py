"""Regulator exports: a signed zip of a table's log that anyone can check offline.

- `source`: the `LogSource` port (a table's log, read-only, by seq and by time), export times;
- `links`: the hash chain re-checked on a stream of records (canonical JSON, link hashes);
- `rows`: the columns of games.csv, flags.csv and decisions.csv and how a value is written;
- `reaudit`: the table machine run over a stream of events, writing rows as shoes close;
- `manifest`: manifest.json (what the export holds, the hashes of its files, the chain heads);
- `writer`: `write_export`, which streams a range of the log into the zip and signs it;
- `verifier`: `verify_export`, which checks a zip against a public key and its own events.

The table's Ed25519 keys are `dealer_assist.signing_keys` (the store's checkpoints and sealed
snapshots use them too); the log's formats (`Record`, chain heads) are `dealer_assist.logformat`.
This package knows no SQLite and no web: the log comes in through `LogSource` (bootstrap and
the CLI wire `store.log_range.SqliteLogSource` in), so the web may use it.
`docs/export-format.md` describes the zip for regulators.
"""
