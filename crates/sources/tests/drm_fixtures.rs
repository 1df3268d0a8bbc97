//! The DRM source on the recorded trees in fixtures/linux (see its README for where each format
//! comes from). Every figure asserted here is written in the fixture; the sums are the ledger.
//! Linux only: the trees are procfs/sysfs shapes with symlinks.
#![cfg(target_os = "linux")]

use gpuledger_model::{Device, Process, Snapshot, SourceState, Usage};
use gpuledger_sources::drm::DrmSource;
use gpuledger_sources::{Collector, SourceConfig};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/linux")
        .join(name)
}

fn config(root: &Path) -> SourceConfig {
    SourceConfig {
        proc_root: root.join("proc"),
        sys_root: root.join("sys"),
        // No NVML here: these machines have none.
        nvml_lib: Some(root.join("no-such-libnvidia-ml.so")),
        kubelet_socket: root.join("no-kubelet.sock"),
        container_logs: root.join("no-container-logs"),
    }
}

fn snapshot(name: &str) -> Snapshot {
    Collector::new(config(&fixture(name))).collect()
}

fn proc_of(s: &Snapshot, pid: u32) -> &Process {
    s.processes
        .iter()
        .find(|p| p.pid == pid)
        .unwrap_or_else(|| panic!("pid {pid} missing: {:#?}", s.processes))
}

fn usage(s: &Snapshot, pid: u32) -> &Usage {
    let p = proc_of(s, pid);
    assert_eq!(p.usage.len(), 1, "pid {pid}: {:#?}", p.usage);
    &p.usage[0]
}

fn dev<'a>(s: &'a Snapshot, uuid: &str) -> &'a Device {
    s.device_by_uuid(uuid)
        .unwrap_or_else(|| panic!("{uuid} missing: {:#?}", s.devices))
}

fn drm_detail(s: &Snapshot) -> &str {
    &s.sources.iter().find(|x| x.name == "drm").unwrap().detail
}

/// Copy a fixture (files and symlinks) so a test can change it between rounds.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else if ty.is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

fn temp_copy(name: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    copy_tree(&fixture(name), t.path());
    t
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    fs::write(path, text.replace(from, to)).unwrap();
}

fn drm_round(src: &mut DrmSource, t_ns: u64) -> Snapshot {
    let mut s = Snapshot::new("t".into(), Default::default());
    let st = src.collect(&mut s, t_ns, &HashSet::new());
    s.sources.push(st);
    gpuledger_model::balance(&mut s);
    s
}

const AMD: &str = "pci-0000:03:00.0";

