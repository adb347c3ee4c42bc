"""The table display's settings, the `[display]` section of a table's configuration:

    [display]
    languages = ["zh-Hant", "en"]   # one language, or two for a bilingual board (first is larger)
    layout = "portrait"             # "landscape" (a TV) or "portrait" (a vertical scoreboard)

Unknown keys, languages and layouts are a `ConfigError` naming the key and the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.config.files import ConfigError, check_keys
from dealer_assist.config.languages import UnknownLanguage, language

LAYOUTS = ("landscape", "portrait")
#: A board shows at most this many languages at once.
MOST_LANGUAGES = 2


@dataclass(frozen=True)
class DisplayConfig:
    #: The board's languages, as the catalogs name them (`en`, `th`, `zh_Hans`, `zh_Hant`).
    languages: tuple[str, ...] = ("en",)
    layout: str = "landscape"


def display_config(raw: Any, path: Path) -> DisplayConfig:
    """The `[display]` section `raw` (a mapping; {} when the file has none) of the file `path`."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [display] must be a table of settings")
    check_keys(raw, set(DisplayConfig.__dataclass_fields__), path, "[display]")
    names = raw.get("languages", ["en"])
    if isinstance(names, str):
        names = [names]
    if (not isinstance(names, list) or not names or len(names) > MOST_LANGUAGES
            or not all(isinstance(n, str) for n in names)):
        raise ConfigError(f"{path}: display.languages: a list of one or {MOST_LANGUAGES} "
                          f"languages, e.g. [\"zh-Hant\", \"en\"]; got {names!r}")
    try:
        languages = tuple(language(n) for n in names)
    except UnknownLanguage as e:
        raise ConfigError(f"{path}: display.languages: {e}") from None
    if len(set(languages)) != len(languages):
        raise ConfigError(f"{path}: display.languages: {names!r} names a language twice")
    layout = raw.get("layout", "landscape")
    if layout not in LAYOUTS:
        raise ConfigError(f"{path}: display.layout: {layout!r} is not one of "
                          f"{', '.join(LAYOUTS)}")
    return DisplayConfig(languages, layout)


__all__ = ["LAYOUTS", "MOST_LANGUAGES", "DisplayConfig", "display_config"]
