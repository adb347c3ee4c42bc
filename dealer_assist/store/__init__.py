"""The append-only event log on SQLite and the projections read from it."""
