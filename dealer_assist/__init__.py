"""dealer-assist: a live baccarat dealer-assist and table-audit system."""

__version__ = "0.1.0"
