"""Shared fixtures: the repository root, the dropless binary, a tiny grid."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def dropless_bin():
    """The command line, built by `cargo build --release` (DROPLESS_BIN overrides)."""
    b = pathlib.Path(os.environ.get("DROPLESS_BIN", ROOT / "target" / "release" / "dropless"))
    if not b.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "dropless"], cwd=ROOT, check=True)
    return b


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Relative scenario paths are relative to the repository root, as in the README."""
    monkeypatch.chdir(ROOT)


def write_grid(tmp_path, runs_per_value=2):
    """A small grid of the quick start: 2 buffers x `runs_per_value` repeats, 2 s each."""
    g = tmp_path / "grid.toml"
    g.write_text(
        f'scenario = "{ROOT / "scenarios" / "quickstart.toml"}"\n'
        f"repeats = {runs_per_value}\n"
        "seed = 11\n"
        "[set]\n"
        '"duration" = ["6s"]\n'
        '"topology.bottleneck.buffer" = ["0.5bdp", "1bdp"]\n'
    )
    return g
