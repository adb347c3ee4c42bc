"""Which fonts chromium drew a node's text with, and the Thai and Chinese fonts the project
installs: the browser tests of the table's pages and of the pit check their words are drawn
with them, not with boxes."""

from __future__ import annotations

from typing import Any

THAI_FONTS = {"Loma", "Waree", "Garuda", "Norasi", "Noto Sans Thai", "Noto Serif Thai"}
CJK_FONTS = {"WenQuanYi Micro Hei", "Noto Sans CJK TC", "Noto Sans CJK SC", "Noto Sans CJK JP"}


def fonts_of(page: Any, selector: str) -> set[str]:
    """The fonts chromium drew the node's text with (DevTools: CSS.getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, f"no {selector} on the page"
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return {f["familyName"] for f in fonts if f["glyphCount"] > 0}
