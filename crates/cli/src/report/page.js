// The script of `dropless report` pages: sortable tables and uPlot charts
// drawn from the JSON in <script id="report-data">. No dependency besides
// uPlot, which the page carries too. Text from the data is only ever set
// with textContent, never parsed as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var SHOW_ROWS = 1000;
  var instances = [];

  // A number for a table cell or legend: integers as they are, others
  // with 4 significant digits (6 from 100 up), very large or small ones
  // in exponent form.
  function fmt(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v !== "number") return String(v);
    if (!isFinite(v) || Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    if (a >= 1e9 || a < 1e-4) return v.toExponential(3);
    return String(parseFloat(v.toPrecision(a >= 100 ? 6 : 4)));
  }

  // A number for a table cell, where a user copies it: every digit it
  // has (JavaScript's shortest round-trip form, as the CSV files write
  // numbers). Integers too large for a double travel as strings and are
  // shown as they are.
  function exact(v) {
    if (v === null || v === undefined) return "–";
    return String(v);
  }
  function numeric(v) {
    return typeof v === "number" || (typeof v === "string" && /^-?[0-9]+$/.test(v));
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Null and undefined sort last whatever the direction.
  function missing(v) { return v === null || v === undefined; }
  function cmp(a, b) {
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  // A table from {columns: [{name, unit}], rows: [[...]], total}; a click
  // (or Enter) on a header sorts by that column, again reverses.
  function makeTable(host, spec) {
    var rows = spec.rows.slice();
    var sortCol = -1, asc = true;
    var wrap = el("div", "scroll");
    var table = el("table", "data");
    var hr = table.createTHead().insertRow();
    var ths = spec.columns.map(function (c, i) {
      var th = el("th", null, c.name);
      if (c.unit) th.appendChild(el("span", "unit", c.unit));
      th.tabIndex = 0;
      th.setAttribute("aria-sort", "none");
      th.title = "Sort by " + c.name;
      th.addEventListener("click", function () { sortBy(i); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(i); }
      });
      hr.appendChild(th);
      return th;
    });
    var tbody = table.createTBody();
    function render() {
      tbody.textContent = "";
      rows.slice(0, SHOW_ROWS).forEach(function (r) {
        var tr = tbody.insertRow();
        r.forEach(function (v) {
          var td = tr.insertCell();
          td.textContent = exact(v);
          if (numeric(v)) td.className = "num";
        });
      });
    }
    function sortBy(i) {
      asc = sortCol === i ? !asc : true;
      sortCol = i;
      rows.sort(function (a, b) {
        var am = missing(a[i]), bm = missing(b[i]);
        if (am || bm) return am === bm ? 0 : (am ? 1 : -1);
        var c = cmp(a[i], b[i]);
        return asc ? c : -c;
      });
      ths.forEach(function (th, k) {
        th.setAttribute("aria-sort", k === i ? (asc ? "ascending" : "descending") : "none");
      });
      render();
    }
    render();
    wrap.appendChild(table);
    host.appendChild(wrap);
    var shown = Math.min(rows.length, SHOW_ROWS);
    if (spec.total > shown) {
      host.appendChild(el("p", "note", "Showing " + shown + " of " + spec.total +
        " rows" + (rows.length < spec.total ? " (the page holds the first " + rows.length +
        "; sorting sorts those)" : " (sorting sorts them all)") + "."));
    }
  }

  function widthOf(host) { return Math.max(320, Math.floor(host.clientWidth) - 4); }

  function valueFmt(unit) {
    return function (u, v) { return v === null || v === undefined ? "–" : fmt(v) + (unit ? " " + unit : ""); };
  }

  // A time-series plot: {id, title, unit, sync, x, series: [{label, values}]}.
  function makePlot(host, p) {
    var div = el("div", "plot");
    div.id = "plot-" + p.id;
    host.appendChild(div);
    var series = [{ label: "time (s)", value: valueFmt("s") }];
    p.series.forEach(function (s, i) {
      series.push({
        label: s.label,
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        value: valueFmt(p.unit),
      });
    });
    var opts = {
      title: p.title + (p.unit ? " (" + p.unit + ")" : ""),
      width: widthOf(host),
      height: 280,
      scales: { x: { time: false } },
      series: series,
      axes: [{ label: "time (s)" }, { label: p.unit, size: 64 }],
      cursor: { sync: { key: p.sync }, drag: { x: true, y: false } },
    };
    var u = new uPlot(opts, [p.x].concat(p.series.map(function (s) { return s.values; })), div);
    instances.push({ u: u, host: host, height: 280 });
  }

  // A sweep chart: one metric's mean, min and max at each of a key's values.
  function makeChart(host, c, metric) {
    var m = c.metrics[metric];
    if (!m) return;
    var xs = c.values.map(function (_, i) { return i; });
    var labels = c.values;
    var div = el("div", "plot");
    host.appendChild(div);
    var line = function (label, color, dash, width) {
      return { label: label, stroke: color, dash: dash, width: width,
        points: { show: true, size: 7, fill: color }, value: valueFmt(m.unit) };
    };
    var opts = {
      title: m.label + " vs " + c.key,
      width: widthOf(host),
      height: 260,
      scales: { x: { time: false, range: function () { return [-0.5, xs.length - 0.5]; } } },
      series: [
        { label: c.key, value: function (u, v) { return v === null || v === undefined ? "–" : String(labels[v]); } },
        line("mean", COLORS[0], undefined, 2),
        line("min", COLORS[1], [5, 4], 1),
        line("max", COLORS[3], [5, 4], 1),
      ],
      axes: [
        { label: c.key, splits: function () { return xs; },
          values: function (u, splits) { return splits.map(function (i) { return labels[i] === undefined ? "" : String(labels[i]); }); } },
        { label: m.unit, size: 64 },
      ],
      cursor: { drag: { x: false, y: false } },
    };
    var u = new uPlot(opts, [xs, m.mean, m.min, m.max], div);
    instances.push({ u: u, host: host, height: 260 });
  }

  Object.keys(data.tables || {}).forEach(function (name) {
    var host = document.querySelector('[data-table="' + name + '"]');
    if (host) makeTable(host, data.tables[name]);
  });

  if (data.kind === "run") {
    var plots = document.getElementById("plots");
    (data.plots || []).forEach(function (p) { makePlot(plots, p); });
  } else if (data.kind === "sweep") {
    var charts = document.getElementById("charts");
    var select = document.getElementById("metric");
    var first = data.charts[0];
    if (first && select) {
      Object.keys(first.metrics).forEach(function (k) {
        var o = el("option", null, first.metrics[k].label + (first.metrics[k].unit ? " (" + first.metrics[k].unit + ")" : ""));
        o.value = k;
        select.appendChild(o);
      });
      var draw = function () {
        instances.forEach(function (i) { i.u.destroy(); });
        instances.length = 0;
        charts.textContent = "";
        data.charts.forEach(function (c) { makeChart(charts, c, select.value); });
      };
      select.addEventListener("change", draw);
      draw();
    }
  }

  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      instances.forEach(function (i) { i.u.setSize({ width: widthOf(i.host), height: i.height }); });
    }, 100);
  });
  // For tests and the console.
  window.droplessReport = { data: data, plots: instances };
})();
