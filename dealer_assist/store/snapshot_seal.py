"""The seal on a table's snapshot files: an HMAC-SHA256 under a key that is not in the state folder.

A snapshot lies beside the log, so whoever can write the log's folder can write a snapshot
too, and a digest the file carries proves nothing: they recompute it. What they cannot
recompute is a MAC under a key they do not have. The key is derived from the table's signing
key (the Ed25519 key named by `DEALER_ASSIST_SIGNING_KEY`, which signs the log's checkpoints
and the exports and never lives beside the log) with HKDF-SHA256 under a label of its own
and the table's id, so the sealing key is no other key's and no other table's:

    key = HKDF-SHA256(ikm = the signing key's 32 private bytes, salt = none,
                      info = "dealer-assist table snapshot seal v1\\n" + table id)

The MAC covers, one field a line after that label, the table id, the log seq and the log's
head hash at that seq the snapshot stands at, the length of its header, then the header and
the state's bytes as they are in the file: a byte changed anywhere, a file cut short, another
table's snapshot or one sealed with another key does not verify. The seq and hash are then
checked against the log itself (store/snapshot.py), and only then is anything unpickled.

A table with no signing key keeps no snapshots (bootstrap): nothing could tell its own from
a forged one, so each start replays the whole log.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.signing_keys import ENV_SIGNING_KEY, derived_key, load_private_key

PURPOSE = b"dealer-assist table snapshot seal v1\n"
#: The MAC's length in bytes (HMAC-SHA256).
MAC_SIZE = 32

_log = logging.getLogger("dealer_assist")


@dataclass(frozen=True)
class SnapshotSeal:
    """Seals and checks the snapshots of table `table_id` with a secret key (32 bytes or more)."""

    table_id: str
    key: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.key) < MAC_SIZE:
            raise ValueError(f"a snapshot sealing key has {MAC_SIZE} bytes at least")

    @classmethod
    def from_signing_key(cls, private: Ed25519PrivateKey, table_id: str) -> SnapshotSeal:
        """The seal of table `table_id` under the table's signing key."""
        return cls(table_id, derived_key(private, PURPOSE, table_id))

    def _mac(self, seq: int, head: str, header: bytes, payload: bytes) -> hmac.HMAC:
        mac = hmac.HMAC(self.key, hashes.SHA256())
        fields = (self.table_id, str(seq), head, str(len(header)))
        mac.update(PURPOSE + "".join(f"{f}\n" for f in fields).encode("utf-8"))
        mac.update(header)
        mac.update(payload)
        return mac

    def seal(self, seq: int, head: str, header: bytes, payload: bytes) -> bytes:
        """The MAC of a snapshot at log seq `seq` (head hash `head`) of this table."""
        return self._mac(seq, head, header, payload).finalize()

    def holds(self, mac: bytes, seq: int, head: str, header: bytes, payload: bytes) -> bool:
        """Whether `mac` seals these bytes as this table's snapshot at `seq` and `head`
        (compared in constant time)."""
        try:
            self._mac(seq, head, header, payload).verify(mac)
        except InvalidSignature:
            return False
        return True


def seal_from_environment(table_id: str,
                          environ: Mapping[str, str] | None = None) -> SnapshotSeal | None:
    """The seal derived from the key DEALER_ASSIST_SIGNING_KEY names; None (said in the
    service's log) when it is not set: then no snapshots are kept or read."""
    value = (os.environ if environ is None else environ).get(ENV_SIGNING_KEY, "").strip()
    if not value:
        _log.warning("%s is not set: no snapshots are kept or read (nothing could tell the "
                     "table's own from a forged one), so every start replays the whole log "
                     "(see docs/service.md)", ENV_SIGNING_KEY)
        return None
    return SnapshotSeal.from_signing_key(load_private_key(Path(value).expanduser()), table_id)
