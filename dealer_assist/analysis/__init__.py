"""Shoe analysis: exact odds for a remaining shoe, pay-table checks, statistics."""
