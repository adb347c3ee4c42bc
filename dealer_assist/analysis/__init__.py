"""Shoe analysis: exact odds for a remaining shoe, pay-table checks, statistics.

- `composition`: 13 rank counts; full shoes, `--remaining`, taking a card off.
- `deal_tables`, `odds`: exact odds of the next game (`shoe_odds`).
- `edge`: expected value and house edge of every bet of a pay table (`BetValues`).
- `paytable_check`: the start-up check (`check_paytables`, `enforce_paytables`).
- `surveillance`: side-bet alerts after every card (`SideBetWatcher`).
"""