#[test]
fn amdgpu_desktop_vram_gtt_ledgers_and_telemetry() {
    let s = snapshot("amdgpu-desktop");
    let d = dev(&s, AMD);
    assert_eq!(d.source, "sysfs");
    assert_eq!(d.pci_bus_id.as_deref(), Some("0000:03:00.0"));
    assert_eq!(d.memory.total_bytes, Some(25753026560));
    assert_eq!(d.memory.used_bytes, Some(11769217024));
    assert_eq!(d.memory.free_bytes, Some(25753026560 - 11769217024));
    assert_eq!(d.utilization.gpu_percent, Some(87));
    assert_eq!(d.utilization.memory_percent, Some(41));
    assert_eq!(d.temperature_c, Some(61));
    assert_eq!(d.power.usage_watts, Some(287.0));
    assert_eq!(d.power.limit_watts, Some(339.0));
    assert_eq!(d.clocks.graphics_mhz, Some(2482));
    assert_eq!(d.clocks.memory_mhz, Some(1249));
    assert_eq!((d.pcie.link_gen, d.pcie.link_width), (Some(4), Some(16)));
    assert_eq!(d.power_state.as_deref(), Some("active"));
    // card0 and renderD128 are one device; the connector entry is not a device.
    assert_eq!(s.devices.len(), 1);

    // Per process: VRAM and GTT separately, from fdinfo.
    let shell = usage(&s, 1510);
    assert_eq!(shell.memory_source, "fdinfo");
    assert_eq!(
        shell.memory_bytes,
        Some((256 + 128) * MIB),
        "two clients summed"
    );
    assert_eq!(shell.system_memory_bytes, Some((32 + 16) * MIB));
    let chrome = usage(&s, 2842);
    assert_eq!(chrome.memory_bytes, Some(412 * MIB));
    assert_eq!(chrome.system_memory_bytes, Some(96 * MIB));
    // The game holds one client on two descriptors: counted once.
    let game = usage(&s, 4107);
    assert_eq!(game.memory_bytes, Some(9728 * MIB));
    assert_eq!(game.system_memory_bytes, Some(1536 * MIB));
    assert_eq!(proc_of(&s, 4107).name.as_deref(), Some("Cyberpunk2077.e"));
    // A process without DRM descriptors is not a GPU process.
    assert!(s.processes.iter().all(|p| p.pid != 5000));

    // The ledgers: VRAM against VRAM, GTT against GTT.
    assert_eq!(d.ledger.attributed_bytes, 10524 * MIB);
    assert_eq!(d.ledger.unattributed_bytes, Some(700 * MIB));
    let sys = d.system_memory.unwrap();
    assert_eq!(sys.total_bytes, Some(17179869184));
    assert_eq!(sys.used_bytes, Some(1803550720));
    let sl = d.system_ledger.unwrap();
    assert_eq!(sl.attributed_bytes, 1680 * MIB);
    assert_eq!(sl.unattributed_bytes, Some(40 * MIB));

    // One round: no rate yet, and it says so.
    assert_eq!(game.engines.sm_percent, None);
    assert!(game
        .engines
        .unavailable_reason
        .as_deref()
        .unwrap()
        .contains("first sample"));

    let detail = drm_detail(&s);
    assert!(
        detail.starts_with(
            "1 DRM device (amdgpu 0000:03:00.0), 4 clients on 5 descriptors in 3 processes"
        ),
        "{detail}"
    );
    assert!(detail.contains("(drm-pdev, drm-client-id)"), "{detail}");
    assert!(
        s.notes.iter().any(|n| n
            .starts_with("DRM clients de-duplicated by (drm-pdev, drm-client-id)")
            && n.contains("1 client on several descriptors")),
        "{:#?}",
        s.notes
    );
}

#[test]
fn engine_percent_from_two_rounds() {
    let t = temp_copy("amdgpu-desktop");
    let root = t.path();
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    let s1 = drm_round(&mut src, 10_000_000_000);
    assert!(s1
        .processes
        .iter()
        .all(|p| p.usage[0].engines.sm_percent.is_none()));

    // One second later: the game did 0.5 s of gfx and 0.1 s of compute; chrome 0.25 s of video
    // decode and its gfx counter went backwards (kept at the previous value: 0 %); the shell's
    // two clients did 0.1 s and 0.05 s of gfx.
    let p = root.join("proc");
    for fd in ["45", "46"] {
        let f = p.join("4107/fdinfo").join(fd);
        edit(
            &f,
            "drm-engine-gfx:\t812345678901 ns",
            "drm-engine-gfx:\t812845678901 ns",
        );
        edit(
            &f,
            "drm-engine-compute:\t5000000000 ns",
            "drm-engine-compute:\t5100000000 ns",
        );
    }
    let f = p.join("2842/fdinfo/23");
    edit(
        &f,
        "drm-engine-dec:\t4567890123 ns",
        "drm-engine-dec:\t4817890123 ns",
    );
    edit(
        &f,
        "drm-engine-gfx:\t9876543210 ns",
        "drm-engine-gfx:\t9876000000 ns",
    );
    edit(
        &p.join("1510/fdinfo/14"),
        "drm-engine-gfx:\t51234567890 ns",
        "drm-engine-gfx:\t51334567890 ns",
    );
    edit(
        &p.join("1510/fdinfo/15"),
        "drm-engine-gfx:\t1200000000 ns",
        "drm-engine-gfx:\t1250000000 ns",
    );
    let s2 = drm_round(&mut src, 11_000_000_000);

    let game = usage(&s2, 4107);
    assert_eq!(game.engines.sm_percent, Some(50), "{game:#?}");
    assert_eq!(game.engines_by_type["gfx"], 50);
    assert_eq!(game.engines_by_type["compute"], 10);
    assert_eq!(game.engines_by_type["dma"], 0);
    assert_eq!(game.engines.unavailable_reason, None);
    let chrome = usage(&s2, 2842);
    assert_eq!(chrome.engines_by_type["dec"], 25);
    assert_eq!(chrome.engines_by_type["gfx"], 0);
    // Video decode is not 3D/compute: the summary GPU % stays 0.
    assert_eq!(chrome.engines.sm_percent, Some(0));
    // Two clients of one process add up.
    assert_eq!(usage(&s2, 1510).engines_by_type["gfx"], 15);

    // Third round: chrome's counter recovers past the old maximum; only the part above the
    // kept value counts (9876543210 → 9976543210 = 0.1 s in 0.5 s).
    edit(
        &f,
        "drm-engine-gfx:\t9876000000 ns",
        "drm-engine-gfx:\t9976543210 ns",
    );
    let s3 = drm_round(&mut src, 11_500_000_000);
    assert_eq!(usage(&s3, 2842).engines_by_type["gfx"], 20);
}

