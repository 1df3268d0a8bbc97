//! Backend rules of the estimate (issue #35, "Backends and tools"): Metal's mapped weights
//! buffer with mmap, and the compute sentences naming what each backend does that the replay
//! does not (only for the backend being estimated). Sources: fixtures/llama-logs/README.md,
//! "Backends".

use gpuledger_model::Confidence;
use gpuledger_views::estimate::render_text;
use gpuledger_workloads::estimate::{estimate, Backend, Estimate, Setting, SettingSource};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::LlamaSettings;

mod support {
    pub mod header;
}
use support::header::M;

/// A small qwen3moe header; `output_first` writes `output.weight` and `token_embd.weight` before
/// the blocks, as the file of llama.cpp issue #24510 stores them.
fn moe(output_first: bool) -> M {
    let (n_embd, n_ff, n_expert, n_vocab, hd) = (512u64, 256u64, 8u64, 4096u64, 64u64);
    let mut m = M::new("qwen3moe", 4);
    m.u("context_length", 4096)
        .u("embedding_length", n_embd)
        .u("feed_forward_length", n_ff)
        .u("attention.head_count", 8)
        .u("attention.head_count_kv", 2)
        .u("attention.key_length", hd)
        .u("attention.value_length", hd)
        .u("vocab_size", n_vocab)
        .u("expert_count", n_expert)
        .u("expert_used_count", 2)
        .u("expert_feed_forward_length", n_ff);
    if output_first {
        m.tensor("output.weight", &[n_embd, n_vocab], "Q8_0");
    }
    m.tensor("token_embd.weight", &[n_embd, n_vocab], "Q8_0");
    for il in 0..4 {
        let b = |t: &str| format!("blk.{il}.{t}");
        m.tensor(&b("attn_norm.weight"), &[n_embd], "F32")
            .tensor(&b("attn_q.weight"), &[n_embd, 8 * hd], "Q8_0")
            .tensor(&b("attn_k.weight"), &[n_embd, 2 * hd], "Q8_0")
            .tensor(&b("attn_v.weight"), &[n_embd, 2 * hd], "Q8_0")
            .tensor(&b("attn_q_norm.weight"), &[hd], "F32")
            .tensor(&b("attn_k_norm.weight"), &[hd], "F32")
            .tensor(&b("attn_output.weight"), &[8 * hd, n_embd], "Q8_0")
            .tensor(&b("ffn_norm.weight"), &[n_embd], "F32")
            .tensor(&b("ffn_gate_inp.weight"), &[n_embd, n_expert], "F32")
            .tensor(
                &b("ffn_gate_exps.weight"),
                &[n_embd, n_ff, n_expert],
                "Q8_0",
            )
            .tensor(&b("ffn_up_exps.weight"), &[n_embd, n_ff, n_expert], "Q8_0")
            .tensor(
                &b("ffn_down_exps.weight"),
                &[n_ff, n_embd, n_expert],
                "Q8_0",
            );
    }
    m.tensor("output_norm.weight", &[n_embd], "F32");
    if !output_first {
        m.tensor("output.weight", &[n_embd, n_vocab], "Q8_0");
    }
    m
}

fn est(m: &GgufModel, args: &str, backend: Backend) -> Estimate {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    let mut s = LlamaSettings::from_args(&a).unwrap();
    s.backend = Setting {
        value: backend,
        source: SettingSource::Flag("--backend".into()),
    };
    estimate(m, &s).unwrap()
}

/// The bytes of the tensors named, as the file stores them.
fn file_bytes(m: &GgufModel, pick: impl Fn(&str) -> bool) -> u64 {
    m.parts
        .iter()
        .flat_map(|p| p.tensors.iter())
        .filter(|t| pick(&t.name))
        .map(|t| t.n_bytes)
        .sum()
}

