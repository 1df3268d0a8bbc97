//! `gpuledger estimate` takes llama-server's command lines as written: harmless flags are listed,
//! flags that change memory in ways not modelled are named in a note, unknown ones in a warning,
//! none refused; and every public command line of fixtures/llama-server-cmdlines (each with its
//! source) pasted after `--` gives the settings it says.

use crate::estimate_cli::big_model;
use crate::support::*;

use std::path::{Path, PathBuf};

#[path = "../../../../testing/cmdlines.rs"]
mod cmdlines;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The input named `name` of an estimate's JSON.
fn input<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["estimate"]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no input {name}"))
}

fn notes(v: &serde_json::Value) -> Vec<String> {
    v["estimate"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn estimate_accepts_flags_that_change_nothing_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let model = big_model(d.path());
    let m = Machine::two_gpus();
    let model = model.to_str().unwrap();
    let args = [
        "estimate", model, "--host", "0.0.0.0", "--port", "8080", "-t", "8", "--jinja", "-fa",
        "-c", "4096",
    ];
    let text = ok_stdout(&m.run(&args));
    assert!(
        text.contains("no effect on memory: --host, --port, -t, --jinja"),
        "{text}"
    );
    assert!(
        text.contains("flash attention on"),
        "bare -fa is on: {text}"
    );
    let v = json_of(&m.run(&[&args[..], &["--json"]].concat()));
    assert_eq!(input(&v, "-c")["value"], "4096");
    assert_eq!(input(&v, "-fa")["value"], "on");
    assert_eq!(input(&v, "-fa")["source"]["flag"], "-fa");

    // Not modelled and unknown: named, never refused; an API key never shown.
    let out = m.run(&[
        "estimate",
        model,
        "-c",
        "4096",
        "-ot",
        "exps=CPU",
        "--frobnicate",
        "--api-key",
        "sk-SECRET",
        "--mmproj",
        "mm.gguf",
        "--json",
    ]);
    let err = stderr_of(&out);
    assert!(
        err.contains("warning: not llama-server flags, ignored: --frobnicate"),
        "{err}"
    );
    let v = json_of(&out);
    let n = notes(&v).join("\n");
    assert!(
        n.contains("changes memory, not modelled yet (the estimate may be off): --mmproj mm.gguf"),
        "{n}"
    );
    // A buffer-type override is modelled: an input with its flag, and what it placed.
    assert_eq!(input(&v, "-ot")["value"], "exps=CPU");
    assert_eq!(input(&v, "-ot")["source"]["flag"], "-ot");
    assert_eq!(
        v["estimate"]["weights"]["overrides"][0]["given"],
        "-ot exps=CPU"
    );
    assert!(
        n.contains("unknown flags, ignored") && n.contains("--frobnicate"),
        "{n}"
    );
    assert!(n.contains("--api-key"), "{n}");
    let all = format!("{}{}", stdout_of(&out), err);
    assert!(!all.contains("sk-SECRET"), "{all}");
}

#[test]
fn estimate_takes_a_whole_pasted_command_line() {
    let d = tempfile::tempdir().unwrap();
    let model = big_model(d.path());
    let m = Machine::two_gpus();
    let model = model.to_str().unwrap();
    // The model from -m; gpuledger's --device before `--`, llama-server's after it.
    let v = json_of(&m.run(&[
        "estimate",
        "--device",
        "1",
        "--json",
        "--",
        "LLAMA_ARG_N_PARALLEL=2",
        "./build/bin/llama-server",
        "-m",
        model,
        "--device",
        "CUDA1",
        "-c",
        "8192",
    ]));
    assert_eq!(input(&v, "-c")["value"], "8192");
    assert_eq!(input(&v, "-np")["value"], "2");
    assert_eq!(input(&v, "-np")["source"]["var"], "LLAMA_ARG_N_PARALLEL");
    assert_eq!(v["fit"]["device"], "GPU1 NVIDIA GeForce RTX 4090");
    assert!(notes(&v).join("\n").contains("--device CUDA1"), "{v}");
    // From the program on, without `--`.
    let v = json_of(&m.run(&[
        "estimate",
        "--json",
        "llama-server",
        "-m",
        model,
        "-ngl",
        "4",
    ]));
    assert_eq!(input(&v, "-ngl")["value"], "4");
}

/// llama-server's settings as the estimate's inputs name them, and the fixture's keys for them.
const INPUTS: [(&str, &str); 8] = [
    ("c", "-c"),
    ("np", "-np"),
    ("ngl", "-ngl"),
    ("b", "-b"),
    ("ub", "-ub"),
    ("ctk", "-ctk"),
    ("ctv", "-ctv"),
    ("fa", "-fa"),
];

#[test]
fn estimate_reads_every_public_command_line_as_written() {
    let d = tempfile::tempdir().unwrap();
    let model = big_model(d.path());
    let m = Machine::two_gpus();
    let entries = cmdlines::read(&repo_root());
    assert!(entries.len() >= 20);
    let mut failed = Vec::new();
    for e in &entries {
        let mut args = vec![
            "estimate",
            model.to_str().unwrap(),
            "--no-fit-check",
            "--json",
            "--",
        ];
        args.extend(e.words.iter().map(String::as_str));
        let out = m.run(&args);
        if !out.status.success() {
            failed.push(format!("{}: {}", e.source, stderr_of(&out)));
            continue;
        }
        let v = json_of(&out);
        for (key, name) in INPUTS {
            let i = input(&v, name);
            let kind = i["source"]["kind"].as_str().unwrap();
            match e.expected(key) {
                Some(want) if i["value"] != want || kind == "default" => {
                    failed.push(format!("{}: {name} = {i}, expected {want}", e.source))
                }
                None if kind != "default" => {
                    failed.push(format!("{}: {name} = {i}, expected the default", e.source))
                }
                _ => {}
            }
        }
        let n = notes(&v).join("\n");
        for w in e.not_modelled.iter().chain(&e.unknown) {
            if !n.contains(w.as_str()) {
                failed.push(format!("{}: {w} not in the notes: {n}", e.source));
            }
        }
        let given: Vec<&str> = v["estimate"]["weights"]["overrides"]
            .as_array()
            .map(|a| a.iter().filter_map(|o| o["given"].as_str()).collect())
            .unwrap_or_default();
        let flags: Vec<&str> = given
            .iter()
            .map(|g| g.split(' ').next().unwrap_or(""))
            .collect();
        if flags != e.overrides {
            failed.push(format!("{}: overrides {given:?}", e.source));
        }
        let err = stderr_of(&out);
        for w in &e.unknown {
            if !err.contains(w.as_str()) {
                failed.push(format!("{}: no warning names {w}: {err}", e.source));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
