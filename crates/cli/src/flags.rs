//! The value parsers and option groups of the command line that commands share, in one place
//! (ripgrep's `flags` idea): commands name these instead of borrowing each other's. Each parser
//! checks its value while clap parses, so a bad one is a usage error (exit 2) before anything
//! runs; the interval bounds are named beside [`REFRESH`] in `gpuledger_model::time`.

use crate::failed::failed;
use crate::Global;
use gpuledger_compare::alert::{parse, Expr, ParseError};
use gpuledger_history::store::{default_db_path, Query, Reader};
use gpuledger_lang::said::Said;
use gpuledger_model::time::{now_ms, parse_time_arg, GRACE, REFRESH, SAMPLING};
use gpuledger_model::units::parse_bytes;
use std::path::PathBuf;
use std::time::Duration;

/// The most a workload may be asked to allocate on one device: more than any GPU holds, so a
/// larger figure is a typo.
pub const MAX_ALLOCATION: u64 = 1 << 50;

/// A view's or a server's refresh (`gpuledger -d`, `ui --interval`, `serve --interval`).
pub fn refresh(s: &str) -> Result<Duration, Said> {
    REFRESH.parse(s)
}

/// A sampling interval (`record --interval`, `watch --interval`).
pub fn sampling(s: &str) -> Result<Duration, Said> {
    SAMPLING.parse(s)
}

/// `kill --grace`: how long the graceful step waits.
pub fn grace(s: &str) -> Result<Duration, Said> {
    GRACE.parse(s)
}

/// A time (`--since`, `--until`, `--at`): RFC 3339 or a duration ago. Checked now; resolved
/// against the clock when used.
pub fn time(s: &str) -> Result<String, Said> {
    parse_time_arg(s, now_ms()).map(|_| s.to_string())
}

/// An alert expression (`watch --alert`, the live view's `--alert`).
pub fn alert(s: &str) -> Result<Expr, ParseError> {
    parse(s)
}

/// A size to allocate on a device (`verify --size`, `probe --sizes`): more than 0 bytes, at most
/// [`MAX_ALLOCATION`].
pub fn allocation(s: &str) -> Result<u64, Said> {
    let quoted = || vec![("value", format!("{s:?}").into())];
    match parse_bytes(s)? {
        0 => Err(Said::new("cli-err-size-zero", quoted())),
        n if n > MAX_ALLOCATION => Err(Said::new("cli-err-size-too-large", quoted())),
        n => Ok(n),
    }
}

/// Which recording and which stretch of it: shared by `history` and `plot`.
#[derive(clap::Args, Debug)]
pub struct Range {
    /// The database (default: `--replay FILE`, else the one `gpuledger record` writes).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// From this time: RFC 3339 (2026-11-29T08:00:00Z) or a duration ago (1h, 30m, 7d).
    #[arg(long, default_value = "1h", value_name = "TIME", value_parser = time)]
    pub since: String,
    /// Up to this time (same forms; default now).
    #[arg(long, value_name = "TIME", value_parser = time)]
    pub until: Option<String>,
}

impl Range {
    /// Open the recording and a query covering the range (other filters left empty).
    pub fn open(&self, global: &Global) -> anyhow::Result<(Reader, Query)> {
        let path = match (&self.db, &global.args.replay) {
            (Some(p), _) => p.clone(),
            (None, Some(r)) => r.clone(),
            (None, None) => db_path(&None)?,
        };
        let reader = Reader::open(&path)?;
        let now = now_ms();
        let since = parse_time_arg(&self.since, now).map_err(|e| option_error("--since", e))?;
        let until = match &self.until {
            Some(u) => Some(parse_time_arg(u, now).map_err(|e| option_error("--until", e))?),
            None => None,
        };
        let q = Query {
            since_ms: Some(since),
            until_ms: until,
            ..Query::default()
        };
        Ok((reader, q))
    }
}

/// The recording to use: the one given, else the default one `gpuledger record` writes.
pub fn db_path(db: &Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match db {
        Some(p) => Ok(p.clone()),
        None => default_db_path().ok_or_else(|| failed("cli-err-no-data-dir", vec![])),
    }
}

/// An option's value refused after parsing (`--since: "x" is neither…`), said as a sentence.
pub fn option_error(option: &str, why: Said) -> anyhow::Error {
    failed(
        "cli-err-option-value",
        vec![("option", option.into()), ("why", why.into())],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_intervals() {
        assert_eq!(refresh("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(refresh("2").unwrap(), Duration::from_secs(2));
        assert_eq!(refresh("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(refresh("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(refresh("100ms").unwrap(), Duration::from_millis(100));
        assert!(refresh("50ms").unwrap_err().contains("minimum of 100 ms"));
        assert!(refresh("0").unwrap_err().contains("minimum of 100 ms"));
        assert!(refresh("fast").unwrap_err().contains("not a duration"));
        // `-d 1m` was refused while `serve --interval 1m` was accepted.
        assert_eq!(refresh("1m").unwrap(), Duration::from_secs(60));
        assert!(refresh("NaN").is_err());
        assert!(refresh("99999").unwrap_err().contains("maximum"));
    }

    proptest::proptest! {
        #[test]
        fn interval_parser_never_panics_and_keeps_the_floor(s in ".{0,20}") {
            if let Ok(d) = refresh(&s) {
                proptest::prop_assert!(d >= Duration::from_millis(100), "{:?} gave {:?}", s, d);
            }
        }

        #[test]
        fn interval_in_ms_round_trips(ms in 100u64..3_600_000) {
            proptest::prop_assert_eq!(refresh(&format!("{ms}ms")), Ok(Duration::from_millis(ms)));
        }
    }

    #[test]
    fn sampling_interval() {
        assert_eq!(sampling("10ms").unwrap(), Duration::from_millis(10));
        assert!(sampling("5ms").unwrap_err().contains("minimum"));
        assert_eq!(sampling("1d").unwrap(), Duration::from_secs(86_400));
        assert!(sampling("2d").unwrap_err().contains("maximum"));
    }

    #[test]
    fn grace_values() {
        // A bare number of seconds, as before, and the duration grammar of every other option.
        assert_eq!(grace("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(grace("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(grace("1m"), Ok(Duration::from_secs(60)));
        assert!(grace("-1").is_err());
        assert!(grace("NaN").is_err());
        assert!(grace("abc").is_err());
        assert!(grace("2h").unwrap_err().contains("maximum"));
    }

    #[test]
    fn times_are_checked_and_kept_as_written() {
        assert_eq!(time("1h").as_deref(), Ok("1h"));
        assert_eq!(
            time("2026-11-29T08:00:00Z").as_deref(),
            Ok("2026-11-29T08:00:00Z")
        );
        assert!(time("yesterday").is_err());
    }

    #[test]
    fn alert_expressions() {
        assert!(alert("device.memory.used > 90%").is_ok());
        assert!(alert("device.memory.used >").is_err());
    }

    #[test]
    fn allocation_sizes() {
        assert_eq!(allocation("512MiB"), Ok(512 << 20));
        assert!(allocation("0").unwrap_err().contains("more than 0"));
        assert!(allocation("2048TiB")
            .unwrap_err()
            .contains("larger than any GPU"));
        assert!(allocation("lots").is_err());
    }
}