#[test]
fn metal_with_mmap_maps_the_file_range_of_the_offloaded_tensors() {
    // llama.cpp #24510 (b9607, Metal, Qwen3-30B-A3B Q8_0 with output.weight at the file's
    // start): `-ngl 2` offloads the output layer and the top block, ~947 MiB, and prints
    // `MTL0_Mapped model buffer size = 30973 MiB`, the whole file: the mapped range runs from
    // the output tensor at the start to the top block at the end.
    let g = moe(true).open("metal_out_first");
    let e = est(&g, "-c 4096 -np 1 -ngl 2", Backend::Metal);
    let top = file_bytes(&g, |n| n.starts_with("blk.3.") || n.starts_with("output"));
    // The file from output.weight (its first tensor) to the end of output_norm (its last, the
    // output layer's too), the file's alignment padding included: the whole data section.
    let ts: Vec<_> = g.parts.iter().flat_map(|p| p.tensors.iter()).collect();
    let first = ts.iter().map(|t| t.offset).min().unwrap();
    let last = ts.iter().map(|t| t.offset + t.n_bytes).max().unwrap();
    assert_eq!(
        e.weights.gpu_bytes,
        last - first,
        "the whole file is mapped"
    );
    assert!(
        e.weights.gpu_bytes > 3 * top,
        "{} vs {top}",
        e.weights.gpu_bytes
    );
    // Without mmap (or on CUDA) the device holds only the offloaded tensors.
    let no_mmap = est(&g, "-c 4096 -np 1 -ngl 2 --no-mmap", Backend::Metal);
    assert!(
        no_mmap.weights.gpu_bytes <= top + 4096,
        "{}",
        no_mmap.weights.gpu_bytes
    );
    let cuda = est(&g, "-c 4096 -np 1 -ngl 2", Backend::Cuda);
    assert!(
        cuda.weights.gpu_bytes < 2 * top,
        "{}",
        cuda.weights.gpu_bytes
    );
}

#[test]
fn metal_full_offload_maps_the_token_embeddings_between_output_and_blocks() {
    // Issue #35: Metal with mmap maps the token embeddings into `Metal_Mapped` when they lie
    // between device tensors in the file; with token_embd first they stay out of the range.
    let embd = |g: &GgufModel| file_bytes(g, |n| n == "token_embd.weight");
    let g = moe(true).open("metal_full_out_first");
    let mapped = est(&g, "-c 4096 -np 1 -ngl 99", Backend::Metal);
    let copied = est(&g, "-c 4096 -np 1 -ngl 99 --no-mmap", Backend::Metal);
    assert!(mapped.weights.gpu_bytes >= copied.weights.gpu_bytes - 4096 + embd(&g));
    let g = moe(false).open("metal_full_embd_first");
    let mapped = est(&g, "-c 4096 -np 1 -ngl 99", Backend::Metal);
    let copied = est(&g, "-c 4096 -np 1 -ngl 99 --no-mmap", Backend::Metal);
    assert!(mapped.weights.gpu_bytes < copied.weights.gpu_bytes + embd(&g) / 2);
}

/// The compute line's approximate parts that mention `what`.
fn says(e: &Estimate, what: &str) -> bool {
    e.compute.approximate_parts.iter().any(|p| p.contains(what))
}

