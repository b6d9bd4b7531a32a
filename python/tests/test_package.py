"""The Python package as a user uses it: run, DataFrames, errors, sweeps."""

import json
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

import dropless
from conftest import write_grid

QS = "scenarios/quickstart.toml"


def test_run_path_gives_frames_matching_the_files(tmp_path):
    out = tmp_path / "qs"
    r = dropless.run(QS, out=out)
    assert isinstance(r.flows, pd.DataFrame)
    # The fixed columns, then the controller's trace variables (NewReno's ssthresh).
    assert list(r.flows.columns) == [
        "t_s", "flow", "goodput_bps", "cwnd_pkts", "pacing_bps", "rtt_s", "in_flight_pkts", "ssthresh",
    ]
    flows = r.summary["flows"]
    samples = r.flows["t_s"].nunique()
    assert len(r.flows) == samples * len(flows)
    assert sorted(r.flows["flow"].unique()) == [f["id"] for f in flows]
    assert r.flows["flow"].dtype == np.int64
    # The frames are the files' contents, value for value (CSV keeps the shortest exact form).
    for name in ("flows", "links", "events"):
        csv = pd.read_csv(out / f"{name}.csv")
        got = getattr(r, name)
        assert list(csv.columns) == list(got.columns)
        pd.testing.assert_frame_equal(
            csv.reset_index(drop=True), got.reset_index(drop=True), check_dtype=False, check_exact=True
        )
    # summary equals summary.json, except the wall time of this run.
    on_disk = json.loads((out / "summary.json").read_text())
    for s in (on_disk, r.summary):
        s.pop("wall_time_s")
        s.pop("counters")
    assert r.summary == on_disk
    assert r.out == str(out)
    assert "summary.json" in r.files


def test_summary_agrees_with_the_series():
    r = dropless.run(QS, overrides={"duration": "10s"})
    assert r.summary["duration_s"] == 10.0
    # The summary's goodput is bytes delivered over the flow's active time: the
    # mean of the equal-interval samples after its start (flow 1 starts at 5 s).
    for f in r.summary["flows"]:
        mine = r.flows[(r.flows["flow"] == f["id"]) & (r.flows["t_s"] > f["start_s"])]
        assert mine["goodput_bps"].mean() == pytest.approx(f["goodput_bps"], rel=1e-3)
    # A 30-ms sample of a 100 Mb/s link holds 250 packet times; a sample counts
    # the packets that finished in it, so it can read a packet or two over 1.
    assert r.links["utilization"].between(0, 1 + 2 / 250).all()
    assert r.links["utilization"].mean() == pytest.approx(r.summary["bottlenecks"][0]["utilization"], abs=0.01)


def test_same_seed_same_result_from_path_text_and_dict(root):
    text = (root / QS).read_text()
    a = dropless.run(QS, {"duration": "7s"})
    b = dropless.run(text, {"duration": "7s"})
    import tomllib

    c = dropless.run(tomllib.loads(text), {"duration": "7s"})
    d = dropless.run(None, ["duration=7s"])  # the built-in quick start
    for x in (b, c, d):
        pd.testing.assert_frame_equal(a.flows, x.flows, check_exact=True)
        assert [f["goodput_bps"] for f in a.summary["flows"]] == [
            f["goodput_bps"] for f in x.summary["flows"]
        ]


def test_overrides_change_the_run():
    a = dropless.run(QS, {"duration": "6s", "flows[*].cc": "cubic"})
    assert {f["cc"] for f in a.summary["flows"]} == {"cubic"}
    assert a.summary["overrides"] == ["duration=6s", "flows[*].cc=cubic"]


