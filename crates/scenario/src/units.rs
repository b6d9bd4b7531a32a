//! Quantities written the way people write them: `"100Mbps"`, `"20ms"`,
//! `"1500B"`, `"1000pkt"`, `"1bdp"`.
//!
//! Every parser takes the text of one value and returns the quantity in base
//! units (bits per second, nanoseconds, bytes), or on failure a phrase that
//! says what is allowed, ready to follow "expected" in an error message.
//!
//! | quantity | units | notes |
//! |---|---|---|
//! | rate | `bps`, `kbps`, `Mbps`, `Gbps`, `Tbps`; `b/s`, `kb/s`, `Mb/s`, `Gb/s`, `Tb/s`; bytes: `B/s`, `kB/s`, `MB/s`, `GB/s` | prefixes are decimal (k = 1000); the prefix letter may be upper or lower case, `b` is bits and `B` bytes |
//! | time | `ns`, `us` (or `µs`), `ms`, `s`, `min`, `h` | stored as integer nanoseconds, rounded |
//! | size | `B`, `kB`/`KB`, `MB`, `GB`, `TB` (decimal); `KiB`, `MiB`, `GiB`, `TiB` (binary) | whole bytes |
//! | buffer | a size, or `pkt` (packets), or `bdp` (bandwidth-delay products) | see [`BufferSize`] |
//!
//! A space between the number and the unit is allowed (`"100 Mbps"`); a
//! number with no unit is not, so that no quantity has a hidden default unit.

use dropless_cc::Time;

/// A buffer size as written, before the bandwidth-delay product is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSize {
    /// A number of packets (`"1000pkt"`).
    Packets(u64),
    /// A number of bytes (`"1500000B"`, `"1MB"`).
    Bytes(u64),
    /// A multiple of the link's bandwidth-delay product (`"1bdp"`, `"0.5bdp"`).
    Bdp(f64),
}

/// Splits `"100 Mbps"` into `(100.0, "Mbps")`. The number is everything up to
/// the first letter (or `/`, `µ`); an exponent (`1e9`) stays with the number.
fn split(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let bytes = s.as_bytes();
    let mut end = 0;
    while end < bytes.len() {
        let c = bytes[end] as char;
        let exponent = (c == 'e' || c == 'E')
            && end > 0
            && bytes[end - 1].is_ascii_digit()
            && bytes
                .get(end + 1)
                .is_some_and(|&n| n.is_ascii_digit() || n == b'-' || n == b'+');
        if c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == '_' || exponent {
            end += 1;
        } else {
            break;
        }
    }
    let num: String = s[..end].chars().filter(|&c| c != '_').collect();
    let unit = s[end..].trim();
    if num.is_empty() {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    v.is_finite().then_some((v, unit))
}

const RATE_HELP: &str =
    "a rate like \"100Mbps\" (units: bps, kbps, Mbps, Gbps, Tbps, or bytes: B/s, kB/s, MB/s, GB/s)";

/// Parses a rate; returns bits per second (positive and finite).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let (v, unit) = split(s).ok_or_else(|| RATE_HELP.to_string())?;
    let mult = rate_unit(unit).ok_or_else(|| {
        if unit.is_empty() {
            format!("{RATE_HELP}; a rate needs a unit")
        } else {
            format!("{RATE_HELP}; unknown rate unit \"{unit}\"")
        }
    })?;
    let bps = v * mult;
    if bps <= 0.0 || !bps.is_finite() {
        return Err(format!("a positive {}", &RATE_HELP[2..]));
    }
    Ok(bps)
}

fn rate_unit(u: &str) -> Option<f64> {
    // Bits: "bps", "b/s", optionally prefixed.
    let (prefix, base) = if let Some(p) = u.strip_suffix("bps") {
        (p, 1.0)
    } else if let Some(p) = u.strip_suffix("b/s") {
        (p, 1.0)
    } else if let Some(p) = u.strip_suffix("Bps") {
        (p, 8.0)
    } else if let Some(p) = u.strip_suffix("B/s") {
        (p, 8.0)
    } else {
        return None;
    };
    let m = match prefix {
        "" => 1.0,
        "k" | "K" => 1e3,
        "m" | "M" => 1e6,
        "g" | "G" => 1e9,
        "t" | "T" => 1e12,
        _ => return None,
    };
    Some(base * m)
}

const TIME_HELP: &str = "a time like \"20ms\" (units: ns, us, ms, s, min, h)";

/// Parses a time; returns nanoseconds. Zero is allowed (callers that need a
/// positive time check themselves); negative times are not.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let (v, unit) = split(s).ok_or_else(|| TIME_HELP.to_string())?;
    let mult = match unit {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" | "sec" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "" => return Err(format!("{TIME_HELP}; a time needs a unit")),
        _ => return Err(format!("{TIME_HELP}; unknown time unit \"{unit}\"")),
    };
    if v < 0.0 {
        return Err(format!("a non-negative {}", &TIME_HELP[2..]));
    }
    let ns = (v * mult).round();
    // 10^17 ns is about 3 years: far beyond any run, far below u64::MAX.
    if ns > 1e17 {
        return Err(format!("{TIME_HELP}, at most a few years"));
    }
    Ok(ns as Time)
}

