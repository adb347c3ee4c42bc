"""manifest.json: what an export holds, the hashes of its files and the chain heads at its ends.

The manifest is JSON with sorted keys, indented by two spaces, UTF-8, ending in a newline;
manifest.sig is the Ed25519 signature of exactly its bytes. `docs/export-format.md` lists
every field.
"""

from __future__ import annotations

import json
from typing import Any

from dealer_assist import __version__
from dealer_assist.domain.paytable import BetPay, PayTable

FORMAT = "dealer-assist-export/1"
EVENTS, GAMES, DECISIONS, FLAGS = "events.jsonl", "games.csv", "decisions.csv", "flags.csv"
MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
#: The files the manifest lists, in the order they lie in the zip.
DATA_FILES = (EVENTS, GAMES, DECISIONS, FLAGS)
MEMBERS = (*DATA_FILES, MANIFEST, SIGNATURE)
#: Fields the verifier recomputes from events.jsonl and compares.
DERIVED = ("range", "chain", "shoes", "counts")


def software() -> dict[str, str]:
    return {"name": "dealer-assist", "version": __version__}


def paytables_mapping(paytables: dict[str, PayTable]) -> dict[str, Any]:
    """The pay tables as the mapping `settings.load_paytables` reads (TOML's shape)."""
    return {variant: {name: _bet(bet) for name, bet in table.bets.items()}
            for variant, table in sorted(paytables.items())}


def _bet(bet: BetPay) -> Any:
    if not bet.on_total and not bet.by_sevens and bet.pays is not None:
        return bet.pays.text
    out: dict[str, Any] = {}
    if bet.pays is not None:
        out["pays"] = bet.pays.text
    if bet.on_total:
        out["on_total"] = {str(t): p.text for t, p in sorted(bet.on_total.items())}
    if bet.by_sevens:
        out["by_sevens"] = {str(s): p.text for s, p in sorted(bet.by_sevens.items())}
    return out


def head(seq: int, digest: str) -> dict[str, Any]:
    return {"seq": seq, "hash": digest}


def derived_fields(
    *,
    first_seq: int,
    last_seq: int,
    first_ts: str | None,
    last_ts: str | None,
    start: tuple[int, str],
    end: tuple[int, str],
    checkpoints: list[dict[str, Any]],
    shoes: list[dict[str, Any]],
    counts: dict[str, int],
) -> dict[str, Any]:
    """The manifest fields that follow from the events alone (the verifier recomputes them)."""
    return {
        "range": {"first_seq": first_seq, "last_seq": last_seq,
                  "first_utc": first_ts, "last_utc": last_ts},
        "chain": {"start": head(*start), "end": head(*end), "checkpoints": checkpoints},
        "shoes": shoes,
        "counts": counts,
    }


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()
