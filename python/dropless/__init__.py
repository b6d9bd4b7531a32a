"""dropless from Python: run scenarios in-process, get DataFrames, sweep on Ray.

    import dropless
    r = dropless.run("scenarios/quickstart.toml", overrides={"duration": "10s"})
    r.summary["flows"][0]["goodput_bps"]
    r.flows.head()              # pandas DataFrame: t_s, flow, goodput_bps, cwnd_pkts, ...
    s = dropless.sweep("grids/buffers.toml", backend="ray")
    s.results                   # one row per run per flow, as results.parquet

The simulator is the same Rust code as the ``dropless`` command, running in
this process with the GIL released. Errors raise :class:`InputError` (bad
input; a ``ValueError``) or :class:`RunError` (a run or its output failed; a
``RuntimeError``) with the command line's one-line message.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _dropless
from ._dropless import InputError, RunError
from ._frames import frame
from .sweep import SweepResult, sweep

__all__ = [
    "run",
    "check",
    "list_controllers",
    "sweep",
    "report",
    "Result",
    "SweepResult",
    "InputError",
    "InputTypeError",
    "RunError",
]

__version__ = _dropless.__version__


class InputTypeError(InputError, TypeError):
    """An argument of the wrong Python type (both an InputError and a TypeError)."""


Scenario = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def _source(scenario: Scenario):
    """(kind, text, label) for the extension: quickstart, path or text."""
    if scenario is None:
        return ("quickstart", "", "")
    if isinstance(scenario, os.PathLike):
        return ("path", os.fspath(scenario), "")
    if isinstance(scenario, str):
        # A scenario's TOML always has a key = value line; a path has no line
        # break. A one-line string that names a file, or ends in .toml, is a
        # path even if it holds '=' (runs/buffer=2bdp.toml).
        one_line = "\n" not in scenario
        if one_line and (os.path.isfile(scenario) or scenario.strip().endswith(".toml")):
            return ("path", scenario, "")
        if not one_line or "=" in scenario:
            return ("text", scenario, "the scenario string")
        return ("path", scenario, "")
    if isinstance(scenario, Mapping):
        return ("text", _to_toml(scenario, "the scenario dict"), "the scenario dict")
    raise InputTypeError(
        f"scenario: found {type(scenario).__name__}, expected a file path, TOML text, "
        "a dict, or None for the built-in quick start"
    )


def _to_toml(d: Mapping[str, Any], what: str) -> str:
    try:
        text = json.dumps(d, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InputTypeError(
            f"{what}: {e}; expected str, int, float, bool, lists and dicts"
        ) from None
    return _dropless.json_to_toml(text, what)


def _sets(overrides) -> List[str]:
    """``overrides`` as ``--set KEY=VALUE`` strings."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        out = []
        for k, v in overrides.items():
            if not isinstance(k, str):
                raise InputTypeError(
                    f"overrides: key {k!r} is a {type(k).__name__}, expected a str like 'flows[0].cc'"
                )
            out.append(f"{k}={_value(k, v)}")
        return out
    if isinstance(overrides, (list, tuple)):
        for o in overrides:
            if not isinstance(o, str):
                raise InputTypeError(
                    f"overrides: {o!r} is a {type(o).__name__}, expected 'KEY=VALUE' strings"
                )
        return list(overrides)
    raise InputTypeError(
        f"overrides: found {type(overrides).__name__}, expected a dict like "
        "{'duration': '5s', 'flows[0].cc': 'cubic'}"
    )


