//! The two text parsers (llama-server argv, llama.cpp log) on arbitrary input: no panics, and
//! the lines llama.cpp prints come back with the values that were printed.

use gpuledger_workloads::llama_log::{parse_llama_log, BufferKind};
use gpuledger_workloads::LlamaSettings;
use proptest::prelude::*;

proptest! {
    #[test]
    fn any_args_give_settings_or_an_error(args in prop::collection::vec(
        prop_oneof![
            Just("-c".to_string()), Just("-np".to_string()), Just("-ngl".to_string()),
            Just("-ctk".to_string()), Just("-fa".to_string()), Just("--swa-full".to_string()),
            Just("-ub".to_string()), Just("--ctx-size=".to_string()),
            "\\PC{0,12}", "-?[0-9]{1,25}",
        ], 0..12)) {
        let _ = LlamaSettings::from_args(&args);
    }

    #[test]
    fn printed_buffer_lines_parse_back(
        ts in "[0-9]\\.[0-9]{2}\\.[0-9]{3}\\.[0-9]{3} I ",
        comp in "[a-z_]{3,20}",
        backend in "(CUDA[0-9]|CPU_Mapped|Vulkan0|Vulkan_Host|MTL0|CUDA_Host|CPU)",
        kind in "(model|KV|compute|output|RS)",
        centi in 0u64..100_000_000,
        junk in "\\PC{0,80}",
    ) {
        let mib = centi as f64 / 100.0;
        let line = format!("{ts}{comp}: {backend:>10} {kind} buffer size = {mib:8.2} MiB");
        let text = format!("{junk}\n{line}\n{junk}");
        let l = parse_llama_log(&text);
        let b = l.buffers.iter().find(|b| b.text == line.trim()).expect("line parsed");
        prop_assert_eq!(&b.component, &comp);
        prop_assert_eq!(&b.backend, &backend);
        prop_assert_eq!(format!("{:.2}", b.mib), format!("{mib:.2}"));
        let want = match kind.as_str() {
            "model" => BufferKind::Model,
            "KV" => BufferKind::Kv,
            "compute" => BufferKind::Compute,
            "output" => BufferKind::Output,
            _ => BufferKind::Rs,
        };
        prop_assert_eq!(&b.kind, &want);
    }

    #[test]
    fn arbitrary_log_text_never_panics(text in "\\PC{0,400}") {
        let _ = parse_llama_log(&text);
    }
}

// vLLM / SGLang: command lines, logs and /metrics bodies of any shape give settings or an error,
// and the lines the runtimes print come back with the printed values.
mod runtimes {
    use gpuledger_workloads::runtimes::sglang::{self, SglangSettings};
    use gpuledger_workloads::runtimes::vllm::{self, VllmSettings};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_runtime_args_give_settings_or_an_error(args in prop::collection::vec(
            prop_oneof![
                Just("serve".to_string()), Just("--gpu-memory-utilization".to_string()),
                Just("--max-model-len".to_string()), Just("-tp".to_string()),
                Just("--block-size".to_string()), Just("--kv-cache-memory-bytes".to_string()),
                Just("--mem-fraction-static".to_string()), Just("--tp-size".to_string()),
                Just("--model-path".to_string()), Just("--enforce-eager".to_string()),
                "\\PC{0,12}", "-?[0-9.]{1,25}[kKmMgG]?",
            ], 0..12)) {
            let _ = VllmSettings::from_args(&args, "p");
            let _ = SglangSettings::from_args(&args, "p");
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            let _ = vllm::parse_log(&text);
            let _ = vllm::parse_metrics(&text, "p");
            let _ = vllm::labels(&text);
            let _ = sglang::parse_log(&text);
            let _ = sglang::parse_server_info(&text, "p");
        }

        #[test]
        fn printed_lines_parse_back(
            blocks in 0u64..10_000_000, tokens in 0u64..100_000_000, centi in 0u64..100_000,
            junk in "[a-z ]{0,40}",
        ) {
            let gib = centi as f64 / 100.0;
            let with_commas = gpuledger_workloads::runtimes::hf::thousands(tokens);
            let text = format!(
                "{junk}\nINFO 01-01 [gpu_worker.py:1] Available KV cache memory: {gib:.2} GiB\n\
                 INFO [kv_cache_utils.py:2] GPU KV cache size: {with_commas} tokens\n\
                 INFO [executor_base.py:3] # GPU blocks: {blocks}, # CPU blocks: 2048\n{junk}\n"
            );
            let l = vllm::parse_log(&text);
            prop_assert_eq!(l.kv_tokens, Some(tokens));
            prop_assert_eq!(l.gpu_blocks, Some(blocks));
            prop_assert_eq!(format!("{:.2}", l.kv_gib.unwrap()), format!("{gib:.2}"));
            let s = sglang::parse_log(&format!(
                "[2025-01-01 TP0] KV Cache is allocated. #tokens: {tokens}, K size: {gib:.2} GB, V size: {gib:.2} GB\n"
            ));
            prop_assert_eq!(s.max_total_num_tokens, Some(tokens));
            prop_assert_eq!(format!("{:.2}", s.k_gib.unwrap()), format!("{gib:.2}"));
        }
    }
}
