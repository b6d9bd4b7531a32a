//! Walks the TOML tree of a scenario, checks every field and builds the
//! simulator's configuration.

use dropless_cc::{registry, ConnInfo, Time, MILLISECOND};
use dropless_sim::codel::CodelConfig;
use dropless_sim::config::PriceKind;
use dropless_sim::maxnet_price::MaxnetConfig;
use dropless_sim::pie::PieConfig;
use dropless_sim::rcp_price::{RcpConfig, RcpQueue};
use dropless_sim::red::RedConfig;
use dropless_sim::rem::RemConfig;
use dropless_sim::step_mark::StepConfig;
use dropless_sim::{
    Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, QueueKind, SimConfig, Ties, Topology,
};
use dropless_transport::{AckPolicy, SenderConfig};
use toml::{Table, Value};

use crate::catalog::{self, KeyDoc};
use crate::error::{did_you_mean, quoted_list, ScenarioError};
use crate::overrides::Override;
use crate::units::{self, BufferSize};
use crate::{FlowInfo, LinkInfo, Scenario};

/// Most flows a scenario may expand to.
pub const MAX_FLOWS: u64 = 1_000_000;
/// Most packets a buffer may hold (about 1 GB of simulator memory).
pub const MAX_BUFFER_PKTS: u64 = 10_000_000;
/// Most packets a link's bandwidth-delay product may hold.
pub const MAX_BDP_PKTS: f64 = 10_000_000.0;
/// Most values the time series may hold (8 bytes each).
pub const MAX_SERIES_VALUES: u64 = 20_000_000;
/// Per-flow time series are on by default up to this many flows.
pub const AUTO_FLOW_SERIES: usize = 64;
/// Fastest link rate accepted, bits/s.
pub const MAX_RATE_BPS: f64 = 100e12;

type R<T> = Result<T, ScenarioError>;

pub(crate) struct Ctx<'a> {
    pub file: &'a str,
    pub overrides: &'a [Override],
}

impl Ctx<'_> {
    fn annotate(&self, mut e: ScenarioError) -> ScenarioError {
        for o in self.overrides {
            let hit = o.paths.iter().any(|p| {
                e.path == *p
                    || e.path.starts_with(&format!("{p}."))
                    || e.path.starts_with(&format!("{p}["))
                    || (!e.path.is_empty() && p.starts_with(&format!("{}.", e.path)))
            });
            if hit {
                e = e.with_hint(format!("the value comes from --set {}", o.text));
                break;
            }
        }
        e
    }

    fn err(&self, path: &str, found: Option<String>, expected: impl Into<String>) -> ScenarioError {
        self.annotate(ScenarioError::new(self.file, path, found, expected))
    }

    /// An error about a time that must fall before the end of the run;
    /// says so if the duration came from `--set`.
    fn before_end(&self, path: &str, found: Time, duration: Time) -> ScenarioError {
        let mut e = self.err(
            path,
            Some(format!("\"{}\"", units::fmt_time(found))),
            format!(
                "a start before the end of the run (duration = \"{}\")",
                units::fmt_time(duration)
            ),
        );
        if let Some(o) = self
            .overrides
            .iter()
            .find(|o| o.paths.iter().any(|p| p == "duration"))
        {
            e = e.with_hint(format!("the duration comes from --set {}", o.text));
        }
        e
    }

    fn missing(&self, path: &str, expected: impl Into<String>) -> ScenarioError {
        let mut e = ScenarioError::new(self.file, path, None, expected);
        e.missing = true;
        self.annotate(e)
    }
}

/// How a value looks in an error message.
pub(crate) fn show(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Table(_) => "a table".to_string(),
        Value::Array(a) if a.iter().all(|x| x.is_table()) && !a.is_empty() => {
            "a list of tables".to_string()
        }
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A TOML table being read, with its field path.
struct Obj<'a, 'c> {
    ctx: &'c Ctx<'c>,
    t: &'a Table,
    path: String,
}

impl<'a, 'c> Obj<'a, 'c> {
    fn new(ctx: &'c Ctx<'c>, t: &'a Table, path: impl Into<String>) -> Self {
        Obj {
            ctx,
            t,
            path: path.into(),
        }
    }

    fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// Rejects keys not in `allowed`, with a did-you-mean; `hint` may add
    /// advice for a particular unknown key.
    fn check_keys(&self, allowed: &[&str], hint: impl Fn(&str) -> Option<String>) -> R<()> {
        for key in self.t.keys() {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let mut e = self.ctx.err(
                &self.at(key),
                Some(format!("unknown key \"{key}\"")),
                format!("one of the keys {}", allowed.join(", ")),
            );
            if let Some(h) = hint(key) {
                e = e.with_hint(h);
            } else if let Some(s) = did_you_mean(key, allowed.iter().copied()) {
                e = e.with_hint(format!("did you mean \"{s}\"?"));
            }
            return Err(e);
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.t.get(key)
    }

    fn req(&self, key: &str, expected: &str) -> R<&'a Value> {
        self.get(key)
            .ok_or_else(|| self.ctx.missing(&self.at(key), expected))
    }

    fn bad(&self, key: &str, v: &Value, expected: impl Into<String>) -> ScenarioError {
        self.ctx.err(&self.at(key), Some(show(v)), expected)
    }

    fn string(&self, key: &str, expected: &str) -> R<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.bad(key, v, expected)),
        }
    }

    /// A quantity written as a string with a unit.
    fn unit<T>(
        &self,
        key: &str,
        parse: impl Fn(&str) -> Result<T, String>,
        zero: Option<T>,
        example: &str,
    ) -> R<Option<T>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => parse(s)
                .map(Some)
                .map_err(|e| self.bad(key, &Value::String(s.clone()), e)),
            Some(v) => {
                // A bare 0 is unambiguous; any other bare number lacks its unit.
                let is_zero =
                    matches!(v, Value::Integer(0)) || matches!(v, Value::Float(f) if *f == 0.0);
                if let (true, Some(z)) = (is_zero, zero) {
                    return Ok(Some(z));
                }
                let msg = parse(&v.to_string()).err().unwrap_or_default();
                Err(self.bad(key, v, msg).with_hint(format!(
                    "write the value as a quoted string with its unit, e.g. {key} = \"{example}\""
                )))
            }
        }
    }

    fn time(&self, key: &str) -> R<Option<Time>> {
        self.unit(key, units::parse_time, Some(0), "20ms")
    }

    /// [`Obj::time`], rejecting 0 with "a positive time like `example`".
    fn positive_time(&self, key: &str, example: &str) -> R<Option<Time>> {
        match self.time(key)? {
            Some(0) => Err(self.bad(
                key,
                self.get(key).expect("present"),
                format!("a positive time like \"{example}\""),
            )),
            t => Ok(t),
        }
    }

    fn rate(&self, key: &str) -> R<Option<f64>> {
        let r = self.unit(key, units::parse_rate, None, "100Mbps")?;
        if let Some(bps) = r {
            if bps > MAX_RATE_BPS {
                return Err(self.bad(
                    key,
                    self.get(key).expect("present"),
                    "a rate of at most 100Tbps",
                ));
            }
        }
        Ok(r)
    }

    fn size(&self, key: &str) -> R<Option<u64>> {
        self.unit(key, units::parse_size, None, "1500B")
    }

    fn integer(&self, key: &str, lo: i64, hi: i64, what: &str) -> R<Option<i64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if (lo..=hi).contains(i) => Ok(Some(*i)),
            Some(v) => Err(self.bad(key, v, what)),
        }
    }

    fn boolean(&self, key: &str) -> R<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.bad(key, v, "true or false")),
        }
    }

    fn number(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// A value that must be one of `names`.
    fn choice(&self, key: &str, names: &[&'static str], what: &str) -> R<Option<&'static str>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let expected = format!("{what}: {}", quoted_list(names));
        let Value::String(s) = v else {
            return Err(self.bad(key, v, expected));
        };
        if let Some(n) = names.iter().find(|n| **n == s.as_str()) {
            return Ok(Some(n));
        }
        let mut e = self.bad(key, v, expected);
        if let Some(m) = did_you_mean(s, names.iter().copied()) {
            e = e.with_hint(format!("did you mean \"{m}\"?"));
        }
        Err(e)
    }
}

fn key_names(keys: &[KeyDoc]) -> Vec<&'static str> {
    catalog::names(keys)
}

