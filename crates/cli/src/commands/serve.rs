//! `gpuledger serve`: Prometheus metrics and the JSON snapshot over read-only HTTP.

use crate::Global;
use gpuledger_serve::{ServeConfig, Server, Source, DEFAULT_LISTEN};
use gpuledger_views::ProcessSeries;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

/// The endpoints and the names answered are said in `serve --help`'s closing text (main.rs).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on. Loopback unless --allow-remote is given.
    #[arg(long, value_name = "ADDR:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Time between collection rounds (e.g. 5s, 500ms, 1m).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = crate::flags::refresh)]
    pub interval: Duration,
    /// Which processes get per-process series: top-N by memory, all, or none.
    #[arg(long, value_name = "top-N|all|none", default_value = "top-50", value_parser = clap::value_parser!(ProcessSeries))]
    pub processes: ProcessSeries,
    /// Also export NVIDIA dcgm-exporter's device metrics (DCGM_FI_DEV_FB_USED, _FB_FREE in MiB,
    /// _GPU_UTIL, _MEM_COPY_UTIL, _GPU_TEMP, _POWER_USAGE, clocks) with its labels (gpu, UUID,
    /// device, modelName, Hostname), for dashboards written for dcgm-exporter.
    #[arg(long)]
    pub dcgm_compat: bool,
    /// Allow listening on a non-loopback address. The endpoints have no authentication and show
    /// process names and users of this machine to anyone who can reach them.
    #[arg(long)]
    pub allow_remote: bool,
    /// Also answer requests that call this server NAME (a host name or an IP address, no port;
    /// repeatable): a DNS alias, a reverse proxy's upstream name, a FQDN Prometheus scrapes.
    #[arg(long = "allow-host", value_name = "NAME", value_parser = gpuledger_serve::host::parse_allowed)]
    pub allow_hosts: Vec<String>,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if !args.listen.ip().is_loopback() {
        if !args.allow_remote {
            let said = vec![("listen", args.listen.to_string().into())];
            return Err(crate::failed::failed("cli-err-serve-not-loopback", said));
        }
        let listen = args.listen.to_string();
        let warning = global
            .lang
            .t_args("cli-serve-not-loopback", &[("listen", listen.into())]);
        eprintln!("{warning}");
    }

    let cfg = ServeConfig {
        listen: args.listen,
        interval: args.interval,
        processes: args.processes,
        dcgm_compat: args.dcgm_compat,
        allow_hosts: args.allow_hosts.clone(),
        lang: global.lang,
        ..ServeConfig::default()
    };
    let replay = global.args.replay.is_some();
    let lang = global.lang;
    serve_until_stopped(cfg, source(global)?, |addr| {
        let key = if replay {
            "cli-serve-listening-replay"
        } else {
            "cli-serve-listening"
        };
        eprintln!("{}", lang.t_args(key, &[("addr", addr.to_string().into())]))
    })?;
    Ok(ExitCode::SUCCESS)
}

/// What to serve: the replay file if one was given, else the live machine.
pub fn source(global: &Global) -> anyhow::Result<Source> {
    Ok(match &global.args.replay {
        Some(path) => Source::Replay {
            snapshot: Box::new(crate::global::load_snapshot(path)?),
            path: path.display().to_string(),
        },
        None => {
            // The collector (with workload identification) is built on the collection thread.
            let args = global.args.clone();
            Source::Live(Box::new(move || {
                let mut c = Global::new(args).asking_collector(true);
                Box::new(move || c.collect())
            }))
        }
    })
}

/// Start serving, say where (`started` gets the bound address), and serve until a stop request.
pub fn serve_until_stopped(
    cfg: ServeConfig,
    source: Source,
    started: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    // Registered before the first round so that a Ctrl-C during it is not lost. The signal is
    // awaited on its own thread: starting waits for the first round and shutting down waits for
    // the collection thread, and either may be stuck in a round that never returns (a hung driver
    // call). A stop request must end the process all the same: a second request, or a round
    // still running STOP_GRACE after the first, exits at once (crate::stop).
    crate::stop::stop_flag()?;
    let (stopped_tx, stopped_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        crate::stop::wait_for_stop();
        let _ = stopped_tx.send(());
    });
    let listen = cfg.listen;
    let server = Server::start(cfg, source).map_err(|e| {
        let said = vec![
            ("listen", listen.to_string().into()),
            ("error", e.to_string().into()),
        ];
        crate::failed::failed("cli-err-serve-cannot-listen", said)
    })?;
    started(server.local_addr());
    let _ = stopped_rx.recv();
    eprintln!("gpuledger: stopping the server");
    server.shutdown();
    Ok(())
}