const SIZE_HELP: &str = "a size like \"1500B\" (units: B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)";

fn size_unit(u: &str) -> Option<f64> {
    Some(match u {
        "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// Parses a size; returns whole bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split(s).ok_or_else(|| SIZE_HELP.to_string())?;
    let mult = size_unit(unit).ok_or_else(|| {
        if unit.is_empty() {
            format!("{SIZE_HELP}; a size needs a unit")
        } else {
            format!("{SIZE_HELP}; unknown size unit \"{unit}\"")
        }
    })?;
    bytes(v * mult, SIZE_HELP)
}

fn bytes(b: f64, help: &str) -> Result<u64, String> {
    if b < 0.0 {
        return Err(format!("a non-negative {}", &help[2..]));
    }
    if b.fract() != 0.0 {
        return Err(format!("{help}, a whole number of bytes"));
    }
    // 2^60 bytes: an exabyte. Nothing real is larger.
    if b > (1u64 << 60) as f64 {
        return Err(format!("{help}, at most 1 EiB"));
    }
    Ok(b as u64)
}

const BUFFER_HELP: &str =
    "a buffer like \"1000pkt\", \"1500000B\", \"1MB\" or \"0.5bdp\" (units: pkt, bdp, or a size unit)";

/// Parses a buffer size: packets, bytes or a multiple of the BDP.
pub fn parse_buffer(s: &str) -> Result<BufferSize, String> {
    let (v, unit) = split(s).ok_or_else(|| BUFFER_HELP.to_string())?;
    if v < 0.0 {
        return Err(format!("a non-negative {}", &BUFFER_HELP[2..]));
    }
    match unit {
        "pkt" | "pkts" | "packet" | "packets" => {
            if v.fract() != 0.0 {
                return Err(format!("{BUFFER_HELP}, a whole number of packets"));
            }
            if v > 1e18 {
                return Err(format!("{BUFFER_HELP}, far fewer packets"));
            }
            Ok(BufferSize::Packets(v as u64))
        }
        "bdp" | "BDP" => Ok(BufferSize::Bdp(v)),
        "" => Err(format!("{BUFFER_HELP}; a buffer needs a unit")),
        u => match size_unit(u) {
            Some(m) => Ok(BufferSize::Bytes(bytes(v * m, BUFFER_HELP)?)),
            None => Err(format!("{BUFFER_HELP}; unknown buffer unit \"{u}\"")),
        },
    }
}

/// A transfer size: bytes, or packets of `mss` payload bytes (`"1000pkt"`).
pub fn parse_transfer(s: &str, mss: u32) -> Result<u64, String> {
    const HELP: &str =
        "a size like \"10MB\" or \"1000pkt\" (units: B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, pkt)";
    let (v, unit) = split(s).ok_or_else(|| HELP.to_string())?;
    match unit {
        "pkt" | "pkts" | "packet" | "packets" => bytes(v * mss as f64, HELP),
        "" => Err(format!("{HELP}; a size needs a unit")),
        u => match size_unit(u) {
            Some(m) => bytes(v * m, HELP),
            None => Err(format!("{HELP}; unknown size unit \"{u}\"")),
        },
    }
}

/// Formats bits per second the way people write them (`"100Mbps"`).
pub fn fmt_rate(bps: f64) -> String {
    let (v, u) = if bps >= 1e12 {
        (bps / 1e12, "Tbps")
    } else if bps >= 1e9 {
        (bps / 1e9, "Gbps")
    } else if bps >= 1e6 {
        (bps / 1e6, "Mbps")
    } else if bps >= 1e3 {
        (bps / 1e3, "kbps")
    } else {
        (bps, "bps")
    };
    format!("{}{u}", trim_float(v))
}

/// Formats nanoseconds the way people write them (`"20ms"`).
pub fn fmt_time(t: Time) -> String {
    let v = t as f64;
    let (x, u) = if t == 0 {
        (0.0, "s")
    } else if t >= 60_000_000_000 && t % 60_000_000_000 == 0 {
        (v / 60e9, "min")
    } else if t >= 1_000_000_000 {
        (v / 1e9, "s")
    } else if t >= 1_000_000 {
        (v / 1e6, "ms")
    } else if t >= 1_000 {
        (v / 1e3, "us")
    } else {
        (v, "ns")
    };
    format!("{}{u}", trim_float(x))
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbps").unwrap(), 100e6);
        assert_eq!(parse_rate("10Gbps").unwrap(), 10e9);
        assert_eq!(parse_rate("10 Gbps").unwrap(), 10e9);
        assert_eq!(parse_rate("1.5Tbps").unwrap(), 1.5e12);
        assert_eq!(parse_rate("64kbps").unwrap(), 64e3);
        assert_eq!(parse_rate("64Kbps").unwrap(), 64e3);
        assert_eq!(parse_rate("9600bps").unwrap(), 9600.0);
        assert_eq!(parse_rate("100Mb/s").unwrap(), 100e6);
        assert_eq!(parse_rate("100mbps").unwrap(), 100e6);
        assert_eq!(parse_rate("1e9bps").unwrap(), 1e9);
        assert_eq!(parse_rate("1_000Mbps").unwrap(), 1e9);
        assert_eq!(parse_rate("125MB/s").unwrap(), 1e9);
        assert_eq!(parse_rate("125MBps").unwrap(), 1e9);
        for bad in [
            "",
            "100",
            "Mbps",
            "100 parsecs",
            "-5Mbps",
            "0Gbps",
            "100Mbit",
            "1..2Mbps",
            "nanMbps",
            "infMbps",
            "100xbps",
        ] {
            let e = parse_rate(bad).unwrap_err();
            assert!(e.contains("\"100Mbps\""), "{bad}: {e}");
        }
        assert!(parse_rate("-5Mbps")
            .unwrap_err()
            .starts_with("a positive rate"));
        assert!(parse_rate("100").unwrap_err().contains("needs a unit"));
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("20ms").unwrap(), 20_000_000);
        assert_eq!(parse_time("20 ms").unwrap(), 20_000_000);
        assert_eq!(parse_time("1.5s").unwrap(), 1_500_000_000);
        assert_eq!(parse_time("250us").unwrap(), 250_000);
        assert_eq!(parse_time("250µs").unwrap(), 250_000);
        assert_eq!(parse_time("7ns").unwrap(), 7);
        assert_eq!(parse_time("2min").unwrap(), 120_000_000_000);
        assert_eq!(parse_time("1h").unwrap(), 3_600_000_000_000);
        assert_eq!(parse_time("0s").unwrap(), 0);
        assert_eq!(parse_time("1e-3s").unwrap(), 1_000_000);
        for bad in ["20", "20 parsecs", "-1s", "ms", "1e30s", "20m", "abc"] {
            let e = parse_time(bad).unwrap_err();
            assert!(e.contains("\"20ms\""), "{bad}: {e}");
        }
        assert!(parse_time("20m")
            .unwrap_err()
            .contains("unknown time unit \"m\""));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1500B").unwrap(), 1500);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("1kB").unwrap(), 1000);
        assert_eq!(parse_size("1KB").unwrap(), 1000);
        assert_eq!(parse_size("1KiB").unwrap(), 1024);
        assert_eq!(parse_size("2MiB").unwrap(), 2 * 1024 * 1024);
        assert_eq!(parse_size("1.5GB").unwrap(), 1_500_000_000);
        for bad in ["1500", "1500b", "1.5B", "-1B", "1e30B", "1Mb", "B"] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.contains("\"1500B\""), "{bad}: {e}");
        }
        assert_eq!(parse_transfer("10pkt", 1460).unwrap(), 14600);
        assert_eq!(parse_transfer("10MB", 1460).unwrap(), 10_000_000);
        assert!(parse_transfer("10", 1460).is_err());
    }

    #[test]
    fn buffers() {
        assert_eq!(parse_buffer("1000pkt").unwrap(), BufferSize::Packets(1000));
        assert_eq!(
            parse_buffer("1000 packets").unwrap(),
            BufferSize::Packets(1000)
        );
        assert_eq!(
            parse_buffer("1500000B").unwrap(),
            BufferSize::Bytes(1_500_000)
        );
        assert_eq!(parse_buffer("1MB").unwrap(), BufferSize::Bytes(1_000_000));
        assert_eq!(parse_buffer("1bdp").unwrap(), BufferSize::Bdp(1.0));
        assert_eq!(parse_buffer("0.5bdp").unwrap(), BufferSize::Bdp(0.5));
        for bad in ["1000", "10.5pkt", "-1pkt", "1 parsec", "bdp", "1e30pkt"] {
            let e = parse_buffer(bad).unwrap_err();
            assert!(e.contains("\"1000pkt\""), "{bad}: {e}");
        }
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_rate(100e6), "100Mbps");
        assert_eq!(fmt_rate(2.5e9), "2.5Gbps");
        assert_eq!(fmt_time(20_000_000), "20ms");
        assert_eq!(fmt_time(1_500_000_000), "1.5s");
        assert_eq!(fmt_time(120_000_000_000), "2min");
        assert_eq!(fmt_time(0), "0s");
        for t in [1u64, 999, 1000, 20_000_000, 3_000_000_000] {
            assert_eq!(parse_time(&fmt_time(t)).unwrap(), t);
        }
    }
}
