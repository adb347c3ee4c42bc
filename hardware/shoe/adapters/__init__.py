"""Shoe adapters: one module per shoe protocol, chosen by name (the `adapter` setting).

An adapter turns the raw bytes of a shoe's port into trace-form dicts, without `ts` (the link
stamps them): shoe and dealer events (`{"src": "shoe", "type": "card", "card": "QS", "seq": 42}`)
and problems (`{"error": "<kind>", ...}`). It keeps count of the frames it accepted, heartbeats
included, so the link can tell a live shoe from a silent one.

To add a vendor's protocol: write `hardware/shoe/adapters/<name>.py` with a `create(**options)`
that returns a `ShoeAdapter`, and add the name to `ADAPTERS`.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

#: Adapter name -> module. The reference protocol is the product's own (shoe-protocol.md).
ADAPTERS: dict[str, str] = {
    "reference": "hardware.shoe.adapters.reference",
}


class AdapterError(ValueError):
    """An adapter name or option that does not exist."""


class ShoeAdapter(Protocol):
    name: str
    #: Frames accepted so far (heartbeats included).
    frames: int

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Events and problems decoded from the next bytes of the stream, in order."""

    def flush(self) -> list[dict[str, Any]]:
        """The stream has ended: problems still pending (noise, an unfinished frame)."""

    def link_broke(self) -> list[dict[str, Any]]:
        """The port went away: drop an unfinished frame; keep sequence state for the reconnect."""

    def report_noise(self) -> list[dict[str, Any]]:
        """Report noise counted so far without waiting for the next frame."""


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)


def create_adapter(name: str, **options: Any) -> ShoeAdapter:
    """A fresh adapter of the protocol `name` (one per link: it holds the stream's state)."""
    module_name = ADAPTERS.get(name)
    if module_name is None:
        raise AdapterError(f"unknown shoe adapter {name!r}; known: {', '.join(adapter_names())}")
    module = importlib.import_module(module_name)
    try:
        adapter: ShoeAdapter = module.create(**options)
    except TypeError as e:
        raise AdapterError(f"shoe adapter {name!r}: {e}") from None
    return adapter


def gap_event(problem: dict[str, Any]) -> dict[str, Any]:
    """The trace event `gap` for a gap problem: frames lost on the link, cards may be missing."""
    event: dict[str, Any] = {"src": "shoe", "type": "gap", "missing": problem["missing"]}
    if "seq" in problem:
        event["seq"] = problem["seq"]
    return event
