//! `gpuledger estimate MODEL.gguf [llama-server flags] [--json] [--device N] [--backend B]`:
//! what llama-server would allocate for a model with those settings, before loading it, and
//! whether that fits in what is free now on the chosen device.
//!
//! The llama-server flags are read by the same flag table `explain` and snapshots use on a live
//! command line (`LlamaSettings`, `estimate::FLAGS`), so `-ngl`, `-np`, `-ctk` etc. are spelled
//! exactly as llama-server spells them (clap cannot express multi-letter single-dash flags), and a
//! whole llama-server command line is accepted as written (`line`).

use crate::Global;
use gpuledger_lang::said::Arg;
use gpuledger_lang::{Lang, Said};
use gpuledger_model::{Device, Snapshot, Vendor};
use gpuledger_views::estimate::{render_comparison_in, render_text_in};
use gpuledger_views::fit::{render_changes_in, render_fit_in, Change, Fit, Holder};
use gpuledger_workloads::estimate::{
    compare_with_log, estimate, fit, Backend, Comparison, Estimate, FitReplay, Fitting, Setting,
    SettingSource,
};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::llama_log::parse_llama_log;
use gpuledger_workloads::LlamaSettings;
use serde::Serialize;
use std::process::ExitCode;

mod advice;
mod line;

