//! `gpuledger` with no sub-command: the live terminal view (crates/tui).

use crate::Global;
use gpuledger_actions::kill::guard::{self, Verdict};
use gpuledger_actions::kill::{InspectError, KillOptions, Killer, Target};
use gpuledger_lang::Said;
use gpuledger_tui::actions::session_critical;
use gpuledger_tui::{Check, Options, Termination, Terminator, ThemeKind};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The view's kill key, through the actions crate: its guard rails decide before the prompt,
/// and the kill itself (graceful, then forced after the grace period, with its own waiting) runs
/// on a thread of its own so the view keeps refreshing. The view reports the process gone only
/// when a later snapshot no longer lists it; what the thread learns that the snapshot cannot show
/// (refused, permission denied) comes back as a message.
struct ActionsTerminator {
    killer: Killer,
    messages: Arc<Mutex<Vec<Said>>>,
}

impl Terminator for ActionsTerminator {
    fn check(&self, pid: u32, start_time: Option<u64>, name: &str) -> Check {
        let info = match self.killer.inspect(pid) {
            Ok(info) => info,
            Err(InspectError::NotFound) => {
                return Check::Refused(Said::new("tui-check-gone", vec![]))
            }
            // The system's own words (and the PID guard's, said in English by `inspect`):
            // asked again below in the view's language where the guard has them.
            Err(InspectError::PermissionDenied(why)) | Err(InspectError::Other(why)) => {
                return Check::Refused(guard::invalid_pid(pid).unwrap_or_else(|| why.into()))
            }
        };
        if start_time.is_some_and(|st| st != info.start_time) {
            return Check::Refused(Said::new("tui-check-pid-reused", vec![]));
        }
        match self.killer.verdict(&info) {
            Verdict::Refused(why) => Check::Refused(why),
            Verdict::NeedsSecondConfirmation(why) => Check::SecondConfirmation(why),
            // The guard read the process's own names; the listed one is asked about too.
            Verdict::Allowed => match session_critical(pid, name) {
                Some(why) => Check::SecondConfirmation(why),
                None => Check::Allowed,
            },
        }
    }

    fn terminate(&self, pid: u32, start_time: Option<u64>, force: bool) -> Termination {
        let messages = self.messages.clone();
        let spawned = std::thread::Builder::new()
            .name("gpuledger-kill".into())
            .spawn(move || {
                let opts = KillOptions {
                    force,
                    // The view asked the second question itself (see `check`).
                    confirmed_sensitive: true,
                    ..KillOptions::default()
                };
                let target = Target {
                    pid,
                    start_time,
                    name: None,
                };
                let out = Killer::new().kill(&target, &opts, None);
                if !out.signalled() {
                    if let Ok(mut m) = messages.lock() {
                        let args = vec![
                            ("pid", pid.to_string().into()),
                            ("message", out.message.into()),
                        ];
                        m.push(Said::new("tui-kill-pid-message", args));
                    }
                }
            });
        match spawned {
            Ok(_) => Termination::Requested,
            Err(e) => {
                let args = vec![("error", e.to_string().into())];
                Termination::Refused(Said::new("tui-kill-not-started", args))
            }
        }
    }