#[test]
fn each_backend_names_what_the_replay_does_not_model_and_only_that_backend() {
    let g = moe(false).open("backend_notes");
    let cases: [(&str, Backend, &str); 5] = [
        (
            "-c 4096 -np 1 --n-cpu-moe 2",
            Backend::Metal,
            "Metal with experts on the host",
        ),
        (
            "-c 4096 -np 1 -fa off",
            Backend::Metal,
            "Metal without flash attention",
        ),
        (
            "-c 4096 -np 1",
            Backend::Rocm,
            "ROCm (the HIP build of ggml-cuda)",
        ),
        (
            "-c 4096 -np 1 -ctk q8_0 -fa on",
            Backend::Vulkan,
            "Vulkan with a quantised K cache (-ctk q8_0)",
        ),
        (
            "-c 4096 -np 1 -ts 1,1 -ctk q8_0 -ctv q8_0 -fa on",
            Backend::Cuda,
            "several devices (-ts) with a quantised KV cache",
        ),
    ];
    for (args, backend, what) in cases {
        let mut s: Vec<String> = args.split_whitespace().map(String::from).collect();
        let mut settings = LlamaSettings::from_args(&s).unwrap();
        if args.contains("-ts") {
            settings.devices.local = Setting {
                value: 2,
                source: SettingSource::Flag("--gpus".into()),
            };
        }
        settings.backend = Setting {
            value: backend,
            source: SettingSource::Flag("--backend".into()),
        };
        let e = estimate(&g, &settings).unwrap();
        assert!(
            says(&e, what),
            "{args} {backend:?}: {:?}",
            e.compute.approximate_parts
        );
        assert!(e.compute.approximate && e.compute.confidence != Confidence::High);
        assert!(render_text(&e).contains(what), "{}", render_text(&e));
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains(what), "{json}");
        // The same flags on CUDA with one device: no sentence of another backend.
        s.retain(|a| a != "-ts" && a != "1,1");
        let cuda = est(&g, &s.join(" "), Backend::Cuda);
        assert!(
            !says(&cuda, what),
            "{args} cuda: {:?}",
            cuda.compute.approximate_parts
        );
    }
}

/// gpt-oss-120b's published shape (36 layers, 2880 wide, 64 heads and 8 KV heads of 64, 128
/// experts of 2880 with 4 used, window 128 on every other layer, 201088 tokens), tensors as
/// llama.cpp's gpt-oss loader names them; experts MXFP4, the rest BF16 as in Ollama's file.
fn gpt_oss_120b() -> M {
    let (e, h, hkv, d, ne, nv) = (2880u64, 64u64, 8u64, 64u64, 128u64, 201088u64);
    let mut m = M::new("gpt-oss", 36);
    m.u("context_length", 131072)
        .u("embedding_length", e)
        .u("feed_forward_length", e)
        .u("attention.head_count", h)
        .u("attention.head_count_kv", hkv)
        .u("attention.key_length", d)
        .u("attention.value_length", d)
        .u("attention.sliding_window", 128)
        .u("rope.dimension_count", d)
        .u("expert_count", ne)
        .u("expert_used_count", 4)
        .u("expert_feed_forward_length", e)
        .u("vocab_size", nv);
    m.tensor("token_embd.weight", &[e, nv], "BF16");
    for il in 0..36 {
        let b = |t: &str| format!("blk.{il}.{t}");
        m.tensor(&b("attn_norm.weight"), &[e], "F32")
            .tensor(&b("attn_q.weight"), &[e, h * d], "BF16")
            .tensor(&b("attn_q.bias"), &[h * d], "F32")
            .tensor(&b("attn_k.weight"), &[e, hkv * d], "BF16")
            .tensor(&b("attn_k.bias"), &[hkv * d], "F32")
            .tensor(&b("attn_v.weight"), &[e, hkv * d], "BF16")
            .tensor(&b("attn_v.bias"), &[hkv * d], "F32")
            .tensor(&b("attn_output.weight"), &[h * d, e], "BF16")
            .tensor(&b("attn_output.bias"), &[e], "F32")
            .tensor(&b("attn_sinks.weight"), &[h], "F32")
            .tensor(&b("post_attention_norm.weight"), &[e], "F32")
            .tensor(&b("ffn_gate_inp.weight"), &[e, ne], "F32")
            .tensor(&b("ffn_gate_inp.bias"), &[ne], "F32")
            .tensor(&b("ffn_gate_exps.weight"), &[e, e, ne], "MXFP4")
            .tensor(&b("ffn_gate_exps.bias"), &[e, ne], "F32")
            .tensor(&b("ffn_up_exps.weight"), &[e, e, ne], "MXFP4")
            .tensor(&b("ffn_up_exps.bias"), &[e, ne], "F32")
            .tensor(&b("ffn_down_exps.weight"), &[e, e, ne], "MXFP4")
            .tensor(&b("ffn_down_exps.bias"), &[e, ne], "F32");
    }
    m.tensor("output_norm.weight", &[e], "F32")
        .tensor("output.weight", &[e, nv], "BF16");
    m
}

