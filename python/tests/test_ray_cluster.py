"""A Ray cluster reached as docs/python.md says (issue 37): one started with
`ray start --head` and token authentication, reached by HOST:PORT with only
RAY_AUTH_TOKEN set, and by ray:// (Ray Client); a wrong token is one clear
error. The cluster runs in its own session (its own temporary directory and
ports, so `auto` elsewhere on the machine never finds it) and is stopped by
ending its process group."""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import write_grid

ray = pytest.importorskip("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def token_cluster():
    """(GCS port, Ray Client port, token) of a two-CPU cluster with token auth."""
    if shutil.which("ray") is None:
        pytest.skip("the ray command is not installed")
    token = secrets.token_hex(32)
    # Short: Ray's Unix sockets live under it (at most 107 bytes a path).
    tmp = tempfile.mkdtemp(prefix="dlray")
    gcs, client = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    log = open(os.path.join(tmp, "start.log"), "w")
    head = subprocess.Popen(
        [
            "ray", "start", "--head", "--block",
            "--node-ip-address=127.0.0.1",
            f"--port={gcs}",
            f"--ray-client-server-port={client}",
            f"--dashboard-agent-listen-port={_free_port()}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={tmp}",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while not (_answers(gcs) and _answers(client)):
            if head.poll() is not None or time.monotonic() > deadline:
                log.flush()
                with open(log.name) as f:
                    pytest.fail(f"ray start --head did not come up:\n{f.read()[-3000:]}")
            time.sleep(0.5)
        yield gcs, client, token
    finally:
        # `ray stop` would stop every Ray cluster on the machine: end only this one.
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            try:
                head.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _driver_env(token):
    """A user's shell: RAY_AUTH_TOKEN as the docs say, no RAY_AUTH_MODE."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    if token is not None:
        env["RAY_AUTH_TOKEN"] = token
    return env


def _sweep(dropless_bin, grid, address, out, token):
    return subprocess.run(
        [dropless_bin, "sweep", grid, "--ray", address, "--out", out],
        capture_output=True, text=True, timeout=600, env=_driver_env(token),
    )


def _files(d):
    return {f: (d / f).read_bytes() for f in ("results.csv", "results.parquet", "grid.toml")}


@pytest.mark.parametrize("scheme", ["HOST:PORT", "ray://"])
def test_a_token_cluster_by_address_gives_the_local_bytes(token_cluster, scheme, tmp_path, dropless_bin):
    gcs, client, token = token_cluster
    address = f"127.0.0.1:{gcs}" if scheme == "HOST:PORT" else f"ray://127.0.0.1:{client}"
    g = write_grid(tmp_path, runs_per_value=3)  # 6 runs
    subprocess.run([dropless_bin, "sweep", g, "--jobs", "2", "--out", tmp_path / "local", "-q"], check=True)
    p = _sweep(dropless_bin, g, address, tmp_path / "ray", token)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "6 runs" in p.stdout and "on Ray" in p.stdout, p.stdout
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")


@pytest.mark.parametrize("token", [None, "0" * 64], ids=["no-token", "wrong-token"])
def test_a_token_cluster_without_its_token_is_one_clear_error(token_cluster, token, tmp_path, dropless_bin):
    gcs, _, _ = token_cluster
    g = write_grid(tmp_path, runs_per_value=1)
    address = f"127.0.0.1:{gcs}"
    p = _sweep(dropless_bin, g, address, tmp_path / "o", token)
    assert p.returncode == 2, (p.returncode, p.stderr[-3000:])
    assert p.stderr.strip().count("\n") == 0, p.stderr[-3000:]
    assert p.stderr.startswith(f"error: address '{address}': "), p.stderr
    assert "requires token authentication and refused" in p.stderr and "RAY_AUTH_TOKEN" in p.stderr, p.stderr
    assert not (tmp_path / "o").exists()
