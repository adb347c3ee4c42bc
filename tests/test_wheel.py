"""The package as an operator installs it: a wheel built from the repository, installed with its
declared dependencies into a fresh virtual environment outside the checkout, and its commands run
from a folder of their own. The editable install of the test suite hides what a wheel lacks
(package data, a file read from the source tree, an undeclared dependency); this finds it. It
also checks what the wheel must not carry: the camera's training code (the checkout's
`training/`) and anything that reaches PyTorch.

The packages come from pip's configured index, as they do for an operator.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from importlib.metadata import packages_distributions
from pathlib import Path

import grimp
import httpx2
import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.timeout(900)  # a wheel built, a fresh environment installed


def _name(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def test_every_library_imported_is_a_declared_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_name(re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0]) for d in project["dependencies"]}
    # training (the checkout's training/) runs with the [train] extra, never in the product
    declared |= {_name(re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0])
                 for d in project["optional-dependencies"]["train"]}
    imported: dict[str, Path] = {}
    for path in [*REPO.glob("dealer_assist/**/*.py"), *REPO.glob("hardware/**/*.py"),
                 *REPO.glob("training/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            imported.update((n.split(".")[0], path) for n in names)
    ours = {"dealer_assist", "hardware", "training", *sys.stdlib_module_names}
    provided = packages_distributions()
    undeclared = {module: str(path.relative_to(REPO)) for module, path in imported.items()
                  if module not in ours
                  and not declared & {_name(d) for d in provided.get(module, [])}}
    assert not undeclared, f"imported, not in pyproject's dependencies: {undeclared}"


def test_the_card_cache_is_in_the_users_cache_folder_not_the_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from training.art.decks import default_cache

    monkeypatch.delenv("DEALER_ASSIST_CARD_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_cache() == tmp_path / "cache" / "dealer-assist" / "cards"
    monkeypatch.setenv("DEALER_ASSIST_CARD_CACHE", str(tmp_path / "cards"))
    assert default_cache() == tmp_path / "cards"


def test_the_runtime_reaches_no_training_code_and_no_pytorch() -> None:
    """The product's import graph (every import, however deep in a function) holds neither the
    training package nor PyTorch: `vision train` imports training/ by name, at run time."""
    graph = grimp.build_graph("dealer_assist", "hardware", include_external_packages=True)
    assert not {"training", "torch", "onnx"} & graph.modules


def _sh(*args: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of what it is made of; the checkout untouched."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # what the wheel is built from; no build/ or egg-info in the checkout
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for package in ("dealer_assist", "hardware", "training"):  # as a checkout has them
        shutil.copytree(REPO / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _sh(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
        work / "dist", source, cwd=work)
    (built,) = (work / "dist").glob("dealer_assist-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path) -> tuple[Path, Path]:
    """(the fresh environment's bin folder, an empty folder to run in): the wheel installed."""
    work = wheel.parents[1]
    _sh(sys.executable, "-m", "venv", work / "venv", cwd=work)
    bin_ = work / "venv" / "bin"
    _sh(bin_ / "python", "-m", "pip", "install", "--quiet", wheel, cwd=work)
    _sh(bin_ / "python", "-m", "pip", "check", cwd=work)
    site = work / "site"
    site.mkdir()
    return bin_, site


@pytest.mark.slow
def test_the_wheel_holds_the_package_and_its_data(installed: tuple[Path, Path]) -> None:
    bin_, site = installed
    where = _sh(bin_ / "python", "-c", "import dealer_assist, hardware;"
                "print(dealer_assist.__file__); print(hardware.__file__)", cwd=site).stdout
    assert all(str(bin_.parent) in line for line in where.splitlines()), where
    assert "usage: dealer-assist" in _sh(bin_ / "dealer-assist", "--help", cwd=site).stdout


@pytest.mark.slow
def test_the_wheel_carries_no_training_code(wheel: Path,
                                            record_property: Callable[[str, object], None]) -> None:
    """No `training` package and no training module in the wheel; its size is printed (run with
    -s) and recorded (`--junitxml`)."""
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert "training" not in top, sorted(top)
    assert not [n for n in names if re.search(r"/(learn|synth|training)/", n)]
    assert not [n for n in names if n.endswith(("/loop.py", "/nets.py", "/finder_tune.py"))]
    size = wheel.stat().st_size
    record_property("wheel_bytes", size)
    print(f"\n{wheel.name}: {size:,} bytes ({size / 2**20:.2f} MiB), {len(names)} files")


@pytest.mark.slow
def test_the_installed_runtime_imports_without_pytorch(installed: tuple[Path, Path]) -> None:
    """Every module of the installed packages imports in an environment without PyTorch, and
    none of them pulls in torch, onnx or a `training` package."""
    bin_, site = installed
    script = ("import importlib, pkgutil, sys, dealer_assist, hardware\n"
              "for p in (dealer_assist, hardware):\n"
              "    for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.'):\n"
              "        if not m.name.endswith('__main__'):\n"
              "            importlib.import_module(m.name)\n"
              "print(sorted({'torch', 'onnx', 'training'} & set(sys.modules)))\n")
    assert _sh(bin_ / "python", "-c", script, cwd=site).stdout.strip() == "[]"


@pytest.mark.slow
def test_vision_train_from_the_wheel_says_it_runs_from_a_checkout(
        installed: tuple[Path, Path]) -> None:
    bin_, site = installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([bin_ / "dealer-assist", "vision", "train", "--steps", "1"], cwd=site,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "runs from a checkout" in done.stderr and "pip install -e '.[train]'" in done.stderr


@pytest.mark.slow
def test_odds_reads_the_shipped_pay_tables(installed: tuple[Path, Path]) -> None:
    bin_, site = installed
    out = _sh(bin_ / "dealer-assist", "odds", "--decks", "8", cwd=site).stdout
    assert "Bets (shipped pay tables):" in out and "banker       pays 0.95:1" in out


@pytest.mark.slow
def test_audit_replays_the_sample_shoe(installed: tuple[Path, Path]) -> None:
    bin_, site = installed
    out = _sh(bin_ / "dealer-assist", "audit", "--sample", cwd=site).stdout
    assert out.startswith("shoe SAMPLE-1:") and "UNNEEDED_DRAW" in out and "MISSING_DRAW" in out


@pytest.mark.slow
def test_run_serves_the_display_from_a_config_in_its_own_folder(
        installed: tuple[Path, Path], tmp_path: Path) -> None:
    bin_, site = installed
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "W1"\ndatabase = "state/W1.events.db"\n'
                      'users = "state/users.db"\n[shoe]\nurl = "emulator"\nemulator_speed = 20\n'
                      '[web]\nport = 0\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    service = subprocess.Popen([bin_ / "dealer-assist", "run", "--config", config], cwd=site,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert service.stdout is not None and service.stderr is not None
        line = service.stdout.readline()
        assert line.startswith("table display:"), line + service.stderr.read()
        url = line.split()[-1]
        page = httpx2.get(url, timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert httpx2.get(url + "api/table", timeout=10).json()["table"] == "W1"
        service.send_signal(signal.SIGINT)
        assert service.wait(30) == 0
        err = service.stderr.read()
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    assert "stopped; the event log holds" in err and "Traceback" not in err, err
    assert (tmp_path / "state" / "W1.events.db").is_file()
    assert not (site / "state").exists()