    fn poll_messages(&self) -> Vec<Said> {
        self.messages
            .lock()
            .map(|mut m| std::mem::take(&mut *m))
            .unwrap_or_default()
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Live view: refresh interval, in seconds (`0.5`) or with a unit (`500ms`, `2s`). Minimum
    /// 100 ms; `+`/`-` change it while running.
    #[arg(short = 'd', long, value_name = "TIME", default_value = "1s", value_parser = crate::flags::refresh)]
    pub interval: Duration,
    /// Live view: colour theme. `NO_COLOR` in the environment forces monochrome.
    #[arg(long, value_enum, default_value = "dark")]
    pub theme: Theme,
    /// Live view: no colours, only bold / reverse / dim.
    #[arg(long)]
    pub mono: bool,
    /// Live view with `--replay` of a recording: the moment to show (RFC 3339, or a duration
    /// ago such as `10m`); the latest sample when absent.
    #[arg(long, value_name = "TIME", value_parser = crate::flags::time)]
    pub at: Option<String>,
    /// Live view: an alert expression (repeatable) shown as ALERT while it holds, e.g.
    /// 'device.memory.used > 90%' (the language of `gpuledger watch --help`).
    #[arg(long = "alert", value_name = "EXPR", value_parser = crate::flags::alert)]
    pub alerts: Vec<gpuledger_compare::alert::Expr>,
    /// Live view of another machine running `gpuledger serve` (e.g. http://gpu-box:9835),
    /// read-only: its snapshot is fetched every interval, nothing is collected or changed here.
    #[arg(long, value_name = "URL", conflicts_with = "at")]
    pub remote: Option<String>,
}

/// Rounds from another machine's `/api/v1/snapshot`. When it stops answering, the last snapshot
/// stays on screen marked with the error (and goes stale), never replaced by zeros.
struct RemoteSource {
    url: String,
    agent: ureq::Agent,
    last: Option<gpuledger_model::Snapshot>,
}

impl RemoteSource {
    fn new(base: &str) -> anyhow::Result<RemoteSource> {
        let base = base.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            let url = format!("{base:?}");
            return Err(crate::failed::failed(
                "cli-err-remote-not-http",
                vec![("url", url.into())],
            ));
        }
        if base.starts_with("https://") {
            return Err(crate::failed::failed("cli-err-remote-https", vec![]));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(3)))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        Ok(RemoteSource {
            url: format!("{base}/api/v1/snapshot"),
            agent,
            last: None,
        })
    }

    fn fetch(&self) -> Result<gpuledger_model::Snapshot, String> {
        let mut resp = self
            .agent
            .get(&self.url)
            .call()
            .map_err(|e| e.to_string())?;
        if resp.status().as_u16() != 200 {
            return Err(format!("HTTP {}", resp.status().as_u16()));
        }
        let body = resp
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .map_err(|e| e.to_string())?;
        // Another machine's server (maybe an older one): redacted here as every snapshot read
        // from outside is, before the view shows, exports or names anything from it.
        let mut snap = gpuledger_model::parse_snapshot(&body).map_err(|e| e.to_string())?;
        gpuledger_model::redact_snapshot(&mut snap);
        Ok(snap)
    }
}

/// The source line shown when a round fails. The URL is `--remote` as typed and the error text
/// may repeat it: credentials in it (`user:pass@`, `?token=`) must not reach the screen, an
/// export or a screenshot.
fn fetch_error(url: &str, e: &str) -> gpuledger_lang::said::Said {
    let said = vec![("url", url.into()), ("error", e.into())];
    gpuledger_lang::said::Said::new("cli-remote-fetch-failed", said)
        .map_text(&gpuledger_model::redact_text)
}

