//! Identification: from facts about a process to a conclusion with its evidence.
//!
//! Pure: the facts come from the sources (procfs today, the Windows module list later), so every
//! rule is tested on constructed facts. Each rule adds evidence; the conclusion's confidence grows
//! with the number of independent kinds of evidence that agree.

use crate::runtimes::{same_library, Library, Registry, Seen, RUNTIMES};
use gpuledger_lang::Said;
use gpuledger_model::{desktop, Confidence, Evidence, EvidenceKind, Workload, WorkloadKind};
use gpuledger_sources::procfs::ProcessFacts;

/// The libraries of no runtime that still say something: a program on the CUDA (or HIP)
/// runtime, a program drawing through a graphics driver. The runtimes declare their own
/// ([`crate::runtimes::Runtime::library`]).
static CUDA: Library = Library {
    what: "report-lib-cuda",
    prefixes: &[
        "libcudart",
        "libcublas",
        "libnccl",
        "libcuda.so",
        "cudart64_",
        "libamdhip64",
    ],
};

static GRAPHICS: Library = Library {
    what: "report-lib-graphics",
    prefixes: &[
        "libvulkan",
        "libGLX_nvidia",
        "libEGL_nvidia",
        "libnvidia-glcore",
        "libGLX_mesa",
        "radeonsi_dri",
        "iris_dri",
    ],
};

/// Library families a process maps, each with the kind it names when nothing else does: the
/// runtimes' in registration order, then the plain CUDA runtime's and the graphics drivers'.
fn families(runtimes: &Registry) -> Vec<(&'static Library, Option<WorkloadKind>)> {
    let mut all = runtimes.libraries();
    all.push((&CUDA, Some(WorkloadKind::CudaApp)));
    all.push((&GRAPHICS, Some(WorkloadKind::GraphicsApp)));
    all
}

