"""The review counts (pending games, flags: the console's reload key) are kept per shoe and
counted again only for the shoes an event touched; they always equal a count from scratch,
late decisions on earlier shoes included, and after a restart."""

from __future__ import annotations

from typing import Any

from dealer_assist.services.decisions import ReviewCounts
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.table_reads import Update
from dealer_assist.store.log import MemoryEventLog
from tests.services.test_history import play_shoes, table_on


def from_scratch(table: LiveTable) -> tuple[int, str]:
    return ReviewCounts().state(table.machine, len(table.decisions), len(table.alerts))


def test_the_kept_counts_equal_a_count_from_scratch_after_every_change() -> None:
    log = MemoryEventLog()
    table = table_on(log)
    seen: list[Any] = []

    def check(update: Update) -> None:
        seen.append((update.pending_reviews, update.review_key))
        assert (update.pending_reviews, update.review_key) == from_scratch(table)

    table.subscribe(check)
    play_shoes(table)  # four shoes with mistakes, late decisions on the first shoe
    assert len(seen) > 1000 and len({key for _, key in seen}) > 5
    assert from_scratch(table)[0] == 0 and table.update().review_key == from_scratch(table)[1]
    again = table_on(log)
    assert again.update().review_key == table.update().review_key
