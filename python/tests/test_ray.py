"""Sweeps on a local two-CPU Ray cluster: identical results, dead workers, bad addresses."""

import os
import subprocess
import sys

import pytest

import dropless
from conftest import write_grid

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster of two CPUs; its workers see the fault-injection file."""
    kill = tmp_path_factory.mktemp("kill") / "kill"
    os.environ["DROPLESS_TEST_KILL_FILE"] = str(kill)
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield kill
    ray.shutdown()
    del os.environ["DROPLESS_TEST_KILL_FILE"]


def _files(d):
    return {f: (d / f).read_bytes() for f in ("results.csv", "results.parquet", "grid.toml")}


def test_ray_results_are_byte_identical_to_the_command_line(cluster, tmp_path, dropless_bin):
    g = write_grid(tmp_path, runs_per_value=10)  # 20 runs
    subprocess.run([dropless_bin, "sweep", g, "--jobs", "2", "--out", tmp_path / "cli", "-q"], check=True)
    s = dropless.sweep(g, backend="ray", out=tmp_path / "ray", progress=False)
    assert s.runs == 20 and s.backend == "ray"
    assert _files(tmp_path / "cli") == _files(tmp_path / "ray")


def test_a_worker_that_dies_is_retried(cluster, tmp_path, dropless_bin):
    g = write_grid(tmp_path, runs_per_value=4)
    subprocess.run([dropless_bin, "sweep", g, "--jobs", "2", "--out", tmp_path / "cli", "-q"], check=True)
    cluster.write_text("5 once")
    try:
        dropless.sweep(g, backend="ray", out=tmp_path / "ray", progress=False)
    finally:
        cluster.unlink()
    assert os.path.exists(str(cluster) + ".done"), "the worker running run 5 was killed"
    os.unlink(str(cluster) + ".done")
    assert _files(tmp_path / "cli") == _files(tmp_path / "ray")


def test_a_run_whose_worker_always_dies_is_reported_by_number(cluster, tmp_path):
    g = write_grid(tmp_path, runs_per_value=4)
    out = tmp_path / "ray"
    cluster.write_text("6 always")
    try:
        with pytest.raises(dropless.RunError, match=r"^run 6: its Ray worker failed 2 time\(s\)"):
            dropless.sweep(g, backend="ray", out=out, retries=1, progress=False)
    finally:
        cluster.unlink()
    # Nothing under the final name, and no temporary directory left beside it.
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["grid.toml"]


@pytest.mark.parametrize(
    "address,message",
    [
        ("127.0.0.1:1", "no Ray cluster answers there"),
        ("ray://127.0.0.1:1", "no Ray cluster answers there"),
        ("head-without-port", "expected 'auto', 'HOST:PORT'"),
    ],
)
def test_a_bad_address_is_one_clear_error(tmp_path, dropless_bin, address, message):
    """From the command line (a fresh process: no cluster is up in it)."""
    g = write_grid(tmp_path, runs_per_value=1)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run(
        [dropless_bin, "sweep", g, "--ray", address, "--out", tmp_path / "o"],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0, p.stderr
    assert p.stderr.startswith(f"error: address '{address}': {message}")
    assert not (tmp_path / "o").exists()


def test_bad_arguments(tmp_path):
    g = write_grid(tmp_path, runs_per_value=1)
    with pytest.raises(dropless.InputError, match="jobs: only for backend='local'"):
        dropless.sweep(g, backend="ray", jobs=2)
    with pytest.raises(dropless.InputTypeError, match="address"):
        dropless.sweep(g, backend="ray", address=6379, out=tmp_path / "x")
    with pytest.raises(dropless.InputError, match="address: only for backend='ray'"):
        dropless.sweep(g, address="auto")
