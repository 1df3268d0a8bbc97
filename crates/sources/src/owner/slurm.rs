//! What an operator reads of a Slurm job beyond its id: its name, user, partition and account.
//! slurmd puts them in the environment of every task it starts (`SLURM_JOB_NAME`,
//! `SLURM_JOB_USER`, `SLURM_JOB_PARTITION`, `SLURM_JOB_ACCOUNT`, sbatch(1) and srun(1) "OUTPUT
//! ENVIRONMENT VARIABLES"), so they are read from `/proc/<pid>/environ` of a process the cgroup
//! already placed in a job: only those, never every process (collection cost, DESIGN.md concept
//! 8), and once per job, cached. `SLURM_JOB_ID` must name the cgroup's job: a process that
//! carries another job's environment (started from a shell of that job) says nothing of this one.

use crate::environ;
use gpuledger_model::{redact_text, Owner};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

const VARS: [&str; 5] = [
    "SLURM_JOB_ID",
    "SLURM_JOB_NAME",
    "SLURM_JOB_USER",
    "SLURM_JOB_PARTITION",
    "SLURM_JOB_ACCOUNT",
];
/// Jobs remembered at most; past it the cache starts over.
const MAX_JOBS: usize = 4_096;
/// A job whose environment could not be read is tried again after this long.
const RETRY: Duration = Duration::from_secs(60);
/// A name longer than this is cut: it is a label, not a document.
const MAX_CHARS: usize = 128;

/// One job's names, or why they are unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobNames {
    pub name: Option<String>,
    pub user: Option<String>,
    pub partition: Option<String>,
    pub account: Option<String>,
    /// Which process and which variables they came from.
    pub source: String,
}

/// Job id → what its environment said, kept between rounds.
#[derive(Default)]
pub struct SlurmNames {
    jobs: HashMap<u64, (Instant, Result<JobNames, String>)>,
}

impl SlurmNames {
    /// Fills `o`'s job name, partition and account (and its user when the uid had no name)
    /// from the environment of `pid`, a process the cgroup placed in job `o.slurm_job`.
    pub fn apply(&mut self, proc_root: &Path, pid: u32, o: &mut Owner) {
        let Some(job) = o.slurm_job else {
            return;
        };
        let fresh = self
            .jobs
            .get(&job)
            .is_some_and(|(at, r)| r.is_ok() || at.elapsed() < RETRY);
        if !fresh {
            if self.jobs.len() >= MAX_JOBS {
                self.jobs.clear();
            }
            let r = environ::named(proc_root, pid, &VARS).and_then(|vars| names(job, pid, &vars));
            self.jobs.insert(job, (Instant::now(), r));
        }
        let Some((_, Ok(n))) = self.jobs.get(&job) else {
            return;
        };
        o.slurm_job_name = n.name.clone();
        o.slurm_partition = n.partition.clone();
        o.slurm_account = n.account.clone();
        let mut source = n.source.clone();
        if o.user.is_none() {
            if let Some(u) = &n.user {
                o.user = Some(u.clone());
                source.push_str("; user from SLURM_JOB_USER (its uid has no name here)");
            }
        }
        o.slurm_source = Some(source);
    }
}

/// The names in `vars` (`environ::named`'s answer for `pid`), checked against `job`.
pub fn names(job: u64, pid: u32, vars: &[(String, String)]) -> Result<JobNames, String> {
    let get = |k: &str| {
        vars.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    };
    match get("SLURM_JOB_ID") {
        Some(id) if id.parse() == Ok(job) => {}
        Some(id) => {
            return Err(format!(
                "PID {pid}'s SLURM_JOB_ID is {:?}, not its cgroup's job {job}",
                short(id)
            ))
        }
        None => return Err(format!("PID {pid}'s environment has no SLURM_JOB_ID")),
    }
    let field = |k: &str| get(k).map(short);
    let n = JobNames {
        name: field("SLURM_JOB_NAME"),
        user: field("SLURM_JOB_USER"),
        partition: field("SLURM_JOB_PARTITION"),
        account: field("SLURM_JOB_ACCOUNT"),
        source: String::new(),
    };
    let found: Vec<&str> = [
        ("SLURM_JOB_NAME", &n.name),
        ("SLURM_JOB_PARTITION", &n.partition),
        ("SLURM_JOB_ACCOUNT", &n.account),
    ]
    .iter()
    .filter(|(_, v)| v.is_some())
    .map(|(k, _)| *k)
    .collect();
    let source = match found.is_empty() {
        true => format!(
            "PID {pid}'s environment names the job ({job}) but not its name, partition or account"
        ),
        false => format!(
            "{} from /proc/{pid}/environ (its SLURM_JOB_ID matches the cgroup's job {job})",
            found.join(", ")
        ),
    };
    Ok(JobNames { source, ..n })
}

/// A value as a label shows it: secrets redacted, cut to [`MAX_CHARS`].
fn short(v: &str) -> String {
    let v = redact_text(v);
    match v.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!("{}…", &v[..at]),
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn names_come_from_the_jobs_own_environment() {
        let v = vars(&[
            ("SLURM_JOB_ID", "4711"),
            ("SLURM_JOB_NAME", "train-llama"),
            ("SLURM_JOB_USER", "alice"),
            ("SLURM_JOB_PARTITION", "gpu"),
        ]);
        let n = names(4711, 42, &v).unwrap();
        assert_eq!(n.name.as_deref(), Some("train-llama"));
        assert_eq!(n.partition.as_deref(), Some("gpu"));
        assert_eq!(n.account, None);
        assert!(
            n.source
                .contains("SLURM_JOB_NAME, SLURM_JOB_PARTITION from /proc/42/environ"),
            "{}",
            n.source
        );
        // Another job's environment (a process started from that job's shell) is not this job's.
        let e = names(4712, 42, &v).unwrap_err();
        assert!(e.contains("not its cgroup's job 4712"), "{e}");
        assert!(names(4711, 42, &vars(&[("SLURM_JOB_NAME", "x")])).is_err());
        // A long name is cut, a secret in it redacted.
        let long = "n".repeat(500);
        let v = vars(&[("SLURM_JOB_ID", "1"), ("SLURM_JOB_NAME", &long)]);
        assert_eq!(
            names(1, 1, &v).unwrap().name.unwrap().chars().count(),
            MAX_CHARS + 1
        );
        let v = vars(&[
            ("SLURM_JOB_ID", "1"),
            ("SLURM_JOB_NAME", "run-hf_abcdefghijklmnopqrstuvwxyz0123"),
        ]);
        let name = names(1, 1, &v).unwrap().name.unwrap();
        assert!(!name.contains("abcdefghijklmnop"), "{name}");
    }
}
