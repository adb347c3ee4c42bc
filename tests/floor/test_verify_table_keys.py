"""`dealer-assist verify FLOOR.zip`: the summary names each table's own key and the manifest's
`not_checked`; `--table-key T=FILE` pins a table's key, so that a part the floor re-signed with
another key fails even though it is consistent in itself."""
# ruff: noqa: F811 - the fixtures imported from test_floor_export are parameters below

from __future__ import annotations

import json
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.config.paytables import load_paytables
from dealer_assist.floor.export import write_floor_export
from dealer_assist.floor_wire import public_pem
from dealer_assist.logformat import ChainHead, Checkpoint, signed_bytes
from dealer_assist.signing_keys import fingerprint, load_private_key
from tests.floor.test_floor_export import (  # noqa: F401 - fixtures
    NEXT,
    floor_zip,
    keys,
    shipped,
    signers,
)
from tests.floor.test_floor_export_checkpoints import as_the_floor, edit_part


def pub(folder: Path, name: str, key: Ed25519PrivateKey) -> Path:
    path = folder / f"{name}.pub.pem"
    path.write_text(public_pem(key.public_key()))
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["verify", *argv])
    said = capsys.readouterr()
    return status, said.out, said.err


def test_the_summary_names_each_tables_key_and_what_is_not_checked(floor, shipped, signers,
                                                                   keys, floor_zip, tmp_path,
                                                                   capsys):
    a, b = shipped["A"][0], shipped["B"][0]
    status, out, _ = run(capsys, str(floor_zip), "--pubkey", str(keys.public))
    assert status == 0, out
    lines = out.splitlines()
    for name, table in (("A", a), ("B", b)):
        key = fingerprint(signers[name].public_key())
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  table {table}:"))
        assert lines[at + 1] == (f"    table key {key} (as the export carries it: pin it with "
                                 "--table-key): its signed checkpoints hold")
    assert "not checked" not in out  # both tables sign every checkpoint of the range
    # The day after: A signs, C has no key; C's chain rests on the floor's key alone.
    c = shipped["C"][0]
    nxt = tmp_path / "next.zip"
    written = write_floor_export(floor.owner, [a, c], NEXT, NEXT + timedelta(days=1), out=nxt,
                                 key=load_private_key(keys.private), paytables=load_paytables())
    status, out, _ = run(capsys, str(nxt), "--pubkey", str(keys.public))
    assert status == 0, out
    lines = out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith(f"  table {c}:"))) + 1] == \
        "    table key: none (no signed checkpoints: see not checked below)"
    assert "  not checked (vouched for by the floor's key alone):" in lines
    [caveat] = written.manifest["not_checked"]
    assert caveat.startswith(f"table {c}: no key registered") and f"    {caveat}" in lines


def test_a_pinned_table_key_catches_a_part_the_floor_re_signed(shipped, signers, keys,
                                                               floor_zip, tmp_path, capsys):
    a, b = shipped["A"][0], shipped["B"][0]
    pin_a, pin_b = pub(tmp_path, "a", signers["A"]), pub(tmp_path, "b", signers["B"])
    status, out, _ = run(capsys, str(floor_zip), "--pubkey", str(keys.public),
                         "--table-key", f"{a}={pin_a}", "--table-key", f"{b}={pin_b}")
    assert status == 0, out
    assert out.count("(pinned by --table-key): its signed checkpoints hold") == 2

    rogue = Ed25519PrivateKey.generate()

    def re_signed(part: dict[str, Any]) -> None:  # A's part, every checkpoint signed again
        part["public_key"] = {"algorithm": "Ed25519", "fingerprint":
                              fingerprint(rogue.public_key()), "pem": public_pem(rogue.public_key())}
        for c in part["checkpoints"]:
            point = Checkpoint(c["seq"], c["hash"], c["at"])
            c["sig"] = rogue.sign(signed_bytes(a, point, ChainHead(c["prev_seq"],
                                                                   c["prev_hash"]))).hex()

    forged = as_the_floor(floor_zip, keys, edit_part(a, re_signed), tmp_path / "rogue.zip")
    status, out, _ = run(capsys, str(forged), "--pubkey", str(keys.public))
    assert status == 0  # consistent in itself: the export alone cannot tell
    assert f"table key {fingerprint(rogue.public_key())} (as the export carries it" in out
    status, out, _ = run(capsys, str(forged), "--pubkey", str(keys.public),
                         "--table-key", f"{a}={pin_a}")
    assert status == 1, out
    assert f"not table {a}'s key {fingerprint(signers['A'].public_key())}: another key was " \
        "put in its place" in out
    assert out.rstrip().endswith(f"FAILED: {forged} does not verify")
    status, out, _ = run(capsys, str(forged), "--pubkey", str(keys.public), "--json",
                         "--table-key", f"{a}={pin_a}")
    result = json.loads(out)
    assert status == 1 and result["ok"] is False
    assert result["table_keys_pinned"] == {a: fingerprint(signers["A"].public_key())}
    # B's key pinned only: A's swap is not B's business, and the export says so as it is.
    status, out, _ = run(capsys, str(forged), "--pubkey", str(keys.public),
                         "--table-key", f"{b}={pin_b}")
    assert status == 0


@pytest.mark.parametrize("given, says", [
    ("NOPE={pin}", "--table-key NOPE: the floor export holds no such table (it holds "),
    ("{a}", "--table-key {a}: give TABLE=PUBKEYFILE"),
    ("{a}={missing}", "--table-key {a}: "),
])
def test_a_wrong_table_key_option_says_what_is_wrong(shipped, signers, keys, floor_zip,
                                                     tmp_path, capsys, given, says):
    a = shipped["A"][0]
    fill = {"pin": pub(tmp_path, "a", signers["A"]), "a": a, "missing": tmp_path / "none.pem"}
    status, out, err = run(capsys, str(floor_zip), "--pubkey", str(keys.public),
                           "--table-key", given.format(**fill))
    assert status == 2 and out == ""
    assert says.format(**fill) in err and "Traceback" not in err


def test_a_table_key_for_a_tables_own_export_is_refused(shipped, signers, keys, floor_zip,
                                                        tmp_path, capsys):
    a = shipped["A"][0]
    inner = tmp_path / "a.zip"
    with zipfile.ZipFile(floor_zip) as zf:
        inner.write_bytes(zf.read(f"tables/{a}.zip"))
    assert run(capsys, str(inner), "--pubkey", str(keys.public))[0] == 0
    status, out, err = run(capsys, str(inner), "--pubkey", str(keys.public),
                           "--table-key", f"{a}={pub(tmp_path, 'a', signers['A'])}")
    assert status == 2 and "--table-key is for a floor export" in err
