//! The summary table `dropless run` prints.

use dropless_scenario::units::fmt_rate;
use dropless_scenario::Scenario;
use dropless_sim::SimResult;

/// Most flow rows printed; the rest are in summary.json.
const MAX_ROWS: usize = 40;

/// Longest cell of a table, characters; longer ones are cut (the full text
/// is in summary.json).
const MAX_CELL: usize = 80;

/// `s` made safe for a terminal and a table: control characters (an
/// escape sequence in a flow label would otherwise reach the terminal) are
/// written as `\u{..}` escapes, and text beyond `max` characters is cut
/// with a trailing `…`.
pub fn printable(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Prints rows as a plain text table, columns right-aligned except the
/// first `left` ones; cells pass through [`printable`].
pub fn render(header: &[&str], rows: &[Vec<String>], left: usize) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| printable(c, MAX_CELL)).collect())
        .collect();
    let rows = &rows;
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            w[k] = w[k].max(c.chars().count());
        }
    }
    let fmt_row = |cells: Vec<&str>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(k, c)| {
                if k < left {
                    format!("{c:<width$}", width = w[k])
                } else {
                    format!("{c:>width$}", width = w[k])
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = fmt_row(header.to_vec());
    out.push('\n');
    let rule: Vec<String> = w.iter().map(|n| "-".repeat(*n)).collect();
    out.push_str(&rule.join("  "));
    out.push('\n');
    for r in rows {
        out.push_str(&fmt_row(r.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

fn mbps(bps: f64) -> String {
    format!("{:.2}", bps / 1e6)
}

/// Prints the per-flow and per-link tables and the run's counters.
pub fn print(s: &Scenario, r: &SimResult, wall: f64) {
    println!(
        "{}: {} flows, {:.1} s simulated in {:.2} s ({})",
        printable(&s.name, MAX_CELL),
        r.flows.len(),
        r.duration_s,
        wall,
        s.file
    );
    if !s.overrides.is_empty() {
        let o: Vec<&str> = s.overrides.iter().map(|o| o.text.as_str()).collect();
        println!("overrides: {}", o.join(", "));
    }
    println!();
    let rows: Vec<Vec<String>> = r
        .flows
        .iter()
        .take(MAX_ROWS)
        .map(|f| {
            vec![
                f.id.to_string(),
                s.flows[f.id].label.clone(),
                format!("{:.1}", f.rtt_s * 1e3),
                mbps(f.goodput_bps),
                mbps(f.throughput_bps),
                f.packets_sent.to_string(),
                f.packets_lost.to_string(),
                format!("{:.2}", f.loss_per_10k),
                f.congestion_events.to_string(),
                format!("{:.1}", f.avg_backlog_pkts),
            ]
        })
        .collect();
    print!(
        "{}",
        render(
            &[
                "flow",
                "label",
                "rtt ms",
                "goodput Mb/s",
                "thrput Mb/s",
                "sent",
                "lost",
                "loss/10k",
                "cong.ev",
                "backlog pkt",
            ],
            &rows,
            2,
        )
    );
    if r.flows.len() > MAX_ROWS {
        println!(
            "... and {} more flows (see summary.json)",
            r.flows.len() - MAX_ROWS
        );
    }
    println!();
    let rows: Vec<Vec<String>> = r
        .links
        .iter()
        .map(|l| {
            let info = &s.links[l.id];
            vec![
                info.path.clone(),
                fmt_rate(l.rate_bps),
                info.buffer_text.clone(),
                format!("{:.1}", l.utilization * 100.0),
                format!("{:.1}", l.avg_queue_pkts),
                l.max_queue_pkts.to_string(),
                l.drops.to_string(),
            ]
        })
        .collect();
    print!(
        "{}",
        render(
            &[
                "link",
                "rate",
                "buffer",
                "util %",
                "avg q pkt",
                "max q pkt",
                "drops"
            ],
            &rows,
            1,
        )
    );
    println!();
    println!("Jain fairness (long-lived flows): {:.4}", r.jain_fairness);
    println!(
        "{} data packets, {} events; {:.2} M packets/s, {:.1}x real time",
        r.data_packets,
        r.events,
        if wall > 0.0 {
            r.data_packets as f64 / wall / 1e6
        } else {
            0.0
        },
        if wall > 0.0 { r.duration_s / wall } else { 0.0 }
    );
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn aligns_columns() {
        let t = render(
            &["id", "name", "value"],
            &[
                vec!["0".into(), "newreno".into(), "1.5".into()],
                vec!["10".into(), "x".into(), "100.25".into()],
            ],
            2,
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "id  name      value");
        assert_eq!(lines[1], "--  -------  ------");
        assert_eq!(lines[2], "0   newreno     1.5");
        assert_eq!(lines[3], "10  x        100.25");
    }
}
