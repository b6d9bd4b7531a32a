"""Browser test of `dropless report` pages (issue 20).

Runs the `dropless` binary (env DROPLESS_BIN, default target/release/dropless
under the repository root), opens the report.html it writes in headless
Chromium through Playwright and checks the page as a user meets it: no
console or page errors, plots that are drawn (canvases with more than a
couple of colours), legend values on hover, a table that sorts on a click.

Needs Debian's Chromium at /usr/bin/chromium and the `playwright` Python
package (no browser download); the tests are skipped without them. With
DROPLESS_SCREENSHOT=PATH the fast.toml page is also saved as a PNG there
(docs/img/report-fast.png is made that way).
"""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None


def _binary() -> Path:
    b = Path(os.environ.get("DROPLESS_BIN", "target/release/dropless"))
    if not b.is_absolute():
        b = ROOT / b
    if not b.is_file():
        pytest.fail(f"no dropless binary at {b}; build it with `cargo build --release -p dropless` or set DROPLESS_BIN")
    return b


def _dropless(*args: str) -> None:
    r = subprocess.run([str(_binary()), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"dropless {' '.join(args)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        pytest.skip("the playwright Python package is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


class Page:
    """A report page open in the browser, with the errors it logged."""

    def __init__(self, browser, path: Path):
        self.errors: list[str] = []
        self.ctx = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
        self.page = self.ctx.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        # The page must not need the network: refuse every request but the file itself.
        self.page.route(re.compile(r"^(?!file:).*"), lambda route: (self.errors.append(f"network: {route.request.url}"), route.abort()))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_load_state("load")

    def close(self):
        self.ctx.close()


def _colours(png: bytes) -> int | None:
    """Distinct colours in a screenshot, or None without Pillow (the canvas
    read-back in _canvas_colours checks the drawing then)."""
    try:
        from PIL import Image
    except ImportError:
        return None
    from io import BytesIO

    img = Image.open(BytesIO(png)).convert("RGB")
    return len(img.getcolors(maxcolors=1 << 24))


def _canvas_colours(page, selector: str) -> list[int]:
    """Distinct colours of each canvas matching selector, read back in the page."""
    return page.eval_on_selector_all(
        selector,
        """cs => cs.map(c => {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 24) | (d[i+1] << 16) | (d[i+2] << 8) | d[i+3]);
            return seen.size;
        })""",
    )


def _legend_values(plot) -> list[str]:
    return [v.inner_text().strip() for v in plot.query_selector_all(".u-legend .u-series .u-value")]


def test_run_report(browser, tmp_path):
    out = tmp_path / "fast"
    _dropless("run", "scenarios/fast.toml", "--out", str(out), "--html", "--quiet", "--no-plots", "--no-progress")
    report = out / "report.html"
    assert report.is_file()
    assert not list(out.glob(".*part*")), "a temporary file was left behind"

    p = Page(browser, report)
    try:
        page = p.page
        # The summary table: a row per flow (fast.toml has 4 flows).
        rows = page.query_selector_all('[data-table="flows"] tbody tr')
        assert len(rows) == 4
        assert "fast" in rows[0].inner_text()
        # Plots: goodput, cwnd, RTT, pacing (FAST paces), queue, utilization, drops.
        plots = page.query_selector_all(".plot")
        titles = [pl.query_selector(".u-title").inner_text() for pl in plots]
        for t in ("Goodput", "Congestion window", "RTT", "Queue", "Utilization"):
            assert any(x.startswith(t) for x in titles), f"no {t} plot in {titles}"
        # Every plot canvas is drawn: axes, grid and lines give many colours.
        colours = _canvas_colours(page, ".plot canvas")
        assert len(colours) == len(plots)
        assert all(c > 8 for c in colours), f"blank canvases: {colours}"
        n = _colours(plots[0].screenshot())
        assert n is None or n > 20, n
        # Hover: the legend shows numbers for the time and each flow.
        goodput = page.query_selector("#plot-goodput_bps")
        before = _legend_values(goodput)
        box = goodput.query_selector(".u-over").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + box["height"] * 0.5)
        page.wait_for_timeout(100)
        after = _legend_values(goodput)
        assert len(after) == 5, after  # time + 4 flows
        assert re.fullmatch(r"[0-9.]+ s", after[0]), after
        assert all(re.match(r"^-?[0-9][0-9.e+-]* Mbit/s$", v) for v in after[1:]), after
        assert after != before
        # The flow plots share the cursor: the cwnd legend has values too.
        cwnd = _legend_values(page.query_selector("#plot-cwnd_pkts"))
        assert all(re.search(r"[0-9]", v) for v in cwnd), cwnd
        # Clicking a legend entry hides its line.
        entry = goodput.query_selector_all(".u-legend .u-series")[1]
        entry.click()
        assert "u-off" in entry.get_attribute("class")
        # Drag-zoom narrows the x scale.
        x0 = page.evaluate("window.droplessReport.plots[0].u.scales.x.max - window.droplessReport.plots[0].u.scales.x.min")
        page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + 20)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + 20, steps=5)
        page.mouse.up()
        x1 = page.evaluate("window.droplessReport.plots[0].u.scales.x.max - window.droplessReport.plots[0].u.scales.x.min")
        assert x1 < x0 * 0.5, (x0, x1)
        entry.click()  # show the line again
        page.mouse.dblclick(box["x"] + 10, box["y"] + 10)  # zoom out

        shot_path = os.environ.get("DROPLESS_SCREENSHOT")
        if shot_path:
            # The top of the page: header, tables, the goodput and cwnd plots, with the cursor on them.
            # (A tall viewport rather than full_page, whose resize would clear the legend's values.)
            page.set_viewport_size({"width": 1280, "height": 1560})
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(300)
            box = goodput.query_selector(".u-over").bounding_box()
            page.mouse.move(box["x"] + box["width"] * 0.62, box["y"] + box["height"] * 0.5)
            page.wait_for_timeout(100)
            page.screenshot(path=shot_path)
        assert p.errors == [], p.errors
    finally:
        p.close()


