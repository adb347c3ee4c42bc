"""The table's Ed25519 signing keys: generate a pair, load them, sign and check.

One key signs a table's exports, its log's checkpoints (`store.signed_checkpoints`, shipped to
the floor) and seals its snapshots and sessions (`derived_key`); the floor's key signs floor
exports. It sits below the store and the export, which both use it.

The private key is a PEM file (PKCS #8, unencrypted) readable by its owner only (mode 0600);
the public key a PEM file (SubjectPublicKeyInfo) that the casino hands to its regulators. The
service finds the private key by the path in `DEALER_ASSIST_SIGNING_KEY` (or a path given on
the command line); it refuses a key file that others may read, and one inside a git working
tree: a signing key never lives in a repository.

A key's fingerprint is `SHA256:` and the hex SHA-256 of its 32 raw public-key bytes; the
manifest names the key that signed it by its fingerprint.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ENV_SIGNING_KEY = "DEALER_ASSIST_SIGNING_KEY"
PRIVATE_NAME = "signing-key.pem"
PUBLIC_NAME = "signing-key.pub.pem"


class KeyProblem(ValueError):
    """A key that cannot be made or used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class KeyPair:
    private: Path
    public: Path
    fingerprint: str


def fingerprint(public_key: Ed25519PublicKey) -> str:
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + hashlib.sha256(raw).hexdigest()


def generate_keys(out_dir: Path) -> KeyPair:
    """Write a new key pair into `out_dir` (made, mode 0700, if missing); never overwrites."""
    out_dir = Path(out_dir)
    _refuse_repository(out_dir, "keys")
    private_path, public_path = out_dir / PRIVATE_NAME, out_dir / PUBLIC_NAME
    for path in (private_path, public_path):
        if path.exists():
            raise KeyProblem(f"{path} exists: refusing to overwrite a key (move it away first)")
    out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    _write_new(private_path, private_pem, 0o600)
    _write_new(public_path, public_pem, 0o644)
    return KeyPair(private_path, public_path, fingerprint(key.public_key()))


def signing_key_path(given: str | os.PathLike[str] | None,
                     environ: Mapping[str, str] | None = None) -> Path:
    """The private key's path: `given` (a command-line option or config), else the
    environment variable DEALER_ASSIST_SIGNING_KEY."""
    if given:
        return Path(given).expanduser()
    value = (os.environ if environ is None else environ).get(ENV_SIGNING_KEY, "").strip()
    if not value:
        raise KeyProblem(
            f"no signing key: set {ENV_SIGNING_KEY} to the private key's file (made with "
            "`dealer-assist keys generate --out DIR`) or name the file with --signing-key"
        )
    return Path(value).expanduser()


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The signing key in `path`, refused if others may read it or it lies in a repository."""
    path = Path(path)
    _refuse_repository(path, "a signing key")
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as exc:
        raise KeyProblem(f"cannot read the signing key {path}: {exc.strerror}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyProblem(
            f"{path} may be read by others (mode {stat.S_IMODE(mode):04o}): "
            f"run `chmod 600 {path}`"
        )
    return _pem_key(path, lambda: serialization.load_pem_private_key(data, password=None),
                    Ed25519PrivateKey, "an unencrypted PEM private key", "an Ed25519 key")


def derived_key(private: Ed25519PrivateKey, purpose: bytes, table_id: str) -> bytes:
    """A 32-byte secret of table `table_id` for one `purpose` (its label, a line of its own),
    derived from the table's signing key: HKDF-SHA256 of the key's private bytes, no salt,
    info = purpose + table id. One signing key, a key of its own for each use."""
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=purpose + table_id.encode("utf-8")).derive(raw)


def signing_key_from_environment() -> Ed25519PrivateKey:
    """The key that DEALER_ASSIST_SIGNING_KEY names (what the service signs exports with)."""
    return load_private_key(signing_key_path(None))


def checkpoint_signer_from_environment(
        environ: Mapping[str, str] | None = None) -> Callable[[bytes], bytes] | None:
    """The `sign` of the key DEALER_ASSIST_SIGNING_KEY names, for the log to sign its
    checkpoints with; None (said once, in the service's log) when the variable is not set."""
    value = (os.environ if environ is None else environ).get(ENV_SIGNING_KEY, "").strip()
    if not value:
        logging.getLogger("dealer_assist").warning(
            "%s is not set: the log's checkpoints are unsigned, so nothing outside the log "
            "file anchors its chain (see docs/log-integrity.md)", ENV_SIGNING_KEY)
        return None
    return load_private_key(Path(value).expanduser()).sign


def public_check(public_key: Ed25519PublicKey) -> Callable[[bytes, bytes], bool]:
    """`holds(signature, data)` for `public_key`, as the log's signature check takes it."""
    return lambda signature, data: signature_holds(public_key, signature, data)


def load_public_key(path: Path) -> Ed25519PublicKey:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyProblem(f"cannot read the public key {path}: {exc.strerror}") from None
    return _pem_key(path, lambda: serialization.load_pem_public_key(data), Ed25519PublicKey,
                    "a PEM public key", "an Ed25519 public key")


def _pem_key(path: Path, load: Callable[[], object], kind: type, form: str, named: str) -> Any:
    """The key `load` reads from `path`'s bytes; KeyProblem if it is not `form` (in words) or
    not of `kind` (`named`)."""
    try:
        key = load()
    except (ValueError, TypeError) as exc:
        raise KeyProblem(f"{path} is not {form}: {exc}") from None
    if not isinstance(key, kind):
        raise KeyProblem(f"{path} holds a {type(key).__name__}, not {named}")
    return key


def signature_holds(public_key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    try:
        public_key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyProblem(f"{path} exists: refusing to overwrite a key") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, mode)  # whatever the umask


def _refuse_repository(path: Path, what: str) -> None:
    """Refuse `path` when it lies inside a git working tree (a folder above it has .git)."""
    resolved = path.expanduser().resolve()
    for folder in (resolved, *resolved.parents):
        if (folder / ".git").exists():
            raise KeyProblem(
                f"{path} is inside the git working tree {folder}: {what} must never live in a "
                "repository; keep it elsewhere (e.g. /etc/dealer-assist/keys, mode 0700)"
            )
