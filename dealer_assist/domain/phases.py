"""The phases of the table machine (domain/table.py draws how one leads to the next).

- NO_SHOE: no shoe on the table (before the first `new_shoe`, after `end_shoe`);
- BURN: a new shoe's burn is being dealt, until the first game's bets close;
- DEALING: a game's cards are being dealt, until the rules complete its hand;
- BETWEEN: a game is complete and the next game's bets have not closed.

`ANY` stands for every phase in the machine's table of transitions.
"""

NO_SHOE, BURN, DEALING, BETWEEN = "no_shoe", "burn", "dealing", "between"
ANY = "*"