def test_sweep_report(browser, tmp_path):
    grid = tmp_path / "grid.toml"
    quickstart = (ROOT / "scenarios/quickstart.toml").as_posix()
    grid.write_text(
        f'scenario = "{quickstart}"\nrepeats = 1\n[set]\nduration = ["2s"]\n'
        '"flows[1].start" = ["1s"]\n'
        '"topology.bottleneck.buffer" = ["0.25bdp", "1bdp"]\n'
    )
    out = tmp_path / "sweep"
    _dropless("sweep", str(grid), "--out", str(out), "--jobs", "1", "--quiet")
    _dropless("report", str(out))
    p = Page(browser, out / "report.html")
    try:
        page = p.page
        rows = page.query_selector_all('[data-table="results"] tbody tr')
        assert len(rows) == 4  # 2 runs x 2 flows
        headers = page.query_selector_all('[data-table="results"] th')
        names = [h.evaluate("h => h.firstChild.textContent") for h in headers]
        col = names.index("goodput_bps")

        def column():
            return [
                float(r.query_selector_all("td")[col].inner_text())
                for r in page.query_selector_all('[data-table="results"] tbody tr')
            ]

        headers[col].click()
        up = column()
        assert up == sorted(up) and headers[col].get_attribute("aria-sort") == "ascending"
        headers[col].click()
        down = column()
        assert down == sorted(down, reverse=True) and headers[col].get_attribute("aria-sort") == "descending"
        assert up != down
        # A chart per swept key, drawn.
        charts = page.query_selector_all("#charts .plot")
        assert len(charts) == 3
        assert all(c > 8 for c in _canvas_colours(page, "#charts canvas"))
        # Another metric redraws the charts.
        page.select_option("#metric", "utilization")
        assert "utilization" in page.query_selector("#charts .u-title").inner_text()
        assert p.errors == [], p.errors
    finally:
        p.close()



def test_sweep_report_shows_seeds_and_values_exactly(browser, tmp_path):
    """Issue 37: the page's seeds equal results.csv's and summary.json's to
    the digit (64-bit seeds are above 2^53, where a JSON number would be
    rounded), and every float in the results table shows every digit the
    CSV file has."""
    import csv
    import json

    grid = tmp_path / "grid.toml"
    quickstart = (ROOT / "scenarios/quickstart.toml").as_posix()
    grid.write_text(
        f'scenario = "{quickstart}"\nrepeats = 3\nseed = 12345\n[set]\nduration = ["2s"]\n"flows[1].start" = ["1s"]\n'
        '"flows[*].send_jitter" = ["100us"]\n'
    )
    out = tmp_path / "sweep"
    _dropless("sweep", str(grid), "--out", str(out), "--jobs", "1", "--quiet", "--html")
    with open(out / "results.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    seeds = sorted({r["seed"] for r in csv_rows}, key=int)
    assert len(seeds) == 3 and any(int(s) > 2**53 for s in seeds), seeds
    p = Page(browser, out / "report.html")
    try:
        page = p.page
        headers = page.query_selector_all('[data-table="results"] th')
        names = [h.evaluate("h => h.firstChild.textContent") for h in headers]
        cells = [[td.inner_text() for td in r.query_selector_all("td")]
                 for r in page.query_selector_all('[data-table="results"] tbody tr')]
        shown = sorted({c[names.index("seed")] for c in cells}, key=int)
        assert shown == seeds
        # Every results column as the CSV writes it (the page keeps the rows' order).
        for name in ("goodput_bps", "loss_per_10k", "seed"):
            assert [c[names.index(name)] for c in cells] == [r[name] for r in csv_rows], name
        # A seed copied from the page reproduces the run: `dropless run` with it
        # reports the same seed in summary.json and the same goodput.
        first = csv_rows[0]
        run_out = tmp_path / "one"
        _dropless("run", quickstart, "--out", str(run_out), "--set", "duration=2s",
                  "--set", "flows[1].start=1s", "--set", "flows[*].send_jitter=100us", "--set", f"seed={first['seed']}")
        summary = json.loads((run_out / "summary.json").read_text())
        assert str(summary["seed"]) == first["seed"]
        assert float(summary["flows"][0]["goodput_bps"]) == float(first["goodput_bps"])
        assert p.errors == [], p.errors
    finally:
        p.close()
