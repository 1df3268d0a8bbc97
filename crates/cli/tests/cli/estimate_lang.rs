//! The llama.cpp estimate in Chinese holds no English sentence of gpuledger's own: tiny GGUF
//! files of the architectures whose rules say the most (hybrids, sliding windows, indexers,
//! latent attention) written by llama.cpp's own `gguf` writer, estimated with flag sets that
//! reach the notes, the backends' gaps and the `--fit` replay. llama.cpp's own `--fit` log lines
//! stay in its words, under a line that says so; the OS's words are left out as elsewhere.

use crate::languages::english_sentences;
use crate::llama_tools;
use crate::support::Machine;
use gpuledger_lang::Lang;
use std::path::Path;

/// (script, models): the files written for this test, a few of each writer's.
const MODELS: &[(&str, &[&str])] = &[
    (
        "gen_models_2026.py",
        &[
            "qwen35moe",
            "llama4-chunked",
            "kimi-linear",
            "smallthinker-swa",
            "exaone4-64",
        ],
    ),
    (
        "gen_models_indexer.py",
        &[
            "gemma3n-ple",
            "glm-dsa-all",
            "hy-v4-full",
            "minimax-m3-msa",
            "glm5-next-kpool",
        ],
    ),
    ("gen_models_indexer2.py", &["deepseek4-hc2", "qwen4exp-qsa"]),
    (
        "gen_models.py",
        &["deepseek2-legacy", "gemma3-swa", "mamba-rs"],
    ),
    (
        "gen_models_grid.py",
        &[
            "grok",
            "plm",
            "hrm_text",
            "graniteswitch",
            "kimi-k3",
            "cohere2",
        ],
    ),
];

const FLAGS: &[&str] = &[
    "",
    "-c 8192 -np 2 -ctk q8_0 -ctv q8_0 -fa on",
    "-cmoe -c 4096",
    "--free 2000 -fit on",
    "--rpc 127.0.0.1:50052",
    "--backend vulkan -ctk q8_0",
    "--backend metal -fa off -cmoe",
    "--backend rocm",
    "-ctk q8_0 -ctv f16",
    "--device 1 -ngl 99",
    "--gpus 2 -ngl 99",
    "--gpus 2 -ts 3,1 -sm none",
    "-ot exps=CUDA7 -ngl 99",
    "-ot exps=CPU -ncmoe 2 --no-mmap -nkvo",
    "--tool bench",
    "--tool mtmd",
];

/// `text` without the lines of llama.cpp's own log, which follow `label` indented.
fn without_llama_log(text: &str, label: &str) -> String {
    let mut in_log = false;
    let mut out = String::new();
    for line in text.lines() {
        if in_log && line.starts_with("    ") {
            continue;
        }
        in_log = line.trim_end().ends_with(label);
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn the_chinese_estimate_of_many_architectures_holds_no_english_sentence() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(tools) = llama_tools::find(&root) else {
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("estimate-lang-models");
    let scripts = root.join("crates/workloads/tests");
    let m = Machine::two_gpus();
    let mut found = Vec::new();
    let mut said = 0;
    for (script, names) in MODELS {
        let dir = tools.write_models(&scripts.join(script), dir.join(script), names);
        for name in names.iter() {
            let file = dir.join(format!("{name}.gguf")).display().to_string();
            for l in [Lang::ZhCn, Lang::ZhTw] {
                let (lang, label) = (l.code(), l.t("report-est-fit-log"));
                for flags in FLAGS {
                    let mut args = vec!["--lang", lang, "estimate", file.as_str()];
                    args.extend(flags.split_whitespace());
                    let out = m.run(&args);
                    let text = String::from_utf8_lossy(&out.stdout).to_string()
                        + &String::from_utf8_lossy(&out.stderr);
                    said += usize::from(text.contains('估'));
                    for l in english_sentences(&without_llama_log(&text, &label)) {
                        found.push(format!("[{lang} {name} {flags}] {l}"));
                    }
                }
            }
        }
    }
    // Not vacuous: the estimates were made and said in Chinese.
    assert!(said > 300, "only {said} estimates said in Chinese");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// What is wrong with a model's header is said in the language, its keys as the file has them.
#[test]
fn a_bad_header_is_said_in_chinese() {
    use gpuledger_workloads::gguf::{writer::GgufWriter, MetaValue};
    let d = tempfile::tempdir().unwrap();
    let m = Machine::two_gpus();
    let arch = |w: &mut GgufWriter| {
        w.kv("general.architecture", MetaValue::String("llama".into()));
    };
    type Write<'a> = &'a dyn Fn(&mut GgufWriter);
    let cases: [(&str, Write); 3] = [
        ("no-arch", &|w| {
            w.kv("llama.block_count", MetaValue::U32(4));
        }),
        ("no-layers", &|w| {
            arch(w);
            w.kv("llama.context_length", MetaValue::U32(4096));
        }),
        ("huge", &|w| {
            arch(w);
            w.kv("llama.block_count", MetaValue::U32(4_000_000_000));
        }),
    ];
    for (name, write) in cases {
        let file = d.path().join(format!("{name}.gguf"));
        let mut w = GgufWriter::new();
        write(&mut w);
        w.write(&file).unwrap();
        for l in [Lang::ZhCn, Lang::ZhTw] {
            let out = m.run(&["--lang", l.code(), "estimate", file.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains(".gguf："), "{name}: {err}");
            assert!(english_sentences(&err).is_empty(), "{name}: {err}");
        }
    }
}