/// A link as read, before its buffer is resolved.
struct RawLink {
    path: String,
    rate_bps: f64,
    delay: Time,
    buffer: BufferSize,
    buffer_text: String,
    queue: QueueKind,
    loss: f64,
    price: PriceKind,
    /// Channels sharing the buffer (a trunk's group); 1 for a link.
    channels: u32,
    /// Record the intervals between arrivals from this time on.
    interarrivals_from: Option<Time>,
    /// The order of an arrival and a departure at the same nanosecond.
    ties: Ties,
}

/// A trunk's own keys, as read.
struct RawTrunk {
    /// K channels in all.
    channels: u32,
    /// Channels per wavelength without conversion (`None`: full conversion).
    fibres: Option<u32>,
    /// M input links.
    inputs: u32,
    /// Rate of each input link.
    input_rate_bps: f64,
    /// Buffer of each input link as written (`None`: one BDP of an input link).
    input_buffer: Option<BufferSize>,
    /// Buffer of each access link as written (`None`: unbounded).
    access_buffer: Option<BufferSize>,
}

/// Reads `[topology.trunk]`: a link's keys plus the trunk's own.
fn read_trunk(ctx: &Ctx, v: &Value, path: &str) -> R<(RawLink, RawTrunk)> {
    let Value::Table(t) = v else {
        return Err(ctx.err(
            path,
            Some(show(v)),
            "a [topology.trunk] table with rate, delay, buffer, channels and inputs",
        ));
    };
    let o = Obj::new(ctx, t, path);
    let channels_v = o.req(
        "channels",
        "a number of wavelength channels like channels = 16",
    )?;
    let channels = o
        .integer(
            "channels",
            1,
            100_000,
            "a whole number of channels from 1 to 100000",
        )?
        .expect("present") as u32;
    let none = match o.choice("conversion", &["full", "none"], "a wavelength conversion")? {
        None | Some("full") => false,
        Some(_) => true,
    };
    let fibres = match (none, o.get("fibres")) {
        (false, Some(fv)) => {
            return Err(o.bad(
                "fibres",
                fv,
                "no fibres with full conversion (all channels form one pool); set conversion = \"none\"",
            ))
        }
        (false, None) => None,
        (true, _) => {
            let f = o
                .integer("fibres", 1, 100_000, "a whole number of fibres from 1 to 100000")?
                .unwrap_or(1) as u32;
            if channels % f != 0 {
                return Err(o.bad(
                    "fibres",
                    t.get("fibres").unwrap_or(channels_v),
                    format!("a divisor of channels ({channels}): channels = fibres x wavelengths"),
                ));
            }
            Some(f)
        }
    };
    let inputs_v = o.req("inputs", "a number of input links like inputs = 32")?;
    let inputs = o
        .integer(
            "inputs",
            1,
            1_000_000,
            "a whole number of input links from 1 to 1000000",
        )?
        .expect("present") as u32;
    if let Some(f) = fibres {
        let wavelengths = channels / f;
        if inputs < channels || inputs % wavelengths != 0 {
            return Err(o.bad(
                "inputs",
                inputs_v,
                format!(
                    "without conversion, at least channels ({channels}) input links and a multiple of the {wavelengths} wavelengths (each wavelength is fed by its own inputs)"
                ),
            ));
        }
    }
    let mut rest = t.clone();
    for key in key_names(catalog::TRUNK_KEYS) {
        rest.remove(key);
    }
    let mut link = read_link(ctx, &Value::Table(rest), path)?;
    let input_rate_bps = o.rate("input_rate")?.unwrap_or(link.rate_bps);
    let input_buffer = o.unit("input_buffer", units::parse_buffer, None, "1bdp")?;
    let access_buffer = o.unit("access_buffer", units::parse_buffer, None, "100pkt")?;
    if link.queue != QueueKind::DropTail || link.price != PriceKind::None {
        return Err(ctx.err(
            &join(path, "queue"),
            None,
            "a drop-tail trunk: no queue = \"red\" and no price on a trunk",
        ));
    }
    link.channels = fibres.unwrap_or(channels);
    // A trunk's default is the random rule (dropless_sim::ties).
    link.ties = match o.choice(
        "ties",
        &["random", "departure-first"],
        "the order of an arrival and a departure at the same nanosecond",
    )? {
        None | Some("random") => Ties::Random,
        Some(_) => Ties::DepartureFirst,
    };
    Ok((
        link,
        RawTrunk {
            channels,
            fibres,
            inputs,
            input_rate_bps,
            input_buffer,
            access_buffer,
        },
    ))
}

