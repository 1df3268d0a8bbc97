//! Human units. Binary prefixes throughout, as GPU memory is sized in powers of two.

use gpuledger_lang::said::Said;

const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// `b` in the largest binary unit it reaches: the value and the unit's index in [`UNITS`].
fn scaled(b: u64) -> (f64, usize) {
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    (v, i)
}

/// `1.50 GiB`, `512 MiB`, `12 KiB`, `17 B`.
pub fn human_bytes(b: u64) -> String {
    if b < 1024 {
        return format!("{b} B");
    }
    let (v, i) = scaled(b);
    if v >= 100.0 || (v.fract() == 0.0) {
        format!("{v:.0} {}", UNITS[i])
    } else if v >= 10.0 {
        format!("{v:.1} {}", UNITS[i])
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

/// Same as [`human_bytes`] for a value that may be unknown.
pub fn human_opt(b: Option<u64>) -> String {
    crate::words::or_unknown_with(b, human_bytes)
}

/// The one duration parser for every option: a bare number of seconds (`0.5`, `15`), one decimal
/// number with a unit (`1.5s`, `500ms`, `2m`, `0.5h`), or humantime's forms (`7d`, `1h 30m`).
/// Within `min..=max`; errors say what was wrong and what is accepted.
pub fn parse_duration_within(
    s: &str,
    min: std::time::Duration,
    max: std::time::Duration,
) -> Result<std::time::Duration, Said> {
    let t = s.trim();
    let d = match t.parse::<f64>() {
        Ok(secs) => seconds(s, secs)?,
        Err(_) => match humantime::parse_duration(t) {
            Ok(d) => d,
            Err(_) => decimal_with_unit(s, t)?,
        },
    };
    if d < min {
        return Err(Said::new(
            "report-parse-below-minimum",
            vec![("value", quoted(s).into()), ("bound", show(min).into())],
        ));
    }
    if d > max {
        return Err(Said::new(
            "report-parse-above-maximum",
            vec![("value", quoted(s).into()), ("bound", show(max).into())],
        ));
    }
    Ok(d)
}

/// The value as the messages quote it (`"abc"`).
fn quoted(s: &str) -> String {
    format!("{s:?}")
}

fn not_a_duration(s: &str) -> Said {
    Said::new(
        "report-parse-not-a-duration",
        vec![("value", quoted(s).into())],
    )
}

fn seconds(s: &str, secs: f64) -> Result<std::time::Duration, Said> {
    match std::time::Duration::try_from_secs_f64(secs) {
        Ok(d) => Ok(d),
        // Too large to represent is still a duration: the bound check says it is too long.
        Err(_) if secs.is_finite() && secs > 0.0 => Ok(std::time::Duration::MAX),
        Err(_) => Err(not_a_duration(s)),
    }
}

/// `1.5s`, `0.25h`: humantime takes whole numbers only.
fn decimal_with_unit(s: &str, t: &str) -> Result<std::time::Duration, Said> {
    let i = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(i);
    let scale = match unit.trim() {
        "ms" => 0.001,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return Err(not_a_duration(s)),
    };
    let v: f64 = num.parse().map_err(|_| not_a_duration(s))?;
    seconds(s, v * scale)
}

/// `100 ms`, `1 s`, `1 h`: a bound as a person writes it.
fn show(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    match ms {
        ms if ms < 1000 => format!("{ms} ms"),
        ms if ms % 3_600_000 == 0 => format!("{} h", ms / 3_600_000),
        ms if ms % 60_000 == 0 && ms < 3_600_000 => format!("{} min", ms / 60_000),
        _ => format!("{} s", d.as_secs_f64().to_string().trim_end_matches(".0")),
    }
}

/// Parse `512MiB`, `8GiB`, `1.5G`, `100M`, `4096` (bytes). Decimal `GB`/`MB` are read as powers of
/// ten, binary `GiB`/`G` as powers of two. Errors say what was expected.
pub fn parse_bytes(s: &str) -> Result<u64, Said> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| Said::new("report-parse-not-a-size", vec![("value", quoted(s).into())]))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(Said::new(
                "report-parse-unknown-unit",
                vec![("value", quoted(s).into()), ("unit", quoted(other).into())],
            ))
        }
    };
    let v = n * mult;
    if !v.is_finite() || v > u64::MAX as f64 {
        return Err(Said::new(
            "report-parse-too-large",
            vec![("value", quoted(s).into())],
        ));
    }
    Ok(v.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human() {
        assert_eq!(human_bytes(17), "17 B");
        assert_eq!(human_bytes(1024), "1 KiB");
        assert_eq!(human_bytes(1536 * 1024 * 1024), "1.50 GiB");
        assert_eq!(human_bytes(17_179_869_184), "16 GiB");
        assert_eq!(human_bytes(150_754_820_096), "140 GiB");
        assert_eq!(human_bytes(12_345_678_901), "11.5 GiB");
        assert_eq!(human_opt(None), "n/a");
    }

    #[test]
    fn parse() {
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("8GiB").unwrap(), 8 << 30);
        assert_eq!(parse_bytes("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_bytes("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert!(parse_bytes("lots").unwrap_err().contains("not a size"));
        assert!(parse_bytes("5 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(parse_bytes("1e400").is_err());
    }

    #[test]
    fn one_duration_grammar_with_bounds() {
        use std::time::Duration as D;
        let any = |s: &str| parse_duration_within(s, D::ZERO, D::from_secs(400 * 86_400));
        assert_eq!(any("0.5"), Ok(D::from_millis(500)));
        assert_eq!(any("15"), Ok(D::from_secs(15)));
        assert_eq!(any("1.5s"), Ok(D::from_millis(1500)));
        assert_eq!(any("250ms"), Ok(D::from_millis(250)));
        assert_eq!(any("1m"), Ok(D::from_secs(60)));
        assert_eq!(any("0.5h"), Ok(D::from_secs(1800)));
        assert_eq!(any("7d"), Ok(D::from_secs(7 * 86_400)));
        assert_eq!(any("1h 30m"), Ok(D::from_secs(5400)));
        for bad in [
            "fast",
            "",
            "s",
            "1.2.3s",
            "-5s",
            "-1",
            "NaN",
            "inf",
            "5 parsecs",
        ] {
            assert!(any(bad).unwrap_err().contains("is not a duration"), "{bad}");
        }
        let iv = |s: &str| parse_duration_within(s, D::from_millis(100), D::from_secs(3600));
        assert_eq!(
            iv("50ms").unwrap_err(),
            "\"50ms\" is below the minimum of 100 ms"
        );
        assert_eq!(iv("2h").unwrap_err(), "\"2h\" is above the maximum of 1 h");
        assert!(iv("99999999999999999999m").unwrap_err().contains("maximum"));
    }
}
