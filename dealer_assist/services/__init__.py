"""Use cases: feed observations to the table machine, audit a trace, record decisions. Domain only."""