fn read_link(ctx: &Ctx, t: &Value, path: &str) -> R<RawLink> {
    let Value::Table(t) = t else {
        return Err(ctx.err(path, Some(show(t)), "a table with rate, delay and buffer"));
    };
    let o = Obj::new(ctx, t, path);
    let mut keys = key_names(catalog::LINK_KEYS);
    keys.extend(
        catalog::QUEUE_KINDS
            .iter()
            .chain(catalog::PRICE_KINDS)
            .flat_map(|q| key_names(q.params)),
    );
    o.check_keys(&keys, |_| None)?;
    o.req("rate", "a rate like \"100Mbps\"")?;
    let rate_bps = o.rate("rate")?.expect("present");
    o.req("delay", "a one-way propagation delay like \"10ms\"")?;
    let delay = o.time("delay")?.expect("present");
    let bv = o.req(
        "buffer",
        "a buffer like \"1000pkt\", \"1500000B\", \"1MB\" or \"1bdp\"",
    )?;
    let buffer = o
        .unit("buffer", units::parse_buffer, None, "1bdp")?
        .expect("present");
    let kind = o.choice(
        "queue",
        &catalog::kind_names(catalog::QUEUE_KINDS),
        "a queue discipline",
    )?;
    let chosen = kind.unwrap_or("droptail");
    for q in catalog::QUEUE_KINDS.iter().filter(|q| q.name != chosen) {
        for key in key_names(q.params) {
            if let Some(v) = o.get(key) {
                return Err(o.bad(
                    key,
                    v,
                    format!(
                        "no {key} without queue = \"{0}\" ({key} is for {0} only)",
                        q.name
                    ),
                ));
            }
        }
    }
    // A parameter check of the sim crate, `Err((key, allowed))`, as a
    // one-line error naming the key.
    let checked = |v: Result<(), (&'static str, String)>| -> R<()> {
        v.map_err(|(key, want)| match o.get(key) {
            Some(v) => o.bad(key, v, want),
            None => ctx.err(&join(path, key), Some("the default".into()), want),
        })
    };
    let queue = match kind {
        None | Some("droptail") => QueueKind::DropTail,
        Some("codel") => {
            let d = CodelConfig::default();
            let c = CodelConfig {
                target: o.time("codel_target")?.unwrap_or(d.target),
                interval: o.time("codel_interval")?.unwrap_or(d.interval),
                ecn: o.boolean("codel_ecn")?.unwrap_or(d.ecn),
            };
            checked(c.validate())?;
            QueueKind::Codel(c)
        }
        Some("pie") => {
            let d = PieConfig::default();
            let gain = |key: &str, dflt: f64| -> R<f64> {
                match o.get(key) {
                    None => Ok(dflt),
                    Some(v) => o
                        .number(key)
                        .ok_or_else(|| o.bad(key, v, "a number in (0, 2]")),
                }
            };
            let c = PieConfig {
                target: o.time("pie_target")?.unwrap_or(d.target),
                t_update: o.time("pie_t_update")?.unwrap_or(d.t_update),
                alpha: gain("pie_alpha", d.alpha)?,
                beta: gain("pie_beta", d.beta)?,
                max_burst: o.time("pie_max_burst")?.unwrap_or(d.max_burst),
                ecn: o.boolean("pie_ecn")?.unwrap_or(d.ecn),
            };
            checked(c.validate())?;
            QueueKind::Pie(c)
        }
        Some("rem") => {
            let d = RemConfig::default();
            let num = |key: &str, dflt: f64| -> R<f64> {
                match o.get(key) {
                    None => Ok(dflt),
                    Some(v) => o.number(key).ok_or_else(|| o.bad(key, v, "a number")),
                }
            };
            let c = RemConfig {
                gamma: num("rem_gamma", d.gamma)?,
                alpha: num("rem_alpha", d.alpha)?,
                target: num("rem_target", d.target)?,
                phi: num("rem_phi", d.phi)?,
                interval: o.time("rem_interval")?.unwrap_or(d.interval),
                ecn: o.boolean("rem_ecn")?.unwrap_or(d.ecn),
            };
            checked(c.validate())?;
            QueueKind::Rem(c)
        }
        Some("step") => {
            let d = StepConfig::default();
            let k = match o.get("step_k") {
                None => d.k,
                Some(v) => match o.number("step_k") {
                    Some(x) if x.fract() == 0.0 && (1.0..=1e6).contains(&x) => x as u64,
                    _ => return Err(o.bad("step_k", v, "a number of packets from 1 to 1000000")),
                },
            };
            let c = StepConfig {
                k,
                ecn: o.boolean("step_ecn")?.unwrap_or(d.ecn),
            };
            checked(c.validate())?;
            QueueKind::Step(c)
        }
        Some("red") => {
            let d = RedConfig::default();
            let num = |key: &str, ok: fn(f64) -> bool, want: &str, dflt: f64| -> R<f64> {
                match o.get(key) {
                    None => Ok(dflt),
                    Some(v) => match o.number(key) {
                        Some(x) if ok(x) => Ok(x),
                        _ => Err(o.bad(key, v, want)),
                    },
                }
            };
            let min_th = num(
                "red_min_th",
                |x| x > 0.0 && x.is_finite(),
                "a positive number of packets",
                d.min_th,
            )?;
            let max_th = num(
                "red_max_th",
                |x| x > 0.0 && x.is_finite(),
                "a positive number of packets",
                d.max_th,
            )?;
            if min_th > 0.0 && max_th > 0.0 && max_th <= min_th {
                // Without red_max_th, the default is what red_min_th reached.
                return Err(match t.get("red_max_th") {
                    Some(v) => o.bad("red_max_th", v, format!("above red_min_th ({min_th})")),
                    None => o.bad(
                        "red_min_th",
                        &t["red_min_th"],
                        format!("below red_max_th (default {max_th})"),
                    ),
                });
            }
            QueueKind::Red(RedConfig {
                min_th,
                max_th,
                max_p: num(
                    "red_max_p",
                    |x| x > 0.0 && x <= 1.0,
                    "a probability in (0, 1]",
                    d.max_p,
                )?,
                w_q: num(
                    "red_w_q",
                    |x| x > 0.0 && x <= 1.0,
                    "a weight in (0, 1]",
                    d.w_q,
                )?,
                gentle: o.boolean("red_gentle")?.unwrap_or(d.gentle),
                adaptive: o.boolean("red_adaptive")?.unwrap_or(d.adaptive),
                ecn: o.boolean("red_ecn")?.unwrap_or(d.ecn),
                min_queue: o
                    .integer(
                        "red_min_queue",
                        0,
                        1_000_000,
                        "a number of packets from 0 to 1000000",
                    )?
                    .map_or(d.min_queue, |x| x as u32),
            })
        }
        Some(other) => unreachable!("queue kind {other} listed but not handled"),
    };
    let price_kind = o.choice(
        "price",
        &catalog::kind_names(catalog::PRICE_KINDS),
        "a link price",
    )?;
    // Keys of the other price kinds are refused, naming the kind they
    // belong to.
    let chosen = price_kind.unwrap_or("none");
    let own = catalog::PRICE_KINDS
        .iter()
        .find(|p| p.name == chosen)
        .map_or(Vec::new(), |p| key_names(p.params));
    for p in catalog::PRICE_KINDS.iter().filter(|p| p.name != chosen) {
        for key in key_names(p.params) {
            if own.contains(&key) {
                continue;
            }
            if let Some(v) = o.get(key) {
                let with: Vec<String> = catalog::PRICE_KINDS
                    .iter()
                    .filter(|k| key_names(k.params).contains(&key))
                    .map(|k| format!("price = \"{}\"", k.name))
                    .collect();
                return Err(o.bad(key, v, format!("{key} only with {}", with.join(" or "))));
            }
        }
    }
    let gain = |key: &str, lo: f64, lo_open: bool, hi: f64, dflt: f64| -> R<f64> {
        match o.get(key) {
            None => Ok(dflt),
            Some(v) => match o.number(key) {
                Some(x) if (x > lo || (!lo_open && x == lo)) && x <= hi => Ok(x),
                _ => Err(o.bad(
                    key,
                    v,
                    format!("a number in {}{lo}, {hi}]", if lo_open { "(" } else { "[" }),
                )),
            },
        }
    };
    // The round trip and update interval RCP's and MaxNet's prices share.
    let rtt_interval = |dflt_interval: Time| -> R<(Time, Time)> {
        let rtt = o.time("price_rtt")?.unwrap_or(100 * MILLISECOND);
        if rtt == 0 || rtt > 3600 * 1000 * MILLISECOND {
            return Err(o.bad("price_rtt", &t["price_rtt"], "a round trip from 1ns to 1h"));
        }
        let interval = o.time("price_interval")?.unwrap_or(dflt_interval.min(rtt));
        if interval == 0 || interval > rtt {
            let v = t
                .get("price_interval")
                .cloned()
                .unwrap_or(Value::Integer(0));
            return Err(o.bad(
                "price_interval",
                &v,
                "an interval above 0 and at most price_rtt",
            ));
        }
        Ok((rtt, interval))
    };
    let price = match price_kind {
        None | Some("none") => PriceKind::None,
        Some("rcp") => {
            let d = RcpConfig::default();
            let (rtt, interval) = rtt_interval(d.interval)?;
            PriceKind::Rcp(RcpConfig {
                interval,
                rtt_s: dropless_cc::secs(rtt),
                alpha: gain("price_alpha", 0.0, true, 2.0, d.alpha)?,
                beta: gain("price_beta", 0.0, false, 2.0, d.beta)?,
                queue: match o.get("price_queue") {
                    None => RcpQueue::Instant,
                    Some(Value::String(q)) if q == "instant" => RcpQueue::Instant,
                    Some(Value::String(q)) if q == "min" => RcpQueue::Min,
                    Some(v) => return Err(o.bad("price_queue", v, "\"instant\" or \"min\"")),
                },
            })
        }
        Some("maxnet") => {
            let d = MaxnetConfig::default();
            let (rtt, interval) = rtt_interval(d.interval)?;
            PriceKind::Maxnet(MaxnetConfig {
                interval,
                rtt_s: dropless_cc::secs(rtt),
                alpha: gain("price_alpha", 0.0, true, 2.0, d.alpha)?,
                target: gain("price_target", 0.0, true, 1.0, d.target)?,
            })
        }
        Some(other) => unreachable!("price kind {other} listed but not handled"),
    };
    let loss = match o.get("loss") {
        None => 0.0,
        Some(v) => match o.number("loss") {
            Some(p) if (0.0..1.0).contains(&p) => p,
            _ => return Err(o.bad("loss", v, "a probability in [0, 1), like 0.001")),
        },
    };
    let interarrivals_from = o.time("interarrivals")?;
    Ok(RawLink {
        path: path.to_string(),
        rate_bps,
        delay,
        buffer,
        buffer_text: show(bv),
        queue,
        loss,
        price,
        channels: 1,
        interarrivals_from,
        ties: Ties::DepartureFirst,
    })
}

