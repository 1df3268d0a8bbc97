//! Human units. Binary prefixes throughout, as GPU memory is sized in powers of two.

/// `1.50 GiB`, `512 MiB`, `12 KiB`, `17 B`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
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
    b.map(human_bytes).unwrap_or_else(|| "n/a".into())
}

/// Parse `512MiB`, `8GiB`, `1.5G`, `100M`, `4096` (bytes). Decimal `GB`/`MB` are read as powers of
/// ten, binary `GiB`/`G` as powers of two. Errors say what was expected.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (expected e.g. 512MiB, 8GiB, 4096)"))?;
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
            return Err(format!(
                "{s:?}: unknown unit {other:?} (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
            ))
        }
    };
    let v = n * mult;
    if !v.is_finite() || v > u64::MAX as f64 {
        return Err(format!("{s:?} is too large"));
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
}
