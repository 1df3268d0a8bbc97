//! `gpuledger watch --alert EXPR`: threshold alerts over live samples.

use crate::commands::sampling;
use crate::Global;
use gpuledger_compare::alert::{env_vars, Expr, Tracker};
use gpuledger_model::time::parse_duration;
use gpuledger_views::alerts::event_line;
use std::io::Write;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

macro_rules! language {
    () => {
        "\
Alert expressions: FIELD OP VALUE [and FIELD OP VALUE ...]; OP is >, >=, < or <=.
  device.memory.used, device.memory.free, device.memory.unattributed:
      a size (8GiB, 512MiB) or a share of the device total (90%)
  process.memory: a size, or a share of its device's total
  device.utilization.gpu, process.sm: percent (90 or 90%)
  device.temperature: degrees Celsius (85)
  device.power: watts (300)
A process.* field makes the alert per process per device. Unknown values never match.
An alert fires once when its expression has held for --for, and resolves once it has been false
for --for. --exec runs the command (via sh -c) with GPULEDGER_ALERT, GPULEDGER_ALERT_STATE,
GPULEDGER_ALERT_TIME, GPULEDGER_ALERT_TEXT, GPULEDGER_DEVICE_UUID, GPULEDGER_DEVICE_INDEX,
GPULEDGER_PID, GPULEDGER_PROCESS_NAME and GPULEDGER_VALUE_<FIELD> set (never command lines).
GPULEDGER_ALERT_TEXT is the line as printed, in the chosen language; the others never change with it.

Examples:
  gpuledger watch --alert 'device.memory.used > 90%' \\
      --alert 'process.memory > 8GiB' --for 30s
  gpuledger watch --for 1m \\
      --alert 'device.temperature > 85 and device.utilization.gpu < 10' \\
      --exec 'notify-send \"$GPULEDGER_ALERT_TEXT\"'"
    };
}
/// The language, then the exit statuses (`--help` shows after_long_help, not after_help).
const LONG_HELP: &str = concat!(language!(), "\n\n", crate::exit_codes!());

#[derive(clap::Args, Debug)]
#[command(after_long_help = LONG_HELP)]
pub struct Args {
    /// An alert expression (repeatable), e.g. 'device.memory.used > 90%'. See --help.
    #[arg(long = "alert", value_name = "EXPR", required = true, value_parser = crate::flags::alert)]
    pub alerts: Vec<Expr>,
    /// How long an expression must hold before firing, and be false before resolving.
    #[arg(long = "for", default_value = "0s", value_parser = parse_duration, value_name = "DURATION")]
    pub hold: Duration,
    /// Run this command (sh -c) for every alert that fires or resolves, with the alert in the
    /// environment.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Print alerts as JSON lines.
    #[arg(long)]
    pub json: bool,
    /// Time between samples.
    #[arg(long, default_value = "1s", value_parser = crate::flags::sampling)]
    pub interval: Duration,
    /// Stop after this many samples (default: until Ctrl-C / SIGTERM).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
}

fn shell(cmd: &str) -> Command {
    if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(cmd);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    }
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if global.args.replay.is_some() {
        let said = gpuledger_lang::said::Said::new("cli-err-watch-replay", vec![]);
        return Err(crate::Usage(said).into());
    }
    let mut tracker = Tracker::new(args.alerts.clone(), args.hold.as_millis() as i64);
    let said = [
        ("alerts", (args.alerts.len() as i64).into()),
        (
            "every",
            humantime::format_duration(args.interval).to_string().into(),
        ),
    ];
    eprintln!("{}", global.lang.t_args("cli-watch-start", &said));
    let mut children: Vec<Child> = Vec::new();
    let stats = sampling::run(global, args.interval, args.count, |snap, ts| {
        let events = tracker.observe(snap, ts);
        let mut out = std::io::stdout().lock();
        for ev in &events {
            let text = event_line(ev, global.lang);
            if args.json {
                // C1 controls escaped too: names come from outside.
                let json = serde_json::to_string(ev)?;
                writeln!(out, "{}", gpuledger_views::term_safe_text(&json))?;
            } else {
                writeln!(out, "{text}")?;
            }
            if let Some(cmd) = &args.exec {
                match shell(cmd)
                    .envs(env_vars(ev, text))
                    .stdin(Stdio::null())
                    .spawn()
                {
                    Ok(c) => children.push(c),
                    Err(e) => {
                        let said = [
                            ("command", format!("{cmd:?}").into()),
                            ("error", e.to_string().into()),
                        ];
                        eprintln!("{}", global.lang.t_args("cli-watch-exec-failed", &said));
                    }
                }
            }
        }
        out.flush()?;
        // Reap finished hooks without waiting on running ones.
        children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
        Ok(())
    });
    // Give running hooks a moment to finish, so a short-lived watch does not orphan them.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !children.is_empty() && std::time::Instant::now() < deadline {
        children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_))));
        std::thread::sleep(Duration::from_millis(20));
    }
    match stats {
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e),
        Ok(_) => Ok(ExitCode::SUCCESS),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