def test_polars_frames():
    pl = pytest.importorskip("polars")
    r = dropless.run(QS, {"duration": "6s"}, dataframe="polars")
    assert isinstance(r.flows, pl.DataFrame)
    assert r.flows.columns[:2] == ["t_s", "flow"]


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    r = dropless.run(QS, {"duration": "8s"})
    fig = r.plot()
    fig.savefig(tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 10_000
    # Issue 37: flow 1 starts at 5 s; it is not drawn at zero before then.
    start = r.summary["flows"][1]["start_s"]
    assert start > 0
    for line in fig.axes[0].get_lines():
        if line.get_label() == "flow 1":
            assert min(line.get_xdata()) >= start, min(line.get_xdata())
            break
    else:
        raise AssertionError("no line for flow 1")


def test_check_and_list_controllers():
    dropless.check(QS)
    with pytest.raises(dropless.InputError, match="alpha"):
        dropless.check("scenarios/fast.toml", {"flows[0].params.alpha": "-1"})
    names = [c["name"] for c in dropless.list_controllers()]
    for n in ("newreno", "cubic", "pda", "fast", "madison", "bbr"):
        assert n in names
    df = dropless.list_controllers(dataframe="pandas")
    assert set(df.columns) == {"controller", "param", "default", "help"}
    assert (df["controller"] == "fast").any()


def test_errors_carry_the_command_line_message(tmp_path, dropless_bin):
    # The same one-line message as the CLI's.
    cli = subprocess.run(
        [dropless_bin, "check", QS, "--set", "flows[0].nope=1"], capture_output=True, text=True
    )
    assert cli.returncode == 2
    with pytest.raises(dropless.InputError) as e:
        dropless.run(QS, {"flows[0].nope": 1})
    assert cli.stderr.strip() == f"error: {e.value}"
    assert "\n" not in str(e.value)
    with pytest.raises(dropless.InputError, match="no such file"):
        dropless.run("does/not/exist.toml")
    with pytest.raises(dropless.InputError, match="not valid TOML"):
        dropless.run("name = \n")
    with pytest.raises(ValueError, match="dataframe"):
        dropless.run(QS, dataframe="excel")


@pytest.mark.parametrize(
    "call",
    [
        lambda: dropless.run(42),
        lambda: dropless.run(QS, overrides=3),
        lambda: dropless.run(QS, overrides={"duration": object()}),
        lambda: dropless.run(QS, overrides={1: "x"}),
        lambda: dropless.run({"duration": {1, 2}}),
        lambda: dropless.sweep(3.5),
    ],
)
def test_wrong_types_raise_one_clear_exception(call):
    with pytest.raises(dropless.InputTypeError) as e:
        call()
    assert isinstance(e.value, TypeError) and isinstance(e.value, dropless.InputError)
    assert e.value.__cause__ is None and "\n" not in str(e.value)


def test_existing_output_needs_force(tmp_path):
    out = tmp_path / "o"
    dropless.run(QS, {"duration": "6s"}, out=out)
    with pytest.raises(dropless.InputError, match="already exists"):
        dropless.run(QS, {"duration": "6s"}, out=out)
    dropless.run(QS, {"duration": "6s"}, out=out, force=True)
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "precious.txt").write_text("x")
    with pytest.raises(dropless.InputError, match="refusing"):
        dropless.run(QS, {"duration": "6s"}, out=keep, force=True)
    assert (keep / "precious.txt").read_text() == "x"


def test_the_gil_is_released_during_a_run():
    """Python threads keep running while a simulation runs in another thread."""
    done = []
    t = threading.Thread(target=lambda: done.append(dropless.run(QS, {"duration": "60s"})))
    t.start()
    ticks = 0
    while t.is_alive():
        ticks += 1
        threading.Event().wait(0.001)
    t.join()
    assert done, "the run finished"
    # Holding the GIL for the run would leave this thread a handful of ticks.
    assert ticks > 50


def test_local_sweep_is_byte_identical_to_the_command_line(tmp_path, dropless_bin):
    g = write_grid(tmp_path)
    cli = tmp_path / "cli"
    subprocess.run([dropless_bin, "sweep", g, "--jobs", "2", "--out", cli, "-q"], check=True)
    s = dropless.sweep(g, out=tmp_path / "py", jobs=2, progress=False)
    assert s.runs == 4 and len(s.results) == 4 * 2
    for f in ("results.csv", "results.parquet", "grid.toml"):
        assert (cli / f).read_bytes() == (tmp_path / "py" / f).read_bytes(), f
    pq = pd.read_parquet(cli / "results.parquet")
    pd.testing.assert_frame_equal(pq, s.results, check_dtype=False, check_exact=True)


def test_sweep_from_a_dict(tmp_path):
    s = dropless.sweep(
        {"scenario": QS, "seed": 3, "set": {"duration": ["6s", "8s"]}},
        out=tmp_path / "d",
        progress=False,
    )
    assert list(s.results["duration"].unique()) == ["6s", "8s"]
    with pytest.raises(dropless.InputError, match="unknown field"):
        dropless.sweep({"scenario": QS, "sets": {}}, out=tmp_path / "e")
    with pytest.raises(dropless.InputError, match="backend"):
        dropless.sweep({"scenario": QS}, backend="dask", out=tmp_path / "f")
    assert not (tmp_path / "e").exists() and not (tmp_path / "f").exists()


