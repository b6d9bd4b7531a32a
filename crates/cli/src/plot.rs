//! Plots in the style of the seed papers' figures: a white, framed plot with
//! time in seconds on the x axis, one line per flow with a legend, no grid.
//! PNG through plotters' bitmap backend with an embedded font (no system
//! fonts needed), SVG through its SVG backend.

use std::path::Path;
use std::sync::Once;

use dropless_scenario::Scenario;
use dropless_sim::SimResult;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Colour-blind-safe palette (Okabe and Ito), strong enough for thin lines.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(128, 128, 128),
];

/// Most lines drawn in one plot (beyond, flows are averaged per [[flows]] entry).
const MAX_LINES: usize = 10;
/// Most points per line (longer series are averaged in buckets).
const MAX_POINTS: usize = 1200;
/// Most points per throughput line: goodput is averaged over at least
/// 1/200 of the run, as the papers plot it, so that packet-level jitter does
/// not hide the trend.
const THROUGHPUT_POINTS: usize = 200;

fn ensure_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if register_font(FAMILY, FontStyle::Normal, FONT).is_err() {
            eprintln!(
                "warning: the embedded plot font could not be loaded; plot text may be missing"
            );
        }
    });
}

struct Line {
    label: String,
    pts: Vec<(f64, f64)>,
    color: RGBColor,
    dashed: bool,
}

struct Panel {
    file: String,
    title: String,
    /// Horizontal axis: its label and where it starts (time plots: 0 s).
    x_label: String,
    x_min: f64,
    y_label: String,
    lines: Vec<Line>,
}

/// Averages `y` over buckets so that at most `MAX_POINTS` remain; NaNs are
/// skipped, and a bucket with only NaNs stays NaN (a gap in the line).
fn thin(t: &[f64], y: &[f64], scale: f64, max_points: usize) -> Vec<(f64, f64)> {
    let n = t.len().min(y.len());
    let k = n.div_ceil(max_points).max(1);
    let mut out = Vec::with_capacity(n / k + 1);
    let mut i = 0;
    while i < n {
        let j = (i + k).min(n);
        let (mut s, mut c) = (0.0, 0);
        for v in &y[i..j] {
            if v.is_finite() {
                s += v;
                c += 1;
            }
        }
        let x = t[j - 1];
        out.push((
            x,
            if c > 0 {
                s / c as f64 * scale
            } else {
                f64::NAN
            },
        ));
        i = j;
    }
    out
}

/// Groups of flows drawn as one line each: every flow, or per entry means.
fn groups(s: &Scenario, n_series: usize) -> Vec<(String, Vec<usize>)> {
    if n_series <= MAX_LINES {
        return (0..n_series)
            .map(|i| (s.flows[i].label.clone(), vec![i]))
            .collect();
    }
    let mut g: Vec<(String, Vec<usize>)> = Vec::new();
    for i in 0..n_series {
        let e = s.flows[i].entry;
        if let Some(x) = g.iter_mut().find(|x| s.flows[x.1[0]].entry == e) {
            x.1.push(i);
        } else {
            g.push((s.config.flows[i].cc.clone(), vec![i]));
        }
    }
    for (label, members) in &mut g {
        let e = s.flows[members[0]].entry;
        *label = format!("flows[{e}]: {label}, mean of {}", members.len());
    }
    g.truncate(MAX_LINES);
    g
}

fn mean_of(cols: &[&Vec<f64>]) -> Vec<f64> {
    let n = cols.first().map_or(0, |c| c.len());
    (0..n)
        .map(|i| {
            let (mut s, mut c) = (0.0, 0);
            for col in cols {
                let v = col[i];
                if v.is_finite() {
                    s += v;
                    c += 1;
                }
            }
            if c > 0 {
                s / c as f64
            } else {
                f64::NAN
            }
        })
        .collect()
}

fn max_finite<'a>(it: impl Iterator<Item = &'a f64>) -> f64 {
    it.copied().filter(|v| v.is_finite()).fold(0.0, f64::max)
}

/// Picks a unit for bits/s values: (divisor, name).
fn rate_unit(max_bps: f64) -> (f64, &'static str) {
    if max_bps >= 2e9 {
        (1e9, "Gbps")
    } else if max_bps >= 2e6 {
        (1e6, "Mbps")
    } else {
        (1e3, "kbps")
    }
}

