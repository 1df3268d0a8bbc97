//! `gpuledger serve` scraped by a real Prometheus (Debian's `prometheus` package; install with
//! `.ci/setup-prometheus.sh`). Prometheus runs on a loopback port with a generated config that
//! scrapes the server every second; the values are checked through Prometheus's own query API,
//! so the exposition is proven parseable and correct by the real consumer.
//!
//! Without a `prometheus` binary the test is skipped with a printed reason, except under
//! `CI=true`, where it fails.

use crate::serve_support::*;
use crate::support::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const G0: &str = "GPU-11111111-2222-3333-4444-555555555555";
const G1: &str = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

/// The Prometheus binary for `test`, or `None` after saying why it is skipped (a failure in CI,
/// which installs it).
pub(crate) fn prometheus_or_skip(test: &str) -> Option<PathBuf> {
    let found = prometheus_binary();
    if found.is_none() {
        let msg = "prometheus not installed (run .ci/setup-prometheus.sh)";
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{msg}: required in CI"
        );
        eprintln!("SKIPPED {test}: {msg}");
    }
    found
}

fn prometheus_binary() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PROMETHEUS_BIN") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|d| d.join("prometheus"))
        .find(|p| p.is_file())
}

/// `promtool` from the same package, or None (with the same skip/fail rule as prometheus).
fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        let msg = format!("{name} not installed (run .ci/setup-prometheus.sh)");
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{msg}: required in CI");
        }
        eprintln!("SKIPPED: {msg}");
    }
    found
}

fn run_promtool(args: &[&str], stdin: Option<&str>) -> (bool, String) {
    let Some(bin) = tool("promtool") else {
        return (true, String::new());
    };
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promtool");
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

pub(crate) fn deploy(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy")
        .join(rel)
}

/// Every panel query of a dashboard under deploy/, its variables set to "all".
fn dashboard_queries(rel: &str) -> Vec<String> {
    let dash: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(deploy(rel)).unwrap()).unwrap();
    let mut out = Vec::new();
    for p in dash["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            out.push(
                t["expr"]
                    .as_str()
                    .unwrap()
                    .replace("$__rate_interval", "5m")
                    .replace("$instance", ".*")
                    .replace("$device", ".*")
                    .replace("$namespace", ".*"),
            );
        }
    }
    out
}

#[test]
fn promtool_accepts_the_exposition_and_the_deploy_files() {
    if tool("promtool").is_none() {
        return;
    }
    let (_m, served) = serve_two_gpus(&["--processes", "all"]);
    let dir = tempfile::tempdir().unwrap();
    let metrics = get(served.addr, "/metrics").body;
    // Lint clean: no output at all (promtool prints naming/unit problems).
    let (ok, out) = run_promtool(&["check", "metrics"], Some(&metrics));
    assert!(ok && out.trim().is_empty(), "promtool check metrics: {out}");

    let (ok, out) = run_promtool(
        &[
            "check",
            "config",
            deploy("prometheus/prometheus.yml").to_str().unwrap(),
        ],
        None,
    );
    assert!(ok, "{out}");

    // The example alert rules parse and pass their unit tests (deploy/prometheus/*.test.yml).
    let alerts = deploy("prometheus/gpuledger-alerts.yml");
    let (ok, out) = run_promtool(&["check", "rules", alerts.to_str().unwrap()], None);
    assert!(ok && out.contains("3 rules found"), "{out}");
    let tests = deploy("prometheus/gpuledger-alerts.test.yml");
    let (ok, out) = run_promtool(&["test", "rules", tests.to_str().unwrap()], None);
    assert!(ok && out.contains("SUCCESS"), "{out}");

    // Every query of both dashboards is valid PromQL: wrap them as recording rules and let
    // promtool parse.
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    let mut n = 0;
    for e in dashboard_queries("grafana/gpuledger-dashboard.json")
        .into_iter()
        .chain(dashboard_queries("grafana/gpuledger-k8s-dashboard.json"))
    {
        n += 1;
        rules.push_str(&format!(
            "      - record: dashboard:q{n}\n        expr: {}\n",
            serde_json::Value::String(e)
        ));
    }
    let rules_path = dir.path().join("rules.yml");
    std::fs::write(&rules_path, rules).unwrap();
    let (ok, out) = run_promtool(&["check", "rules", rules_path.to_str().unwrap()], None);
    assert!(ok, "dashboard PromQL rejected: {out}");
    assert!(out.contains(&format!("{n} rules found")), "{out}");
}

