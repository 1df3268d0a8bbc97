//! The real vLLM (issue 36): vLLM's own CPU build serves a tiny model, TP 1 and TP 2, and every
//! process of the tree it starts (`vllm serve` → `VLLM::EngineCore` → `VLLM::Worker[_TPn]`) is
//! explained by the real binary: one workload under the server, each role from the process's
//! title, the live state from the server's port (also for the workers, which listen on ports of
//! their own), and the KV cache the estimate gives against what vLLM logged for it. Stand-in
//! trees found none of what this found: a worker's rank is in its title, which setproctitle pads
//! with NULs (read as 150 empty arguments, the rank was taken from the 15-byte kernel name); and
//! with one rank the CPU build still runs the model in a worker, so the engine core's estimate
//! counted the KV cache a second time.

use crate::support::{gpuledger_command, Vllm};
use serde_json::Value;

/// The children of `pid` whose kernel name starts with `prefix`.
fn children(pid: u32, prefix: &str) -> Vec<u32> {
    let mut out: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
                return false;
            };
            let (comm, rest) = match (stat.find('('), stat.rfind(')')) {
                (Some(a), Some(b)) => (&stat[a + 1..b], &stat[b + 2..]),
                _ => return false,
            };
            let ppid = rest.split(' ').nth(1).and_then(|s| s.parse::<u32>().ok());
            ppid == Some(pid) && comm.starts_with(prefix)
        })
        .collect();
    out.sort();
    out
}

fn explain(pid: u32) -> Value {
    let out = gpuledger_command()
        .args(["explain", "--json", &pid.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "explain {pid}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The first number after `after` in vLLM's log, thousands separators dropped.
fn logged(log: &str, after: &str) -> f64 {
    let rest = &log[log
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in vLLM's log:\n{log}"))
        + after.len()..];
    let num: String = rest
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .filter(|c| *c != ',')
        .collect();
    num.parse().unwrap()
}

fn check_tree(tp: u32) {
    let Some(v) = Vllm::start(tp) else { return };
    let log = v.log();
    let root = v.pid();
    let engines = children(root, "VLLM::EngineCor");
    assert_eq!(engines.len(), 1, "engine cores under {root}: {engines:?}");
    let workers = children(engines[0], "VLLM::Worker");
    assert_eq!(workers.len(), tp as usize, "workers: {workers:?}");
    // vLLM's own figures: the KV cache each rank was given, and the tokens it holds in all.
    let kv_gib = logged(&log, "Explicitly set (");
    let tokens = logged(&log, "CPU KV cache size: ");
    let model = v.model.to_str().unwrap();

    let mut roles = Vec::new();
    for (i, pid) in std::iter::once(root)
        .chain(engines.iter().copied())
        .chain(workers.iter().copied())
        .enumerate()
    {
        let e = explain(pid);
        let w = &e["workload"];
        assert_eq!(w["kind"], "vllm", "{pid}: {e}");
        assert_eq!(w["model"], model, "{pid}: {e}");
        if i > 0 {
            assert_eq!(w["member"]["root_pid"], root, "{pid}: {e}");
            roles.push(w["member"]["role"].as_str().unwrap().to_string());
        }
        // Every process's live state is its server's: the workers' own ports are not asked.
        assert_eq!(e["live"]["server"], "vllm", "{pid}: {e}");
        assert_eq!(e["live"]["port"], v.port, "{pid}: {e}");
        if i == 1 {
            // The engine core runs no model: vLLM's CPU build starts a worker even for one rank.
            let why = e["estimated"]["unavailable"].as_str().unwrap_or_default();
            assert!(why.contains("holds no model"), "{pid}: {e}");
            continue;
        }
        let est = &e["estimated"]["runtime"];
        let kv = est["summary"]["kv_cache_gpu_bytes"]
            .as_f64()
            .unwrap_or_else(|| panic!("{pid}: no KV cache estimated: {e}"));
        assert_eq!(kv, kv_gib * (1u64 << 30) as f64, "{pid}: KV per rank");
        assert_eq!(est["summary"]["n_ctx"].as_f64().unwrap(), tokens, "{pid}");
        let block = est["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "block_size")
            .unwrap_or_else(|| panic!("no block_size input: {est}"));
        assert_eq!(block["value"], "128", "{block}");
        // Read from the server's /metrics, not assumed (vLLM's CPU build uses 128, not 16).
        assert_eq!(block["source"]["kind"], "runtime", "{block}");
        assert!(
            block["source"]["detail"]
                .as_str()
                .unwrap()
                .contains("/metrics"),
            "{block}"
        );
    }
    let mut expected = vec!["engine core".to_string()];
    expected.extend(match tp {
        1 => vec!["worker".to_string()],
        n => (0..n).map(|r| format!("worker TP{r}/{n}")).collect(),
    });
    assert_eq!(roles, expected);
}

#[test]
fn the_real_vllm_tree_is_explained_on_every_process() {
    check_tree(1);
    check_tree(2);
}
