//! PyTorch programs (ComfyUI, transformers scripts, training jobs): only what can be known from
//! outside the process. The weight files it has mapped or open (safetensors: the exact tensor
//! bytes from their headers; `.pt`/`.pth`/`.ckpt`/`.bin`: the file size, which is what a pickle
//! checkpoint holds give or take its framing), this machine's probed CUDA context cost when a
//! probe was saved, and `PYTORCH_CUDA_ALLOC_CONF` when set. Activations, the caching allocator's
//! reserve and any KV cache are the program's own business: named, never sized.

mod runtime;

pub use runtime::{Pytorch, TORCH};

use super::hf::{gib, in_process_root};
use super::{Input, InputSource, ProcessContext, RuntimeEstimate};
use crate::confine::ProcessRoot;
use crate::safetensors::{self, HeaderCache, Round};
use gpuledger_lang::Said;
use gpuledger_model::{EstimatedMemory, Workload, WorkloadKind};
use std::path::Path;

/// Model files the identification saw mapped or open (`/proc/PID/maps`, `/proc/PID/fd`).
pub fn model_files(w: &Workload) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in &w.evidence {
        let Some(p) = e.model_file_path() else {
            continue;
        };
        if !e.source.starts_with("/proc/") {
            continue;
        }
        if !out.iter().any(|(q, _)| q == p) {
            out.push((p.to_string(), e.source.clone()));
        }
    }
    out
}

/// Weights of one file: safetensors header bytes, else the file size (said so). The path is the
/// process's own (from `/proc/PID/maps` or its descriptors): it is resolved inside the process's
/// root (`/proc/PID/root` under a recorded or container root reaches the same file), never from
/// ours.
fn file_weights(path: &str, ctx: &ProcessContext, round: &Round) -> Result<(u64, Said), Said> {
    let seen = in_process_root(ctx.proc_root, ctx.pid, Path::new(path));
    let (root, inner) = ProcessRoot::split(ctx.proc_root, ctx.pid, &seen);
    if path.ends_with(".safetensors") {
        let cache = Some(HeaderCache::global());
        let h = safetensors::read_file_in(&root, &inner, Path::new(path), round, cache)
            .map_err(|e| Said::verbatim(e.to_string()))?;
        let count = vec![("count", h.tensor_count.to_string().into())];
        Ok((
            h.tensor_bytes,
            Said::new("recipe-torch-how-safetensors", count),
        ))
    } else {
        let r = root
            .reached(&inner)
            .map_err(|e| Said::verbatim(format!("{path}: {e}")))?;
        let md = std::fs::metadata(&r.host).map_err(|e| Said::verbatim(format!("{path}: {e}")))?;
        if !md.is_file() {
            let path = vec![("path", path.into())];
            return Err(Said::new("recipe-torch-not-regular", path));
        }
        Ok((md.len(), Said::new("recipe-torch-how-pickle", vec![])))
    }
}