#[test]
fn apu_model_in_gtt_kfd_and_containers() {
    let s = snapshot("amdgpu-apu-gtt");
    let d = dev(&s, "pci-0000:c4:00.0");
    // The model lives in GTT: 25258000 KiB of it, against 5348 KiB of VRAM (nvtop#492's numbers).
    let llama = usage(&s, 3001);
    assert_eq!(llama.memory_bytes, Some(5348 * KIB));
    assert_eq!(llama.system_memory_bytes, Some(25258000 * KIB));
    let p = proc_of(&s, 3001);
    assert_eq!(
        p.container.as_deref(),
        Some("docker://8f2a6c3e1b4d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8")
    );
    assert!(!p.rocm_kfd);

    // ROCm: VRAM and GTT show, engine time does not, and that is said, not shown as 0 %.
    let py = proc_of(&s, 5120);
    assert!(py.rocm_kfd);
    assert!(py
        .container
        .as_deref()
        .unwrap()
        .starts_with("podman://c0ffee01"));
    let u = &py.usage[0];
    assert_eq!(u.memory_bytes, Some(204800 * KIB));
    assert_eq!(u.system_memory_bytes, Some(4194304 * KIB));
    assert_eq!(u.engines.sm_percent, None);
    assert!(u
        .engines
        .unavailable_reason
        .as_deref()
        .unwrap()
        .contains("/dev/kfd"));
    assert!(u.engines_by_type.is_empty());

    // VRAM ledger and GTT ledger balance separately.
    assert_eq!(d.ledger.attributed_bytes, (5348 + 98304 + 204800) * KIB);
    assert_eq!(d.ledger.unattributed_bytes, Some(120 * MIB));
    let sl = d.system_ledger.unwrap();
    assert_eq!(sl.attributed_bytes, (25258000 + 262144 + 4194304) * KIB);
    assert_eq!(sl.unattributed_bytes, Some(200 * MIB));
    // An APU has no mem_busy_percent and this one no power cap: unknown with the reason.
    assert_eq!(d.utilization.memory_percent, None);
    assert!(d.unavailable["utilization.memory_percent"].contains("mem_busy_percent"));
    assert_eq!(
        d.power.usage_watts,
        Some(45.0),
        "power1_input when there is no power1_average"
    );
    assert!(d.unavailable.contains_key("power.limit_watts"));
}

#[test]
fn i915_laptop_system_memory_and_video_engine_capacity() {
    let t = temp_copy("i915-laptop");
    let root = t.path();
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    let s = drm_round(&mut src, 1_000_000_000);
    let d = dev(&s, "pci-0000:00:02.0");
    assert_eq!(d.vendor, gpuledger_model::Vendor::Intel);
    assert_eq!(
        d.clocks.graphics_mhz,
        Some(1300),
        "gt_act_freq_mhz, not the requested one"
    );
    assert!(d.unavailable["memory.used_bytes"].contains("ioctl"));
    assert!(d.unavailable["utilization.gpu_percent"].contains("no device busy-percent"));
    // An integrated GPU: everything is system memory (system0 + stolen-system0), VRAM is 0.
    let shell = usage(&s, 1620);
    assert_eq!(shell.memory_bytes, Some(0));
    assert_eq!(shell.system_memory_bytes, Some(188 * MIB));
    assert_eq!(usage(&s, 3300).system_memory_bytes, Some(310 * MIB));

    // mpv decodes on the 2-engine video group: 1 s busy in 1 s is 50 % of the group.
    let f = root.join("proc/4400/fdinfo/8");
    edit(
        &f,
        "drm-engine-video:\t61234567890 ns",
        "drm-engine-video:\t62234567890 ns",
    );
    edit(
        &f,
        "drm-engine-render:\t23456789 ns",
        "drm-engine-render:\t123456789 ns",
    );
    let s = drm_round(&mut src, 2_000_000_000);
    let mpv = usage(&s, 4400);
    assert_eq!(mpv.engines_by_type["video"], 50);
    assert_eq!(mpv.engines_by_type["render"], 10);
    assert_eq!(mpv.engines.sm_percent, Some(10));
}

