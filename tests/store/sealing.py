"""The snapshot seal of the tests' tables: one signing key for the session, and another one
(someone else's), as `DEALER_ASSIST_SIGNING_KEY` would give them."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.signing_keys import KeyPair, generate_keys, load_private_key
from dealer_assist.store.snapshot_seal import SnapshotSeal

KEY = Ed25519PrivateKey.generate()
OTHER_KEY = Ed25519PrivateKey.generate()


def seal(table_id: str = "T1", key: Ed25519PrivateKey = KEY) -> SnapshotSeal:
    """Table `table_id`'s seal under the session's key (or `key`)."""
    return SnapshotSeal.from_signing_key(key, table_id)


def key_file(folder: Path) -> tuple[KeyPair, Ed25519PrivateKey]:
    """A new signing key in `folder` (outside any repository, mode 0600) and the key itself."""
    pair = generate_keys(folder)
    return pair, load_private_key(pair.private)