#[test]
fn rocm_gpt_oss_120b_matches_the_ollama_llama_server_log_and_names_the_compute_gap() {
    // ollama/ollama#16480 (Ollama 0.30.2 starting llama-server on a Radeon 8060S, ROCm):
    // `-c 262144 -np 2 --flash-attn on -b 1024 -ub 1024` printed
    //   ROCm_Host  output buffer size =     1.53 MiB
    //   ROCm0 KV buffer size =  9216.00 MiB (131072 cells, 18 layers, 2/2 seqs)
    //   ROCm0 KV buffer size =    90.00 MiB (SWA, 1280 cells)
    // and ollama/ollama#16416 (0.30, the same model, cache and machine) its memory breakdown:
    //   ROCm0 ... context 9306, compute 796 MiB; Host ... compute 281 MiB.
    let g = gpt_oss_120b().open("gpt_oss_120b");
    let e = est(
        &g,
        "-c 262144 -np 2 --flash-attn on -b 1024 -ub 1024 -ngl 99",
        Backend::Rocm,
    );
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    assert_eq!(format!("{:.2}", mib(e.output.host_bytes)), "1.53");
    assert_eq!(e.kv_cache.bytes, (9216 + 90) * 1024 * 1024);
    assert_eq!(
        (e.kv_cache.cells_full, e.kv_cache.cells_swa),
        (131072, Some(1280))
    );
    let (dev, host) = (mib(e.compute.gpu_bytes), mib(e.compute.host_bytes));
    eprintln!("gpt-oss-120b ROCm compute: device {dev:.2} MiB (log 796), host {host:.2} (log 281)");
    // The host's compute buffer is the replay's to 10 %; the device's is 45 % under the log,
    // which the estimate says in words (the sentence names this log and the gap).
    assert!((host / 281.0 - 1.0).abs() < 0.10, "host {host:.2}");
    assert!((0.5..0.6).contains(&(dev / 796.0)), "device {dev:.2}");
    let sentence = "ROCm (the HIP build of ggml-cuda)";
    assert!(says(&e, sentence) && e.compute.confidence != Confidence::High);
    assert!(render_text(&e).contains(sentence), "{}", render_text(&e));
    assert!(serde_json::to_string(&e)
        .unwrap()
        .contains("ollama/ollama#16416"));
    // The same run estimated for CUDA does not carry ROCm's sentence.
    let cuda = est(
        &g,
        "-c 262144 -np 2 --flash-attn on -b 1024 -ub 1024 -ngl 99",
        Backend::Cuda,
    );
    assert!(!says(&cuda, sentence));
}

#[test]
fn metal_offloads_only_matrix_products_of_host_experts() {
    // ggml_backend_metal_device_offload_op (b11434, ggml-metal.cpp): only MUL_MAT and MUL_MAT_ID
    // over 32+ rows go to the device; CUDA's offloads any op over the batch. With gpt-oss's
    // experts on the host, the expert biases' ADD_ID (and their activations) stay on the host.
    let g = gpt_oss_120b().open("gpt_oss_metal_cpu_moe");
    let args = "-c 8192 -np 1 -fa on --n-cpu-moe 36 -ngl 99";
    let metal = est(&g, args, Backend::Metal);
    let cuda = est(&g, args, Backend::Cuda);
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    eprintln!(
        "gpt-oss-120b --n-cpu-moe 36: host compute Metal {:.2} MiB, CUDA {:.2} MiB; device {:.2} / {:.2}",
        mib(metal.compute.host_bytes),
        mib(cuda.compute.host_bytes),
        mib(metal.compute.gpu_bytes),
        mib(cuda.compute.gpu_bytes)
    );
    assert!(metal.compute.host_bytes > cuda.compute.host_bytes);
    // Without host experts the two place the graph alike.
    let metal = est(&g, "-c 8192 -np 1 -fa on -ngl 99", Backend::Metal);
    let cuda = est(&g, "-c 8192 -np 1 -fa on -ngl 99", Backend::Cuda);
    assert_eq!(metal.compute.host_bytes, cuda.compute.host_bytes);
}