#[test]
fn xe_card_regions_and_cycles() {
    let t = temp_copy("xe-card");
    let root = t.path();
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    let s = drm_round(&mut src, 5);
    let d = dev(&s, AMD);
    assert_eq!(d.vendor, gpuledger_model::Vendor::Intel);
    assert_eq!(d.power.limit_watts, Some(190.0));
    assert!(d.unavailable["power.usage_watts"].contains("energy"));
    assert_eq!(d.clocks.graphics_mhz, Some(2850));
    assert_eq!((d.pcie.link_gen, d.pcie.link_width), (Some(4), Some(8)));
    // The kernel doc's client 3: vram0 23992 KiB, gtt 192 KiB (shared-vram0 16 MiB is part of it).
    let shell = usage(&s, 1800);
    assert_eq!(shell.memory_bytes, Some(23992 * KIB));
    assert_eq!(shell.system_memory_bytes, Some(192 * KIB));
    let py = usage(&s, 6100);
    assert_eq!(py.memory_bytes, Some(6 * 1024 * MIB));
    assert_eq!(py.system_memory_bytes, Some(512 * MIB));

    // Cycles against total cycles, in the GPU clock: 4 compute engines, 2e9 busy cycles in 1e9
    // clock cycles = 50 %. The wall clock moved 1 ns: it does not matter.
    let f = root.join("proc/6100/fdinfo/5");
    let text = fs::read_to_string(&f).unwrap();
    fs::write(
        &f,
        text.replace("drm-cycles-ccs:\t4000000000", "drm-cycles-ccs:\t6000000000")
            .replace("drm-cycles-rcs:\t1000000", "drm-cycles-rcs:\t101000000")
            .replace("7655183225", "8655183225"),
    )
    .unwrap();
    let s = drm_round(&mut src, 6);
    let py = usage(&s, 6100);
    assert_eq!(py.engines_by_type["ccs"], 50);
    assert_eq!(py.engines_by_type["rcs"], 10);
    assert_eq!(py.engines.sm_percent, Some(50));
}

#[test]
fn same_client_on_two_descriptors_counts_once() {
    let s = snapshot("dup-fd");
    assert_eq!(usage(&s, 2000).memory_bytes, Some(1024 * MIB));
    assert_eq!(usage(&s, 2000).system_memory_bytes, Some(64 * MIB));
    let d = dev(&s, AMD);
    assert_eq!(d.ledger.attributed_bytes, 1536 * MIB);
    assert_eq!(
        d.ledger.unattributed_bytes,
        Some(3 * 1024 * MIB - 1536 * MIB)
    );
    assert!(
        drm_detail(&s).contains("2 clients on 3 descriptors"),
        "{}",
        drm_detail(&s)
    );
}

#[test]
fn client_shared_between_processes_is_charged_once() {
    let s = snapshot("shared-client");
    // logind keeps a copy of the compositor's card fd: the compositor is charged.
    let shell = usage(&s, 1510);
    assert_eq!(shell.memory_bytes, Some(300 * MIB));
    assert_eq!(shell.system_memory_bytes, Some(40 * MIB));
    let logind = usage(&s, 812);
    assert_eq!(logind.memory_bytes, Some(0));
    assert!(
        logind
            .accounting_note
            .as_deref()
            .unwrap()
            .contains("shares DRM client 3 on 0000:03:00.0 with pid 1510"),
        "{logind:#?}"
    );
    // Said in the reader's language where it is shown; the JSON keeps this English.
    let cn = logind
        .accounting_note
        .as_ref()
        .unwrap()
        .in_lang(gpuledger_lang::Lang::ZhCn);
    assert!(
        cn.contains("与 PID 1510 共用 DRM 客户端（0000:03:00.0 上的 3）"),
        "{cn}"
    );
    // Parent and forked child: the lower PID is charged.
    assert_eq!(usage(&s, 3000).memory_bytes, Some(700 * MIB));
    assert_eq!(usage(&s, 3001).memory_bytes, Some(0));
    assert!(usage(&s, 3001)
        .accounting_note
        .as_deref()
        .unwrap()
        .contains("pid 3000"));
    let d = dev(&s, AMD);
    assert_eq!(d.ledger.attributed_bytes, 1000 * MIB);
    assert_eq!(d.ledger.unattributed_bytes, Some(2048 * MIB - 1000 * MIB));
    assert!(!d.ledger.over_attributed);
    assert_eq!(d.system_ledger.unwrap().attributed_bytes, 140 * MIB);
    assert!(
        s.notes.iter().any(
            |n| n.contains("charged to one holder") && n.contains("2 shared between processes")
        ),
        "{:#?}",
        s.notes
    );
}

