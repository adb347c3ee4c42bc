"""The append-only event log on SQLite and the projections read from it.

- `chain`: canonical JSON, the hash chain (GENESIS, link_hash), the stored record types;
- `log`: the `EventLog` port, the reads both logs share, `MemoryEventLog`;
- `sqlite_log`: `SqliteEventLog` (the one writer of a table's file), `SqliteEventReader`;
- `verify`: `verify_chain`, which says where and how a stored chain was tampered with;
- `users`: `UserStore`, the accounts that log in (their own SQLite file).
"""
