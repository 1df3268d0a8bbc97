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
