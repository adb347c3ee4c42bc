"""What a table's signed sessions (accounts/session.py) need kept: their key and the sessions
ended.

- **The key.** A table's sessions are signed with a key derived from its signing key (the
  Ed25519 key named by `DEALER_ASSIST_SIGNING_KEY`, which never lives beside the log) with
  HKDF-SHA256 under a label of its own and the table's id:

      key = HKDF-SHA256(ikm = the signing key's 32 private bytes, salt = none,
                        info = "dealer-assist console sessions v1\\n" + table id)

  so whoever can read the state folder still cannot forge a supervisor's cookie. A table
  without a signing key keeps a random key in a file of its state folder instead
  (`<log>.session.key`, made 0600 at the first start: `accounts.session.key_file`, as the
  floor service's key file is). A key file others may read is refused, never widened.
- **The sessions ended** by a logout: `SessionEnds`, a small SQLite file beside the table's
  log (`<log>.sessions.db`: one table `ended(session_id, until)`), so that a restart does not
  bring a logged-out cookie back. A row goes once its cookie would have timed out anyway.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.signing_keys import derived_key

PURPOSE = b"dealer-assist console sessions v1\n"


def table_key(private: Ed25519PrivateKey, table_id: str) -> bytes:
    """Table `table_id`'s session key under its signing key."""
    return derived_key(private, PURPOSE, table_id)


class SessionEnds:
    """The sessions ended by a logout, in their own SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS ended (session_id TEXT PRIMARY KEY "
                               "NOT NULL, until REAL NOT NULL)")
        except BaseException:
            self._conn.close()
            raise

    def ended(self, session_id: str) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM ended WHERE session_id = ?",
                                      (session_id,)).fetchone() is not None

    def end(self, session_id: str, until: float) -> None:
        """Record `session_id` as ended; drop the records whose `until` has passed."""
        with self._lock:
            self._conn.execute("DELETE FROM ended WHERE until < ?", (time.time(),))
            self._conn.execute("INSERT OR REPLACE INTO ended (session_id, until) VALUES (?, ?)",
                               (session_id, until))

    def close(self) -> None:
        self._conn.close()