#[test]
fn suspended_dgpu_is_reported_not_woken() {
    let s = snapshot("suspended-dgpu");
    assert_eq!(s.devices.len(), 2);
    let d = dev(&s, AMD);
    assert_eq!(d.power_state.as_deref(), Some("suspended"));
    // The sysfs files hold absurd values: had they been read, these would not be null.
    assert_eq!(d.memory.used_bytes, None);
    assert_eq!(d.memory.total_bytes, None);
    assert_eq!(d.temperature_c, None);
    assert_eq!(d.power.usage_watts, None);
    assert_eq!(d.utilization.gpu_percent, None);
    assert!(d.system_memory.is_none());
    assert!(d.unavailable["memory.used_bytes"].contains("runtime-suspended"));
    // Its identity still comes from uevent (generic PCI, does not wake it).
    assert_eq!(d.vendor, gpuledger_model::Vendor::Amd);
    assert_eq!(d.name.as_deref(), Some("AMD amdgpu [1002:73FF]"));
    assert!(
        drm_detail(&s).contains("amdgpu 0000:03:00.0 suspended"),
        "{}",
        drm_detail(&s)
    );
    let igpu = dev(&s, "pci-0000:00:02.0");
    assert_eq!(igpu.power_state.as_deref(), Some("active"));
    assert_eq!(usage(&s, 1620).device, "pci-0000:00:02.0");
}

#[test]
fn malformed_line_makes_only_its_figure_unknown() {
    let s = snapshot("malformed-fdinfo");
    let u = usage(&s, 2500);
    assert_eq!(
        u.memory_bytes, None,
        "a negative resident size is not a size"
    );
    let why = u.unavailable_reason.as_deref().unwrap();
    assert!(why.contains("2500/fdinfo/7 line 11 is malformed"), "{why}");
    // The other regions of the same file still count.
    assert_eq!(u.system_memory_bytes, Some(256 * MIB));
    assert_eq!(usage(&s, 2600).memory_bytes, Some(200 * MIB));
    let d = dev(&s, AMD);
    assert_eq!(d.ledger.unknown_processes, 1);
    assert_eq!(d.ledger.attributed_bytes, 200 * MIB);
    assert!(
        s.notes
            .iter()
            .any(|n| n.contains("2500/fdinfo/7 line 11") && n.contains("-1572864 KiB")),
        "{:#?}",
        s.notes
    );
}

#[test]
fn descriptor_gone_between_scan_and_read_is_skipped() {
    let s = snapshot("vanishing-fd");
    assert!(s.processes.iter().all(|p| p.pid != 2700));
    assert_eq!(usage(&s, 2701).memory_bytes, Some(640 * MIB));
    assert!(
        drm_detail(&s).contains("1 descriptor closed during the round"),
        "{}",
        drm_detail(&s)
    );
    assert_eq!(dev(&s, AMD).ledger.attributed_bytes, 640 * MIB);
}

#[test]
fn nvidia_drm_without_nvml_memory_unknown() {
    let s = snapshot("nvidia-drm");
    let d = dev(&s, "pci-0000:18:00.0");
    assert_eq!(d.vendor, gpuledger_model::Vendor::Nvidia);
    let u = usage(&s, 4242);
    assert_eq!(u.memory_bytes, None);
    assert!(u
        .unavailable_reason
        .as_deref()
        .unwrap()
        .contains("nvidia-drm prints no memory keys"));
    assert_eq!(d.ledger.unknown_processes, 1);
}

