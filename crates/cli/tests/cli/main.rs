//! The binary's integration tests, in one test target: every integration-test target links the
//! whole program, and on a 2-core machine that linking was most of the test build's time. Each
//! module is one area; `support` holds what they share (the fakes, scenarios, a procfs tree).

#[path = "../../../../testing/llama_tools.rs"]
mod llama_tools;
#[path = "../../../../testing/secret_corpus.rs"]
mod secret_corpus;
mod serve_support;
mod support;
mod web_support;

mod asking_runtimes;
mod cli_contract;
mod diff_cli;
mod drm_snapshot;
mod estimate_cli;
mod estimate_cmdlines;
mod estimate_lang;
mod explain;
mod explain_llama;
mod explain_ollama;
mod explain_runtimes;
mod explain_vllm_mxfp4;
mod golden_snapshots;
mod hostile_files;
mod hostile_kubelet;
mod hostile_models;
mod hostile_text;
mod kill;
mod languages;
mod llama_trees;
mod nvml_snapshot;
mod ollama_processes;
mod owners;
mod probe_cli;
mod record_history;
mod refusals_lang;
mod secret_corpus_cli;
mod serve_http;
mod serve_monitors;
mod serve_prometheus;
mod slurm_real;
mod tui_tmux;
mod tui_tmux_cjk;
mod ui_cli;
mod verify;
mod verify_vulkan;
mod verify_witnesses;
mod vllm_real;
mod watch_cli;
mod web_lang;
mod web_page;
mod web_scale;
mod workload_trees;
