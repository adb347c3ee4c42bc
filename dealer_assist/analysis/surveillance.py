"""Surveillance of the side bets: alert when one turns player-favourable late in a shoe.

Pure: the watcher is fed each card as it leaves the shoe and returns alerts as trace events
(the caller adds `ts` and records them; supervisors see them, the public display never does):

    {"src": "analysis", "type": "side_bet_alert", "bet": "tie", "edge": -0.0123,
     "remaining": {"A": 12, "2": 9, ..., "K": 14}}

`edge` is the bet's house edge on the remaining shoe (negative: the player gains). A bet
alerts once when its edge falls below the threshold, and again only after it has come back
above it (plus the `rearm` margin). Cards that could not be read are simply not fed: a card
nobody saw leaves the odds of the cards still to come exactly as they were.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dealer_assist.analysis.composition import as_mapping, full_shoe, take_card
from dealer_assist.analysis.deal_tables import deal_tables
from dealer_assist.analysis.edge import BetValues
from dealer_assist.analysis.odds import is_seven_up, shoe_odds
from dealer_assist.domain.paytable import PayTable

#: Bets that are not side bets: watched only when named in `bets`.
MAIN_BETS = ("player", "banker")
#: Float noise allowance: an edge must clear the threshold by this much to alert.
EPSILON = 1e-12


class SideBetWatcher:
    """Watches the house edge of side bets card by card, for one table.

    `threshold`: alert when a bet's house edge falls below it (default 0: the player has the
    edge). `rearm`: a bet that alerted alerts again only after its edge has come back to
    `threshold + rearm` or above (default 0). `bets`: the bets to watch; by default every bet
    of the pay table but Player and Banker (Tie, pairs, Big, Small, Super 7's).
    """

    def __init__(
        self,
        decks: int,
        variant: str,
        paytable: PayTable,
        threshold: float = 0.0,
        bets: Iterable[str] | None = None,
        rearm: float = 0.0,
    ) -> None:
        is_seven_up(variant)
        if paytable.variant != variant:
            raise ValueError(
                f"the pay table is for {paytable.variant!r}, the table deals {variant!r}"
            )
        self.decks = decks
        self.variant = variant
        self.threshold = float(threshold)
        if rearm < 0:
            raise ValueError(f"rearm must be 0 or more, got {rearm!r}")
        self.rearm = float(rearm)
        self._values = BetValues(paytable)
        watched = [b for b in paytable.bets if b not in MAIN_BETS] if bets is None else list(bets)
        unknown = [b for b in watched if b not in paytable.bets]
        if unknown:
            raise ValueError(
                f"cannot watch {', '.join(unknown)}: "
                f"the {variant} pay table offers {', '.join(paytable.bets)}"
            )
        self.bets: tuple[str, ...] = tuple(watched)
        self._min_cards = deal_tables(is_seven_up(variant)).max_cards
        self.reset()

    def reset(self) -> None:
        """A new shoe: full composition, every bet re-armed."""
        self.remaining: tuple[int, ...] = full_shoe(self.decks)
        self.edges: dict[str, float] = {}
        self.alerting: set[str] = set()

    def feed(self, card: str) -> list[dict[str, Any]]:
        """Take `card` (a card code) off the shoe; return the alerts it raises (often none).

        Raises CardError for a bad code and CompositionError for a card the shoe no longer
        holds (a foreign card); the watcher's state is then unchanged.
        """
        self.remaining = take_card(self.remaining, card)
        if sum(self.remaining) < self._min_cards:
            self.edges = {}
            return []
        edges = self._values.house_edges(shoe_odds(self.remaining, self.variant))
        self.edges = {b: edges[b] for b in self.bets}
        alerts = []
        for bet, edge in self.edges.items():
            if edge < self.threshold - EPSILON:
                if bet not in self.alerting:
                    self.alerting.add(bet)
                    alerts.append(self._alert(bet, edge))
            elif edge >= self.threshold + self.rearm:
                self.alerting.discard(bet)
        return alerts

    def _alert(self, bet: str, edge: float) -> dict[str, Any]:
        return {
            "src": "analysis",
            "type": "side_bet_alert",
            "bet": bet,
            "edge": edge,
            "remaining": as_mapping(self.remaining),
        }