fn panels(s: &Scenario, r: &SimResult) -> Vec<Panel> {
    let t = &r.series.t;
    let mut out = Vec::new();
    // Hide samples from before a flow started and after it ended (stopped or
    // completed): the controller's state there is not a measurement.
    let dt = dropless_cc::secs(s.config.sample_interval);
    let masked: Vec<dropless_sim::FlowSeries> = r
        .series
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (start, end) = (r.flows[i].start_s, r.flows[i].end_s + dt);
            let mut f = f.clone();
            for (k, &tk) in t.iter().enumerate() {
                if tk < start || tk > end {
                    f.goodput_bps[k] = f64::NAN;
                }
                if tk < start || tk > end {
                    f.cwnd[k] = f64::NAN;
                    f.pacing_bps[k] = f64::NAN;
                    f.rtt_s[k] = f64::NAN;
                }
            }
            f
        })
        .collect();
    let fs = &masked;
    if !fs.is_empty() {
        let g = groups(s, fs.len());
        let pick = |f: &dyn Fn(usize) -> Vec<f64>| -> Vec<(String, Vec<f64>)> {
            g.iter()
                .map(|(label, m)| {
                    let cols: Vec<Vec<f64>> = m.iter().map(|&i| f(i)).collect();
                    let y = if cols.len() == 1 {
                        cols.into_iter().next().expect("one")
                    } else {
                        mean_of(&cols.iter().collect::<Vec<_>>())
                    };
                    (label.clone(), y)
                })
                .collect()
        };
        let mk = |data: Vec<(String, Vec<f64>)>, scale: f64, points: usize| -> Vec<Line> {
            data.into_iter()
                .enumerate()
                .map(|(k, (label, y))| Line {
                    label,
                    pts: thin(t, &y, scale, points),
                    color: PALETTE[k % PALETTE.len()],
                    dashed: false,
                })
                .collect()
        };
        let gp = pick(&|i| fs[i].goodput_bps.clone());
        let (div, unit) = rate_unit(max_finite(gp.iter().flat_map(|(_, y)| y.iter())));
        out.push(Panel {
            file: "throughput".into(),
            x_label: "Time (s)".into(),
            x_min: 0.0,
            title: "Throughput per flow".into(),
            y_label: format!("Goodput ({unit})"),
            lines: mk(gp, 1.0 / div, THROUGHPUT_POINTS),
        });
        let mut cw = pick(&|i| fs[i].cwnd.clone());
        let pr = pick(&|i| fs[i].pacing_bps.clone());
        let has = |y: &Vec<f64>| y.iter().any(|v| v.is_finite());
        let count = |y: &Vec<f64>| y.iter().filter(|v| v.is_finite()).count();
        // A rate-based flow sets a pacing rate and (almost) never a window:
        // leave it out of the window plot and show its rate instead.
        let mut windowless = false;
        for ((_, w), (_, p)) in cw.iter_mut().zip(&pr) {
            if count(p) > count(w) {
                windowless = true;
                w.iter_mut().for_each(|v| *v = f64::NAN);
            }
        }
        if cw.iter().any(|(_, y)| has(y)) {
            out.push(Panel {
                file: "cwnd".into(),
                x_label: "Time (s)".into(),
                x_min: 0.0,
                title: "Congestion window".into(),
                y_label: "cwnd (packets)".into(),
                lines: mk(cw, 1.0, MAX_POINTS),
            });
        }
        if windowless && pr.iter().any(|(_, y)| has(y)) {
            let (div, unit) = rate_unit(max_finite(pr.iter().flat_map(|(_, y)| y.iter())));
            out.push(Panel {
                file: "rate".into(),
                x_label: "Time (s)".into(),
                x_min: 0.0,
                title: "Sending rate".into(),
                y_label: format!("Pacing rate ({unit})"),
                lines: mk(pr, 1.0 / div, MAX_POINTS),
            });
        }
        out.push(Panel {
            file: "rtt".into(),
            x_label: "Time (s)".into(),
            x_min: 0.0,
            title: "Round-trip time".into(),
            y_label: "RTT (ms)".into(),
            lines: mk(pick(&|i| fs[i].rtt_s.clone()), 1e3, MAX_POINTS),
        });
    }
    let mut q = Vec::new();
    let mut off: Vec<String> = Vec::new();
    for (l, ls) in r.series.links.iter().enumerate() {
        let color = PALETTE[l % PALETTE.len()];
        let name = if r.series.links.len() == 1 {
            "bottleneck queue".to_string()
        } else {
            format!("link {l} queue")
        };
        q.push(Line {
            label: name,
            pts: thin(t, &ls.queue_pkts, 1.0, MAX_POINTS),
            color,
            dashed: false,
        });
        let info = &s.links[l];
        let limit = info
            .buffer_pkts
            .map(|p| p as f64)
            .or(info.buffer_bytes.map(|b| b as f64 / info.wire_size as f64));
        let peak = max_finite(ls.queue_pkts.iter());
        let off_scale = limit.is_some_and(|lim| lim > 3.0 * peak.max(1.0));
        if off_scale {
            off.push(info.buffer_text.clone());
        }
        if let (Some(lim), Some(&t_end), false) = (limit, t.last(), off_scale) {
            q.push(Line {
                label: if r.series.links.len() == 1 {
                    format!("buffer ({})", info.buffer_text)
                } else {
                    format!("link {l} buffer")
                },
                pts: vec![(0.0, lim), (t_end, lim)],
                color: if r.series.links.len() == 1 {
                    BLACK
                } else {
                    color
                },
                dashed: true,
            });
        }
    }
    if !q.is_empty() {
        let mut title = if r.series.links.len() == 1 {
            "Bottleneck queue".to_string()
        } else {
            "Link queues".to_string()
        };
        if !off.is_empty() {
            off.dedup();
            title = format!("{title} (buffer {} is off the scale)", off.join(", "));
        }
        out.push(Panel {
            file: "queue".into(),
            x_label: "Time (s)".into(),
            x_min: 0.0,
            title,
            y_label: "Queue (packets)".into(),
            lines: q,
        });
    }
    out
}