macro_rules! flags_help {
    () => {
        "\
llama-server flags (same names and defaults as llama-server), read by one table made from
llama.cpp's own list (build b11434, and older builds' flags) as for a running server:
  -c, --ctx-size N            context (0 = the model's training context; padded to 256)
  -np, --parallel N           slots (default auto: 4 slots sharing one unified cache)
  -kvu, --kv-unified          one cache shared by all slots
  -no-kvu, --no-kv-unified    one cache per slot
  -ngl, --n-gpu-layers N      layers on the GPU: a number, auto or all (default auto = all here)
  -b, --batch-size N          logical batch (default 2048)
  -ub, --ubatch-size N        physical batch (default 512)
  -ctk, --cache-type-k T      K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1
  -ctv, --cache-type-v T      V cache type (quantised V needs flash attention)
  -fa, --flash-attn on|off|auto
                              (a bare -fa, the switch of older builds, is on)
  --swa-full                  full-size cache for sliding-window layers
  -nkvo, --no-kv-offload      keep the KV cache on the host
  --no-mmap, -lm none         load weights into host memory instead of mapping the file
                              (-lm/--load-mode is the spelling of current builds)
  -ot, --override-tensor PATTERN=TYPE[,...]
                              tensors whose name matches PATTERN (a regex) in buffer type CPU
                              (host) or a device's (CUDA0, Vulkan0): the first match wins,
                              whatever -ngl says of the tensor's layer; repeatable
  -cmoe, --cpu-moe            every MoE expert tensor on the host
  -ncmoe, --n-cpu-moe N       the expert tensors of the first N layers on the host
  -ncffn, --n-cpu-ffn N       the dense FFN tensors of the first N layers on the host
  --rpc HOST:PORT[,...]       RPC servers: one device each, first in llama.cpp's device order
  -ts, --tensor-split N,N     layer proportions per device (default: by free memory)
  -sm, --split-mode none|layer
                              none: only --main-gpu's device (row and tensor not modelled)
  -mg, --main-gpu N           the device -sm none keeps
  -fit, --fit on|off          fit an unset -c and -ngl to free memory before loading (llama.cpp's
                              default: on). Replayed when each device's free memory is known
                              (--free, or the live GPU): the estimate is for what it would pick,
                              and shows the flags that pin it, one per line, each runnable
  -fitt, --fit-target MiB[,MiB...]
                              free memory --fit leaves on each device (default 1024)
  -fitc, --fit-ctx N          the smallest context --fit may pick (default 4096; -c 0 asks for
                              the full context)
  Every other llama-server flag is accepted, never refused: one that changes memory in a way not
  modelled yet (-md, --mmproj, -sm row ...) is named in a
  note with its value; one with no effect on memory (--host, --port, -t, --jinja, -a, --api-key
  ...) is listed by name; an unknown one is named in a warning.
A whole llama-server command line can follow `--` (or start at its program, llama-server or a
path to it): its -m names the model when no MODEL.gguf comes first, LLAMA_ARG_* assignments in
front of it are read as its environment, and every flag after it is llama-server's:
  gpuledger estimate --json -- llama-server -m m.gguf -c 8192 -fa on --port 8080
gpuledger options (before `--` or the program):
  --json                      the estimate (and fit check) as JSON
  --device N                  GPU index for the fit check (default 0); a device name
                              (--device CUDA0,CUDA1) is llama-server's own --device
  --backend cuda|rocm|vulkan|metal|cpu
                              which kind of device buffers to model (default: from the device's
                              vendor when a GPU is found, else cuda)
  --tool server|cli|mtmd|bench
                              the llama.cpp program that runs the model (or its name:
                              llama-cli, llama-mtmd-cli, llama-bench); default server. The
                              one-sequence tools get 1 sequence (-np) and no unified cache
                              instead of the server's 4 auto slots; bench a context of 640
                              (its default -p 512 -n 128) unless -c is given
  --llama-build N             the llama.cpp build to follow (as `llama-server --version` prints
                              it: 8123 or b8123); compute-buffer rules changed between builds
                              (default: the newest rules)
  --gpus N                    local GPUs llama.cpp uses, from --device on (default 1, though
                              llama-server uses every GPU it sees: a note says when this machine
                              has more); with --rpc servers (first in its device order) and
                              -ts/-sm/-mg, the estimate shows each device's layers, weights, KV
                              cache and compute buffer, and reads their free memory live
  --free SIZE,SIZE            free memory per device, in that order (24GiB,24GiB): --fit's
                              budget, and without -ts llama.cpp splits the layers by it (default:
                              evenly); with no device (cpu), the host's total memory
  --no-fit-check              do not look at the live machine
  --log FILE                  llama-server's log for this model (-lv 4): show its own buffer
                              figures beside the estimate
When the estimate does not fit the checked GPU's free memory, the cheapest changes that would
(--n-cpu-moe N, a smaller -c, fewer -ngl, another GPU) are listed, each checked by estimating
again, and the exit status is 3."
    };
}
/// The flags, then the exit statuses, for `--help`.
pub const LONG_HELP: &str = concat!(flags_help!(), "\n\n", crate::exit_codes!());

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The model (any part of a split model), then llama-server flags and gpuledger options; or
    /// a whole llama-server command line after `--` (see below).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "MODEL.gguf|FLAGS"
    )]
    pub args: Vec<String>,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    estimate: &'a Estimate,
    fit: &'a Fit,
    /// The runtime's own figures beside the estimate, with `--log`.
    #[serde(skip_serializing_if = "Option::is_none")]
    reported: Option<&'a [Comparison]>,
    /// When it does not fit: the smallest changes that would make it, each checked.
    #[serde(skip_serializing_if = "<[Change]>::is_empty")]
    changes: &'a [Change],
}

/// The exit status when the estimate does not fit the device's free memory.
const DOES_NOT_FIT: u8 = 3;

