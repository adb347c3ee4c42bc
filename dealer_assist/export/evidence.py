"""Evidence frames in the log: the `frames` field of a camera event, and which flags it raised.

While the camera is on, every `card_seen` / `card_lost` it hands the table names the frames
that show it (devices/camera_evidence.py): a list of `{"sha256": HEX, "role": ROLE}`, the
SHA-256 of a JPEG kept beside the log (store/evidence.py), `role` one of `before` (the frame
just before the change), `last_seen` (a lost card's last frame with a card in its zone) and
`settled` (the frame that settled the event). The event's own hash covers the field, so the
hash chain covers the frames' bytes. The table machine reads no such field: an audit of the
log is the same with or without it (docs/vision.md, "Evidence frames").

`FlagWitness` tells, around the table machine applying one event, which flags that event
raised: the flags of the current shoe's last games before and after. A camera sighting
concerns the game being dealt, the one just completed or the next game's early cards, so the
last three games hold every flag it can raise. The export, `verify` and the review page use
it to find the frames of the flags.

In an export the frames of the flags lie under `evidence/<sha256>.jpg`, and the manifest's
`evidence` says which it carries and which the table no longer had (`not_kept`, with why);
`check_frames` is `verify`'s check of them (docs/export-format.md, "Evidence frames").
"""

from __future__ import annotations

import hashlib
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dealer_assist.domain.table import TableMachine
from dealer_assist.export import manifest as mf
from dealer_assist.export.compare import Findings

FIELD = "frames"
#: Text every event with frames holds in its canonical JSON (a cheap test before decoding).
NEEDLE = '"frames":['
ROLES = ("before", "last_seen", "settled")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: The games of the current shoe a camera sighting may concern.
_LAST_GAMES = 3


def is_sha256(text: object) -> bool:
    """Whether `text` is a SHA-256 as the log writes it: 64 lowercase hex digits."""
    return isinstance(text, str) and _SHA256.fullmatch(text) is not None


def frames_of(obj: Any) -> list[tuple[str, str]]:
    """The (sha256, role) of each well-formed frame an event names, in its order."""
    frames = obj.get(FIELD) if isinstance(obj, dict) else None
    if not isinstance(frames, list):
        return []
    return [(f["sha256"], str(f.get("role", ""))) for f in frames
            if isinstance(f, dict) and is_sha256(f.get("sha256"))]


def _flag_counts(machine: TableMachine) -> tuple[str | None, dict[int, int]]:
    shoe = machine.shoe
    if shoe is None:
        return None, {}
    return shoe.shoe_id, {g.number: len(g.flags) for g in shoe.games[-_LAST_GAMES:]}


@dataclass(frozen=True)
class FlagFrame:
    """One frame of an event that raised flags: where the event is and what it raised."""

    sha256: str
    role: str
    seq: int
    ts: str
    shoe_id: str
    game: int
    codes: tuple[str, ...]


@dataclass
class FlagWitness:
    """The frames of the events that raised flags, found while a machine applies them."""

    machine: TableMachine
    frames: list[FlagFrame] = field(default_factory=list)

    def apply(self, seq: int, obj: Any, apply: Callable[[], object]) -> None:
        """Run `apply` (which hands `obj` to the machine); note its frames if it raised flags."""
        named = frames_of(obj)
        if not named:
            apply()
            return
        shoe_before, before = _flag_counts(self.machine)
        apply()
        shoe_id, after = _flag_counts(self.machine)
        shoe = self.machine.shoe
        if shoe is None or shoe_id is None:
            return
        for game in shoe.games[-_LAST_GAMES:]:
            had = before.get(game.number, 0) if shoe_before == shoe_id else 0
            if after[game.number] > had:
                codes = tuple(f.code for f in game.flags[had:])
                self.frames.extend(FlagFrame(sha, role, seq, str(obj.get("ts", "")), shoe_id,
                                             game.number, codes) for sha, role in named)

    def of_game(self, shoe_id: str, game: int) -> list[FlagFrame]:
        return [f for f in self.frames if f.shoe_id == shoe_id and f.game == game]


# ---- in an export's zip ---------------------------------------------------------------------

#: Where an export keeps the frames: `evidence/<sha256>.jpg` (docs/export-format.md).
MEMBER = re.compile(r"evidence/([0-9a-f]{64})\.jpg")
_UNREADABLE = (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error)


def member_name(sha256: str) -> str:
    return f"evidence/{sha256}.jpg"


def first_seqs(frames: list[FlagFrame]) -> dict[str, int]:
    """Each frame of the flags once, with the seq of the first event that names it."""
    seqs: dict[str, int] = {}
    for frame in frames:
        seqs.setdefault(frame.sha256, frame.seq)
    return seqs


def check_frames(zf: zipfile.ZipFile, manifest: dict[str, Any], frames: list[FlagFrame],
                 findings: Findings) -> list[str]:
    """Check the zip's `evidence/` against the frames the flags' events name (`frames`) and the
    manifest's `evidence`; returns what to report that is no problem (frames checked, frames
    the table no longer had)."""
    named = first_seqs(frames)
    members = {m.group(1): name for name in zf.namelist() if (m := MEMBER.fullmatch(name))}
    stated = manifest.get("evidence")
    if stated is None and not named and not members:
        return []
    stated = stated if isinstance(stated, dict) else {}
    carried = {s for s in stated.get("carried") or [] if isinstance(s, str)}
    not_kept = {e.get("sha256"): e for e in stated.get("not_kept") or [] if isinstance(e, dict)}
    checked = sum(_check_member(zf, sha, name, named.get(sha), carried, findings)
                  for sha, name in sorted(members.items()))
    for sha in sorted(carried - set(members)):
        findings.add(member_name(sha), "", "missing from the zip (the manifest lists it as "
                     "carried)")
    notes = [f"{checked} evidence frame(s) of the flags match the hashes in their events"]
    for sha, seq in named.items():
        if sha in members or sha in carried:
            continue
        entry = not_kept.get(sha)
        if entry is None:
            findings.add(mf.MANIFEST, "", f"the frame {sha} of seq {seq} is neither in the zip "
                         "nor listed as not kept")
        else:
            notes.append(f"{member_name(sha)} (seq {seq}): {entry.get('why')} before the "
                         "export; its event still verifies")
    return notes


def _check_member(zf: zipfile.ZipFile, sha: str, name: str, seq: int | None, carried: set[str],
                  findings: Findings) -> bool:
    if seq is None:
        findings.add(name, "", "is in the zip but no flag's event names it")
        return False
    try:
        digest = hashlib.sha256(zf.read(name)).hexdigest()
    except _UNREADABLE as exc:
        findings.add(name, "", f"cannot be read (the zip is damaged): {exc}")
        return False
    if digest != sha:
        findings.add(name, "", f"SHA-256 {digest} is not {sha}, the hash its event (seq {seq}) "
                     "gives: the frame was changed")
        return False
    if sha not in carried:
        findings.add(mf.MANIFEST, "", f"evidence.carried does not list {name}")
        return False
    return True