fn tick(v: f64) -> String {
    let a = v.abs();
    let s = if a == 0.0 {
        "0".to_string()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Font sizes for one drawing scale.
struct Sizes {
    caption: u32,
    axis: u32,
    label: u32,
    legend: u32,
    line: u32,
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    x_max: f64,
    z: &Sizes,
    separate_segments: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing {}: {e:?}", p.file);
    // From 0, or below it for negative data (logarithms), to the largest.
    let (y_bot, y_top) = p
        .lines
        .iter()
        .flat_map(|l| l.pts.iter().map(|(_, y)| *y))
        .filter(|v| v.is_finite())
        .fold((0.0, 0.0), |(lo, hi): (f64, f64), v| (lo.min(v), hi.max(v)));
    // Headroom above the data for the legend in the upper right corner.
    let headroom = (1.1 + 0.07 * p.lines.len() as f64).min(1.6);
    let span = y_top - y_bot;
    let y_max = if span > 0.0 {
        y_bot + span * headroom
    } else {
        1.0
    };
    let x_min = p.x_min;
    let x_max = if x_max > x_min { x_max } else { x_min + 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, (FAMILY, z.caption))
        .margin(z.label)
        .x_label_area_size(z.axis * 3)
        .y_label_area_size(z.axis * 4)
        .build_cartesian_2d(x_min..x_max, y_bot..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .axis_desc_style((FAMILY, z.axis))
        .label_style((FAMILY, z.label))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .x_labels(8)
        .y_labels(6)
        .axis_style(BLACK.stroke_width(1))
        .draw()
        .map_err(e)?;
    // Frame the plot on all four sides, as gnuplot and matplotlib figures do.
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(x_min, y_bot), (x_max, y_max)],
            BLACK.stroke_width(1),
        )))
        .map_err(e)?;
    for line in &p.lines {
        let style = line.color.stroke_width(z.line);
        // Split at gaps (NaN) so missing samples are not bridged.
        let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for &(x, y) in &line.pts {
            if y.is_finite() {
                segments.last_mut().expect("non-empty").push((x, y));
            } else if !segments.last().expect("non-empty").is_empty() {
                segments.push(Vec::new());
            }
        }
        segments.retain(|s| !s.is_empty());
        if segments.is_empty() {
            continue;
        }
        let color = line.color;
        let lw = z.line;
        let dashed = line.dashed;
        for (k, seg) in segments.into_iter().enumerate() {
            let anno = if line.dashed {
                chart
                    .draw_series(DashedLineSeries::new(seg, 8, 5, style))
                    .map_err(e)?
            } else if separate_segments {
                // The bitmap backend joins thick polylines with unlimited
                // miters, which draws spikes at sharp turns: draw each
                // segment on its own instead.
                chart
                    .draw_series(
                        seg.windows(2)
                            .map(|w| PathElement::new(vec![w[0], w[1]], style)),
                    )
                    .map_err(e)?
            } else {
                chart.draw_series(LineSeries::new(seg, style)).map_err(e)?
            };
            if k == 0 {
                anno.label(&line.label).legend(move |(x, y)| {
                    let w = if dashed { 10 } else { 22 };
                    PathElement::new(vec![(x, y), (x + w, y)], color.stroke_width(lw))
                });
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FAMILY, z.legend))
        .draw()
        .map_err(e)?;
    Ok(())
}

