//! `gpuledger` with no sub-command: the live terminal view (crates/tui).

use crate::Global;
use gpuledger_tui::{NoTerminator, Options, ThemeKind};
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Live view: refresh interval, in seconds (`0.5`) or with a unit (`500ms`, `2s`). Minimum
    /// 100 ms; `+`/`-` change it while running.
    #[arg(short = 'd', long, value_name = "TIME", default_value = "1s", value_parser = parse_interval)]
    pub interval: Duration,
    /// Live view: colour theme. `NO_COLOR` in the environment forces monochrome.
    #[arg(long, value_enum, default_value = "dark")]
    pub theme: Theme,
    /// Live view: no colours, only bold / reverse / dim.
    #[arg(long)]
    pub mono: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Theme {
    Dark,
    Light,
}

/// `0.5`, `2`, `500ms`, `1.5s`: at least 100 ms, at most an hour.
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a time (expected seconds like 0.5, or 500ms, 2s)"))?;
    let secs = v * scale;
    if !secs.is_finite() || secs < 0.1 {
        return Err(format!("{s:?} is below the 100 ms minimum"));
    }
    if secs > 3600.0 {
        return Err(format!("{s:?} is above the one-hour maximum"));
    }
    Ok(Duration::from_secs_f64(secs))
}

pub fn run(args: &ViewArgs, global: &Global) -> anyhow::Result<ExitCode> {
    let replay = match &global.args.replay {
        Some(path) => Some((
            crate::global::load_snapshot(path)?,
            path.display().to_string(),
        )),
        None => None,
    };
    let theme = match (args.mono, args.theme) {
        (true, _) => ThemeKind::Mono,
        (false, Theme::Dark) => ThemeKind::Dark,
        (false, Theme::Light) => ThemeKind::Light,
    };
    let opts = Options {
        interval: args.interval,
        theme,
        replay,
        // The kill mechanism (crates/actions) plugs in here.
        terminator: Box::new(NoTerminator),
    };
    gpuledger_tui::run(opts, || global.collector())?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(parse_interval("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_interval("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_interval("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_interval("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_interval("100ms").unwrap(), Duration::from_millis(100));
        assert!(parse_interval("50ms")
            .unwrap_err()
            .contains("100 ms minimum"));
        assert!(parse_interval("0").unwrap_err().contains("100 ms minimum"));
        assert!(parse_interval("fast").unwrap_err().contains("not a time"));
        assert!(parse_interval("NaN").is_err());
        assert!(parse_interval("99999").unwrap_err().contains("maximum"));
    }
}