/// One `[[flows]]` entry as read.
struct RawFlow {
    path: String,
    cc: &'static str,
    params: Vec<(String, f64)>,
    rtt: Option<Time>,
    count: u64,
    start: Time,
    stagger: Time,
    stop: Option<Time>,
    size: Option<u64>,
    links: (usize, usize),
    mss: u32,
    header: u32,
    ack: AckPolicy,
    min_rto: Time,
    initial_rto: Time,
    max_rto: Time,
    max_window: Option<u64>,
    ns2_recovery: bool,
    prr: bool,
    rack: bool,
    tlp: bool,
    send_jitter: Time,
    ack_jitter: Time,
    label: Option<String>,
    host: Option<String>,
    ecn: bool,
}

fn read_flow(ctx: &Ctx, v: &Value, path: &str, n_links: usize, parking: bool) -> R<RawFlow> {
    let Value::Table(t) = v else {
        return Err(ctx.err(path, Some(show(v)), "a [[flows]] table"));
    };
    let o = Obj::new(ctx, t, path);
    let cc_name = t.get("cc").and_then(|v| v.as_str()).unwrap_or("");
    let spec = registry::find(cc_name);
    o.check_keys(&key_names(catalog::FLOW_KEYS), |k| {
        let s = spec?;
        s.param(k)?;
        Some(format!(
            "\"{k}\" is a parameter of {}: write it as params = {{ {k} = ... }}",
            s.name
        ))
    })?;
    let cc_names: Vec<&'static str> = registry::all().iter().map(|s| s.name).collect();
    let ccv = o.req(
        "cc",
        &format!("a congestion controller name: {}", quoted_list(&cc_names)),
    )?;
    let cc = match o.choice("cc", &cc_names, "a congestion controller name")? {
        Some(c) => c,
        None => unreachable!("cc is present: {ccv}"),
    };
    let spec = registry::find(cc).expect("listed");

    let mss = match o.size("mss")? {
        None => 1460,
        Some(b) if (1..=65_000).contains(&b) => b as u32,
        Some(_) => return Err(o.bad("mss", &t["mss"], "a payload size from \"1B\" to \"65000B\"")),
    };
    let header = match o.size("header")? {
        None => 40,
        Some(b) if b <= 1000 => b as u32,
        Some(_) => {
            return Err(o.bad(
                "header",
                &t["header"],
                "a header size from \"0B\" to \"1000B\"",
            ))
        }
    };

    // Controller parameters.
    let mut params = Vec::new();
    if let Some(pv) = o.get("params") {
        let Value::Table(pt) = pv else {
            return Err(o.bad(
                "params",
                pv,
                "a table of numbers, like params = { alpha = 200 }",
            ));
        };
        let ppath = o.at("params");
        let allowed = spec.param_names();
        for (k, v) in pt {
            let kp = join(&ppath, k);
            let Some(ps) = spec.param(k) else {
                let mut e = ctx.err(
                    &kp,
                    Some(format!("unknown parameter \"{k}\" of {cc}")),
                    format!("one of {cc}'s parameters {}", allowed.join(", ")),
                );
                if let Some(s) = did_you_mean(k, allowed.iter().copied()) {
                    e = e.with_hint(format!("did you mean \"{s}\"?"));
                }
                return Err(e);
            };
            let x = match v {
                Value::Integer(i) => *i as f64,
                Value::Float(f) => *f,
                Value::Boolean(b) => f64::from(u8::from(*b)),
                _ => {
                    return Err(ctx
                        .err(&kp, Some(show(v)), "a number")
                        .with_hint(format!("{cc}'s {k}: {} (default {})", ps.help, ps.default)))
                }
            };
            params.push((k.clone(), x));
        }
        let info = ConnInfo {
            mss,
            wire_size: mss + header,
            seed: 0,
        };
        if let Err(e) = registry::build(cc, &params, &info) {
            return Err(match e {
                registry::BuildError::BadValue {
                    param,
                    value,
                    reason,
                    ..
                } => {
                    let kp = join(&ppath, &param);
                    let found = pt
                        .get(&param)
                        .map_or_else(|| format!("{value} (the default)"), show);
                    let reason = reason
                        .strip_prefix("must be ")
                        .unwrap_or(&reason)
                        .to_string();
                    let help = spec.param(&param).map(|p| p.help).unwrap_or_default();
                    ctx.err(&kp, Some(found), reason)
                        .with_hint(format!("{cc}'s {param}: {help}"))
                }
                other => ctx.err(&ppath, None, other.to_string()),
            });
        }
    }

    let rtt = o.positive_time("rtt", "20ms")?;
    let count = o
        .integer(
            "count",
            1,
            i64::MAX,
            &format!("a whole number of flows from 1 to {MAX_FLOWS}"),
        )?
        .unwrap_or(1) as u64;
    if count > MAX_FLOWS {
        return Err(o.bad(
            "count",
            &t["count"],
            format!("a whole number of flows from 1 to {MAX_FLOWS}"),
        ));
    }
    let start = o.time("start")?.unwrap_or(0);
    let stagger = o.time("stagger")?.unwrap_or(0);
    let stop = o.time("stop")?;
    if let Some(s) = stop {
        if s <= start {
            return Err(o.bad(
                "stop",
                &t["stop"],
                format!("a time after start ({})", units::fmt_time(start)),
            ));
        }
    }
    let size = match o.get("size") {
        None => None,
        Some(Value::String(s)) => match units::parse_transfer(s, mss) {
            Ok(0) => return Err(o.bad("size", &t["size"], "a positive size like \"10MB\"")),
            Ok(b) => Some(b),
            Err(e) => return Err(o.bad("size", &t["size"], e)),
        },
        Some(v) => return Err(o.bad("size", v, "a size like \"10MB\" or \"1000pkt\"")),
    };
    let links = match o.get("path") {
        None => (0, n_links - 1),
        Some(v) => {
            let expected = if parking {
                format!(
                    "a link index from 0 to {} or [first, last] with first <= last",
                    n_links - 1
                )
            } else {
                "0 or [0, 0]: a dumbbell has one link".to_string()
            };
            let ix = |x: &Value| x.as_integer().filter(|&i| i >= 0 && (i as usize) < n_links);
            let p = match v {
                Value::Integer(_) => ix(v).map(|i| (i as usize, i as usize)),
                Value::Array(a) if a.len() == 2 => match (ix(&a[0]), ix(&a[1])) {
                    (Some(x), Some(y)) if x <= y => Some((x as usize, y as usize)),
                    _ => None,
                },
                _ => None,
            };
            p.ok_or_else(|| o.bad("path", v, expected))?
        }
    };
    let ack = match o.choice(
        "ack",
        &catalog::kind_names(catalog::ACK_POLICIES),
        "an ACK policy",
    )? {
        None | Some("every") => AckPolicy::EveryPacket,
        Some("delayed") => AckPolicy::DELAYED,
        Some("probe-only") => AckPolicy::ProbeOnly,
        Some(other) => unreachable!("ack policy {other} listed but not handled"),
    };
    let min_rto = o
        .positive_time("min_rto", "200ms")?
        .unwrap_or(200 * MILLISECOND);
    let initial_rto = o
        .positive_time("initial_rto", "1s")?
        .unwrap_or(SenderConfig::default().initial_rto);
    let max_rto = o
        .time("max_rto")?
        .unwrap_or(SenderConfig::default().max_rto);
    if max_rto < min_rto {
        // Either key may be the one the user wrote: without max_rto the
        // default ceiling is what min_rto went past.
        return Err(match t.get("max_rto") {
            Some(v) => o.bad("max_rto", v, "a time at least min_rto"),
            None => o.bad(
                "min_rto",
                &t["min_rto"],
                format!(
                    "a time no more than max_rto (default {})",
                    units::fmt_time(SenderConfig::default().max_rto)
                ),
            ),
        });
    }
    let max_window = match o.get("max_window") {
        None => None,
        Some(v) => {
            const EXPECTED: &str =
                "a window like \"1000pkt\" or \"172KB\" (packets, or bytes of payload), from 1 packet to 16777216";
            let pkts = match v {
                Value::String(s) => match units::parse_buffer(s) {
                    Ok(BufferSize::Packets(n)) => Some(n),
                    Ok(BufferSize::Bytes(b)) => Some(b.div_ceil(mss as u64)),
                    _ => None,
                },
                _ => None,
            };
            match pkts {
                Some(n) if (1..=1 << 24).contains(&n) => Some(n),
                _ => return Err(o.bad("max_window", v, EXPECTED)),
            }
        }
    };
    let ns2_recovery = o.boolean("ns2_recovery")?.unwrap_or(false);
    let prr = o.boolean("prr")?.unwrap_or(false);
    let rack = o.boolean("rack")?.unwrap_or(false);
    let tlp = o.boolean("tlp")?.unwrap_or(false);
    let ecn = o.boolean("ecn")?.unwrap_or(false);
    if prr && ns2_recovery {
        return Err(o.bad(
            "prr",
            &Value::Boolean(true),
            "false when ns2_recovery = true (the ns-2 module's recovery has its own pipe; PRR applies to the RFC 6675 recovery)",
        ));
    }
    let send_jitter = o.time("send_jitter")?.unwrap_or(0);
    let ack_jitter = o.time("ack_jitter")?.unwrap_or(0);
    let label = o.string("label", "a string")?.map(str::to_string);
    let host = o
        .string(
            "host",
            "a host name (flows with the same host share one pacer)",
        )?
        .map(str::to_string);
    if host.is_some() && send_jitter > 0 {
        return Err(o.bad(
            "host",
            &t["host"],
            "no host with send_jitter (the host's shared pacer times the sends)",
        ));
    }
    Ok(RawFlow {
        path: path.to_string(),
        cc,
        params,
        rtt,
        count,
        start,
        stagger,
        stop,
        size,
        links,
        mss,
        header,
        ack,
        min_rto,
        initial_rto,
        max_rto,
        max_window,
        ns2_recovery,
        prr,
        rack,
        tlp,
        send_jitter,
        ack_jitter,
        label,
        host,
        ecn,
    })
}