/// The library families found in a process's maps, each once, with the first file that
/// showed it (in map order).
type Libs = Vec<(&'static Library, String)>;

fn has(libs: &Libs, lib: &Library) -> bool {
    libs.iter().any(|(l, _)| same_library(l, lib))
}

fn base(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Name of the program as run: the executable's file name, else the kernel's comm.
fn program(f: &ProcessFacts) -> String {
    f.exe
        .as_deref()
        .map(base)
        .or(f.comm.as_deref())
        .unwrap_or("")
        .to_string()
}

fn is_model_file(p: &str) -> bool {
    let b = base(p);
    // A `.pth` beside Python's packages is a path-configuration file (site.py reads them at
    // start-up), not a PyTorch checkpoint.
    if b.ends_with(".pth") && (p.contains("/site-packages/") || p.contains("/dist-packages/")) {
        return false;
    }
    b.ends_with(".gguf")
        || (p.contains("/blobs/") && b.starts_with("sha256-"))
        || b.ends_with(".safetensors")
        || b.ends_with(".pt")
        || b.ends_with(".pth")
        || b.ends_with(".ckpt")
        || (b.starts_with("pytorch_model") && b.ends_with(".bin"))
}

/// [`identify`], then the process's place in a workload of several processes
/// ([`crate::group::join`]): what the collection path and `explain` conclude.
pub fn identify_in(f: &ProcessFacts, procs: &gpuledger_sources::procfs::ProcReader) -> Workload {
    let mut w = identify(f);
    crate::group::join(f, &mut w, procs);
    w.model_name = crate::runtimes::model_name(&w);
    w
}

/// Build the workload conclusion for one process from its own facts.
pub fn identify(f: &ProcessFacts) -> Workload {
    identify_with(&RUNTIMES, f)
}

/// [`identify`] with the runtimes of `runtimes`.
pub fn identify_with(runtimes: &Registry, f: &ProcessFacts) -> Workload {
    let mut ev: Vec<Evidence> = Vec::new();
    let prog = program(f);
    let args = &f.cmdline;
    let joined = args.join(" ");
    let families = families(runtimes);
    let libs = libraries(&f.mapped_files, &families);
    let mut model = model_files(f, &mut ev);

    // The conclusion from the program and its arguments.
    let lower = joined.to_ascii_lowercase();
    let seen = Seen {
        prog: prog.trim_end_matches(".exe"),
        comm: f.comm.as_deref().unwrap_or(""),
        args,
        joined: &joined,
        lower: &lower,
        mapped: &f.mapped_files,
    };
    let (kind, named) = classify(runtimes, &seen, &libs, &families);
    let model_arg = crate::runtimes::model_arg(runtimes, kind, &prog, args);
    if !prog.is_empty() {
        ev.insert(0, executable(f, &prog));
    }
    if let Some((why, file)) = cmdline_signal(runtimes, kind, named, &seen) {
        ev.push(Evidence {
            kind: EvidenceKind::Cmdline,
            showed: why,
            source: proc_src(f, file),
        });
    }
    surroundings(runtimes, f, kind, &libs, &mut ev);
    if model.is_none() {
        model = model_arg.clone();
    }
    let missing = missing(runtimes, f, kind, &ev, model_arg.as_deref());

    // Independent kinds of evidence that point at the conclusion.
    let supporting = supporting_kinds(runtimes, kind, named, &ev, &libs);
    let confidence = match (kind, supporting) {
        (WorkloadKind::Unknown, _) => Confidence::Low,
        (_, n) if n >= 2 => Confidence::High,
        (WorkloadKind::CudaApp | WorkloadKind::GraphicsApp, _) => Confidence::Low,
        _ => Confidence::Medium,
    };
    let model = if runtimes.is_ai(kind) { model } else { None };
    Workload {
        kind,
        model,
        model_name: None,
        confidence,
        evidence: ev,
        missing,
        member: None,
    }
}

/// `/proc/PID/what` for the process: where a fact was read.
fn proc_src(f: &ProcessFacts, what: &str) -> String {
    format!("/proc/{}/{what}", f.pid)
}

/// Library families (of `families`), once each, naming the first file that showed it.
fn libraries(mapped: &[String], families: &[(&'static Library, Option<WorkloadKind>)]) -> Libs {
    let mut libs: Libs = Vec::new();
    for path in mapped {
        let b = base(path);
        if let Some((lib, _)) = families.iter().find(|(l, _)| l.holds(b)) {
            if !has(&libs, lib) {
                libs.push((*lib, path.clone()));
            }
        }
    }
    libs
}

/// Model files as evidence, each once: mapped (really loaded) first, then open. Returns the
/// first one.
fn model_files(f: &ProcessFacts, ev: &mut Vec<Evidence>) -> Option<String> {
    let mut model: Option<String> = None;
    for (list, what) in [(&f.mapped_files, "maps"), (&f.open_files, "fd")] {
        for p in list.iter().filter(|p| is_model_file(p)) {
            if !ev.iter().any(|e| e.model_file_path() == Some(p.as_str())) {
                ev.push(Evidence::model_file(p, proc_src(f, what)));
            }
            model.get_or_insert_with(|| p.clone());
        }
    }
    model
}

/// The executable (or, without one, the kernel's process name) as evidence.
fn executable(f: &ProcessFacts, prog: &str) -> Evidence {
    Evidence {
        kind: EvidenceKind::Executable,
        showed: match &f.exe {
            Some(e) => Said::new("report-ev-executable", vec![("path", e.as_str().into())]),
            None => Said::new("report-ev-process-name", vec![("name", prog.into())]),
        },
        source: if f.exe.is_some() {
            proc_src(f, "exe")
        } else {
            proc_src(f, "stat")
        },
    }
}

/// Evidence from around the program: its libraries, listening ports, and an Ollama parent.
fn surroundings(
    runtimes: &Registry,
    f: &ProcessFacts,
    kind: WorkloadKind,
    libs: &Libs,
    ev: &mut Vec<Evidence>,
) {
    for (lib, path) in libs {
        ev.push(Evidence {
            kind: EvidenceKind::Library,
            showed: Said::new(
                "report-ev-library",
                vec![
                    ("what", Said::new(lib.what, vec![]).into()),
                    ("path", path.as_str().into()),
                ],
            ),
            source: proc_src(f, "maps"),
        });
    }
    for port in &f.listen_ports {
        ev.push(Evidence {
            kind: EvidenceKind::ListeningPort,
            showed: Said::new("report-ev-port", vec![("port", port.to_string().into())]),
            source: format!("{} + {}", proc_src(f, "net/tcp"), proc_src(f, "fd")),
        });
    }
    if let Some((ppid, pname)) = &f.parent {
        if runtimes.iter().any(|r| r.parent_is_evidence(kind, pname)) {
            ev.push(Evidence::parent(pname, *ppid, proc_src(f, "stat")));
        }
    }
}

/// What an AI workload should have shown and did not (a model file; a server's port), and what
/// could not be read.
fn missing(
    runtimes: &Registry,
    f: &ProcessFacts,
    kind: WorkloadKind,
    ev: &[Evidence],
    model_arg: Option<&str>,
) -> Vec<Said> {
    let mut missing = Vec::new();
    if runtimes.is_ai(kind) {
        let model_seen = ev.iter().any(|e| e.kind == EvidenceKind::ModelFile);
        if !model_seen {
            missing.push(match model_arg {
                Some(m) => Said::new("report-missing-model-named", vec![("path", m.into())]),
                None => Said::new("report-missing-model", vec![]),
            });
        }
        if runtimes.is_server(kind) && f.listen_ports.is_empty() && !f.cmdline.is_empty() {
            missing.push(Said::new("report-missing-port", vec![]));
        }
    }
    for u in &f.unreadable {
        missing.push(Said::new(
            "report-missing-unreadable",
            vec![("what", u.clone().into())],
        ));
    }
    missing
}

/// The kind, and whether the program or its command line named it (rather than only its
/// libraries suggesting it).
fn classify(
    runtimes: &Registry,
    seen: &Seen,
    libs: &Libs,
    families: &[(&'static Library, Option<WorkloadKind>)],
) -> (WorkloadKind, bool) {
    if let Some(kind) = named_kind(runtimes, seen) {
        return (kind, true);
    }
    let kind = families
        .iter()
        .find_map(|(lib, kind)| kind.filter(|_| has(libs, lib)))
        .unwrap_or(WorkloadKind::Unknown);
    (kind, false)
}

/// The kind the program's name, process title or command line names (`lower`: the command
/// line in lower case): the desktop's own programs first, then each runtime in
/// [`RUNTIMES`]' order; the first that recognises the process wins.
fn named_kind(runtimes: &Registry, seen: &Seen) -> Option<WorkloadKind> {
    if desktop::is_browser(seen.prog) {
        return Some(WorkloadKind::Browser);
    }
    if desktop::is_display_server(seen.prog) || desktop::is_display_server(seen.comm) {
        return Some(WorkloadKind::Compositor);
    }
    runtimes.named(seen)
}

/// What in the command line (or, for a process title, the name in `comm`) supports the
/// conclusion, in words, and the `/proc` file it was read from: the runtime's own words, else
/// those of the kinds identification names itself.
fn cmdline_signal(
    runtimes: &Registry,
    kind: WorkloadKind,
    named: bool,
    seen: &Seen,
) -> Option<(Said, &'static str)> {
    if let Some(r) = runtimes.for_kind(kind) {
        return r.cmdline_signal(kind, named, seen);
    }
    (kind == WorkloadKind::Browser && seen.lower.contains("--type=gpu-process"))
        .then(|| (Said::new("report-ev-browser-gpu", vec![]), "cmdline"))
}

fn supporting_kinds(
    runtimes: &Registry,
    kind: WorkloadKind,
    named: bool,
    ev: &[Evidence],
    libs: &Libs,
) -> usize {
    let agreeing: Option<&Library> = match kind {
        WorkloadKind::CudaApp => Some(&CUDA),
        WorkloadKind::GraphicsApp | WorkloadKind::Browser | WorkloadKind::Compositor => {
            Some(&GRAPHICS)
        }
        _ => runtimes.library(kind),
    };
    let lib_agrees = agreeing.is_some_and(|lib| has(libs, lib));
    let by_name = named || ev.iter().any(|e| e.kind == EvidenceKind::Cmdline);
    let model = ev.iter().any(|e| e.kind == EvidenceKind::ModelFile) && runtimes.is_ai(kind);
    let http = ev.iter().any(|e| e.kind == EvidenceKind::Http);
    [lib_agrees, by_name, model, http]
        .iter()
        .filter(|b| **b)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(exe: &str, args: &[&str], maps: &[&str]) -> ProcessFacts {
        ProcessFacts {
            pid: 42,
            comm: Some(base(exe).chars().take(15).collect()),
            exe: Some(exe.into()),
            cmdline: args.iter().map(|s| s.to_string()).collect(),
            mapped_files: maps.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn llama_server_with_model_and_cuda_is_high_confidence() {
        let mut f = facts(
            "/opt/llama/llama-server",
            &[
                "/opt/llama/llama-server",
                "-m",
                "/m/Qwen3-8B-Q4_K_M.gguf",
                "-c",
                "32768",
                "-ngl",
                "99",
            ],
            &[
                "/opt/llama/libggml-cuda.so",
                "/m/Qwen3-8B-Q4_K_M.gguf",
                "/usr/lib/libcudart.so.12",
            ],
        );
        f.listen_ports = vec![8080];
        let w = identify(&f);
        assert_eq!(w.kind, WorkloadKind::LlamaCpp);
        assert_eq!(w.confidence, Confidence::High);
        assert_eq!(w.model.as_deref(), Some("/m/Qwen3-8B-Q4_K_M.gguf"));
        assert_eq!(w.short_label(), "llama.cpp · Qwen3-8B-Q4_K_M");
        let kinds: Vec<EvidenceKind> = w.evidence.iter().map(|e| e.kind).collect();
        assert_eq!(kinds[0], EvidenceKind::Executable);
        assert!(kinds.contains(&EvidenceKind::ModelFile));
        assert!(kinds.contains(&EvidenceKind::ListeningPort));
        let cmd = w
            .evidence
            .iter()
            .find(|e| e.kind == EvidenceKind::Cmdline)
            .unwrap();
        assert_eq!(
            cmd.showed,
            "llama.cpp flags: model /m/Qwen3-8B-Q4_K_M.gguf, context 32768, 99 GPU layers"
        );
        assert!(w.missing.is_empty(), "{:?}", w.missing);
    }

    #[test]
    fn missing_links_are_named_not_guessed() {
        let w = identify(&facts(
            "/usr/bin/llama-server",
            &["llama-server", "-m", "x.gguf"],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::LlamaCpp);
        assert_eq!(w.confidence, Confidence::Medium);
        assert_eq!(w.model.as_deref(), Some("x.gguf"));
        assert!(
            w.missing
                .iter()
                .any(|m| m.contains("x.gguf is named on the command line but not mapped")),
            "{:?}",
            w.missing
        );
        assert!(w.missing.iter().any(|m| m.starts_with("listening port")));
    }

    #[test]
    fn ollama_server_and_runner() {
        let w = identify(&facts(
            "/usr/local/bin/ollama",
            &["/usr/local/bin/ollama", "serve"],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Ollama);
        let mut f = facts(
            "/usr/local/bin/ollama",
            &[
                "/usr/local/bin/ollama",
                "runner",
                "--model",
                "/root/.ollama/models/blobs/sha256-6a0746a1ec1a",
                "--port",
                "41231",
            ],
            &[
                "/usr/local/lib/ollama/libggml-cuda.so",
                "/root/.ollama/models/blobs/sha256-6a0746a1ec1a",
            ],
        );
        f.parent = Some((900, "ollama".into()));
        let w = identify(&f);
        assert_eq!(w.kind, WorkloadKind::OllamaRunner);
        assert_eq!(w.confidence, Confidence::High);
        assert_eq!(
            w.model.as_deref(),
            Some("/root/.ollama/models/blobs/sha256-6a0746a1ec1a")
        );
        assert!(w
            .evidence
            .iter()
            .any(|e| e.kind == EvidenceKind::Parent && e.showed == "parent ollama (pid 900)"));
    }

    #[test]
    fn python_frameworks_by_libraries_and_arguments() {
        let w = identify(&facts(
            "/usr/bin/python3.11",
            &["python3", "train.py"],
            &["/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"],
        ));
        assert_eq!(w.kind, WorkloadKind::Pytorch);
        assert_eq!(w.confidence, Confidence::Medium);
        let w = identify(&facts(
            "/usr/bin/python3",
            &["python3", "-m", "vllm.entrypoints.openai.api_server"],
            &["/v/site-packages/torch/lib/libtorch_cuda.so"],
        ));
        assert_eq!(w.kind, WorkloadKind::Vllm);
        assert_eq!(w.confidence, Confidence::High);
        let w = identify(&facts(
            "/usr/bin/python3",
            &["python3", "/srv/ComfyUI/main.py", "--listen"],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Comfyui);
        let w = identify(&facts(
            "/usr/bin/python3",
            &["python3", "-m", "mlx_lm.server"],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Mlx);
        // llama-cpp-python: a python process embedding libllama.
        let w = identify(&facts(
            "/usr/bin/python3",
            &["python3", "-m", "llama_cpp.server"],
            &["/v/site-packages/llama_cpp/lib/libllama.so"],
        ));
        assert_eq!(w.kind, WorkloadKind::LlamaCpp);
        assert_eq!(w.confidence, Confidence::Medium);
    }

    #[test]
    fn windows_module_lists_identify_too() {
        // What wddm::facts reads on Windows: image path and loaded modules, no command line.
        let mut f = facts(
            r"C:\llama\llama-server.exe",
            &[],
            &[
                r"C:\llama\ggml-cuda.dll",
                r"C:\Windows\System32\nvcuda.dll",
                r"D:\models\qwen3-8b.gguf",
            ],
        );
        f.listen_ports = vec![8080];
        let w = identify(&f);
        assert_eq!(
            (w.kind, w.confidence),
            (WorkloadKind::LlamaCpp, Confidence::High)
        );
        assert_eq!(w.model.as_deref(), Some(r"D:\models\qwen3-8b.gguf"));
        let w = identify(&facts(r"C:\Windows\System32\dwm.exe", &[], &[]));
        assert_eq!(w.kind, WorkloadKind::Compositor);
        // The kill guard rails' list is identification's too: a compositor it alone named
        // (gamescope) is one here, and a browser in its Windows form is a browser.
        let w = identify(&facts("/usr/bin/gamescope", &["gamescope"], &[]));
        assert_eq!(w.kind, WorkloadKind::Compositor);
        let w = identify(&facts(
            r"C:\Program Files\Mozilla Firefox\firefox.exe",
            &[],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Browser);
        let w = identify(&facts(
            r"C:\py\python.exe",
            &[],
            &[r"C:\py\Lib\site-packages\torch\lib\torch_cuda.dll"],
        ));
        assert_eq!(w.kind, WorkloadKind::Pytorch);
    }

    #[test]
    fn sglang_and_pytorch_checkpoints() {
        let w = identify(&facts(
            "/usr/bin/python3",
            &[
                "python3",
                "-m",
                "sglang.launch_server",
                "--model-path",
                "/m/Qwen3-8B",
            ],
            &["/v/site-packages/torch/lib/libtorch_cuda.so"],
        ));
        assert_eq!(
            (w.kind, w.confidence),
            (WorkloadKind::Sglang, Confidence::High)
        );
        assert_eq!(w.model.as_deref(), Some("/m/Qwen3-8B"));
        // A pickle checkpoint a training script has open is a model file too.
        let mut f = facts(
            "/usr/bin/python3",
            &["python3", "train.py"],
            &["/v/site-packages/torch/lib/libtorch_cuda.so"],
        );
        f.open_files = vec![
            "/usr/lib/python3/dist-packages/distutils-precedence.pth".into(),
            "/ckpt/step-100.pt".into(),
            "/data/train.bin".into(),
        ];
        let w = identify(&f);
        assert_eq!(w.kind, WorkloadKind::Pytorch);
        assert_eq!(w.model.as_deref(), Some("/ckpt/step-100.pt"));
        assert!(!w.evidence.iter().any(|e| e.showed.contains("train.bin")));
    }

    #[test]
    fn vllm_console_script() {
        // pip's `vllm` script runs as `/venv/bin/python3 /venv/bin/vllm serve MODEL`, comm `vllm`.
        let w = identify(&facts(
            "/venv/bin/python3.12",
            &[
                "/venv/bin/python3",
                "/venv/bin/vllm",
                "serve",
                "Qwen/Qwen3-8B",
            ],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Vllm);
        assert!(w.evidence.iter().any(|e| e.showed == "`vllm serve`"));
    }

    #[test]
    fn sglang_scheduler_title_and_what_matched() {
        let torch = ["/v/site-packages/torch/lib/libtorch_cuda.so"];
        // setproctitle replaced the command line and the comm: the title names SGLang.
        let mut f = facts("/usr/bin/python3.12", &["sglang::scheduler_TP0"], &torch);
        f.comm = Some("sglang::schedul".into());
        let w = identify(&f);
        assert_eq!(w.kind, WorkloadKind::Sglang);
        let ev = |w: &Workload| {
            w.evidence
                .iter()
                .find(|e| e.kind == EvidenceKind::Cmdline)
                .map(|e| (e.showed.clone(), e.source.clone()))
                .unwrap()
        };
        assert_eq!(
            ev(&w),
            (
                "SGLang process title `sglang::scheduler_TP0`".into(),
                "/proc/42/cmdline".into()
            )
        );
        // The comm alone (the command line unreadable) names it too, and the evidence says so.
        let mut f = facts("/usr/bin/python3.12", &[], &torch);
        f.comm = Some("sglang::schedul".into());
        let w = identify(&f);
        assert_eq!(w.kind, WorkloadKind::Sglang);
        assert_eq!(
            ev(&w),
            (
                "SGLang process title `sglang::schedul`".into(),
                "/proc/42/comm".into()
            )
        );
        // The console script is named as such, not as the module.
        let w = identify(&facts(
            "/venv/bin/python3",
            &[
                "/venv/bin/python3",
                "/venv/bin/sglang",
                "serve",
                "--model-path",
                "m",
            ],
            &torch,
        ));
        assert_eq!(w.kind, WorkloadKind::Sglang);
        assert_eq!(ev(&w).0, "`sglang serve`");
    }

    #[test]
    fn vllm_engine_core_by_comm() {
        let mut f = facts("/usr/bin/python3", &["python3", "x"], &[]);
        f.comm = Some("VLLM::EngineCor".into());
        assert_eq!(identify(&f).kind, WorkloadKind::Vllm);
    }

    #[test]
    fn lm_studio_by_install_path() {
        let w = identify(&facts(
            "/home/a/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-nvidia-cuda/llm_engine_cuda",
            &["llm_engine_cuda"],
            &["/home/a/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-nvidia-cuda/libggml-cuda.so"],
        ));
        assert_eq!(w.kind, WorkloadKind::LmStudio);
        assert_eq!(w.confidence, Confidence::High);
    }

    #[test]
    fn browsers_compositors_and_plain_apps() {
        let w = identify(&facts(
            "/opt/google/chrome/chrome",
            &[
                "/opt/google/chrome/chrome",
                "--type=gpu-process",
                "--enable-crash-reporter",
            ],
            &[],
        ));
        assert_eq!(w.kind, WorkloadKind::Browser);
        assert!(w.evidence.iter().any(|e| e.showed.contains("gpu-process")));
        assert_eq!(w.model, None);
        assert_eq!(
            identify(&facts(
                "/usr/lib/xorg/Xorg",
                &["/usr/lib/xorg/Xorg", ":0"],
                &[]
            ))
            .kind,
            WorkloadKind::Compositor
        );
        assert_eq!(
            identify(&facts(
                "/usr/bin/gnome-shell",
                &["/usr/bin/gnome-shell"],
                &[]
            ))
            .kind,
            WorkloadKind::Compositor
        );
        let w = identify(&facts(
            "/opt/app/render",
            &["render"],
            &["/usr/lib/x86_64-linux-gnu/libcudart.so.12"],
        ));
        assert_eq!(
            (w.kind, w.confidence),
            (WorkloadKind::CudaApp, Confidence::Low)
        );
        let w = identify(&facts(
            "/usr/games/game",
            &["game"],
            &["/usr/lib/libvulkan.so.1"],
        ));
        assert_eq!(w.kind, WorkloadKind::GraphicsApp);
        let w = identify(&facts("/bin/mystery", &["mystery"], &[]));
        assert_eq!(
            (w.kind, w.confidence),
            (WorkloadKind::Unknown, Confidence::Low)
        );
    }

    #[test]
    fn unreadable_maps_are_a_missing_link() {
        let mut f = facts("/usr/bin/llama-server", &["llama-server"], &[]);
        f.unreadable = vec!["/proc/42/maps: permission denied".into()];
        let w = identify(&f);
        assert!(w.missing.iter().any(|m| m.contains("permission denied")));
    }

    #[test]
    fn the_ancestor_walk_and_classify_agree_on_server_command_lines() {
        let argv = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        for (kind, line) in [
            (
                WorkloadKind::Vllm,
                "python3 -m vllm.entrypoints.openai.api_server --model m",
            ),
            (
                WorkloadKind::Sglang,
                "python3 -m sglang.launch_server --model-path m",
            ),
        ] {
            let a = argv(line);
            assert!(crate::runtimes::names_argv(kind, &a), "{line}");
            let f = facts(
                "/usr/bin/python3",
                &a.iter().map(String::as_str).collect::<Vec<_>>(),
                &[],
            );
            assert_eq!(identify(&f).kind, kind, "{line}");
        }
        // A worker's title is not its server's command line: the walk goes on to the parent.
        assert!(!crate::runtimes::names_argv(
            WorkloadKind::Vllm,
            &argv("VLLM::EngineCore")
        ));
        assert!(crate::runtimes::names_argv(
            WorkloadKind::Vllm,
            &argv("/usr/bin/vllm serve m")
        ));
        assert!(!crate::runtimes::names_argv(
            WorkloadKind::Sglang,
            &argv("python3 train.py")
        ));
        assert!(!crate::runtimes::names_argv(
            WorkloadKind::Sglang,
            &argv("sglang::scheduler_TP0")
        ));
        assert!(crate::runtimes::names_argv(
            WorkloadKind::Pytorch,
            &argv("python3 train.py")
        ));
    }
}