_INTERRUPT_SCRIPT = r"""
import json, os, signal, sys, threading, time
import dropless
what = sys.argv[1]
sent = {}
def fire():
    sent["t"] = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(1.5, fire).start()
t0 = time.monotonic()
try:
    if what == "run":
        dropless.run("scenarios/loss-based.toml", {"duration": "3600s"})
    else:
        dropless.sweep({"scenario": "scenarios/loss-based.toml", "repeats": 4,
                        "set": {"duration": ["3600s"]}}, jobs=2, out=sys.argv[2], progress=False)
    print(json.dumps({"raised": None}))
except KeyboardInterrupt as e:
    print(json.dumps({"raised": "KeyboardInterrupt", "message": str(e),
                      "after_signal_s": time.monotonic() - sent["t"]}))
"""


@pytest.mark.parametrize("what", ["run", "sweep"])
def test_ctrl_c_stops_a_long_run_within_two_seconds(what, tmp_path):
    """Issue 37: SIGINT 1.5 s into a long run (or a sweep of four) raises
    KeyboardInterrupt within 2 s, not when the run ends; a sweep writes
    nothing. In a child process, so that the signal reaches its main thread
    as Ctrl-C (or Jupyter's interrupt) does."""
    from conftest import ROOT

    out = tmp_path / "sweep"
    r = subprocess.run(
        [__import__("sys").executable, "-c", _INTERRUPT_SCRIPT, what, str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["raised"] == "KeyboardInterrupt", (got, r.stderr)
    assert got["after_signal_s"] < 2.0, got
    assert not out.exists()


def test_plots_without_out_is_refused_before_the_run():
    with pytest.raises(dropless.InputError, match=r"^plots=True: the plots are drawn into out="):
        dropless.run(QS, plots=True)


def test_polars_missing_is_found_before_any_run(monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "polars", None)  # import polars now raises ImportError
    with pytest.raises(dropless.InputError, match="polars package is not installed"):
        dropless.run(QS, dataframe="polars")
    with pytest.raises(dropless.InputError, match="polars package is not installed"):
        dropless.sweep({"scenario": QS, "set": {"duration": ["1s"]}}, out=tmp_path / "s",
                       dataframe="polars", progress=False)
    assert not (tmp_path / "s").exists()


def test_a_path_holding_an_equals_sign_is_a_path(tmp_path):
    from conftest import ROOT

    p = tmp_path / "buffer=2bdp.toml"
    p.write_text((ROOT / QS).read_text())
    r = dropless.run(str(p), {"duration": "6s"})
    assert r.summary["scenario"] == "quickstart"
    with pytest.raises(dropless.InputError, match="missing=1.toml"):
        dropless.run(str(tmp_path / "missing=1.toml"))


def test_an_unwritable_sweep_output_is_refused_before_any_run(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(dropless.RunError, match="cannot write|Not a directory"):
        dropless.sweep({"scenario": QS, "set": {"duration": ["3600s"]}}, out=blocker / "out",
                       progress=False)


def test_a_grid_dicts_scenario_is_relative_to_the_current_directory(tmp_path):
    """Issue 37: the error speaks of the current directory, not of a grid file the dict does not have."""
    with pytest.raises(
        dropless.InputError,
        match=r'^the grid dict: scenario: found "no/such\.toml" \(".*no/such\.toml"\), which is not a '
        r"readable file; expected a path relative to the current directory$",
    ):
        dropless.sweep({"scenario": "no/such.toml"}, out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists()


def test_a_saved_grid_runs_again(tmp_path, monkeypatch):
    """Issue 37: OUT/grid.toml of a sweep (here from a dict, whose scenario path is
    relative to the directory it ran in) runs again from elsewhere, to the same bytes."""
    first = dropless.sweep({"scenario": QS, "repeats": 2, "set": {"duration": ["6s"]}},
                           out=tmp_path / "first", progress=False)
    assert first.rows == len(first.results) == 2 * 2
    monkeypatch.chdir(tmp_path)
    again = dropless.sweep("first/grid.toml", out="again", progress=False)
    for f in ("results.csv", "results.parquet", "grid.toml", "scenario.toml"):
        assert (tmp_path / "first" / f).read_bytes() == (tmp_path / "again" / f).read_bytes(), f