fn url_encode(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// GET over HTTP/1.0 (Prometheus then answers with a plain body, no chunking, and closes).
fn http10_get(addr: SocketAddr, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    Some((head.get(9..12)?.parse().ok()?, body.to_string()))
}

/// Instant query through Prometheus's HTTP API: the result vector, or None while unavailable.
pub(crate) fn query(prom: SocketAddr, q: &str) -> Option<Vec<serde_json::Value>> {
    let (status, body) = http10_get(prom, &format!("/api/v1/query?query={}", url_encode(q)))?;
    if status != 200 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    if v["status"] != "success" {
        return None;
    }
    v["data"]["result"].as_array().cloned()
}

pub(crate) fn value_of(sample: &serde_json::Value) -> f64 {
    sample["value"][1].as_str().unwrap().parse().unwrap()
}

/// The single value of `q`, waiting (bounded) until Prometheus has it.
pub(crate) fn single(prom: SocketAddr, q: &str) -> (serde_json::Value, f64) {
    let r = query(prom, q).unwrap_or_default();
    assert_eq!(r.len(), 1, "{q} gave {r:?}");
    (r[0]["metric"].clone(), value_of(&r[0]))
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A real Prometheus on a free loopback port scraping `target` every second, its config, data
/// and log under a directory of the test's; killed on drop.
pub(crate) struct Prometheus {
    pub(crate) addr: SocketAddr,
    log: PathBuf,
    _guard: Guard,
}

impl Prometheus {
    fn start(bin: &Path, target: SocketAddr, dir: &Path) -> Self {
        let job = serde_json::json!({
            "job_name": "gpuledger",
            "static_configs": [{"targets": [target.to_string()]}],
        });
        Self::start_jobs(bin, &[job], dir)
    }

    /// Prometheus scraping every second with these `scrape_configs` entries (JSON is YAML).
    pub(crate) fn start_jobs(bin: &Path, jobs: &[serde_json::Value], dir: &Path) -> Self {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let cfg = dir.join("prometheus.yml");
        let config = serde_json::json!({
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
            "scrape_configs": jobs,
        });
        std::fs::write(&cfg, config.to_string()).unwrap();
        let log = dir.join("prometheus.log");
        let guard = Guard(
            Command::new(bin)
                .arg(format!("--config.file={}", cfg.display()))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    dir.join("data").display()
                ))
                .arg(format!("--web.listen-address={addr}"))
                .arg("--log.level=warn")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .expect("start prometheus"),
        );
        Prometheus {
            addr,
            log,
            _guard: guard,
        }
    }

    /// Wait (60 s at most) until the target has been scraped twice, both times successfully.
    fn wait_for_two_scrapes(&self) {
        self.wait_for_two_scrapes_of("gpuledger", 1);
    }

    /// Wait (60 s at most) until each of the `targets` of `job` has been scraped twice, both
    /// times successfully.
    pub(crate) fn wait_for_two_scrapes_of(&self, job: &str, targets: usize) {
        let mut last = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let q = format!("sum_over_time(up{{job=\"{job}\"}}[1m])");
        loop {
            if let Some(r) = query(self.addr, &q) {
                if r.len() == targets && r.iter().all(|s| value_of(s) >= 2.0) {
                    return;
                }
                last = r;
            }
            assert!(
                Instant::now() < deadline,
                "Prometheus did not scrape twice within 60 s; last {last:?}\nlog:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

#[test]
fn real_prometheus_scrapes_device_and_process_series() {
    let Some(bin) = prometheus_or_skip("real_prometheus_scrapes_device_and_process_series") else {
        return;
    };

    let (m, served) = serve_two_gpus(&["--interval", "2s"]);
    let dir = tempfile::tempdir().unwrap();
    let snap = gpuledger_model::parse_snapshot(&get(served.addr, "/api/v1/snapshot").body).unwrap();

    let prom = Prometheus::start(&bin, served.addr, dir.path());
    prom.wait_for_two_scrapes();
    let prom_addr = prom.addr;
    let (_, up) = single(prom_addr, "up{job=\"gpuledger\"}");
    assert_eq!(up, 1.0);
    // Nothing was dropped by the parser: samples scraped equals what /metrics holds.
    let exposed = get(served.addr, "/metrics")
        .body
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count() as f64;
    let (_, scraped) = single(prom_addr, "scrape_samples_scraped{job=\"gpuledger\"}");
    assert_eq!(scraped, exposed);

    // Device series, with the scenario's values.
    let (labels, total) = single(
        prom_addr,
        &format!("gpuledger_device_memory_total_bytes{{device=\"{G0}\"}}"),
    );
    assert_eq!(total, 150754820096.0);
    assert_eq!(labels["name"], "NVIDIA H200");
    assert_eq!(labels["index"], "0");
    assert_eq!(labels["job"], "gpuledger");
    let (_, used1) = single(
        prom_addr,
        &format!("gpuledger_device_memory_used_bytes{{device=\"{G1}\"}}"),
    );
    assert_eq!(used1, 9000000000.0);
    let (_, util) = single(
        prom_addr,
        &format!("gpuledger_device_utilization_ratio{{device=\"{G0}\"}}"),
    );
    assert_eq!(util, 0.37);
    let (_, watts) = single(
        prom_addr,
        &format!("gpuledger_device_power_watts{{device=\"{G0}\"}}"),
    );
    assert_eq!(watts, 215.0);
    let un = snap.devices[0].ledger.unattributed_bytes.unwrap() as f64;
    let (_, got_un) = single(
        prom_addr,
        &format!("gpuledger_device_memory_unattributed_bytes{{device=\"{G0}\"}}"),
    );
    assert_eq!(got_un, un);

    // Process series: one per known (process, device), none for the NOT_AVAILABLE one.
    let (labels, mem) = single(
        prom_addr,
        &format!("gpuledger_process_memory_bytes{{pid=\"4242\",device=\"{G0}\"}}"),
    );
    assert_eq!(mem, 17179869184.0);
    assert_eq!(labels["name"], "llama-server");
    assert_eq!(labels["user"], "alice");
    assert_eq!(labels["source"], "nvml");
    assert_eq!(labels["workload"], "llama-cpp");
    assert_eq!(labels["model"], "qwen3-8b-q4_k_m");
    // The dashboard's "AI workloads: measured" query finds the llama.cpp server (on both GPUs)
    // and not the compositor.
    let dash: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(deploy("grafana/gpuledger-dashboard.json")).unwrap(),
    )
    .unwrap();
    let ai_q = dash["panels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"] == "AI workloads: measured vs estimated memory")
        .expect("AI workloads panel")["targets"][0]["expr"]
        .as_str()
        .unwrap()
        .replace("$instance", ".*");
    let (labels, ai) = single(prom_addr, &ai_q);
    assert_eq!(labels["pid"], "4242");
    assert_eq!(labels["model"], "qwen3-8b-q4_k_m");
    assert_eq!(ai, 17179869184.0 + 4294967296.0);
    // Utilisation samples are consumed once: rounds after the first see no newer sample and
    // report the process idle (the NVML source's rule), so only existence is checked here; a
    // fresh sample below proves the value.
    let util_q = format!("gpuledger_process_gpu_utilization_ratio{{pid=\"4242\",device=\"{G0}\"}}");
    let (_, sm) = single(prom_addr, &util_q);
    assert!(sm == 0.85 || sm == 0.0, "{sm}");
    let known = snap
        .processes
        .iter()
        .flat_map(|p| &p.usage)
        .filter(|u| u.memory_bytes.is_some())
        .count() as f64;
    let (_, n) = single(prom_addr, "count(gpuledger_process_memory_bytes)");
    assert_eq!(n, known);
    assert!(
        query(prom_addr, "gpuledger_process_memory_bytes{pid=\"6001\"}")
            .unwrap()
            .is_empty()
    );
    // The process sum on GPU0 matches the device's attributed figure, as the books require.
    let (_, sum0) = single(
        prom_addr,
        &format!("sum(gpuledger_process_memory_bytes{{device=\"{G0}\"}})"),
    );
    assert_eq!(sum0, snap.devices[0].ledger.attributed_bytes as f64);

    // Live collection: change the machine; the new values reach Prometheus. The new sample is
    // served for one 2 s round, so 1 s scrapes cannot miss it.
    let changed = TWO_GPUS.replace("used=9000000000", "used=12345678912")
        + "util|dev=0|pid=4242|sm=61|mem=20|enc=0|dec=0|ts=10000\n";
    m.set_scenario(&changed);
    wait_for(
        "the changed used value in Prometheus",
        Duration::from_secs(30),
        || {
            query(
                prom_addr,
                &format!("gpuledger_device_memory_used_bytes{{device=\"{G1}\"}}"),
            )
            .is_some_and(|r| r.len() == 1 && value_of(&r[0]) == 12345678912.0)
        },
    );
    wait_for(
        "the new utilisation sample in Prometheus",
        Duration::from_secs(30),
        || {
            query(prom_addr, &format!("max_over_time({util_q}[1m])"))
                .is_some_and(|r| r.len() == 1 && value_of(&r[0]) == 0.61)
        },
    );
}

/// `gpuledger_process_estimated_memory_bytes` carried a `component="total"` series
/// beside the parts, so `sum by (pid)` — and the dashboard's estimated line, which sums the
/// family — counted every estimate twice. Evaluated by promtool's own PromQL engine on the
/// series the server exports for a replayed snapshot that carries an estimate.
#[test]
fn promql_sums_of_the_estimated_family_count_each_estimate_once() {
    if tool("promtool").is_none() {
        return;
    }
    let (m, live) = serve_two_gpus(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut snap: serde_json::Value =
        serde_json::from_str(&get(live.addr, "/api/v1/snapshot").body).unwrap();
    drop(live);
    let p = process_mut(&mut snap, 4242);
    p["estimate"] = serde_json::json!({
        "recipe": "llama.cpp/llama-server",
        "model": "/models/qwen3-8b-q4_k_m.gguf",
        "n_ctx": 4096,
        "weights_gpu_bytes": 5000000000u64,
        "kv_cache_gpu_bytes": 600000000u64,
        "compute_gpu_bytes": 300000000u64,
        "overhead_gpu_bytes": 100000000u64,
        "overhead_source": "test",
        "total_gpu_bytes": 6000000000u64
    });
    let replay = dir.path().join("replay.json");
    std::fs::write(&replay, snap.to_string()).unwrap();
    let served = serve_on(
        &m,
        &["--replay", replay.to_str().unwrap(), "--processes", "all"],
    );
    let metrics = get(served.addr, "/metrics").body;
    let (ok, out) = run_promtool(&["check", "metrics"], Some(&metrics));
    assert!(ok && out.trim().is_empty(), "promtool check metrics: {out}");
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("gpuledger_process_estimated_memory_bytes{"))
        .collect();
    assert_eq!(series.len(), 4, "{series:?}");
    // Every estimated family is input to the queries below: the parts and the total.
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("gpuledger_process_estimated_"))
        .collect();

    // The exported samples as promtool unit-test input; the dashboard's estimated expression
    // (the total family) and a plain per-process sum of the parts must both give the
    // estimate's total, once.
    let dash: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(deploy("grafana/gpuledger-dashboard.json")).unwrap(),
    )
    .unwrap();
    let est_q = dash["panels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"] == "AI workloads: measured vs estimated memory")
        .expect("AI workloads panel")["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["expr"].as_str().unwrap())
        .find(|e| e.contains("estimated"))
        .expect("the estimated line")
        .replace("$instance", ".*");
    let mut test = String::from("tests:\n  - interval: 1m\n    input_series:\n");
    for s in &series {
        let (name, value) = s.rsplit_once(' ').unwrap();
        test.push_str(&format!(
            "      - series: {}\n        values: '{value}'\n",
            serde_json::Value::String(name.to_string())
        ));
    }
    test.push_str(&format!(
        "    promql_expr_test:\n\
         \x20     - expr: 'sum by (pid) (gpuledger_process_estimated_memory_bytes)'\n\
         \x20       eval_time: 0m\n\
         \x20       exp_samples:\n\
         \x20         - labels: '{{pid=\"4242\"}}'\n\
         \x20           value: 6000000000\n\
         \x20     - expr: {}\n\
         \x20       eval_time: 0m\n\
         \x20       exp_samples:\n\
         \x20         - labels: '{{pid=\"4242\",name=\"llama-server\",model=\"qwen3-8b-q4_k_m\"}}'\n\
         \x20           value: 6000000000\n",
        serde_json::Value::String(est_q)
    ));
    let path = dir.path().join("estimates_test.yml");
    std::fs::write(&path, &test).unwrap();
    let (ok, out) = run_promtool(&["test", "rules", path.to_str().unwrap()], None);
    assert!(ok, "{out}\n{test}");
}