fn read_cross(ctx: &Ctx, v: &Value, path: &str, n_links: usize) -> R<CrossSpec> {
    let Value::Table(t) = v else {
        return Err(ctx.err(path, Some(show(v)), "a [[cross_traffic]] table"));
    };
    let o = Obj::new(ctx, t, path);
    o.check_keys(&key_names(catalog::CROSS_KEYS), |_| None)?;
    let kinds = catalog::kind_names(catalog::TRAFFIC_KINDS);
    o.req(
        "kind",
        &format!("a cross-traffic kind: {}", quoted_list(&kinds)),
    )?;
    let kind = o
        .choice("kind", &kinds, "a cross-traffic kind")?
        .expect("present");
    o.req("rate", "a mean rate like \"20Mbps\"")?;
    let rate_bps = o.rate("rate")?.expect("present");
    let packet_size = match o.size("packet_size")? {
        None => 1500,
        Some(b) if (1..=65_535).contains(&b) => b as u32,
        Some(_) => {
            return Err(o.bad(
                "packet_size",
                &t["packet_size"],
                "a packet size from \"1B\" to \"65535B\"",
            ))
        }
    };
    let link = o
        .integer(
            "link",
            0,
            n_links as i64 - 1,
            &format!("a shared link index from 0 to {}", n_links - 1),
        )?
        .unwrap_or(0) as usize;
    let start = o.time("start")?.unwrap_or(0);
    let stop = o.time("stop")?;
    if let Some(s) = stop {
        if s <= start {
            return Err(o.bad(
                "stop",
                &t["stop"],
                format!("a time after start ({})", units::fmt_time(start)),
            ));
        }
    }
    let kind = match kind {
        "pareto" => {
            let shape = match o.get("shape") {
                None => 1.5,
                Some(v) => match o.number("shape") {
                    Some(s) if s > 1.0 && s.is_finite() => s,
                    _ => return Err(o.bad("shape", v, "a number above 1, like 1.5")),
                },
            };
            let mean_on = o
                .positive_time("mean_on", "500ms")?
                .unwrap_or(500 * MILLISECOND);
            let mean_off = o.time("mean_off")?.unwrap_or(500 * MILLISECOND);
            CrossKind::ParetoOnOff {
                shape,
                mean_on,
                mean_off,
            }
        }
        k => {
            for key in ["shape", "mean_on", "mean_off"] {
                if let Some(v) = o.get(key) {
                    return Err(o.bad(
                        key,
                        v,
                        format!(
                            "no {key} for kind = \"{k}\" ({key} is for kind = \"pareto\" only)"
                        ),
                    ));
                }
            }
            if k == "poisson" {
                CrossKind::Poisson
            } else {
                CrossKind::Constant
            }
        }
    };
    Ok(CrossSpec {
        kind,
        rate_bps,
        packet_size,
        link,
        start,
        stop,
    })
}

