//! A real single-node Slurm (Debian's slurm-wlm: munged, slurmctld and slurmd started here as
//! children, each with its own socket, ports and spool under a temporary folder) for tests that
//! check how gpuledger names a job's processes. Needs root (slurmd makes the job's cgroups);
//! `.ci/setup-slurm.sh` installs the packages. Without them, or not as root, [`Slurm::start`]
//! says why and returns `None` (a failure under CI, which has both).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Slurm {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
    pub node: String,
}

impl Drop for Slurm {
    fn drop(&mut self) {
        // Jobs first, ended by slurmd (their slurmstepd with them), then the daemons.
        let _ = self.command("scancel").arg("--user=root").status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            let queued = self.command("squeue").arg("-h").output();
            if queued.is_ok_and(|o| o.status.success() && o.stdout.is_empty()) {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        for d in self.daemons.iter_mut().rev() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }
}

fn skip(why: String) -> Option<Slurm> {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("SKIPPED: {why}");
    None
}

impl Slurm {
    /// Starts munged, slurmctld and slurmd with a one-node cluster (partition `gpu`), and waits
    /// until the node is idle.
    pub fn start() -> Option<Slurm> {
        let missing: Vec<&str> = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch"]
            .into_iter()
            .filter(|b| which(b).is_none())
            .collect();
        if !missing.is_empty() {
            return skip(format!(
                "no {} (Debian's munge and slurm-wlm; run .ci/setup-slurm.sh)",
                missing.join(", ")
            ));
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return skip("slurmd needs root to make a job's cgroups".into());
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for sub in ["state", "spool", "munge"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let node = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        write_conf(d, &node);
        let mut s = Slurm {
            dir,
            daemons: Vec::new(),
            node,
        };
        let key = s.path("munge/munge.key");
        let ok = Command::new(which("mungekey").unwrap())
            .args(["--create", "--keyfile"])
            .arg(&key)
            .status()
            .unwrap();
        assert!(ok.success(), "mungekey");
        s.spawn(Command::new(which("munged").unwrap()).args([
            "--foreground".into(),
            "--force".into(),
            format!("--socket={}", s.path("munge/sock").display()),
            format!("--key-file={}", key.display()),
            format!("--pid-file={}", s.path("munge/pid").display()),
            format!("--seed-file={}", s.path("munge/seed").display()),
            format!("--log-file={}", s.path("munge/log").display()),
        ]));
        s.wait_for("munged's socket", || s.path("munge/sock").exists());
        s.spawn(s.daemon("slurmctld").args(["-D", "-c"]));
        s.spawn(s.daemon("slurmd").args(["-D", "-N", &s.node.clone()]));
        s.wait_for("the node to be idle", || {
            s.command("sinfo")
                .args(["-h", "-o", "%t"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        Some(s)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn daemon(&self, name: &str) -> Command {
        let mut c = Command::new(which(name).unwrap());
        c.env("SLURM_CONF", self.path("slurm.conf"));
        c
    }

    /// A Slurm client command (`sbatch`, `squeue`, ...) for this cluster.
    pub fn command(&self, name: &str) -> Command {
        let mut c = Command::new(name);
        c.env("SLURM_CONF", self.path("slurm.conf"));
        c
    }

    fn spawn(&mut self, c: &mut Command) {
        let child = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.daemons.push(child);
    }

    fn wait_for(&self, what: &str, mut ok: impl FnMut() -> bool) {
        let start = Instant::now();
        while !ok() {
            if start.elapsed() > Duration::from_secs(30) {
                let logs: String = ["slurmctld.log", "slurmd.log", "munge/log"]
                    .iter()
                    .map(|l| {
                        let t = std::fs::read_to_string(self.path(l)).unwrap_or_default();
                        let tail: Vec<&str> = t.lines().rev().take(15).collect();
                        format!(
                            "--- {l}\n{}\n",
                            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                        )
                    })
                    .collect();
                panic!("Slurm: waited 30 s for {what}\n{logs}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Submits `sbatch -J NAME -p gpu --wrap "exec sleep SECS"` and returns the job id and the
    /// PID of its `sleep` once it runs in the job's cgroup.
    pub fn job(&self, name: &str, secs: u32) -> (u64, u32) {
        let out = self
            .command("sbatch")
            .args([
                "--parsable",
                "-J",
                name,
                "-p",
                "gpu",
                "-o",
                "/dev/null",
                "--wrap",
            ])
            .arg(format!("exec sleep {secs}"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let job: u64 = text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("sbatch: {text} {}", String::from_utf8_lossy(&out.stderr)));
        let want = format!("sleep\0{secs}\0");
        let mut pid = None;
        self.wait_for(&format!("job {job}'s sleep {secs}"), || {
            pid = pid_with_cmdline(&want, &format!("job_{job}/"));
            pid.is_some()
        });
        (job, pid.unwrap())
    }
}

fn write_conf(d: &Path, node: &str) {
    let p = |rel: &str| d.join(rel).display().to_string();
    let conf = format!(
        "ClusterName=gltest\nSlurmctldHost={node}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\n\
         AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={sock}\n\
         StateSaveLocation={state}\nSlurmdSpoolDir={spool}\n\
         SlurmctldPidFile={ctldpid}\nSlurmdPidFile={dpid}\n\
         SlurmctldLogFile={ctldlog}\nSlurmdLogFile={dlog}\n\
         SlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
         ProctrackType=proctrack/cgroup\nTaskPlugin=task/none\nMpiDefault=none\n\
         JobAcctGatherType=jobacct_gather/none\nSchedulerType=sched/builtin\n\
         SelectType=select/cons_tres\nReturnToService=2\n\
         NodeName={node} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n\
         PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
        sock = p("munge/sock"),
        state = p("state"),
        spool = p("spool"),
        ctldpid = p("slurmctld.pid"),
        dpid = p("slurmd.pid"),
        ctldlog = p("slurmctld.log"),
        dlog = p("slurmd.log"),
        ctld = super::free_port(),
        slurmd = super::free_port(),
    );
    std::fs::write(d.join("slurm.conf"), conf).unwrap();
    // This machine mixes cgroup v1 controllers with a v2 mount, which slurm's cgroup/v2 plugin
    // refuses ("Hybrid mode is not supported"): v1, as an operator of such a node must.
    let cgroup = if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
        "CgroupPlugin=cgroup/v2\n"
    } else {
        "CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n"
    };
    std::fs::write(
        d.join("cgroup.conf"),
        format!("{cgroup}ConstrainCores=no\nConstrainRAMSpace=no\n"),
    )
    .unwrap();
}

/// A process whose whole command line is `cmdline` (NUL-separated) and whose cgroup file
/// contains `cgroup`.
fn pid_with_cmdline(cmdline: &str, cgroup: &str) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let c = std::fs::read(e.path().join("cmdline")).ok()?;
        if c != cmdline.as_bytes() {
            return None;
        }
        let g = std::fs::read_to_string(e.path().join("cgroup")).ok()?;
        g.contains(cgroup).then_some(pid)
    })
}

/// The program's path on PATH (daemons live in /usr/sbin, which a test's PATH may lack).
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/sbin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}
