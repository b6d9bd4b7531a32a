"""dropless.sweep(): a grid of scenario variants on local threads or on Ray.

Both backends run the same Rust code per run (``_dropless.sweep_run_one``:
run ``i`` is planned from the grid and seeded with ``derive_seed(seed, i)``)
and hand every run's exact result to the same writer as ``dropless sweep``,
so ``results.csv`` and ``results.parquet`` are byte-identical whichever
backend, machine or order ran the runs.
"""

from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _dropless
from ._dropless import InputError, RunError
from ._frames import frame

BACKENDS = ("local", "ray")


class SweepResult:
    """What :func:`sweep` returns.

    Attributes:
        results: the results table (results.parquet) as a DataFrame, made on
            first use (so that ``dropless sweep --ray`` never imports pandas).
        rows: the number of rows of that table.
        out: the output directory (results.csv, results.parquet, grid.toml
            and scenario.toml; ``dropless.sweep(out + "/grid.toml")`` runs it again).
        runs: the number of runs.
        wall_s: the wall time of the runs, seconds.
        backend: "local" or "ray".
    """

    def __init__(self, table, out: str, runs: int, wall_s: float, backend: str, kind: str):
        self._table = table
        self._kind = kind
        self._results = None
        self.rows = len(table[0][2]) // _width(table[0][1]) if table else 0
        self.out = out
        self.runs = runs
        self.wall_s = wall_s
        self.backend = backend

    @property
    def results(self):
        if self._results is None:
            self._results = frame(self._table, self._kind)
            self._table = None
        return self._results

    def __repr__(self) -> str:
        return (
            f"<dropless.SweepResult {self.runs} runs on {self.backend} in {self.wall_s:.1f} s, "
            f"out={self.out!r}>"
        )


def _width(dtype: str) -> int:
    """Bytes per value of a column of the extension's table (strings: a list)."""
    return 1 if dtype == "str" else int(dtype[1:])


def _load(grid):
    """(grid JSON, runs, default output directory)."""
    if isinstance(grid, Mapping):
        from . import _to_toml

        text = _to_toml(grid, "the grid dict")
        g, n = _dropless.sweep_load(os.getcwd(), text)
        return g, n, os.path.join("out", "sweep-grid")
    if isinstance(grid, (str, os.PathLike)):
        path = os.fspath(grid)
        g, n = _dropless.sweep_load(path)
        return g, n, _dropless.sweep_default_dir(path)
    from . import InputTypeError

    raise InputTypeError(
        f"grid: found {type(grid).__name__}, expected a grid file path or a dict "
        "like {'scenario': 'scenarios/quickstart.toml', 'set': {'duration': ['2s', '4s']}}"
    )


def _bar(total: int, progress: bool, desc: str):
    """A progress bar (terminal or notebook): runs done, runs per second, time left."""
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="run", smoothing=0.1)


def _local(grid_json: str, n: int, jobs: Optional[int], bar) -> List[bytes]:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InputError(f"jobs: found {jobs!r}, expected a whole number >= 1 or None (all cores)")
    workers = jobs or os.cpu_count() or 1
    results: List[Optional[bytes]] = [None] * n
    # The extension releases the GIL while a run simulates: threads run in parallel.
    _dropless.cancel(False)
    try:
        with ThreadPoolExecutor(max_workers=min(workers, max(n, 1))) as ex:
            futs = {ex.submit(_dropless.sweep_run_one, grid_json, i): i for i in range(n)}
            try:
                for f in as_completed(futs):
                    results[futs[f]] = f.result()
                    if bar is not None:
                        bar.update(1)
            except BaseException:
                # Ctrl-C (or an error): queued runs never start, and the runs
                # in flight stop at their next chunk (a tenth of a second),
                # so leaving the executor does not wait for them to end.
                _dropless.cancel(True)
                for f in futs:
                    f.cancel()
                raise
    finally:
        _dropless.cancel(False)
    return results  # type: ignore[return-value]