/// A flag or value that cannot be used: said once, exit status 2 (as for clap's usage errors).
fn usage_error(msg: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("gpuledger: {msg}");
    Ok(ExitCode::from(2))
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let line::Line {
        opts,
        model,
        mut settings,
        warnings,
    } = match line::read(&args.args) {
        // Help asked for among llama-server's flags (`estimate m.gguf -c 4096 -h`).
        _ if args.args.iter().any(|a| a == "-h" || a == "--help") => {
            return help(global.lang, None)
        }
        Ok(x) => x,
        Err(e) => return usage_error(crate::failed::in_lang(&e, global.lang)),
    };
    for w in &warnings {
        let text = ("text", w.in_lang(global.lang).into());
        eprintln!("{}", global.lang.t_args("cli-warning", &[text]));
    }
    let Some(model_path) = model else {
        return help(global.lang, Some(no_model(&settings)));
    };
    apply_options(&opts, &mut settings);
    let model = GgufModel::open(&model_path)?;

    let (snapshot, replay) = fit_snapshot(&opts, global)?;
    let device = snapshot
        .as_ref()
        .and_then(|s| s.devices.iter().find(|d| d.index == opts.device));
    if let (Some(snap), None, true) = (&snapshot, device, opts.device_named) {
        let why = no_such_device(snap, opts.device);
        let option = format!("--device {}", opts.device);
        return Err(crate::flags::option_error(&option, why));
    }
    settings.backend = backend_setting(opts.backend, device);
    let rpc_note = rpc_only(&opts, snapshot.as_ref(), &mut settings);
    let (live_free, gpus_note) = live_free(snapshot.as_ref(), &opts, device);
    free_carrier(&opts, &live_free, &mut settings);
    let given = settings.clone();
    let (settings, replay_fit, fit_note) = fitted(&model, settings)?;
    let mut e = estimate(&model, &settings)?;
    e.fit = replay_fit;
    e.notes.extend(fit_note);
    e.notes.extend(gpus_note);
    e.notes.extend(rpc_note);
    crate::overhead::apply_probe(&mut e, settings.backend.value);
    let reported = opts
        .log
        .as_deref()
        .map(|p| log_compared(p, &e))
        .transpose()?;
    let fit = if !opts.fit_check {
        Fit::NotAvailable {
            reason: Said::new("report-fit-not-requested", vec![]),
        }
    } else {
        fit_check(&e, snapshot.as_ref(), opts.device, replay)
    };
    let short = matches!(fit, Fit::Checked { fits: false, .. });
    let changes = match (&fit, &snapshot) {
        (Fit::Checked { fits: false, .. }, Some(snap)) => {
            advice::changes(&model, &given, snap, opts.device)
        }
        _ => Vec::new(),
    };

    let out = JsonOut {
        estimate: &e,
        fit: &fit,
        reported: reported.as_deref(),
        changes: &changes,
    };
    crate::commands::print(&render(&out, opts.json, global.lang)?)?;
    // Does not fit: a script can tell without reading the text (documented in --help).
    Ok(if short {
        ExitCode::from(DOES_NOT_FIT)
    } else {
        ExitCode::SUCCESS
    })
}

/// The estimate, the fit check and the changes that would fit, as JSON or text.
fn render(out: &JsonOut, json: bool, lang: gpuledger_lang::Lang) -> anyhow::Result<String> {
    if json {
        let mut s = serde_json::to_string_pretty(out)?;
        s.push('\n');
        return Ok(s);
    }
    let mut s = render_text_in(out.estimate, lang);
    if let Some(r) = out.reported {
        s.push_str(&render_comparison_in(r, lang));
    }
    s.push_str(&render_fit_in(out.fit, lang));
    s.push_str(&render_changes_in(out.changes, lang));
    Ok(s)
}

/// No model named: say how to name one (and, for `-hf`, where llama.cpp keeps its downloads).
fn no_model(settings: &LlamaSettings) -> Said {
    let hf = settings
        .unmodelled
        .iter()
        .any(|u| u.starts_with("-hf") || u.starts_with("--hf") || u.starts_with("LLAMA_ARG_HF"));
    if hf {
        Said::new("cli-err-no-model-hf", vec![("cache", hf_cache().into())])
    } else {
        Said::new("cli-err-no-model", vec![])
    }
}

