"""Result.plot(): the overview figure (goodput, window, RTT, queue) with matplotlib."""

from __future__ import annotations


def overview(result, axes=None):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        from ._dropless import InputError

        raise InputError("Result.plot() needs matplotlib (pip install matplotlib)") from None
    flows = result.flows
    links = result.links
    if not hasattr(flows, "groupby"):  # polars
        flows, links = flows.to_pandas(), links.to_pandas()
    if axes is None:
        fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    else:
        fig = axes.flat[0].figure
    ax = list(axes.flat)
    panels = [
        ("goodput_bps", 1e-6, "goodput (Mb/s)"),
        ("cwnd_pkts", 1.0, "window (packets)"),
        ("rtt_s", 1e3, "RTT (ms)"),
    ]
    # A flow is drawn from its start to its end only: the samples outside
    # them are placeholders (goodput 0, the initial window), not a flow at zero.
    span = {}
    for fl in result.summary.get("flows", []):
        end = fl.get("end_s")
        span[fl.get("id")] = (fl.get("start_s") or 0.0, float("inf") if end is None else end)
    for a, (col, scale, label) in zip(ax, panels):
        for f, g in flows.groupby("flow"):
            lo, hi = span.get(int(f), (0.0, float("inf")))
            g = g[(g["t_s"] >= lo) & (g["t_s"] <= hi)]
            a.plot(g["t_s"], g[col] * scale, lw=0.8, label=f"flow {f}")
        a.set_ylabel(label)
    for l, g in links.groupby("link"):
        ax[3].plot(g["t_s"], g["queue_pkts"], lw=0.8, label=f"link {l}")
    ax[3].set_ylabel("queue (packets)")
    for a in ax[2:]:
        a.set_xlabel("time (s)")
    if flows["flow"].nunique() <= 10:
        ax[0].legend(fontsize="small")
    name = result.summary.get("scenario", "")
    fig.suptitle(name)
    fig.tight_layout()
    return fig