#[test]
fn nvml_devices_are_not_counted_again() {
    let root = fixture("nvidia-drm");
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    let mut s = Snapshot::new("t".into(), Default::default());
    let nvml: HashSet<String> = ["0000:18:00.0".to_string()].into();
    let st = src.collect(&mut s, 1, &nvml);
    assert!(s.devices.is_empty(), "{:#?}", s.devices);
    assert!(s.processes.is_empty());
    assert_eq!(src.stats.skipped_nvml_clients, 1);
    assert!(
        st.detail
            .contains("1 client on NVIDIA devices skipped (NVML reports them)"),
        "{}",
        st.detail
    );
}

#[test]
fn index_cadence_new_processes_now_new_descriptors_at_rebuild() {
    let t = temp_copy("dup-fd");
    let root = t.path();
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    src.rebuild_every_ns = 5_000_000_000;
    let s = drm_round(&mut src, 0);
    assert!(src.stats.rebuilt);
    assert_eq!(s.processes.len(), 2);

    // A process starts: found on the next round without a rebuild.
    let p = root.join("proc");
    copy_tree(&p.join("2100"), &p.join("2200"));
    edit(
        &p.join("2200/fdinfo/5"),
        "drm-client-id:\t43",
        "drm-client-id:\t44",
    );
    // An existing process opens another node: not seen until the rebuild.
    std::os::unix::fs::symlink("/dev/dri/card0", p.join("2100/fd/11")).unwrap();
    fs::copy(p.join("2200/fdinfo/5"), p.join("2100/fdinfo/11")).unwrap();
    edit(
        &p.join("2100/fdinfo/11"),
        "drm-client-id:\t44",
        "drm-client-id:\t45",
    );
    let s = drm_round(&mut src, 1_000_000_000);
    assert!(!src.stats.rebuilt);
    assert_eq!((src.stats.started, src.stats.exited), (1, 0));
    assert_eq!(usage(&s, 2200).memory_bytes, Some(512 * MIB));
    assert_eq!(usage(&s, 2100).memory_bytes, Some(512 * MIB));

    // A process exits: dropped without a rebuild.
    fs::remove_dir_all(p.join("2000")).unwrap();
    let s = drm_round(&mut src, 2_000_000_000);
    assert_eq!((src.stats.started, src.stats.exited), (0, 1));
    assert!(s.processes.iter().all(|p| p.pid != 2000));

    let s = drm_round(&mut src, 5_000_000_000);
    assert!(src.stats.rebuilt);
    assert_eq!(usage(&s, 2100).memory_bytes, Some(1024 * MIB));
}

#[test]
fn pid_namespace_note() {
    let s = snapshot("amdgpu-desktop");
    assert!(
        !s.notes.iter().any(|n| n.contains("PID namespace")),
        "{:#?}",
        s.notes
    );
    let t = temp_copy("amdgpu-desktop");
    let link = t.path().join("proc/self/ns/pid");
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("pid:[4026532198]", &link).unwrap();
    let s = Collector::new(config(t.path())).collect();
    let note = s
        .notes
        .iter()
        .find(|n| n.contains("PID namespace"))
        .expect("note");
    assert!(
        note.contains("NVML reports host PIDs") && note.contains("4026532198"),
        "{note}"
    );
}

#[test]
fn no_drm_at_all_says_why() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir_all(t.path().join("proc/1/fd")).unwrap();
    fs::create_dir_all(t.path().join("sys/class/drm")).unwrap();
    let s = Collector::new(config(t.path())).collect();
    let drm = s.sources.iter().find(|x| x.name == "drm").unwrap();
    assert_eq!(drm.status, SourceState::Unavailable);
    assert!(
        drm.detail.contains("no DRM devices under"),
        "{}",
        drm.detail
    );
    let t2 = tempfile::tempdir().unwrap();
    fs::create_dir_all(t2.path().join("proc")).unwrap();
    let s = Collector::new(config(t2.path())).collect();
    let drm = s.sources.iter().find(|x| x.name == "drm").unwrap();
    assert!(drm.detail.contains("class/drm"), "{}", drm.detail);
}

