//! llama.cpp's RPC backend (`rpc-server`): a device of the llama-server that names it in
//! `--rpc`, which reaches it over TCP rather than starting it, so its workload is found apart from
//! the parent chain.

use gpuledger_lang::Said;
use gpuledger_model::{Member, RoleKind};
use gpuledger_sources::procfs::{ProcReader, ProcessFacts};

/// The programs llama.cpp's RPC backend runs as (`tools/rpc`; packaged as `llama-rpc-server` or
/// `ggml-rpc-server`).
const RPC_SERVERS: &[&str] = &["rpc-server", "llama-rpc-server", "ggml-rpc-server"];

/// Is this llama.cpp's `rpc-server`?
pub(super) fn is_rpc_server(f: &ProcessFacts) -> bool {
    let arg0 = f.cmdline.first().map(String::as_str).unwrap_or("");
    let prog = arg0.rsplit(['/', '\\']).next().unwrap_or(arg0);
    let prog = prog.trim_end_matches(".exe");
    RPC_SERVERS.contains(&prog) || f.comm.as_deref().is_some_and(|c| RPC_SERVERS.contains(&c))
}

/// An `rpc-server` is a device of the llama-server whose `--rpc` list names a port it listens on
/// (`--rpc 127.0.0.1:50052,192.168.1.7:50052`): that server is its root, though not its parent
/// (the two are started apart and meet over TCP). The process table is scanned for it only when
/// an rpc-server holds GPU memory; a client on another machine is out of sight, and said so.
pub(super) fn rpc_device(f: &ProcessFacts, procs: &ProcReader) -> Member {
    let local = |host: &str| {
        matches!(
            host,
            "127.0.0.1" | "localhost" | "::1" | "[::1]" | "0.0.0.0"
        )
    };
    let names_port = |args: &[String]| {
        let list = args
            .iter()
            .enumerate()
            .find_map(|(i, a)| match a.strip_prefix("--rpc") {
                Some("") => args.get(i + 1).map(String::as_str),
                Some(v) => v.strip_prefix('='),
                None => None,
            })?;
        list.split(',').find_map(|ep| {
            let (host, port) = ep.trim().rsplit_once(':')?;
            let port: u16 = port.parse().ok()?;
            (local(host) && f.listen_ports.contains(&port)).then_some(port)
        })
    };
    let client = procs.pids().ok().and_then(|pids| {
        pids.into_iter()
            .filter(|&p| p != f.pid)
            .take(100_000)
            .find_map(|p| {
                let comm = procs.stat(p).ok()?.comm;
                if !comm.starts_with("llama-") {
                    return None;
                }
                let args = procs.args(p)?;
                names_port(&args).map(|port| (p, port))
            })
    });
    let (root_pid, evidence) = match client {
        Some((p, port)) => (
            Some(p),
            Said::new(
                "report-member-rpc-client",
                vec![
                    ("client", p.to_string().into()),
                    ("port", port.to_string().into()),
                    ("pid", f.pid.to_string().into()),
                ],
            ),
        ),
        None => (
            None,
            match f.listen_ports.as_slice() {
                [] => Said::new("report-member-rpc-no-client", vec![]),
                ports => Said::new(
                    "report-member-rpc-no-client-ports",
                    vec![(
                        "ports",
                        ports
                            .iter()
                            .map(u16::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                            .into(),
                    )],
                ),
            },
        ),
    };
    Member {
        root_pid,
        role: "rpc device".into(),
        role_kind: RoleKind::RpcDevice,
        evidence,
    }
}