/// The weights of every file that can be read (each an input; an unreadable one is not
/// modelled), and how many were read. An error when none could be, or when their sum passes
/// 2^64 (naming the file that made it).
fn read_weights(
    files: &[(String, String)],
    ctx: &ProcessContext,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> Result<(u64, usize), Said> {
    let own = Round::default();
    let round = ctx.round.unwrap_or(&own);
    let mut weights = 0u64;
    let mut read = 0usize;
    for (f, seen) in files {
        match file_weights(f, ctx, round) {
            Ok((b, how)) => {
                weights = weights.checked_add(b).ok_or_else(|| {
                    Said::new(
                        "recipe-torch-sum-overflow",
                        vec![("file", f.as_str().into())],
                    )
                })?;
                read += 1;
                let value = vec![
                    ("file", f.as_str().into()),
                    ("size", gib(b).into()),
                    ("how", how.into()),
                ];
                inputs.push(Input::said(
                    Said::new("recipe-input-weights-file", vec![]),
                    Said::new("recipe-torch-weights-value", value),
                    InputSource::File {
                        detail: seen.clone().into(),
                    },
                ));
            }
            Err(e) => {
                let said = vec![("file", f.as_str().into()), ("error", e.into())];
                not_modelled.push(Said::new("recipe-torch-weights-unreadable", said));
            }
        }
    }
    if read == 0 {
        return Err(if files.is_empty() {
            Said::new("recipe-err-torch-no-files", vec![])
        } else {
            let why = gpuledger_lang::said::Arg::List(not_modelled.clone());
            Said::new("recipe-err-torch-none-read", vec![("why", why)])
        });
    }
    Ok((weights, read))
}

/// `PYTORCH_CUDA_ALLOC_CONF` as an input when set, and what the program holds beyond its
/// weights, named as not modelled.
fn allocator_inputs(ctx: &ProcessContext, inputs: &mut Vec<Input>, not_modelled: &mut Vec<Said>) {
    let alloc_conf = ctx
        .env
        .iter()
        .find(|(k, _)| k == "PYTORCH_CUDA_ALLOC_CONF")
        .map(|(_, v)| v.clone());
    if let Some(a) = &alloc_conf {
        inputs.push(Input::new(
            "PYTORCH_CUDA_ALLOC_CONF",
            a,
            InputSource::Env {
                var: format!("PYTORCH_CUDA_ALLOC_CONF in /proc/{}/environ", ctx.pid).into(),
            },
        ));
    }
    not_modelled.push(match &alloc_conf {
        Some(a) => Said::new(
            "recipe-pytorch-nm-allocator",
            vec![("conf", a.as_str().into())],
        ),
        None => Said::new("recipe-pytorch-nm-allocator-default", vec![]),
    });
    not_modelled.push(Said::new("recipe-pytorch-nm-activations", vec![]));
    not_modelled.push(Said::new("recipe-pytorch-nm-offload", vec![]));
}

/// The recipe for a PyTorch process: the weight files it has open, the probed CUDA context,
/// and what cannot be sized from outside, named.
pub fn estimate_process(ctx: &ProcessContext, w: &Workload) -> Result<RuntimeEstimate, Said> {
    let files = model_files(w);
    let mut inputs = Vec::new();
    let mut not_modelled = Vec::new();
    let (weights, read) = read_weights(&files, ctx, &mut inputs, &mut not_modelled)?;
    allocator_inputs(ctx, &mut inputs, &mut not_modelled);
    let (overhead, overhead_source) = match &ctx.overhead {
        Some((b, label)) => {
            let label = label.as_str().into();
            let source = Said::new("recipe-torch-overhead-probe", vec![("label", label)]);
            (Some(*b), source)
        }
        None => {
            not_modelled.push(Said::new("recipe-nm-cuda-context", vec![]));
            (None, Said::new("recipe-torch-overhead-none", vec![]))
        }
    };
    let key = match (w.kind == WorkloadKind::Comfyui, overhead.is_some()) {
        (true, false) => "recipe-pytorch-why-comfyui",
        (true, true) => "recipe-pytorch-why-comfyui-context",
        (false, false) => "recipe-pytorch-why",
        (false, true) => "recipe-pytorch-why-context",
    };
    let why = Said::new(
        key,
        vec![
            ("weights", gib(weights).into()),
            ("files", read.to_string().into()),
            ("context", overhead.map(gib).unwrap_or_default().into()),
        ],
    );
    Ok(RuntimeEstimate {
        summary: EstimatedMemory {
            recipe: "pytorch".into(),
            model: files.first().map(|(f, _)| f.clone()).unwrap_or_default(),
            n_ctx: None,
            weights_gpu_bytes: weights,
            kv_cache_gpu_bytes: None,
            compute_gpu_bytes: None,
            compute_exact: false,
            compute_label: Some(Said::new("recipe-torch-compute-row", vec![])),
            overhead_gpu_bytes: overhead,
            overhead_included: false,
            overhead_source,
            total_gpu_bytes: weights.saturating_add(overhead.unwrap_or(0)),
            why: Some(why),
            reported: Vec::new(),
            not_modelled,
            device_shares: Vec::new(),
        },
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::{Confidence, Evidence};

    fn ctx(root: &Path) -> ProcessContext<'_> {
        ProcessContext {
            pid: 4242,
            proc_root: root,
            argv: vec!["python3".into(), "train.py".into()],
            argv_from: None,
            cwd: None,
            env: vec![],
            device_total: None,
            overhead: Some((300 << 20, "measured by probe".into())),
            fetch: None,
            round: None,
            log_version: None,
            device_capability: None,
            log_mxfp4_backend: None,
            argv_note: None,
            title: None,
        }
    }

    fn workload(files: &[(&str, &str)]) -> Workload {
        Workload {
            kind: WorkloadKind::Pytorch,
            model: None,
            model_name: None,
            confidence: Confidence::Medium,
            evidence: files
                .iter()
                .map(|(p, src)| Evidence::model_file(p, format!("/proc/4242/{src}")))
                .collect(),
            missing: vec![],
            member: None,
        }
    }

    #[test]
    fn nothing_open_is_a_reason_and_unreadable_files_are_named() {
        let root = Path::new("/nonexistent-proc");
        let e = estimate_process(&ctx(root), &workload(&[])).unwrap_err();
        assert!(e.contains("no weight file"), "{e}");
        let e = estimate_process(&ctx(root), &workload(&[("/gone/model.pt", "fd")])).unwrap_err();
        assert!(e.contains("/gone/model.pt"), "{e}");
    }

    #[test]
    fn open_files_whose_sizes_pass_2_to_the_64_are_an_error_naming_the_file() {
        // Sparse files of 7 × 10^18 bytes need tmpfs (ext4 stops at 16 TiB).
        let d = Path::new("/dev/shm").join(format!("gl-pt-huge-{}", std::process::id()));
        if std::fs::create_dir_all(&d).is_err() {
            eprintln!("skipped: no /dev/shm for sparse files of exabytes");
            return;
        }
        let mut names = Vec::new();
        for i in 1..=3 {
            let p = d.join(format!("part{i}.pt"));
            let f = std::fs::File::create(&p).unwrap();
            if let Err(e) = f.set_len(7_000_000_000_000_000_000) {
                eprintln!("skipped: /dev/shm holds no file that large: {e}");
                let _ = std::fs::remove_dir_all(&d);
                return;
            }
            names.push(p.display().to_string());
        }
        let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "fd")).collect();
        let r = estimate_process(&ctx(Path::new("/nonexistent-proc")), &workload(&files));
        std::fs::remove_dir_all(&d).unwrap();
        let e = match r {
            Ok(r) => panic!("summed to {}", r.summary.weights_gpu_bytes),
            Err(e) => e,
        };
        assert!(e.contains("part3.pt") && e.contains("2^64"), "{e}");
    }

    #[test]
    fn a_pt_file_is_sized_by_its_length_and_the_probe_is_the_overhead() {
        let d = std::env::temp_dir().join(format!("gl-pt-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let pt = d.join("ckpt.pt");
        std::fs::write(&pt, vec![0u8; 4096]).unwrap();
        let p = pt.display().to_string();
        let w = workload(&[(&p, "fd"), (&p, "maps")]);
        let r = estimate_process(&ctx(Path::new("/nonexistent-proc")), &w).unwrap();
        let s = r.summary;
        assert_eq!(s.weights_gpu_bytes, 4096);
        assert_eq!(s.overhead_gpu_bytes, Some(300 << 20));
        assert_eq!(s.total_gpu_bytes, 4096 + (300 << 20));
        assert_eq!((s.kv_cache_gpu_bytes, s.compute_gpu_bytes), (None, None));
        assert!(r.inputs[0].value.contains("file size"), "{:?}", r.inputs);
        assert!(s
            .not_modelled
            .iter()
            .any(|n| n.contains("PYTORCH_CUDA_ALLOC_CONF not set")));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