impl gpuledger_tui::feed::RoundSource for RemoteSource {
    fn round(
        &mut self,
    ) -> (
        gpuledger_model::Snapshot,
        std::collections::HashMap<u32, gpuledger_tui::hoststats::HostProc>,
    ) {
        use gpuledger_model::{SourceState, SourceStatus};
        let snap = match self.fetch() {
            Ok(s) => {
                self.last = Some(s.clone());
                s
            }
            Err(e) => {
                let mut s = self.last.clone().unwrap_or_else(|| {
                    gpuledger_model::Snapshot::new(String::new(), gpuledger_model::Host::default())
                });
                s.sources.push(SourceStatus::new(
                    "remote",
                    SourceState::Error,
                    fetch_error(&self.url, &e),
                ));
                s
            }
        };
        (snap, Default::default())
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Theme {
    Dark,
    Light,
}

/// The alert tracker behind `--alert`: active alerts after each round, as one line each.
fn alert_hook(
    exprs: &[gpuledger_compare::alert::Expr],
    lang: gpuledger_lang::Lang,
) -> Option<gpuledger_tui::app::AlertHook> {
    if exprs.is_empty() {
        return None;
    }
    let mut tracker = gpuledger_compare::alert::Tracker::new(exprs.to_vec(), 0);
    Some(Box::new(move |snap| {
        tracker.observe(snap, gpuledger_model::time::now_ms());
        tracker
            .active()
            .into_iter()
            .map(|(expr, subject)| {
                let subject = gpuledger_views::alerts::subject_text(subject, lang);
                format!("{expr} — {subject}")
            })
            .collect()
    }))
}

/// The samples a recording holds in the chart's window before the moment shown (none for a
/// snapshot file), so a replay draws the history the live view had.
fn recorded_before(
    path: &std::path::Path,
    shown: &gpuledger_model::Snapshot,
) -> anyhow::Result<Vec<gpuledger_model::Snapshot>> {
    let Ok(at) = gpuledger_model::time::parse_rfc3339_ms(&shown.taken_at) else {
        return Ok(Vec::new());
    };
    if !gpuledger_history::store::is_recording(path) {
        return Ok(Vec::new());
    }
    let window_ms = (gpuledger_tui::app::HISTORY_SECS * 1000.0) as i64;
    let reader = gpuledger_history::store::Reader::open(path)?;
    Ok(reader.snapshots_between(
        at.saturating_sub(window_ms),
        at.saturating_sub(1),
        gpuledger_tui::series::PROCESS_POINTS,
    )?)
}

pub fn run(args: &ViewArgs, global: &Global) -> anyhow::Result<ExitCode> {
    // A saved snapshot or a recording (at --at, else its latest sample); never collected.
    let replay = match &global.args.replay {
        Some(path) => match global.snapshot_at(args.at.as_deref())? {
            (snapshot, Some(name)) => Some(gpuledger_tui::Replay {
                earlier: recorded_before(path, &snapshot)?,
                snapshot,
                name,
            }),
            (_, None) => None,
        },
        None if args.at.is_some() => {
            let said = gpuledger_lang::said::Said::new("cli-err-at-needs-replay", vec![]);
            return Err(crate::Usage(said).into());
        }
        None => None,
    };
    if replay.is_some() && args.remote.is_some() {
        return Err(crate::failed::failed("cli-err-remote-and-replay", vec![]));
    }
    let remote = match &args.remote {
        Some(url) => Some((
            url.clone(),
            Box::new(RemoteSource::new(url)?) as Box<dyn gpuledger_tui::feed::RoundSource>,
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
        remote,
        terminator: Box::new(ActionsTerminator {
            killer: Killer::new(),
            messages: Arc::default(),
        }),
        alerts: alert_hook(&args.alerts, global.lang),
        proc_root: global.args.proc_root.clone(),
        lang: global.lang,
    };
    gpuledger_tui::run(opts, || global.asking_collector(true))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_round_does_not_show_the_remote_urls_credentials() {
        let url = "http://alice:hunter2@gpu-box:9400/x?token=s3cr3t/api/v1/snapshot";
        let e = format!("io: Connection refused for {url}");
        let line = fetch_error(url, &e);
        assert!(!line.contains("hunter2"), "{line}");
        assert!(!line.contains("s3cr3t"), "{line}");
        assert!(line.contains("gpu-box:9400"), "{line}");
        assert!(line.contains("Connection refused"), "{line}");
        let cn = line.in_lang(gpuledger_lang::Lang::ZhCn);
        assert!(!cn.contains("hunter2") && !cn.contains("s3cr3t"), "{cn}");
        assert!(
            cn.contains("gpu-box:9400") && cn.contains("上次收到的快照"),
            "{cn}"
        );
    }

    #[test]
    fn remote_keeps_the_last_snapshot_and_says_why_when_the_server_goes_away() {
        use gpuledger_tui::feed::RoundSource;
        use std::io::{Read, Write};
        let body = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/sample-snapshot.json"
        ))
        .unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            // The listener closes here: the next round finds nobody.
        });
        let mut src = RemoteSource::new(&format!("http://127.0.0.1:{port}/")).unwrap();
        let (first, host) = src.round();
        server.join().unwrap();
        assert_eq!(first.host.hostname.as_deref(), Some("sample-host"));
        assert!(host.is_empty(), "no host CPU/RSS from a remote server");
        let (second, _) = src.round();
        assert_eq!(
            second.devices, first.devices,
            "the last snapshot stays, not zeros"
        );
        let err = second
            .sources
            .iter()
            .find(|s| s.name == "remote")
            .expect("remote error source");
        assert!(
            err.detail
                .contains(&format!("127.0.0.1:{port}/api/v1/snapshot")),
            "{}",
            err.detail
        );
        assert!(RemoteSource::new("gpu-box:9835").is_err());
        assert!(RemoteSource::new("https://gpu-box:9835")
            .err()
            .unwrap()
            .to_string()
            .contains("TLS"));
    }
}
