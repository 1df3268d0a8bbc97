//! A recorded shared GPU node: three Kubernetes pods time-slicing GPU0 (one pod with two
//! containers), a Slurm job of alice's on GPU1, each process with its `/proc/PID/cgroup` in the
//! shapes of `fixtures/cgroup/` (cgroup v2, systemd driver, containerd; Slurm's cgroup/v2
//! plugin).

use super::{Machine, ProcTree};

pub const NODE_G0: &str = "GPU-11111111-2222-3333-4444-555555555555";
pub const NODE_G1: &str = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

/// A pod's process: pid, container id, bytes on GPU0.
pub type PodProcess = (u32, &'static str, u64);

/// The pods: UID, QoS level (empty: guaranteed), and their processes.
pub const PODS: [(&str, &str, &[PodProcess]); 3] = [
    (
        "414cbe69-8d5a-4d9f-8ad4-6606f7f69e33",
        "burstable",
        &[(
            7001,
            "38091356e51538f55de271b8822e9cc081a110663e7dc7cebfe5f1fe4ee6d75c",
            8 << 30,
        )],
    ),
    (
        "16e6a747-9d40-4120-bbac-ca7cd274fdd9",
        "",
        &[(
            7002,
            "7dea796eb5d6826a85978fa316612874aa3d576ac576495bed83d77fbc9dc744",
            12 << 30,
        )],
    ),
    (
        "1e597579-417e-482f-bf65-5fe170c3aebd",
        "besteffort",
        &[
            (
                7003,
                "a09bc17f5aa29b0dbdec9ede5f46cf1396d2405917ab02e6f1eb1019f388396e",
                6 << 30,
            ),
            (
                7004,
                "d7dfb4a21fe1703a8537e60d5af248af729315d187b24a538102d14874c8117d",
                2 << 30,
            ),
        ],
    ),
];

/// The Slurm job: id, its task's pid, bytes on GPU1; alice's (uid 1000).
pub const JOB: (u64, u32, u64) = (4711, 8001, 6 << 30);

pub const NODE_G0_USED: u64 = 40_000_000_000;
pub const NODE_G1_USED: u64 = 9_000_000_000;

/// The fake-NVML scenario of the node.
pub fn node_scenario() -> String {
    let mut s = format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA H200|uuid={NODE_G0}|pci=00000000:18:00.0|total=150754820096|used={NODE_G0_USED}|free=110154820096|reserved=600000000|gpu=71|mem=33|temp=61|power_mw=415000|limit_mw=700000|gfx_mhz=1980|sm_mhz=1980|mem_mhz=3201\n\
         device|index=1|name=NVIDIA GeForce RTX 4090|uuid={NODE_G1}|pci=00000000:65:00.0|total=25757220864|used={NODE_G1_USED}|free=16457220864|reserved=300000000|gpu=40|mem=10|temp=50|power_mw=250000|limit_mw=450000|gfx_mhz=2520|sm_mhz=2520|mem_mhz=10501\n"
    );
    for (_, _, procs) in PODS {
        for (pid, _, mem) in procs {
            s.push_str(&format!("compute|dev=0|pid={pid}|mem={mem}\n"));
        }
    }
    s.push_str(&format!("compute|dev=1|pid={}|mem={}\n", JOB.1, JOB.2));
    s
}

/// The systemd driver's pod slice: `kubepods[-<qos>]-pod<uid with _>.slice`.
pub fn pod_cgroup(uid: &str, qos: &str, ctr: &str) -> String {
    let uid = uid.replace('-', "_");
    let slices = if qos.is_empty() {
        format!("kubepods.slice/kubepods-pod{uid}.slice")
    } else {
        format!("kubepods.slice/kubepods-{qos}.slice/kubepods-{qos}-pod{uid}.slice")
    };
    format!("0::/{slices}/cri-containerd-{ctr}.scope\n")
}

/// The node's /proc: the pods' processes run as root (uid 0), the job's task as alice.
pub fn node_procs() -> ProcTree {
    let t = ProcTree::new();
    for (uid, qos, procs) in PODS {
        for (pid, ctr, _) in procs {
            t.add(
                *pid,
                "python3",
                0,
                500_000 + u64::from(*pid),
                &["python3", "serve.py"],
            );
            t.cgroup(*pid, &pod_cgroup(uid, qos, ctr));
        }
    }
    t.add(
        JOB.1,
        "train",
        1000,
        600_000,
        &["/home/alice/train", "--epochs", "3"],
    );
    t.cgroup(
        JOB.1,
        &format!(
            "0::/system.slice/slurmstepd.scope/job_{}/step_0/user/task_0\n",
            JOB.0
        ),
    );
    t
}

impl Machine {
    /// The shared node: [`node_scenario`] with [`node_procs`].
    pub fn shared_node() -> Self {
        Machine::new(&node_scenario(), node_procs())
    }
}

impl ProcTree {
    /// Give `pid` a `/proc/PID/cgroup` file.
    pub fn cgroup(&self, pid: u32, text: &str) -> &Self {
        std::fs::write(self.root().join(pid.to_string()).join("cgroup"), text).unwrap();
        self
    }
}
