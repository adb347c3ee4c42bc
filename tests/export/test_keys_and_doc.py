"""Signing keys (`dealer-assist keys generate`), and the offline check of docs/export-format.md."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.signing_keys import (
    ENV_SIGNING_KEY,
    KeyProblem,
    load_private_key,
    load_public_key,
    signing_key_path,
)
from tests.export.conftest import members, rezip

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "export-format.md"


def test_generate_writes_a_private_key_only_its_owner_reads(tmp_path, capsys):
    out = tmp_path / "keys"
    assert main(["keys", "generate", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    private, public = out / "signing-key.pem", out / "signing-key.pub.pem"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert private.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    key = load_private_key(private)
    assert load_public_key(public).public_bytes_raw() == key.public_key().public_bytes_raw()
    assert re.search(r"fingerprint: SHA256:[0-9a-f]{64}", said)


def test_generate_never_overwrites_a_key(tmp_path, capsys):
    out = tmp_path / "keys"
    assert main(["keys", "generate", "--out", str(out)]) == 0
    before = (out / "signing-key.pem").read_bytes()
    capsys.readouterr()
    assert main(["keys", "generate", "--out", str(out)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (out / "signing-key.pem").read_bytes() == before


def test_a_key_inside_a_repository_is_refused(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert main(["keys", "generate", "--out", str(repo / "keys")]) == 2
    assert "must never live in a repository" in capsys.readouterr().err
    assert not (repo / "keys").exists()
    assert main(["keys", "generate", "--out", str(tmp_path / "k")]) == 0
    os.rename(tmp_path / "k" / "signing-key.pem", repo / "signing-key.pem")
    with pytest.raises(KeyProblem, match="must never live in a repository"):
        load_private_key(repo / "signing-key.pem")


def test_a_private_key_others_may_read_is_refused(keys, tmp_path):
    loose = tmp_path / "loose.pem"
    loose.write_bytes(keys.private.read_bytes())
    loose.chmod(0o644)
    with pytest.raises(KeyProblem, match="chmod 600"):
        load_private_key(loose)


def test_the_key_path_comes_from_the_option_or_the_environment(tmp_path):
    assert signing_key_path("a.pem", {ENV_SIGNING_KEY: "b.pem"}) == Path("a.pem")
    assert signing_key_path(None, {ENV_SIGNING_KEY: "b.pem"}) == Path("b.pem")
    with pytest.raises(KeyProblem, match=ENV_SIGNING_KEY):
        signing_key_path(None, {})


def test_a_public_key_that_is_not_ed25519_is_named(tmp_path, capsys, day_zip):
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key")
    assert main(["verify", str(day_zip), "--pubkey", str(bad)]) == 2
    assert "is not a PEM public key" in capsys.readouterr().err


def recipe() -> str:
    [code] = re.findall(r"```py\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return code


def test_the_documented_offline_check_passes_a_good_export(day_zip, keys, tmp_path):
    script = tmp_path / "check_export.py"
    script.write_text(recipe())
    run = subprocess.run([sys.executable, "-I", str(script), str(day_zip), str(keys.public)],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("OK: ")


def test_the_documented_offline_check_refuses_a_changed_export(day_zip, keys, tmp_path):
    script = tmp_path / "check_export.py"
    script.write_text(recipe())
    files = members(day_zip)
    files["games.csv"] = files["games.csv"].replace(b",banker,", b",player,", 1)
    changed = rezip(files, tmp_path / "changed.zip")
    run = subprocess.run([sys.executable, "-I", str(script), str(changed), str(keys.public)],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    assert run.returncode != 0
    assert "games.csv was changed" in run.stderr