/// The stock "NVIDIA DCGM Exporter Dashboard" (NVIDIA/dcgm-exporter
/// `grafana/dcgm-exporter-dashboard.json`) queries these expressions, with `$instance` and
/// `$gpu` as regexes; its seventh panel, `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE`, is a profiling
/// field gpuledger has no source for, and is left out on purpose.
const DCGM_DASHBOARD_QUERIES: [&str; 7] = [
    "DCGM_FI_DEV_GPU_TEMP{instance=~\".*\", gpu=~\".*\"}",
    "avg(DCGM_FI_DEV_GPU_TEMP{instance=~\".*\", gpu=~\".*\"})",
    "DCGM_FI_DEV_POWER_USAGE{instance=~\".*\", gpu=~\".*\"}",
    "sum(DCGM_FI_DEV_POWER_USAGE{instance=~\".*\", gpu=~\".*\"})",
    "DCGM_FI_DEV_SM_CLOCK{instance=~\".*\", gpu=~\".*\"} * 1000000",
    "DCGM_FI_DEV_GPU_UTIL{instance=~\".*\", gpu=~\".*\"}",
    "DCGM_FI_DEV_FB_USED{instance=~\".*\", gpu=~\".*\"}",
];

/// A recorded node with three pods time-slicing GPU0 and a Slurm job on GPU1,
/// scraped by a real Prometheus. Each pod's and the job's VRAM comes out of PromQL, from the
/// per-process series and from the per-owner family alike; `sum by (pod_uid)` plus the
/// unattributed bytes is the device's used memory; `--dcgm-compat` answers dcgm-exporter's
/// names, units and labels.
#[test]
fn real_prometheus_gives_each_pods_and_the_jobs_vram_on_a_shared_node() {
    let Some(bin) =
        prometheus_or_skip("real_prometheus_gives_each_pods_and_the_jobs_vram_on_a_shared_node")
    else {
        return;
    };
    let m = Machine::shared_node();
    let served = serve_on(&m, &["--interval", "1s", "--dcgm-compat"]);
    let dir = tempfile::tempdir().unwrap();
    let prom = Prometheus::start(&bin, served.addr, dir.path());
    prom.wait_for_two_scrapes();
    let p = prom.addr;

    for (uid, _, procs) in PODS {
        let want = procs.iter().map(|x| x.2).sum::<u64>() as f64;
        for family in [
            "gpuledger_process_memory_bytes",
            "gpuledger_owner_memory_bytes",
        ] {
            let q = format!("sum by (pod_uid) ({family}{{pod_uid=\"{uid}\"}})");
            let (labels, got) = single(p, &q);
            assert_eq!((labels["pod_uid"].as_str(), got), (Some(uid), want), "{q}");
        }
    }
    // The pod with two containers is two owners (one per container), one pod UID.
    let pod_c = query(
        p,
        &format!("gpuledger_owner_memory_bytes{{pod_uid=\"{}\"}}", PODS[2].0),
    )
    .unwrap();
    assert_eq!(pod_c.len(), 2, "{pod_c:?}");
    let (labels, job) = single(p, "gpuledger_owner_memory_bytes{slurm_job=\"4711\"}");
    assert_eq!(job, JOB.2 as f64);
    assert_eq!(labels["owner"], "job 4711 (alice)");
    assert_eq!(labels["owner_kind"], "slurm-job");
    assert_eq!(labels["device"], NODE_G1);
    let (labels, job) = single(p, "gpuledger_process_memory_bytes{slurm_job=\"4711\"}");
    assert_eq!(job, JOB.2 as f64);
    assert_eq!(
        (labels["pid"].as_str(), labels["user"].as_str()),
        (Some("8001"), Some("alice"))
    );

    // Three pods share GPU0, nothing else is on it; the books balance through PromQL.
    let by_pod =
        format!("sum by (pod_uid) (gpuledger_process_memory_bytes{{device=\"{NODE_G0}\"}})");
    assert_eq!(query(p, &by_pod).unwrap().len(), 3);
    for (dev, used) in [(NODE_G0, NODE_G0_USED), (NODE_G1, NODE_G1_USED)] {
        let q = format!(
            "sum(sum by (pod_uid) (gpuledger_process_memory_bytes{{device=\"{dev}\"}})) + sum(gpuledger_device_memory_unattributed_bytes{{device=\"{dev}\"}})"
        );
        assert_eq!(single(p, &q).1, used as f64, "{q}");
        let q = format!("gpuledger_device_memory_used_bytes{{device=\"{dev}\"}}");
        assert_eq!(single(p, &q).1, used as f64);
        // The owner family adds up to the same.
        let q = format!(
            "sum(gpuledger_owner_memory_bytes{{device=\"{dev}\"}}) + sum(gpuledger_device_memory_unattributed_bytes{{device=\"{dev}\"}})"
        );
        assert_eq!(single(p, &q).1, used as f64, "{q}");
    }

    // dcgm-exporter's family: MiB, %, °C, W, with its labels.
    let (labels, fb) = single(p, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}");
    assert_eq!(fb, (NODE_G0_USED >> 20) as f64);
    assert_eq!(labels["UUID"], NODE_G0);
    assert_eq!(labels["device"], "nvidia0");
    assert_eq!(labels["modelName"], "NVIDIA H200");
    assert_eq!(labels["Hostname"], "gpu-box");
    assert_eq!(labels["pci_bus_id"], "00000000:18:00.0");
    assert_eq!(labels["DCGM_FI_DRIVER_VERSION"], "550.54.15");
    for (q, want) in [
        (
            "DCGM_FI_DEV_FB_FREE{gpu=\"0\"}",
            (110154820096u64 >> 20) as f64,
        ),
        ("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", 71.0),
        ("DCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"0\"}", 33.0),
        ("DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"}", 50.0),
        ("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"}", 415.0),
    ] {
        assert_eq!(single(p, q).1, want, "{q}");
    }
    for q in DCGM_DASHBOARD_QUERIES {
        let r = query(p, q).unwrap_or_default();
        assert!(!r.is_empty(), "the DCGM dashboard's {q} returns nothing");
    }
}

