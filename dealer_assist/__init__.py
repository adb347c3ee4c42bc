"""dealer-assist: a live baccarat dealer-assist and table-audit system.

The version is written once, in pyproject.toml; the installed package's metadata carries it
here (and into every regulator export's manifest).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dealer-assist")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