def _reachable(address: str, timeout: float = 5.0):
    """Refuses at once an address that names no reachable Ray head (ray.init
    itself retries a dead address for minutes)."""
    import socket

    if address in ("auto", "local"):
        return
    host_port = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = host_port.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(
            f"address {address!r}: expected 'auto', 'HOST:PORT' (the head's GCS, port 6379 by default) "
            "or 'ray://HOST:PORT' (Ray Client, port 10001)"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise InputError(f"address {address!r}: no Ray cluster answers there ({e.strerror or e})") from None


def _token_mode():
    """A cluster's token given (RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH) means
    token authentication: Ray's client sends the token only when
    RAY_AUTH_MODE=token, and otherwise retries for minutes with
    InvalidAuthToken warnings. An explicit RAY_AUTH_MODE is left alone."""
    if "RAY_AUTH_MODE" not in os.environ and (
        os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
    ):
        os.environ["RAY_AUTH_MODE"] = "token"


# Tries of a Ray Client connection whose per-client server failed to start.
_CLIENT_TRIES = 4


def _ray_init(address: Optional[str]):
    if address and address != "auto" and "ray" not in __import__("sys").modules:
        _token_mode()  # before Ray is imported: it reads RAY_AUTH_MODE once
    try:
        import ray
    except ImportError:
        raise InputError("backend='ray' needs Ray: pip install ray (or pip install ./python[ray])") from None
    if address is not None and not isinstance(address, str):
        from . import InputTypeError

        raise InputTypeError(
            f"address: found {type(address).__name__}, expected a str like 'ray://head:10001' or 'auto'"
        )
    if ray.is_initialized():
        return ray, False
    if address:
        _reachable(address)
    if not address:
        ray.init(include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        return ray, True
    # Ray's C++ client writes a warning a second to the process's stderr while
    # a cluster refuses it (about 20 s): held back, and told as one line.
    #
    # A Ray Client proxy (ray://) starts one server process per client; on a
    # busy head that process sometimes exits at once and the proxy answers
    # "Starting Ray client server failed" (Ray 2.x, seen under full CPU load
    # in about one connection in four). The next connection gets a new
    # process, so that one failure is tried again, at most _CLIENT_TRIES times.
    with _held_stderr() as held:
        for attempt in range(_CLIENT_TRIES):
            try:
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
                failure = None
            except Exception as e:  # Ray raises ConnectionError, ValueError, RuntimeError ... by case
                # Every line, joined: Ray Client puts the reason on the lines
                # after "Initialization failure from server:".
                failure = " ".join(str(e).split()) or type(e).__name__
            if failure is None or "Starting Ray client server failed" not in failure:
                break
            try:
                ray.shutdown()
            except Exception:
                pass
            __import__("time").sleep(1.0 + attempt)
    said = held.text()
    if failure is None:
        if said:
            __import__("sys").stderr.write(said)
        return ray, True
    if "InvalidAuthToken" in said or "InvalidAuthToken" in failure:
        has = os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
        raise InputError(
            f"address {address!r}: the cluster requires token authentication and refused "
            + ("the token in RAY_AUTH_TOKEN/RAY_AUTH_TOKEN_PATH" if has else "this client, which has no token")
            + "; set RAY_AUTH_TOKEN to the token `ray get-auth-token` prints on the head"
        ) from None
    raise InputError(
        f"address {address!r}: cannot connect to a Ray cluster: {failure} (a cluster with token "
        "authentication also needs its token: RAY_AUTH_TOKEN)"
    ) from None


class _held_stderr:
    """File descriptor 2 redirected into a temporary file while in the block
    (Ray's C++ code writes there directly); ``text()`` is what was written."""

    def __enter__(self):
        import sys
        import tempfile

        self._file = tempfile.TemporaryFile(mode="w+b")
        self._saved = None
        try:
            sys.stderr.flush()
            self._saved = os.dup(2)
            os.dup2(self._file.fileno(), 2)
        except (OSError, ValueError):  # no fd 2 (some embedded interpreters)
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
        return False

    def text(self) -> str:
        self._file.seek(0)
        data = self._file.read().decode("utf-8", "replace")
        self._file.close()
        return data


def _chunks(n: int, cpus: int) -> List[List[int]]:
    """Runs grouped into Ray tasks: about 8 tasks per CPU, so that a task's
    overhead (scheduling, a result object) is spread over several short
    runs while the load still balances."""
    size = max(1, n // max(1, 8 * cpus))
    return [list(range(a, min(a + size, n))) for a in range(0, n, size)]


def _crash_hook(runs: List[int]):
    """Fault injection for the tests (python/tests/test_ray.py): when the file
    named by DROPLESS_TEST_KILL_FILE holds "RUN once", the first worker to
    start run RUN exits at once (and creates FILE.done, so the retry goes
    through); "RUN always" kills every try."""
    path = os.environ.get("DROPLESS_TEST_KILL_FILE")
    if not path:
        return
    try:
        with open(path) as f:
            run, mode = f.read().split()
    except (OSError, ValueError):
        return
    if int(run) not in runs:
        return
    if mode == "always":
        os._exit(17)
    try:
        os.close(os.open(path + ".done", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    os._exit(17)


def _many(g, runs):
    """A Ray task: runs `runs` of grid `g` in a worker process."""
    from dropless import _dropless as ext

    _crash_hook(runs)
    return ext.sweep_run_many(g, runs)


_REMOTE = {}


def _remote(ray):
    """The task as a Ray remote function, made once per Ray session (a new
    definition per sweep would be exported to the cluster every time)."""
    key = ray.get_runtime_context().get_job_id()
    if key not in _REMOTE:
        _REMOTE.clear()
        _REMOTE[key] = ray.remote(num_cpus=1, retry_exceptions=False)(_many)
    return _REMOTE[key]


def _ray(grid_json: str, n: int, address: Optional[str], retries: int, bar) -> List[bytes]:
    ray, _started = _ray_init(address)
    many = _remote(ray).options(max_retries=retries)

    cpus = int(ray.cluster_resources().get("CPU", 1))
    g_ref = ray.put(grid_json)
    results: List[Optional[bytes]] = [None] * n
    todo = {many.remote(g_ref, c): c for c in _chunks(n, cpus)}
    try:
        while todo:
            done, _ = ray.wait(list(todo), num_returns=1, timeout=1.0)
            for r in done:
                runs = todo.pop(r)
                try:
                    out = ray.get(r)
                except ray.exceptions.RayTaskError as e:
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, InputError):
                        raise InputError(str(cause)) from None
                    if isinstance(cause, ImportError) or "No module named 'dropless'" in str(e):
                        raise RunError(
                            f"runs {runs[0]}-{runs[-1]}: a Ray worker cannot import dropless; "
                            "install the package on every node (pip install ./python)"
                        ) from None
                    text = str(cause) if cause is not None else str(e).strip().splitlines()[-1]
                    raise RunError(f"runs {runs[0]}-{runs[-1]}: {text}") from None
                except ray.exceptions.RayError as e:
                    # The worker died (or its node): every retry of the task
                    # failed. Run its runs one per task to find the one at fault.
                    if len(runs) > 1:
                        for i in runs:
                            todo[many.remote(g_ref, [i])] = [i]
                        continue
                    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                    raise RunError(
                        f"run {runs[0]}: its Ray worker failed {retries + 1} time(s) ({first}); "
                        "no results were written"
                    ) from None
                for i, b in zip(runs, out):
                    results[i] = b
                if bar is not None:
                    bar.update(len(runs))
    except BaseException:
        for r in todo:
            ray.cancel(r, force=True)
        raise
    return results  # type: ignore[return-value]


def sweep(
    grid: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    backend: str = "local",
    address: Optional[str] = None,
    *,
    out: Union[None, str, "os.PathLike[str]"] = None,
    force: bool = False,
    jobs: Optional[int] = None,
    retries: int = 3,
    progress: bool = True,
    html: bool = False,
    dataframe: str = "pandas",
) -> SweepResult:
    """Runs a grid of scenario variants (``dropless sweep GRID``) and returns a :class:`SweepResult`.

    Args:
        grid: a grid file path, or a dict with its fields (``scenario`` relative
            to the current directory, ``repeats``, ``seed``, ``set``).
        backend: ``"local"`` (threads in this process) or ``"ray"``.
        address: the Ray cluster to connect to (``"auto"``, ``"ray://head:10001"``);
            None starts a local one (it stays up for later sweeps; ``ray.shutdown()`` ends it).
        out: the output directory [default: out/sweep-STEM, as the command line];
            written all at once when every run is done.
        force: replace ``out`` if it holds an earlier sweep's output.
        jobs: local threads [default: all cores].
        retries: Ray retries of a run whose worker died.
        progress: show a progress bar (terminal or notebook).
        html: also write report.html into ``out``.
        dataframe: ``"pandas"`` or ``"polars"``.
    """
    if backend not in BACKENDS:
        raise InputError(f"backend: found {backend!r}, expected one of {', '.join(BACKENDS)}")
    from . import _dataframe_kind

    _dataframe_kind(dataframe)
    if backend == "local" and address is not None:
        raise InputError("address: only for backend='ray'")
    if backend == "ray" and jobs is not None:
        raise InputError("jobs: only for backend='local' (Ray decides where runs go)")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise InputError(f"retries: found {retries!r}, expected a whole number >= 0")
    grid_json, n, default_out = _load(grid)
    out_dir = default_out if out is None else os.fspath(out)
    # As the command line: the default directory belongs to dropless.
    _dropless.sweep_check_dir(out_dir, bool(force) or out is None)
    if backend == "ray":
        _ray_init(address)  # a bad address fails here, before any progress bar
    bar = _bar(n, progress, f"sweep ({backend})")
    t0 = time.monotonic()
    try:
        if backend == "local":
            results = _local(grid_json, n, jobs, bar)
        else:
            results = _ray(grid_json, n, address, retries, bar)
    finally:
        if bar is not None:
            bar.close()
    wall = time.monotonic() - t0
    table = _dropless.sweep_write(grid_json, results, out_dir)
    if html:
        _dropless.report(out_dir)
    return SweepResult(table, out_dir, n, wall, backend, dataframe)