/// The flags' help in `lang`, after `error` when there is one (a usage error, exit 2).
fn help(lang: Lang, error: Option<Said>) -> anyhow::Result<ExitCode> {
    let usage = ("usage", "gpuledger estimate MODEL.gguf [FLAGS]".into());
    let text = format!(
        "{}\n\n{}",
        lang.t_args("cli-usage", &[usage]),
        lang.t("cli-after-estimate")
    );
    match error {
        Some(e) => usage_error(format!("{}\n\n{text}", e.in_lang(lang))),
        None => {
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Where llama.cpp keeps `-hf` downloads (`common/hf-cache.cpp`, `get_cache_directory`): the
/// first of `LLAMA_CACHE`, `HF_HUB_CACHE`, `HUGGINGFACE_HUB_CACHE`, `HF_HOME`/hub,
/// `XDG_CACHE_HOME`/huggingface/hub, `HOME`/.cache/huggingface/hub that is set, in the Hugging
/// Face layout; builds before that cache kept them flat in `LLAMA_CACHE` or ~/.cache/llama.cpp.
fn hf_cache() -> Said {
    let var = |v: &str| std::env::var(v).ok().filter(|x| !x.is_empty());
    let rules: [(&str, &str); 6] = [
        ("LLAMA_CACHE", ""),
        ("HF_HUB_CACHE", ""),
        ("HUGGINGFACE_HUB_CACHE", ""),
        ("HF_HOME", "hub"),
        ("XDG_CACHE_HOME", "huggingface/hub"),
        ("HOME", ".cache/huggingface/hub"),
    ];
    let here = rules.iter().find_map(|(v, sub)| {
        var(v).map(|base| {
            let p = std::path::Path::new(&base);
            let p = if sub.is_empty() {
                p.into()
            } else {
                p.join(sub)
            };
            let said = vec![
                ("path", p.display().to_string().into()),
                ("var", (*v).into()),
            ];
            Said::new("cli-estimate-hf-cache-here", said)
        })
    });
    let here = here.unwrap_or_else(|| Said::new("cli-estimate-hf-cache-unknown", vec![]));
    Said::new("cli-estimate-hf-cache", vec![("here", here.into())])
}

/// The live GPUs' free memory in index order for the estimate's local GPUs: the chosen device's,
/// or with `--gpus N` that of N GPUs of its vendor from it on (an unknown one ends the list).
/// With one GPU estimated on a machine that has more of that vendor, a note says that llama-server
/// would use them all.
fn live_free(
    snap: Option<&Snapshot>,
    opts: &line::Opts,
    device: Option<&Device>,
) -> (Vec<u64>, Option<Said>) {
    let (Some(snap), Some(d)) = (snap, device) else {
        return (Vec::new(), None);
    };
    let same: Vec<&Device> = snap
        .devices
        .iter()
        .filter(|x| x.vendor == d.vendor && x.index >= d.index)
        .collect();
    let n = opts.gpus.unwrap_or(1) as usize;
    let free: Vec<u64> = same
        .iter()
        .take(n)
        .map_while(|x| x.memory.free_bytes)
        .collect();
    let same_vendor: Vec<String> = snap
        .devices
        .iter()
        .filter(|x| x.vendor == d.vendor)
        .map(|x| x.label())
        .collect();
    let all = same_vendor.len();
    // Named one by one: a 4090 beside an A4000 are two GPUs of one vendor, not of one kind.
    let note = (opts.gpus.is_none() && !opts.device_named && all > 1).then(|| {
        Said::new(
            "recipe-note-several-gpus",
            vec![
                ("count", all.into()),
                ("gpus", same_vendor.join(", ").into()),
                ("index", d.index.to_string().into()),
            ],
        )
    });
    (free, note)
}

/// llama-server's `--fit` (on by default) replayed for the free memory each device has
/// (`settings.devices.free`). Returns the settings it chose, the replay, or a note saying why it
/// was not replayed.
pub(super) fn fitted(
    model: &GgufModel,
    settings: LlamaSettings,
) -> anyhow::Result<(LlamaSettings, Option<FitReplay>, Option<Said>)> {
    Ok(match fit(model, &settings)? {
        Fitting::Off => (settings, None, None),
        Fitting::NotReplayed(why) => (settings, None, Some(why)),
        Fitting::Replayed(f) => (f.settings, Some(f.replay), None),
    })
}

/// The one carrier of free memory (`settings.devices.free`): `--free`, else the live GPUs',
/// which are the devices only when llama.cpp's list has no RPC server before them and the build
/// has a GPU backend.
fn free_carrier(opts: &line::Opts, live: &[u64], settings: &mut LlamaSettings) {
    if !opts.free.is_empty() || live.is_empty() {
        return;
    }
    if !settings.devices.rpc.value.is_empty() || settings.backend.value == Backend::Cpu {
        return;
    }
    settings.devices.free = Setting {
        value: live.to_vec(),
        source: SettingSource::Runtime(Said::new("recipe-src-live-free", vec![])),
    };
}

/// `--rpc` on a machine where no GPU was seen: llama.cpp's devices are the RPC servers alone
/// (no assumed local CUDA0), unless `--gpus` or `--backend` says otherwise.
fn rpc_only(
    opts: &line::Opts,
    snap: Option<&Snapshot>,
    settings: &mut LlamaSettings,
) -> Option<Said> {
    let no_gpu = snap.is_none_or(|s| s.devices.is_empty());
    let rpc = settings.devices.rpc.value.len();
    if rpc == 0 || !no_gpu || opts.gpus.is_some() || opts.backend.is_some() {
        return None;
    }
    settings.devices.local = Setting {
        value: 0,
        source: SettingSource::Default(Said::new("recipe-default-rpc-only", vec![])),
    };
    Some(Said::new(
        "recipe-note-rpc-only",
        vec![("count", rpc.into())],
    ))
}

/// gpuledger's options that are settings of the recipe (not llama-server flags).
fn apply_options(opts: &line::Opts, settings: &mut LlamaSettings) {
    let flag = |f: &str| SettingSource::Flag(f.into());
    if let Some(b) = opts.llama_build {
        settings.llama_build = Setting {
            value: Some(b),
            source: flag("--llama-build"),
        };
    }
    if let Some(t) = opts.tool {
        settings.tool = Setting {
            value: t,
            source: flag("--tool"),
        };
    }
    if let Some(n) = opts.gpus {
        settings.devices.local = Setting {
            value: n,
            source: flag("--gpus"),
        };
    }
    if !opts.free.is_empty() {
        settings.devices.free = Setting {
            value: opts.free.clone(),
            source: flag("--free"),
        };
    }
}

/// The snapshot to check the fit against: none when not asked, or when a live collection fails
/// (the estimate stands alone); a replay that cannot be read is an error.
fn fit_snapshot(
    opts: &line::Opts,
    global: &Global,
) -> anyhow::Result<(Option<Snapshot>, Option<String>)> {
    if !opts.fit_check {
        return Ok((None, None));
    }
    match global.snapshot() {
        Ok((s, r)) => Ok((Some(s), r)),
        Err(e) => {
            if global.args.replay.is_some() {
                return Err(e);
            }
            Ok((None, None))
        }
    }
}

/// `--backend` when given, else the one the device's vendor uses.
fn backend_setting(flag: Option<Backend>, device: Option<&Device>) -> Setting<Backend> {
    match (flag, device) {
        (Some(b), _) => Setting {
            value: b,
            source: SettingSource::Flag("--backend".into()),
        },
        (None, Some(d)) => Setting {
            value: match d.vendor {
                Vendor::Nvidia => Backend::Cuda,
                Vendor::Amd => Backend::Rocm,
                Vendor::Apple => Backend::Metal,
                Vendor::Intel | Vendor::Unknown => Backend::Vulkan,
            },
            source: SettingSource::Default(Said::new(
                "recipe-default-vendor-of",
                vec![("device", d.label().into())],
            )),
        },
        (None, None) => Setting {
            value: Backend::Cuda,
            source: SettingSource::Default(Said::new(
                "recipe-default-no-device",
                vec![("backend", "cuda".into())],
            )),
        },
    }
}

/// The runtime's own buffer sizes from its log (`--log`), beside the estimate.
fn log_compared(p: &std::path::Path, e: &Estimate) -> anyhow::Result<Vec<Comparison>> {
    let log = parse_llama_log(&super::read_log(p)?);
    if log.buffers.is_empty() {
        let said = vec![("path", crate::failed::path(p))];
        return Err(crate::failed::failed("cli-err-no-buffer-lines", said));
    }
    Ok(compare_with_log(e, &log))
}

/// Why GPU `device` is not in `snap`: no GPU at all (with what each source said), or which are.
fn no_such_device(snap: &Snapshot, device: u32) -> Said {
    if snap.devices.is_empty() {
        let srcs: Vec<Said> = snap
            .sources
            .iter()
            .map(|s| {
                let detail = s.detail.clone().into();
                Said::new(
                    "report-fit-source",
                    vec![("name", s.name.as_str().into()), ("detail", detail)],
                )
            })
            .collect();
        Said::new("report-fit-no-gpu", vec![("sources", Arg::List(srcs))])
    } else {
        let found: Vec<String> = snap.devices.iter().map(|d| d.label()).collect();
        Said::new(
            "report-fit-no-such-gpu",
            vec![
                ("device", device.into()),
                ("found", found.join(", ").into()),
            ],
        )
    }
}

/// What the estimate needs on the chosen GPU: over several devices its part (the first local one:
/// the estimate's devices start at the chosen GPU), with the overhead.
pub(super) fn needed(e: &Estimate) -> u64 {
    match e.devices.iter().find(|s| s.endpoint.is_none()) {
        Some(s) => [
            s.weights_bytes,
            s.kv_bytes,
            s.compute_bytes,
            e.overhead.gpu_bytes.unwrap_or(0),
        ]
        .iter()
        .fold(0u64, |a, &x| a.saturating_add(x)),
        None => e.total_gpu_bytes,
    }
}

/// Compare the estimate with what the device has free now (measured), and name who holds the rest.
pub fn fit_check(
    e: &Estimate,
    snap: Option<&Snapshot>,
    device: u32,
    replay: Option<String>,
) -> Fit {
    let Some(snap) = snap else {
        return Fit::NotAvailable {
            reason: Said::new("report-fit-no-snapshot", vec![]),
        };
    };
    let Some(d) = snap.devices.iter().find(|d| d.index == device) else {
        let why = no_such_device(snap, device);
        return Fit::NotAvailable {
            reason: Said::new("report-fit-not-available", vec![("why", why.into())]),
        };
    };
    let Some(free) = d.memory.free_bytes else {
        return Fit::NotAvailable {
            reason: Said::new(
                "report-fit-free-unknown",
                vec![
                    ("device", d.label().into()),
                    (
                        "why",
                        d.unavailable
                            .get("memory")
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                            .into(),
                    ),
                ],
            ),
        };
    };
    let mut holders: Vec<Holder> = snap
        .processes
        .iter()
        .filter_map(|p| {
            let u = p.usage.iter().find(|u| u.device == d.uuid)?;
            Some(Holder {
                pid: p.pid,
                name: p.display_name().to_string(),
                memory_bytes: u.memory_bytes,
                source: u.memory_source.clone(),
            })
        })
        .collect();
    holders.sort_by_key(|h| std::cmp::Reverse(h.memory_bytes));
    let needed = needed(e);
    Fit::Checked {
        device: d.label(),
        free_bytes: free,
        total_bytes: d.memory.total_bytes,
        needed_bytes: needed,
        overhead_unknown: e.overhead.gpu_bytes.is_none(),
        fits: needed <= free,
        holders,
        unattributed_bytes: d.ledger.unattributed_bytes,
        replay,
    }
}