def _value(key: str, v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise InputError(f"overrides: {key}: found {v}, expected a finite number")
        return repr(v)
    raise InputTypeError(
        f"overrides: {key}: found a {type(v).__name__} ({v!r}), expected a str, int, float or bool"
    )


class Result:
    """What :func:`run` returns.

    Attributes:
        summary: summary.json as a dict (``summary["flows"]``, ``summary["bottlenecks"]``, ...;
            docs/summary-json.md).
        out: the output directory, if one was written (``out=...``), else None.
        files: the files written there.
    """

    def __init__(self, raw: Dict[str, Any], dataframe: str):
        self.summary: Dict[str, Any] = json.loads(raw["summary_json"])
        self.out: Optional[str] = raw["out"]
        self.files: List[str] = list(raw["files"])
        self._raw = {k: raw[k] for k in ("flows", "links", "events")}
        self._kind = dataframe
        self._cache: Dict[str, Any] = {}

    def _table(self, name: str):
        if name not in self._cache:
            self._cache[name] = frame(self._raw[name], self._kind)
        return self._cache[name]

    @property
    def flows(self):
        """Per-flow time series (flows.csv): t_s, flow, goodput_bps, cwnd_pkts, pacing_bps, rtt_s, in_flight_pkts, then the controllers' trace variables."""
        return self._table("flows")

    @property
    def links(self):
        """Per-link time series (links.csv): t_s, link, queue_pkts, avg_queue_pkts, drops, utilization, ..."""
        return self._table("links")

    @property
    def events(self):
        """Congestion events (events.csv): flow, t_s, cause, rto, cwnd_pkts, lost."""
        return self._table("events")

    def plot(self, axes=None):
        """Goodput, window, RTT and queue over time with matplotlib; returns the Figure."""
        from ._plot import overview

        return overview(self, axes)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<dropless.Result {s.get('scenario', '?')!r}: "
            f"{len(s.get('flows', []))} flows, {len(s.get('bottlenecks', []))} links"
            + (f", out={self.out!r}" if self.out else "")
            + ">"
        )


def _dataframe_kind(dataframe: str) -> str:
    """Checks ``dataframe`` before anything runs: a known kind, and for
    polars that polars can be imported (not only when a frame is first read)."""
    if dataframe not in ("pandas", "polars"):
        raise InputError(f"dataframe: found {dataframe!r}, expected 'pandas' or 'polars'")
    if dataframe == "polars":
        try:
            import polars  # noqa: F401
        except ImportError:
            raise InputError(
                "dataframe='polars': the polars package is not installed "
                "(pip install polars, or the package's [polars] extra)"
            ) from None
    return dataframe


def run(
    scenario: Scenario = None,
    overrides: Union[None, Mapping[str, Any], Iterable[str]] = None,
    *,
    out: Union[None, str, "os.PathLike[str]"] = None,
    force: bool = False,
    plots: bool = False,
    html: bool = False,
    dataframe: str = "pandas",
) -> Result:
    """Runs a scenario in this process and returns a :class:`Result`.

    Args:
        scenario: a scenario file path, TOML text, a dict (the TOML as a
            dict), or None for the built-in quick start.
        overrides: ``--set`` values, e.g. ``{"duration": "5s", "flows[*].rtt": "80ms"}``.
        out: also write the output directory as ``dropless run --out`` does.
        force: replace ``out`` if it holds an earlier run's output.
        plots: draw the PNG/SVG plots into ``out``.
        html: write report.html into ``out``.
        dataframe: ``"pandas"`` (default) or ``"polars"``.
    """
    kind = _dataframe_kind(dataframe)
    src = _source(scenario)
    sets = _sets(overrides)
    if html and out is None:
        raise InputError("html=True: the report is written into out=...; give out")
    if plots and out is None:
        raise InputError(
            "plots=True: the plots are drawn into out=...; give out, or draw from the result with .plot()"
        )
    out_s = None if out is None else os.fspath(out)
    raw = _dropless.run(*src, sets, out_s, bool(force), bool(plots), bool(html))
    return Result(raw, kind)


def check(scenario: Scenario = None, overrides=None) -> None:
    """Checks a scenario as ``dropless check`` does; raises InputError if it is not valid."""
    _dropless.check(*_source(scenario), _sets(overrides))


def list_controllers(dataframe: Optional[str] = None):
    """Every congestion controller with its parameters and defaults.

    Returns a list of dicts ``{"name", "help", "params": [{"name", "default", "help"}]}``,
    or with ``dataframe="pandas"`` one row per (controller, parameter).
    """
    rows = [
        {
            "name": name,
            "help": help_,
            "params": [{"name": p, "default": d, "help": h} for (p, d, h) in params],
        }
        for (name, help_, params) in _dropless.controllers()
    ]
    if dataframe is None:
        return rows
    if dataframe != "pandas":
        raise InputError(f"dataframe: found {dataframe!r}, expected None or 'pandas'")
    import pandas as pd

    flat = [
        {"controller": c["name"], "param": p["name"], "default": p["default"], "help": p["help"]}
        for c in rows
        for p in c["params"]
    ]
    return pd.DataFrame(flat, columns=["controller", "param", "default", "help"])


def report(out_dir: Union[str, "os.PathLike[str]"]) -> str:
    """Writes report.html into a run's or a sweep's output directory; returns its path."""
    return _dropless.report(os.fspath(out_dir))