#[test]
fn kfd_without_a_drm_node_is_noted() {
    let t = temp_copy("amdgpu-apu-gtt");
    let p = t.path().join("proc");
    // A ROCm process whose render node is already closed: only /dev/kfd is left.
    copy_tree(&p.join("5120"), &p.join("5200"));
    fs::remove_file(p.join("5200/fd/7")).unwrap();
    let s = Collector::new(config(t.path())).collect();
    assert!(s.processes.iter().all(|x| x.pid != 5200));
    assert!(
        s.notes
            .iter()
            .any(|n| n.contains("1 process has /dev/kfd (ROCm) open but no DRM node")),
        "{:#?}",
        s.notes
    );
    assert!(proc_of(&s, 5120).rocm_kfd);
}

#[test]
fn wsl_dxg_holders_are_counted_not_measured() {
    let t = temp_copy("vanishing-fd");
    let p = t.path().join("proc");
    fs::create_dir_all(p.join("3100/fd")).unwrap();
    std::os::unix::fs::symlink("/dev/dxg", p.join("3100/fd/9")).unwrap();
    let mut src = DrmSource::new(&p, &t.path().join("sys"));
    let s = drm_round(&mut src, 1);
    assert_eq!(src.stats.dxg_processes, 1);
    assert!(s.processes.iter().all(|x| x.pid != 3100));
    assert!(
        drm_detail(&s).contains(
            "1 process with /dev/dxg open (WSL2 GPU paravirtualisation: measured by the dxg source"
        ),
        "{}",
        drm_detail(&s)
    );
}

/// A platform (non-PCI) GPU was reported with its platform device name as a PCI
/// bus id and a `pci-` uuid from sysfs, and with a `drm-` identity from fdinfo alone. One
/// identity, from one rule, and no PCI bus id for a device that is not on PCI. The trees are
/// made from Documentation/gpu/panfrost.rst and panthor.rst (fixtures/linux/README.md).
#[test]
fn platform_gpus_are_not_pci_and_have_one_identity() {
    let s = snapshot("panfrost-board");
    assert_eq!(s.devices.len(), 2, "{:#?}", s.devices);
    let gpu = dev(&s, "drm-fde60000.gpu");
    assert_eq!(gpu.source, "sysfs");
    assert_eq!(gpu.pci_bus_id, None);
    assert_eq!(gpu.driver_version.as_deref(), Some("panfrost"));
    assert_eq!(
        gpu.name.as_deref(),
        Some("panfrost rockchip,rk3568-mali (fde60000.gpu)")
    );
    let disp = dev(&s, "drm-display-subsystem");
    assert_eq!(disp.pci_bus_id, None);
    for d in &s.devices {
        assert!(!d.uuid.starts_with("pci-"), "{}", d.uuid);
    }
    // The kernel doc's client: unified memory, so its resident memory is system memory.
    let g = usage(&s, 1400);
    assert_eq!(g.device, "drm-fde60000.gpu");
    assert_eq!(g.system_memory_bytes, Some(36496 * KIB));
    assert_eq!(g.memory_bytes, Some(0));
    // The compositor holds a client on each device; each is charged to the device's one id.
    let w = proc_of(&s, 900);
    let mut on: Vec<(&str, Option<u64>)> = w
        .usage
        .iter()
        .map(|u| (u.device.as_str(), u.system_memory_bytes))
        .collect();
    on.sort();
    assert_eq!(
        on,
        [
            ("drm-display-subsystem", None),
            ("drm-fde60000.gpu", Some(24 * MIB))
        ]
    );

    let s = snapshot("panthor-board");
    let gpu = dev(&s, "drm-fb000000.gpu");
    assert_eq!((gpu.pci_bus_id.as_deref(), s.devices.len()), (None, 1));
    let l = usage(&s, 2200);
    assert_eq!(l.device, "drm-fb000000.gpu");
    assert_eq!(l.system_memory_bytes, Some(16480 * KIB));
}

/// Without sysfs only the descriptor's node names the device: still no PCI bus id, still a
/// `drm-` identity, and the clients of one node share it.
#[test]
fn platform_gpu_from_fdinfo_alone_is_not_pci_either() {
    let t = temp_copy("panfrost-board");
    fs::remove_dir_all(t.path().join("sys/class/drm")).unwrap();
    let s = Collector::new(config(t.path())).collect();
    let gpu = dev(&s, "drm-renderD128");
    assert_eq!(gpu.source, "fdinfo");
    assert_eq!(gpu.pci_bus_id, None);
    assert_eq!(usage(&s, 1400).device, "drm-renderD128");
    assert!(s.devices.iter().all(|d| d.pci_bus_id.is_none()));
}

