//! Time values on the command line and in outputs: RFC 3339 timestamps (UTC) and durations
//! (`1s`, `30s`, `7d`, `1h 30m`).

use gpuledger_lang::said::Said;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// `1s`, `500ms`, `7d`, `1h 30m`. Errors say what was expected.
pub fn parse_duration(s: &str) -> Result<Duration, Said> {
    crate::units::parse_duration_within(s, Duration::ZERO, Duration::MAX)
}

/// The bounds of an interval option, named once: every `--interval` (and the live view's `-d`)
/// parses through one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalBounds {
    pub min: Duration,
    pub max: Duration,
}

/// A view's or server's refresh (`gpuledger -d`, `serve --interval`): a round costs about a
/// millisecond, so ten a second is the most a view needs; an hour is the longest that still
/// reads as a live view.
pub const REFRESH: IntervalBounds = IntervalBounds {
    min: Duration::from_millis(100),
    max: Duration::from_secs(3600),
};

/// Sampling into a recording or for alerts (`record`, `watch`): short bursts for tests and
/// benchmarks, up to a day between samples.
pub const SAMPLING: IntervalBounds = IntervalBounds {
    min: Duration::from_millis(10),
    max: Duration::from_secs(86_400),
};

/// `kill --grace`: how long the graceful step waits before the forced one; 0 forces at once, and
/// an hour is longer than any process needs to shut down.
pub const GRACE: IntervalBounds = IntervalBounds {
    min: Duration::ZERO,
    max: Duration::from_secs(3600),
};

impl IntervalBounds {
    /// Parse with the one duration grammar ([`crate::units::parse_duration_within`]) inside
    /// these bounds.
    pub fn parse(&self, s: &str) -> Result<Duration, Said> {
        crate::units::parse_duration_within(s, self.min, self.max)
    }
}

/// RFC 3339 (`2026-11-29T08:00:00Z`, fractional seconds and offsets accepted) to Unix ms.
pub fn parse_rfc3339_ms(s: &str) -> Result<i64, Said> {
    let quoted = || vec![("value", format!("{s:?}").into())];
    let t = humantime::parse_rfc3339_weak(s.trim())
        .or_else(|_| parse_with_offset(s.trim()))
        .map_err(|_| Said::new("report-parse-not-rfc3339", quoted()))?;
    let d = t
        .duration_since(UNIX_EPOCH)
        .map_err(|_| Said::new("report-parse-before-1970", quoted()))?;
    Ok(d.as_millis() as i64)
}

/// humantime reads `Z` only; accept a numeric offset (`+02:00`) by shifting to UTC.
fn parse_with_offset(s: &str) -> Result<SystemTime, ()> {
    // Text the user typed: the cut may fall inside a multi-byte character.
    let cut = s.len().checked_sub(6).ok_or(())?;
    let (Some(body), Some(off)) = (s.get(..cut), s.get(cut..)) else {
        return Err(());
    };
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
pub fn parse_time_arg(s: &str, now_ms: i64) -> Result<i64, Said> {
    if s.trim() == "now" {
        return Ok(now_ms);
    }
    if let Ok(ms) = parse_rfc3339_ms(s) {
        return Ok(ms);
    }
    match humantime::parse_duration(s.trim()) {
        // Saturating: `--since 1000000000y` means "from the beginning", not an overflow.
        Ok(d) => Ok(now_ms.saturating_sub(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))),
        Err(_) => Err(Said::new(
            "report-parse-not-a-time",
            vec![("value", format!("{s:?}").into())],
        )),
    }
}

/// The last millisecond RFC 3339 (four-digit years) can write: 9999-12-31T23:59:59.999Z.
pub const MAX_MS: i64 = 253_402_300_799_999;

/// True when `ms` can be written as an RFC 3339 time (1970 to 9999).
pub fn in_range(ms: i64) -> bool {
    (0..=MAX_MS).contains(&ms)
}

/// Unix ms to RFC 3339 UTC; milliseconds shown only when not zero. A time outside 1970–9999
/// (a damaged recording, a wrong clock) is written as what it is rather than a wrong date or
/// a panic.
pub fn format_ms(ms: i64) -> String {
    if !in_range(ms) {
        return format!("<time out of range: Unix ms {ms}>");
    }
    let t = UNIX_EPOCH + Duration::from_millis(ms as u64);
    if ms % 1000 == 0 {
        humantime::format_rfc3339_seconds(t).to_string()
    } else {
        humantime::format_rfc3339_millis(t).to_string()
    }
}

/// Unix seconds to RFC 3339 UTC (a process's start, a round's time): [`format_ms`]'s words.
pub fn format_secs(secs: u64) -> String {
    let ms = i64::try_from(secs)
        .ok()
        .and_then(|s| s.checked_mul(1000))
        .unwrap_or(i64::MAX);
    format_ms(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_are_written_as_rfc3339() {
        assert_eq!(format_secs(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_secs(1_795_940_000), "2026-11-29T08:13:20Z");
        assert_eq!(format_secs(951_782_400), "2000-02-29T00:00:00Z");
        assert!(format_secs(u64::MAX).starts_with("<time out of range"));
    }

    /// Typed text whose last six bytes start inside a character: an error, not a panic.
    #[test]
    fn multibyte_text_is_refused_not_a_panic() {
        for t in ["ééé€", "2026-11-29T08:00:00é:00", "€€"] {
            assert!(parse_rfc3339_ms(t).is_err(), "{t}");
            assert!(parse_time_arg(t, 0).is_err(), "{t}");
        }
    }

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

    #[test]
    fn far_times_are_written_as_out_of_range_not_a_panic() {
        assert_eq!(format_ms(MAX_MS), "9999-12-31T23:59:59.999Z");
        assert_eq!(format_ms(0), "1970-01-01T00:00:00Z");
        for ms in [MAX_MS + 1, i64::MAX, i64::MAX - 1, -1, i64::MIN] {
            assert_eq!(format_ms(ms), format!("<time out of range: Unix ms {ms}>"));
        }
        // A duration ago longer than the clock can hold saturates instead of overflowing.
        assert_eq!(
            parse_time_arg("500000000000y", 1_795_939_200_000).unwrap(),
            1_795_939_200_000 - i64::MAX
        );
    }
}
