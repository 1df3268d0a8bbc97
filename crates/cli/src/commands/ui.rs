//! `gpuledger ui`: the browser view of this machine. A `serve` on a free loopback port (the same
//! read-only server and page), opened in the default browser: `xdg-open` on Linux and other
//! Unix, `open` on macOS, `cmd /C start` on Windows. When no browser can be started it says so
//! and keeps serving, so the address can be opened by hand (or through an SSH tunnel).

use crate::commands::serve::{serve_until_stopped, source};
use crate::Global;
use gpuledger_serve::ServeConfig;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Time between collection rounds; the page refreshes at the same pace (e.g. 2s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = crate::flags::refresh)]
    pub interval: Duration,
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Print the address without starting a browser.
    #[arg(long)]
    pub no_open: bool,
    /// Also answer requests that call this server NAME (a host name or an IP address, no port;
    /// repeatable). Without it only localhost, 127.0.0.1 and `[::1]` are answered (421 otherwise),
    /// so a web page whose DNS name is pointed at 127.0.0.1 cannot read this machine's processes.
    #[arg(long = "allow-host", value_name = "NAME", value_parser = gpuledger_serve::host::parse_allowed)]
    pub allow_hosts: Vec<String>,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let cfg = ServeConfig {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)),
        interval: args.interval,
        allow_hosts: args.allow_hosts.clone(),
        lang: global.lang,
        ..ServeConfig::default()
    };
    let replay = global.args.replay.is_some();
    let lang = global.lang;
    serve_until_stopped(cfg, source(global)?, |addr| {
        let url = format!("http://{addr}/");
        let key = if replay {
            "cli-ui-at-replay"
        } else {
            "cli-ui-at"
        };
        println!("{}", lang.t_args(key, &[("url", url.as_str().into())]));
        if !args.no_open {
            match open_browser(&url) {
                Ok(how) => println!("{}", lang.t_args("cli-ui-opened", &[("how", how.into())])),
                Err(why) => {
                    let args = [("why", why.into()), ("url", url.as_str().into())];
                    println!("{}", lang.t_args("cli-ui-no-browser", &args))
                }
            }
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The platform's "open this URL in the default browser" command, before the URL.
fn opener() -> (&'static str, &'static [&'static str]) {
    if cfg!(windows) {
        // `start`'s first quoted argument is a window title: give an empty one.
        ("cmd", &["/C", "start", ""])
    } else if cfg!(target_os = "macos") {
        ("open", &[])
    } else {
        ("xdg-open", &[])
    }
}

/// How long the opener may take to say whether it failed. xdg-open returns once it has handed
/// the URL over; one that is still running after this is taken to have started a browser.
const OPEN_VERDICT: Duration = Duration::from_secs(5);

/// Start the default browser at `url`: the opener's name, or why it failed.
fn open_browser(url: &str) -> Result<String, String> {
    let (prog, before) = opener();
    let mut child = Command::new(prog)
        .args(before)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{prog}: {e}"))?;
    let t = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) if st.success() => return Ok(prog.to_string()),
            Ok(Some(st)) => return Err(format!("{prog} failed: {st}")),
            Ok(None) if t.elapsed() < OPEN_VERDICT => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                // Reaped when it ends, so it never lingers as a zombie.
                std::thread::spawn(move || child.wait());
                return Ok(prog.to_string());
            }
            Err(e) => return Err(format!("{prog}: {e}")),
        }
    }
}