/// promtool lints the owner labels and sums clean; with `--dcgm-compat` its only complaint is
/// the camelCase `modelName` label, which is dcgm-exporter's own spelling (kept so that its
/// dashboards match).
#[test]
fn promtool_accepts_the_owner_families_and_only_dcgms_own_label_style() {
    if tool("promtool").is_none() {
        return;
    }
    let m = Machine::shared_node();
    let plain = serve_on(&m, &["--processes", "all"]);
    let metrics = get(plain.addr, "/metrics").body;
    assert!(
        metrics.contains("gpuledger_owner_memory_bytes{"),
        "{metrics}"
    );
    assert!(metrics.contains("pod_uid=\"414cbe69-8d5a-4d9f-8ad4-6606f7f69e33\""));
    let (ok, out) = run_promtool(&["check", "metrics"], Some(&metrics));
    assert!(ok && out.trim().is_empty(), "promtool check metrics: {out}");
    drop(plain);

    let dcgm = serve_on(&m, &["--dcgm-compat"]);
    let metrics = get(dcgm.addr, "/metrics").body;
    let (_, out) = run_promtool(&["check", "metrics"], Some(&metrics));
    let complaints: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        !complaints.is_empty(),
        "modelName is camelCase: promtool says so"
    );
    for l in complaints {
        assert!(
            l.starts_with("DCGM_FI_DEV_")
                && l.ends_with("label names should be written in 'snake_case' not 'camelCase'"),
            "{l}"
        );
    }
}

