"""House procedure settings: the options of the rules a table is dealt under.

Every `new_shoe` event records them, so each shoe is audited under its own settings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.rules import VARIANTS


class SettingsError(ValueError):
    """A house setting with a wrong name or value."""


@dataclass(frozen=True, slots=True)
class HouseRules:
    decks: int = 8
    variant: str = "standard"
    burn_after_each_game: bool = False
    #: Super 7's may be offered in the first games of a shoe only (7up).
    super7_window: int = 40
    #: How many cards an ace turned up at the new-shoe burn burns after it.
    ace_burns: int = 1

    def __post_init__(self) -> None:
        if not (isinstance(self.decks, int) and not isinstance(self.decks, bool) and 1 <= self.decks <= 16):
            raise SettingsError(f"decks must be a whole number from 1 to 16, got {shown(self.decks)}")
        if self.variant not in VARIANTS:
            raise SettingsError(f"variant must be one of {', '.join(VARIANTS)}, got {shown(self.variant)}")
        if not isinstance(self.burn_after_each_game, bool):
            raise SettingsError(
                f"burn_after_each_game must be true or false, got {shown(self.burn_after_each_game)}"
            )
        for name in ("super7_window", "ace_burns"):
            v = getattr(self, name)
            if not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1000):
                raise SettingsError(f"{name} must be a whole number from 0 to 1000, got {shown(v)}")

    @classmethod
    def from_mapping(cls, data: dict[str, Any], where: str = "house settings") -> HouseRules:
        """Build from a mapping (config table or event fields); unknown keys are an error."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(
                f"{where}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