/// Builds a scenario from its (overridden) TOML tree.
pub(crate) fn build(
    ctx: &Ctx,
    root: &Table,
    overrides: Vec<Override>,
    effective: String,
) -> R<Scenario> {
    let top = Obj::new(ctx, root, "");
    top.check_keys(&key_names(catalog::TOP_KEYS), |k| match k {
        "flow" => Some("did you mean \"flows\"? write each flow as a [[flows]] entry".into()),
        "bottleneck" | "links" => Some(format!("{k} belongs in [topology]: write [topology.{k}]")),
        "cross" | "cross-traffic" | "crosstraffic" => {
            Some("did you mean \"cross_traffic\"? write [[cross_traffic]] entries".into())
        }
        _ => None,
    })?;

    let name_v = top.req("name", "a scenario name like name = \"quickstart\"")?;
    let name = top.string("name", "a string")?.expect("present");
    if name.trim().is_empty() {
        return Err(top.bad("name", name_v, "a non-empty string"));
    }
    let description = top.string("description", "a string")?.map(str::to_string);
    top.req("duration", "a simulated time like \"20s\"")?;
    let duration = top.positive_time("duration", "20s")?.expect("present");
    let seed = top
        .integer("seed", 0, i64::MAX, "a whole number >= 0")?
        .unwrap_or(1) as u64;

    // Topology.
    let tv = top.req(
        "topology",
        "a [topology] table with kind = \"dumbbell\", \"parking-lot\" or \"trunk\"",
    )?;
    let Value::Table(tt) = tv else {
        return Err(top.bad("topology", tv, "a [topology] table"));
    };
    let topo = Obj::new(ctx, tt, "topology");
    let kinds = catalog::kind_names(catalog::TOPOLOGY_KINDS);
    topo.req("kind", &format!("a topology kind: {}", quoted_list(&kinds)))?;
    let kind = topo
        .choice("kind", &kinds, "a topology kind")?
        .expect("present");
    let parking = kind == "parking-lot";
    let is_trunk = kind == "trunk";
    let own = match kind {
        "parking-lot" => "links",
        "trunk" => "trunk",
        _ => "bottleneck",
    };
    let allowed: Vec<&str> = key_names(catalog::TOPOLOGY_KEYS)
        .into_iter()
        .filter(|k| !["bottleneck", "links", "trunk"].contains(k) || *k == own)
        .collect();
    topo.check_keys(&allowed, |k| match (k, kind) {
        ("links", "dumbbell") => Some(
            "a dumbbell has one [topology.bottleneck]; use kind = \"parking-lot\" for a chain of [[topology.links]]".into(),
        ),
        ("links", _) => Some("a chain of [[topology.links]] needs kind = \"parking-lot\"".into()),
        ("bottleneck", "parking-lot") => {
            Some("a parking lot lists its links as [[topology.links]] entries".into())
        }
        ("bottleneck", _) => Some(
            "a trunk is described in [topology.trunk] (rate, delay, buffer, channels, inputs)"
                .into(),
        ),
        ("trunk", _) => Some("a [topology.trunk] needs kind = \"trunk\"".into()),
        _ => None,
    })?;
    let mut trunk: Option<RawTrunk> = None;
    let raw_links: Vec<RawLink> = if is_trunk {
        let tv = topo.req(
            "trunk",
            "a [topology.trunk] table with rate, delay, buffer, channels and inputs",
        )?;
        let (link, rt) = read_trunk(ctx, tv, "topology.trunk")?;
        let groups = rt.fibres.map_or(1, |f| rt.channels / f);
        trunk = Some(rt);
        (0..groups)
            .map(|_| RawLink {
                path: link.path.clone(),
                buffer_text: link.buffer_text.clone(),
                ..link
            })
            .collect()
    } else if parking {
        let lv = topo.req("links", "one or more [[topology.links]] entries")?;
        let Value::Array(a) = lv else {
            return Err(topo.bad("links", lv, "one or more [[topology.links]] entries"));
        };
        if a.is_empty() || a.len() > 15 {
            return Err(topo.bad("links", lv, "from 1 to 15 [[topology.links]] entries"));
        }
        a.iter()
            .enumerate()
            .map(|(i, l)| read_link(ctx, l, &format!("topology.links[{i}]")))
            .collect::<R<_>>()?
    } else {
        let bv = topo.req(
            "bottleneck",
            "a [topology.bottleneck] table with rate, delay and buffer",
        )?;
        vec![read_link(ctx, bv, "topology.bottleneck")?]
    };
    let access_rate_bps = topo.rate("access_rate")?;
    let bdp_rtt = topo.positive_time("bdp_rtt", "100ms")?;
    let n_links = raw_links.len();

    // Flows.
    let fv = top.req(
        "flows",
        "one or more [[flows]] entries, each with cc = \"...\"",
    )?;
    let Value::Array(fa) = fv else {
        return Err(top
            .bad("flows", fv, "one or more [[flows]] entries")
            .with_hint("write each flow as [[flows]] (double brackets)"));
    };
    if fa.is_empty() {
        return Err(top.bad("flows", fv, "one or more [[flows]] entries"));
    }
    if is_trunk {
        for (i, f) in fa.iter().enumerate() {
            if let Some(v) = f.get("path") {
                return Err(ctx.err(
                    &format!("flows[{i}].path"),
                    Some(show(v)),
                    "no path on a trunk: flow i enters on input link i mod inputs, and without conversion leaves on that input's wavelength",
                ));
            }
        }
    }
    let raw_flows: Vec<RawFlow> = fa
        .iter()
        .enumerate()
        .map(|(i, f)| read_flow(ctx, f, &format!("flows[{i}]"), n_links, parking))
        .collect::<R<_>>()?;
    let mut total: u64 = 0;
    for f in &raw_flows {
        total += f.count;
        if total > MAX_FLOWS {
            return Err(ctx.err(
                &join(&f.path, "count"),
                Some(format!("{} (a total of {total} flows so far)", f.count)),
                format!(
                    "at most {MAX_FLOWS} flows in total; the simulator would run out of memory"
                ),
            ));
        }
    }

    // Per-entry RTT and timing checks.
    let mut rtts = Vec::with_capacity(raw_flows.len());
    for f in &raw_flows {
        // A trunk flow crosses one group of channels (all alike).
        let (a, b) = if is_trunk { (0, 0) } else { f.links };
        let one_way: Time = raw_links[a..=b].iter().map(|l| l.delay).sum();
        let rtt = match f.rtt {
            None => {
                if one_way == 0 {
                    return Err(ctx.missing(
                        &join(&f.path, "rtt"),
                        "a base RTT like \"20ms\" (the links it crosses have no delay to derive one from)",
                    ));
                }
                2 * one_way
            }
            Some(r) if r < 2 * one_way => {
                return Err(ctx.err(
                    &join(&f.path, "rtt"),
                    Some(format!("\"{}\"", units::fmt_time(r))),
                    format!(
                        "at least {}, twice the one-way delay of the links it crosses",
                        units::fmt_time(2 * one_way)
                    ),
                ))
            }
            Some(r) => r,
        };
        rtts.push(rtt);
        if f.start >= duration {
            return Err(ctx.before_end(&join(&f.path, "start"), f.start, duration));
        }
        let last = f.start as u128 + (f.count - 1) as u128 * f.stagger as u128;
        if f.count > 1 && last >= duration as u128 {
            return Err(ctx.err(
                &join(&f.path, "stagger"),
                Some(format!("\"{}\"", units::fmt_time(f.stagger))),
                format!(
                    "a stagger small enough that all {} copies start before the end of the run (duration = \"{}\")",
                    f.count,
                    units::fmt_time(duration)
                ),
            ));
        }
        if let Some(stop) = f.stop {
            if f.count > 1 && f.stagger > 0 && last >= stop as u128 {
                return Err(ctx.err(
                    &join(&f.path, "stop"),
                    Some(format!("\"{}\"", units::fmt_time(stop))),
                    "a stop after the start of the last staggered copy".to_string(),
                ));
            }
        }
    }

    // Cross traffic.
    let cross: Vec<CrossSpec> = match top.get("cross_traffic") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, c)| read_cross(ctx, c, &format!("cross_traffic[{i}]"), n_links))
            .collect::<R<_>>()?,
        Some(v) => {
            return Err(top
                .bad("cross_traffic", v, "[[cross_traffic]] entries")
                .with_hint("write each source as [[cross_traffic]] (double brackets)"))
        }
    };
    for (i, c) in cross.iter().enumerate() {
        if c.start >= duration {
            return Err(ctx.before_end(&format!("cross_traffic[{i}].start"), c.start, duration));
        }
    }

    // Buffers, now that the flows crossing each link are known.
    let mut links = Vec::with_capacity(n_links);
    let mut infos = Vec::with_capacity(n_links);
    for (l, rl) in raw_links.iter().enumerate() {
        let crossing: Vec<usize> = (0..raw_flows.len())
            .filter(|&i| is_trunk || (raw_flows[i].links.0 <= l && l <= raw_flows[i].links.1))
            .collect();
        // A trunk group's capacity is all its channels.
        let group_rate = rl.rate_bps * rl.channels as f64;
        let ref_rtt = bdp_rtt.unwrap_or_else(|| {
            crossing
                .iter()
                .map(|&i| rtts[i])
                .max()
                .unwrap_or(2 * rl.delay)
        });
        let wire = crossing
            .iter()
            .map(|&i| raw_flows[i].mss + raw_flows[i].header)
            .max()
            .unwrap_or(1500);
        let bdp_pkts = group_rate * dropless_cc::secs(ref_rtt) / (8.0 * wire as f64);
        // Memory: a link holds up to its BDP of the longest flow in flight.
        let max_rtt = crossing.iter().map(|&i| rtts[i]).max().unwrap_or(0);
        let link_bound = group_rate * dropless_cc::secs(max_rtt) / (8.0 * wire as f64);
        // ... and never more than the flows' access links can put in flight.
        let access_bound = access_rate_bps.map_or(f64::INFINITY, |a| {
            crossing
                .iter()
                .map(|&i| {
                    raw_flows[i].count as f64 * a * dropless_cc::secs(rtts[i])
                        / (8.0 * (raw_flows[i].mss + raw_flows[i].header).max(1) as f64)
                })
                .sum()
        });
        let inflight = link_bound.min(access_bound);
        if inflight > MAX_BDP_PKTS {
            return Err(ctx.err(
                &join(&rl.path, "rate"),
                Some(format!("\"{}\"", units::fmt_rate(rl.rate_bps))),
                format!(
                    "a rate x RTT product of at most {} packets in flight (this link with RTT {} and its flows' access links hold {:.3e}); the simulator would run out of memory",
                    MAX_BDP_PKTS,
                    units::fmt_time(max_rtt),
                    inflight
                ),
            ));
        }
        let smallest = crossing
            .iter()
            .map(|&i| raw_flows[i].mss + raw_flows[i].header)
            .chain(cross.iter().filter(|c| c.link == l).map(|c| c.packet_size))
            .min()
            .unwrap_or(1500)
            .max(1);
        let largest = crossing
            .iter()
            .map(|&i| raw_flows[i].mss + raw_flows[i].header)
            .chain(cross.iter().filter(|c| c.link == l).map(|c| c.packet_size))
            .max()
            .unwrap_or(1500);
        let bpath = join(&rl.path, "buffer");
        let found = Some(rl.buffer_text.clone());
        let too_big = || {
            ctx.err(
                &bpath,
                found.clone(),
                format!(
                    "a buffer of at most {MAX_BUFFER_PKTS} packets; the simulator would run out of memory"
                ),
            )
        };
        let (buffer, pkts, bytes) = match rl.buffer {
            // A bufferless trunk (thesis ch. 3): a packet finds an idle
            // channel or is lost.
            BufferSize::Packets(0) if is_trunk => (Buffer::Packets(0), Some(0), None),
            BufferSize::Packets(0) => {
                return Err(ctx.err(&bpath, found, "a buffer of at least one packet (\"1pkt\")"))
            }
            BufferSize::Packets(n) if n > MAX_BUFFER_PKTS => return Err(too_big()),
            BufferSize::Packets(n) => (Buffer::Packets(n), Some(n), None),
            BufferSize::Bytes(b) if b < largest as u64 => {
                return Err(ctx.err(
                    &bpath,
                    found,
                    format!("a buffer of at least one packet ({largest} bytes, the largest packet entering this link)"),
                ))
            }
            BufferSize::Bytes(b) if b / smallest as u64 > MAX_BUFFER_PKTS => return Err(too_big()),
            BufferSize::Bytes(b) => (Buffer::Bytes(b), None, Some(b)),
            BufferSize::Bdp(x) => {
                let n = x * bdp_pkts;
                if n < 1.0 && !(is_trunk && x == 0.0) {
                    return Err(ctx.err(
                        &bpath,
                        Some(format!(
                            "{} (= {n:.3} packets of {wire} B at {} x {})",
                            rl.buffer_text,
                            units::fmt_rate(rl.rate_bps),
                            units::fmt_time(ref_rtt)
                        )),
                        "a buffer of at least one packet",
                    ));
                }
                if n > MAX_BUFFER_PKTS as f64 {
                    return Err(too_big());
                }
                let n = n.round() as u64;
                (Buffer::Packets(n), Some(n), None)
            }
        };
        links.push(LinkSpec {
            rate_bps: rl.rate_bps,
            delay: rl.delay,
            buffer,
            queue: rl.queue,
            loss: rl.loss,
            price: rl.price,
            channels: rl.channels,
            interarrivals_from: rl.interarrivals_from,
            ties: rl.ties,
        });
        infos.push(LinkInfo {
            path: rl.path.clone(),
            delay: rl.delay,
            buffer_text: rl.buffer_text.trim_matches('"').to_string(),
            buffer_pkts: pkts,
            buffer_bytes: bytes,
            bdp_pkts,
            bdp_rtt: ref_rtt,
            wire_size: wire,
        });
    }

    // Expand flows.
    let mut flows = Vec::with_capacity(total as usize);
    let mut finfo = Vec::with_capacity(total as usize);
    // Host names, numbered in order of first appearance.
    let mut hosts: Vec<&str> = Vec::new();
    for (e, f) in raw_flows.iter().enumerate() {
        let host = f.host.as_deref().map(|name| {
            hosts.iter().position(|h| *h == name).unwrap_or_else(|| {
                hosts.push(name);
                hosts.len() - 1
            }) as u32
        });
        for j in 0..f.count {
            let id = flows.len();
            // Flow i enters on input i mod M; without conversion it keeps
            // that input's wavelength, (i mod M) mod L.
            let path = match &trunk {
                Some(t) => {
                    let g = (id as u64 % t.inputs as u64) as usize % n_links;
                    (g, g)
                }
                None => f.links,
            };
            flows.push(FlowSpec {
                cc: f.cc.to_string(),
                params: f.params.clone(),
                rtt: Some(rtts[e]),
                start: f.start + j * f.stagger,
                stop: f.stop,
                size: f.size,
                mss: f.mss,
                header: f.header,
                ack_policy: f.ack,
                path,
                ecn: f.ecn,
                min_rto: f.min_rto,
                initial_rto: f.initial_rto,
                max_rto: f.max_rto,
                max_window: f.max_window,
                ns2_recovery: f.ns2_recovery,
                prr: f.prr,
                rack: f.rack,
                tlp: f.tlp,
                send_jitter: f.send_jitter,
                ack_jitter: f.ack_jitter,
                host,
            });
            let label = match (&f.label, f.count) {
                (Some(l), 1) => l.clone(),
                (Some(l), _) => format!("{l} #{j}"),
                (None, _) => format!("{} #{id}", f.cc),
            };
            finfo.push(FlowInfo { entry: e, label });
        }
    }

    // Sampling and the memory the time series would take.
    let sample = match top.time("sample")? {
        Some(0) => return Err(top.bad("sample", &root["sample"], "a positive time like \"10ms\"")),
        Some(s) => s,
        None => (duration / 1000).max(MILLISECOND).min(duration),
    };
    let flow_series = match top.boolean("flow_series")? {
        Some(b) => b,
        None => flows.len() <= AUTO_FLOW_SERIES,
    };
    let samples = duration / sample + 1;
    let columns = 1
        + 4 * n_links as u64
        + if flow_series {
            5 * flows.len() as u64
        } else {
            0
        };
    let values = samples.saturating_mul(columns);
    if values > MAX_SERIES_VALUES {
        let need = duration.saturating_mul(columns) / MAX_SERIES_VALUES + 1;
        let path = if root.contains_key("sample") {
            "sample"
        } else {
            "duration"
        };
        let found = match root.get(path) {
            Some(v) => show(v),
            None => format!("\"{}\"", units::fmt_time(sample)),
        };
        let mut e = ctx.err(
            path,
            Some(found),
            format!(
                "time series of at most {MAX_SERIES_VALUES} values (this run would record {samples} samples x {columns} columns = {values}); the run would exhaust memory"
            ),
        )
        .with_hint(format!(
            "use sample = \"{}\" or longer",
            units::fmt_time(need.max(MILLISECOND))
        ));
        if flow_series {
            e = e.with_hint("or flow_series = false");
        }
        return Err(e);
    }

    let config = SimConfig {
        seed,
        duration,
        topology: if let Some(t) = &trunk {
            // The input links' buffer: one BDP of an input link at the
            // reference RTT unless written (the edge routers' buffers).
            let ref_rtt = infos.first().map_or(0, |i| i.bdp_rtt);
            let wire = infos.first().map_or(1500, |i| i.wire_size);
            let bdp = t.input_rate_bps * dropless_cc::secs(ref_rtt) / (8.0 * wire as f64);
            let pkts = |x: f64| (x.round() as u64).clamp(1, MAX_BUFFER_PKTS);
            let sized = |b: BufferSize, bdp: f64| match b {
                BufferSize::Packets(n) => Buffer::Packets(n.clamp(1, MAX_BUFFER_PKTS)),
                BufferSize::Bytes(b) => Buffer::Bytes(b.max(wire as u64)),
                BufferSize::Bdp(x) => Buffer::Packets(pkts(x * bdp)),
            };
            let input_buffer = t
                .input_buffer
                .map_or(Buffer::Packets(pkts(bdp)), |b| sized(b, bdp));
            let mut topology = Topology::Trunk {
                groups: links,
                inputs: t.inputs,
                input_rate_bps: t.input_rate_bps,
                input_buffer,
                access_rate_bps,
                access_buffer: None,
            };
            // Each access link's buffer: unbounded unless written; a BDP is
            // the access link's at the reference RTT.
            let access_bdp =
                topology.access_rate_bps() * dropless_cc::secs(ref_rtt) / (8.0 * wire as f64);
            if let Topology::Trunk { access_buffer, .. } = &mut topology {
                *access_buffer = t.access_buffer.map(|b| sized(b, access_bdp));
            }
            topology
        } else if parking {
            Topology::ParkingLot {
                links,
                access_rate_bps,
            }
        } else {
            Topology::Dumbbell {
                bottleneck: links[0],
                access_rate_bps,
            }
        },
        flows,
        cross,
        sample_interval: sample,
        flow_series,
    };
    Ok(Scenario {
        name: name.to_string(),
        description,
        file: ctx.file.to_string(),
        config,
        flows: finfo,
        links: infos,
        overrides,
        effective_toml: effective,
    })
}
