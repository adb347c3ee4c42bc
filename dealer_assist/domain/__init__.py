"""Pure baccarat: cards, rules, pay tables, the table machine. Standard library only, no IO."""
