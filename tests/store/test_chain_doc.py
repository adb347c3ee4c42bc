"""docs/export-format.md's chain section runs: its example and its checking code hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dealer_assist.logformat import GENESIS
from dealer_assist.store.chain import canonical_json
from dealer_assist.store.log import MemoryEventLog

DOC = Path(__file__).resolve().parents[2] / "docs" / "export-format.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documented_genesis_and_example_are_what_the_log_does():
    text = DOC.read_text(encoding="utf-8")
    assert GENESIS in text
    [example] = blocks("json")
    assert f"`{canonical_json(json.loads(example))}`" in text


def stored_records(log: MemoryEventLog) -> list[dict]:
    return [{"seq": r.seq, "event": r.event, "prev_hash": r.prev_hash, "hash": r.hash}
            for r in log.records()]


def test_the_documented_check_accepts_a_log_and_refuses_a_changed_one(make_event):
    [check] = blocks("python")
    log = MemoryEventLog()
    log.append_many(make_event(n, by="สมชาย") for n in range(5))
    records = stored_records(log)
    exec(check, {"records": records})
    records[2]["event"]["card"] = "QS"
    with pytest.raises(AssertionError):
        exec(check, {"records": records})
