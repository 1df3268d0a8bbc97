//! Time values on the command line and in outputs: RFC 3339 timestamps (UTC) and durations
//! (`1s`, `30s`, `7d`, `1h 30m`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `1s`, `500ms`, `7d`, `1h 30m`. Errors say what was expected.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("{s:?} is not a duration ({e}); use e.g. 1s, 30s, 5m, 1h, 7d"))
}

/// RFC 3339 (`2026-11-29T08:00:00Z`, fractional seconds and offsets accepted) to Unix ms.
pub fn parse_rfc3339_ms(s: &str) -> Result<i64, String> {
    let t = humantime::parse_rfc3339_weak(s.trim())
        .or_else(|_| parse_with_offset(s.trim()))
        .map_err(|_| {
            format!("{s:?} is not an RFC 3339 time (expected e.g. 2026-11-29T08:00:00Z)")
        })?;
    let d = t
        .duration_since(UNIX_EPOCH)
        .map_err(|_| format!("{s:?} is before 1970"))?;
    Ok(d.as_millis() as i64)
}

/// humantime reads `Z` only; accept a numeric offset (`+02:00`) by shifting to UTC.
fn parse_with_offset(s: &str) -> Result<SystemTime, ()> {
    if s.len() < 6 {
        return Err(());
    }
    let (body, off) = s.split_at(s.len() - 6);
    let ob = off.as_bytes();
    if !(ob[0] == b'+' || ob[0] == b'-') || ob[3] != b':' {
        return Err(());
    }
    let h: u64 = off[1..3].parse().map_err(|_| ())?;
    let m: u64 = off[4..6].parse().map_err(|_| ())?;
    let t = humantime::parse_rfc3339_weak(body).map_err(|_| ())?;
    let shift = Duration::from_secs(h * 3600 + m * 60);
    Ok(if ob[0] == b'+' { t - shift } else { t + shift })
}

/// A point in time on the command line: an RFC 3339 time, or a duration meaning "that long ago"
/// (`--since 1h`). `now_ms` is passed in so the rule is testable.
pub fn parse_time_arg(s: &str, now_ms: i64) -> Result<i64, String> {
    if s.trim() == "now" {
        return Ok(now_ms);
    }
    if let Ok(ms) = parse_rfc3339_ms(s) {
        return Ok(ms);
    }
    match humantime::parse_duration(s.trim()) {
        Ok(d) => Ok(now_ms - d.as_millis() as i64),
        Err(_) => Err(format!(
            "{s:?} is neither an RFC 3339 time (2026-11-29T08:00:00Z) nor a duration ago (1h, 30m, 7d)"
        )),
    }
}

/// Unix ms to RFC 3339 UTC; milliseconds shown only when not zero.
pub fn format_ms(ms: i64) -> String {
    let t = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    if ms % 1000 == 0 {
        humantime::format_rfc3339_seconds(t).to_string()
    } else {
        humantime::format_rfc3339_millis(t).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_forms() {
        let ms = parse_rfc3339_ms("2026-11-29T08:00:00Z").unwrap();
        assert_eq!(ms, 1_795_939_200_000);
        assert_eq!(format_ms(ms), "2026-11-29T08:00:00Z");
        assert_eq!(format_ms(ms + 250), "2026-11-29T08:00:00.250Z");
        assert_eq!(parse_rfc3339_ms("2026-11-29T10:00:00+02:00").unwrap(), ms);
        assert_eq!(parse_time_arg("1h", ms).unwrap(), ms - 3_600_000);
        assert_eq!(parse_time_arg("now", ms).unwrap(), ms);
        assert!(parse_time_arg("yesterday", ms)
            .unwrap_err()
            .contains("neither"));
        assert_eq!(parse_duration("7d").unwrap().as_secs(), 7 * 86_400);
        assert!(parse_duration("fast").is_err());
    }
}