/// The AMD NPU's driver names itself `amdxdna_accel_driver` in fdinfo (a real dump,
/// nokyan/resources#417) and lives under /sys/class/accel, which was not read: the NPU showed
/// as an fdinfo-only device of unknown vendor.
#[test]
fn amd_npu_from_class_accel() {
    let s = snapshot("amdxdna-npu");
    let d = dev(&s, "pci-0000:c5:00.1");
    assert_eq!(d.source, "sysfs", "found under /sys/class/accel");
    assert_eq!(d.vendor, gpuledger_model::Vendor::Amd);
    assert_eq!(d.pci_bus_id.as_deref(), Some("0000:c5:00.1"));
    assert_eq!(d.driver_version.as_deref(), Some("amdxdna"));
    assert_eq!(d.power_state.as_deref(), Some("active"));
    let u = usage(&s, 3300);
    assert_eq!(u.device, "pci-0000:c5:00.1");
    assert_eq!(u.memory_source, "fdinfo");
    assert_eq!(u.system_memory_bytes, Some(0));
    assert!(
        drm_detail(&s).contains("amdxdna 0000:c5:00.1"),
        "{}",
        drm_detail(&s)
    );

    // From fdinfo alone (no /sys/class/accel) it is still AMD's, by the driver's name.
    let t = temp_copy("amdxdna-npu");
    fs::remove_dir_all(t.path().join("sys/class/accel")).unwrap();
    let s = Collector::new(config(t.path())).collect();
    let d = dev(&s, "pci-0000:c5:00.1");
    assert_eq!(d.source, "fdinfo");
    assert_eq!(d.vendor, gpuledger_model::Vendor::Amd);
}

/// A known process opens its first DRM node and allocates: the device's unattributed memory grows,
/// so the index is rebuilt at the next round past MIN_REBUILD_NS instead of at the 60 s cadence;
/// with nothing unexplained, no rebuild happens before the cadence.
#[test]
fn unexplained_memory_brings_the_rebuild_forward() {
    use gpuledger_sources::drm::{DEFAULT_REBUILD_NS, MIN_REBUILD_NS};
    let t = temp_copy("dup-fd");
    let root = t.path();
    let mut src = DrmSource::new(&root.join("proc"), &root.join("sys"));
    assert_eq!(src.rebuild_every_ns, DEFAULT_REBUILD_NS);
    drm_round(&mut src, 0);
    assert!(src.stats.rebuilt);
    // Nothing changes: no rebuild after MIN_REBUILD_NS.
    drm_round(&mut src, MIN_REBUILD_NS);
    assert!(!src.stats.rebuilt);

    // pid 2100 opens another node with 512 MiB, and the device's used memory says so.
    let p = root.join("proc");
    std::os::unix::fs::symlink("/dev/dri/card0", p.join("2100/fd/11")).unwrap();
    fs::copy(p.join("2100/fdinfo/5"), p.join("2100/fdinfo/11")).unwrap();
    edit(
        &p.join("2100/fdinfo/11"),
        "drm-client-id:\t43",
        "drm-client-id:\t45",
    );
    let used = root.join("sys/class/drm/card0/device/mem_info_vram_used");
    let before: u64 = fs::read_to_string(&used).unwrap().trim().parse().unwrap();
    fs::write(&used, (before + 512 * MIB).to_string()).unwrap();
    let s = drm_round(&mut src, MIN_REBUILD_NS + 1_000_000_000);
    assert!(
        !src.stats.rebuilt,
        "the round that sees the growth only notes it"
    );
    assert_eq!(usage(&s, 2100).memory_bytes, Some(512 * MIB));
    let s = drm_round(&mut src, MIN_REBUILD_NS + 2_000_000_000);
    assert!(
        src.stats.rebuilt,
        "brought forward by the unexplained 512 MiB"
    );
    assert_eq!(usage(&s, 2100).memory_bytes, Some(1024 * MIB));
    // Explained now: no further early rebuild.
    drm_round(&mut src, 3 * MIN_REBUILD_NS);
    assert!(!src.stats.rebuilt);
}
