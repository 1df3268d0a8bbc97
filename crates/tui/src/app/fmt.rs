//! Times as the view writes them: RFC 3339 stamps read, run times and intervals shown.

use gpuledger_model::time::parse_rfc3339_ms;
use std::time::Duration;

/// An RFC 3339 stamp (`2026-11-29T09:00:00Z`, fractional seconds and offsets accepted) as Unix
/// seconds, through the model's one time parser; `None` for anything else.
pub fn unix_secs(s: &str) -> Option<i64> {
    parse_rfc3339_ms(s).ok().map(|ms| ms.div_euclid(1000))
}

/// Run time as nvitop and ps show it: `59:07`, `10:29:59`, `3d 04h`.
pub fn fmt_runtime(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h:02}h")
    } else if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

pub fn fmt_interval(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
