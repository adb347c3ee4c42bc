"""The service's checkpoint signer: the export key named by DEALER_ASSIST_SIGNING_KEY, or
none, said once, when the variable is not set."""

from __future__ import annotations

import logging

import pytest

from dealer_assist.signing_keys import (
    ENV_SIGNING_KEY,
    KeyProblem,
    checkpoint_signer_from_environment,
    load_public_key,
    public_check,
)


def test_without_a_key_checkpoints_are_unsigned_and_it_is_said_once(caplog):
    with caplog.at_level(logging.WARNING, logger="dealer_assist"):
        assert checkpoint_signer_from_environment({}) is None
    assert [r.getMessage() for r in caplog.records] == [
        f"{ENV_SIGNING_KEY} is not set: the log's checkpoints are unsigned, so nothing outside "
        "the log file anchors its chain (see docs/log-integrity.md)"]


def test_the_signer_signs_with_the_key_the_environment_names(keys):
    sign = checkpoint_signer_from_environment({ENV_SIGNING_KEY: str(keys.private)})
    assert sign is not None
    holds = public_check(load_public_key(keys.public))
    assert holds(sign(b"checkpoint"), b"checkpoint")
    assert not holds(sign(b"checkpoint"), b"another checkpoint")


def test_a_key_that_cannot_be_read_is_a_clear_error(tmp_path):
    with pytest.raises(KeyProblem, match="cannot read the signing key"):
        checkpoint_signer_from_environment({ENV_SIGNING_KEY: str(tmp_path / "none.pem")})