/// Rows and columns of an overview with `n` panels.
fn grid(n: usize) -> (usize, usize) {
    if n <= 2 {
        (1, n.max(1))
    } else {
        (n.div_ceil(2), 2)
    }
}

fn draw_grid<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    panels: &[&Panel],
    x_max: f64,
    title: Option<&str>,
    z: &Sizes,
    bitmap: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing: {e:?}");
    root.fill(&WHITE).map_err(e)?;
    let area = match title {
        Some(t) => root.titled(t, (FAMILY, z.caption + 4)).map_err(e)?,
        None => root.clone(),
    };
    let (rows, cols) = grid(panels.len());
    for (a, p) in area.split_evenly((rows, cols)).iter().zip(panels) {
        draw_panel(a, p, x_max, z, bitmap)?;
    }
    root.present().map_err(e)
}

const ONE: Sizes = Sizes {
    caption: 20,
    axis: 16,
    label: 14,
    legend: 14,
    line: 2,
};

/// Draws every plot into `dir`; returns the file names.
pub fn draw_all(dir: &Path, s: &Scenario, r: &SimResult) -> Result<Vec<String>, String> {
    ensure_font();
    let ps = panels(s, r);
    if ps.is_empty() || r.series.t.is_empty() {
        return Ok(Vec::new());
    }
    let x_max = r.duration_s;
    let mut files = Vec::new();
    for p in &ps {
        let png = dir.join(format!("{}.png", p.file));
        draw_grid(
            BitMapBackend::new(&png, (900, 560)).into_drawing_area(),
            &[p],
            x_max,
            None,
            &ONE,
            true,
        )?;
        let svg = dir.join(format!("{}.svg", p.file));
        draw_grid(
            SVGBackend::new(&svg, (900, 560)).into_drawing_area(),
            &[p],
            x_max,
            None,
            &ONE,
            false,
        )?;
        files.push(format!("{}.png", p.file));
        files.push(format!("{}.svg", p.file));
    }
    let refs: Vec<&Panel> = ps.iter().collect();
    let title = format!("{}: {}", s.name, s.description.as_deref().unwrap_or(""));
    let title = title.trim_end_matches([':', ' ']);
    let size = (1600, 520 * grid(refs.len()).0 as u32);
    let png = dir.join("overview.png");
    draw_grid(
        BitMapBackend::new(&png, size).into_drawing_area(),
        &refs,
        x_max,
        Some(title),
        &ONE,
        true,
    )?;
    let svg = dir.join("overview.svg");
    draw_grid(
        SVGBackend::new(&svg, size).into_drawing_area(),
        &refs,
        x_max,
        Some(title),
        &ONE,
        false,
    )?;
    files.push("overview.png".into());
    files.push("overview.svg".into());
    Ok(files)
}

/// Draws one plot of lines of `(x, y)` points (an experiment report's
/// `[[plot]]`) as PNG at `png`; the x axis spans the data.
pub fn draw_xy(
    png: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[(String, Vec<(f64, f64)>)],
) -> Result<(), String> {
    ensure_font();
    let xs = || {
        lines
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(x, _)| *x))
            .filter(|x| x.is_finite())
    };
    // From 0 for positive data (time, rates), else from the smallest x.
    let x_min = xs().fold(f64::INFINITY, f64::min).min(0.0);
    let x_max = xs().fold(f64::NEG_INFINITY, f64::max);
    if !x_min.is_finite() || !x_max.is_finite() {
        return Err(format!("{title}: nothing to plot"));
    }
    let panel = Panel {
        file: png.display().to_string(),
        title: title.to_string(),
        x_label: x_label.to_string(),
        x_min,
        y_label: y_label.to_string(),
        lines: lines
            .iter()
            .take(MAX_LINES)
            .enumerate()
            .map(|(i, (label, pts))| Line {
                label: label.clone(),
                pts: pts.clone(),
                color: PALETTE[i % PALETTE.len()],
                dashed: false,
            })
            .collect(),
    };
    draw_grid(
        BitMapBackend::new(png, (900, 560)).into_drawing_area(),
        &[&panel],
        x_max,
        None,
        &ONE,
        true,
    )
}