/// Issue 28 with the node's kubelet: pods named by it, one pod deleted while its process still
/// holds memory. Every panel query of "GPU memory by namespace / pod" returns data from a real
/// Prometheus; `sum by (namespace)` of the per-process series is each namespace's measured
/// memory, and over a device it adds up to the used memory minus the unattributed.
#[cfg(unix)]
#[test]
fn real_prometheus_answers_every_namespace_panel_and_namespaces_add_up() {
    let Some(bin) =
        prometheus_or_skip("real_prometheus_answers_every_namespace_panel_and_namespaces_add_up")
    else {
        return;
    };
    let Some(py) = grpc_python() else { return };
    // PODS[1] (team-b/notebook-alice-0, 12 GiB) is gone from the kubelet.
    let kubelet = Kubelet::start_without(&py, Some(1));
    let m = Machine::shared_node();
    let mut args: Vec<String> = kubelet.args();
    args.extend(["--interval", "1s", "--processes", "all", "--dcgm-compat"].map(String::from));
    let served = serve_on(&m, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let dir = tempfile::tempdir().unwrap();
    let prom = Prometheus::start(&bin, served.addr, dir.path());
    prom.wait_for_two_scrapes();
    let p = prom.addr;

    for q in dashboard_queries("grafana/gpuledger-k8s-dashboard.json") {
        let r = query(p, &q).unwrap_or_default();
        assert!(
            !r.is_empty(),
            "the namespace dashboard's {q} returns nothing"
        );
    }

    let mem = |i: usize| -> f64 { PODS[i].2.iter().map(|x| x.2).sum::<u64>() as f64 };
    let by_ns =
        format!("sum by (namespace) (gpuledger_process_memory_bytes{{device=\"{NODE_G0}\"}})");
    let mut got: Vec<(String, f64)> = query(p, &by_ns)
        .unwrap()
        .iter()
        .map(|s| {
            let ns = s["metric"]["namespace"].as_str().unwrap_or("").to_string();
            (ns, value_of(s))
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    // "": the deleted pod's process, which has no namespace; then team-a, team-b.
    assert_eq!(
        got,
        vec![
            (String::new(), mem(1)),
            ("team-a".into(), mem(0)),
            ("team-b".into(), mem(2))
        ]
    );
    for (dev, used) in [(NODE_G0, NODE_G0_USED), (NODE_G1, NODE_G1_USED)] {
        let q =
            format!("sum(sum by (namespace) (gpuledger_process_memory_bytes{{device=\"{dev}\"}}))");
        let total = single(p, &q).1;
        let q = format!("gpuledger_device_memory_unattributed_bytes{{device=\"{dev}\"}}");
        let unattributed = single(p, &q).1;
        assert!(unattributed > 0.0);
        assert_eq!(total, used as f64 - unattributed, "{dev}");
    }
    // dcgm-exporter's pod labels: GPU1 was given whole to one (idle) pod; GPU0 is shared by
    // three, so it names none.
    let (labels, _) = single(p, "DCGM_FI_DEV_FB_USED{gpu=\"1\"}");
    let (ns, pod, ctr) = IDLE_POD;
    assert_eq!(
        (
            labels["namespace"].as_str(),
            labels["pod"].as_str(),
            labels["container"].as_str()
        ),
        (Some(ns), Some(pod), Some(ctr))
    );
    let (labels, _) = single(p, "DCGM_FI_DEV_FB_USED{gpu=\"0\"}");
    assert!(labels.get("pod").is_none(), "{labels}");
    // The kubelet answered; the deleted pod is the one series without a name.
    assert_eq!(single(p, "gpuledger_source_up{source=\"kubelet\"}").1, 1.0);
    let (labels, v) = single(
        p,
        "sum by (pod_uid) (gpuledger_owner_memory_bytes{owner_kind=\"pod\", namespace=\"\"})",
    );
    assert_eq!((labels["pod_uid"].as_str(), v), (Some(PODS[1].0), mem(1)));
}
