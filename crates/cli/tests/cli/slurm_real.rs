//! A real Slurm job (issue 38): Debian's slurm-wlm runs a job named like a training run; the fake
//! NVML lists its process as a GPU user; every view names the job by id, name, user and
//! partition, read from the cgroup slurmd made and the environment it gave the task.

use crate::serve_support::{get, start_serving};
use crate::support::{on_live_proc, Slurm};
use crate::web_support::browser_or_skip;
use std::time::Duration;

#[test]
fn a_real_slurm_job_is_named_in_every_view() {
    let Some(slurm) = Slurm::start() else { return };
    let secs = 7000 + std::process::id() % 1000;
    let (job, pid) = slurm.job("llama-finetune", secs);
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("scenario.txt");
    std::fs::write(
        &scenario,
        format!(
            "driver|version=550.54.15\n\
             device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-0|pci=00000000:01:00.0|total=25757220864|used=13815250944|free=11941969920\n\
             compute|dev=0|pid={pid}|mem=10200547328\n"
        ),
    )
    .unwrap();
    let run = |args: &[&str]| -> String {
        let out = on_live_proc(&scenario)
            .args(["--no-probe"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let label = format!("job {job} llama-finetune (root, partition gpu)");

    // JSON: the ids from the cgroup, the names from the environment, and where each came from.
    let v: serde_json::Value = serde_json::from_str(&run(&["snapshot", "--json"])).unwrap();
    let p = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .unwrap_or_else(|| panic!("{v:#}"));
    let o = &p["owner"];
    assert_eq!(o["kind"], "slurm-job", "{o:#}");
    assert_eq!(o["slurm_job"], job, "{o:#}");
    assert_eq!(o["slurm_job_name"], "llama-finetune", "{o:#}");
    assert_eq!(o["slurm_partition"], "gpu", "{o:#}");
    assert_eq!(o["user"], "root", "{o:#}");
    assert_eq!(o["label"], label.as_str(), "{o:#}");
    let cgroup = o["cgroup"].as_str().unwrap();
    assert!(
        cgroup.contains(&format!("/job_{job}/")),
        "the cgroup slurmd made: {cgroup}"
    );
    eprintln!("real Slurm job {job}: cgroup {cgroup}");

    // The table, CSV and the job grouping.
    let table = run(&["snapshot"]);
    assert!(
        table
            .lines()
            .any(|l| l.contains(&label) && l.contains(&pid.to_string())),
        "{table}"
    );
    let csv = run(&["snapshot", "--format", "csv"]);
    assert!(csv.lines().any(|l| l.contains(&label)), "{csv}");
    let grouped = run(&["snapshot", "--group-by", "job"]);
    assert!(
        grouped
            .lines()
            .any(|l| l.contains(&label) && l.contains("9.50 GiB")),
        "{grouped}"
    );

    // /metrics: the per-owner sum carries the job's names as labels.
    let mut cmd = on_live_proc(&scenario);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--no-probe"]);
    let served = start_serving(&mut cmd);
    let metrics = get(served.addr, "/metrics").body;
    let line = metrics
        .lines()
        .find(|l| l.starts_with("gpuledger_owner_memory_bytes{") && l.contains("slurm_job="))
        .unwrap_or_else(|| panic!("{metrics}"));
    for want in [
        format!("slurm_job=\"{job}\""),
        "slurm_job_name=\"llama-finetune\"".into(),
        "slurm_partition=\"gpu\"".into(),
        "user=\"root\"".into(),
    ] {
        assert!(line.contains(&want), "{want} in {line}");
    }

    // The page: the job's process, selected as the largest, names its owner in the why panel.
    let Some(b) = browser_or_skip("a_real_slurm_job_is_named_in_every_view") else {
        return;
    };
    b.goto(&format!("http://{}/", served.addr));
    b.wait_for(
        "the owner in the why panel",
        &format!(
            "return (document.getElementById('why')?.textContent || '').includes({:?})",
            label
        ),
        Duration::from_secs(20),
    );
}
