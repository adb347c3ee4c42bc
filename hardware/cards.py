"""The drivers' one card alphabet and zone list: what the shoe sends and the camera reads.

A card code is a rank letter (`A 2 3 4 5 6 7 8 9 T J Q K`) and a suit letter (`S H D C`):
`QS`, `TD`. The shoe's protocol writes codes in this alphabet; the camera's model keeps a
deck's faces suit by suit. Zone names are where the camera sees a card lie on the layout.
`hardware` never imports `dealer_assist`, so the table's own alphabet lives there too; a test
checks that the two agree.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"

#: Every card code, rank by rank (AS AH AD AC 2S ...): the order of the shoe's protocol.
CARD_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
#: Every card code, suit by suit (AS 2S ... KS AH ...): the order a camera model keeps faces.
CODES_BY_SUIT: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)

#: The layout's zones: each card position of a game, then the discard rack.
ZONE_NAMES = ("player1", "player2", "player3", "banker1", "banker2", "banker3", "discard")
