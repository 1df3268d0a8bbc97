//! Parser for llama.cpp's own memory log lines: the runtime-reported figures that gpuledger shows
//! beside its estimate (`gpuledger explain --log FILE`), and what the tests compare against.
//!
//! Formats (llm-memory.md §2.4, §3.1–3.4, and the real llama-server build 7e4c0a9):
//! ```text
//! 0.00.697.641 I load_tensors:   CPU_Mapped model buffer size =     0.43 MiB
//! llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB
//! llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  512.00 MiB, V (f16):  512.00 MiB
//! sched_reserve:    Vulkan0 compute buffer size =    11.02 MiB
//! llama_context: Vulkan_Host  output buffer size =     0.03 MiB
//! load_tensors: offloaded 33/33 layers to GPU
//! llama_context: n_ctx                 = 4096
//! ```
//! Lines are recognised by their suffix, so timestamps, level letters and the function prefix of
//! older or newer builds (`llm_load_tensors`, `llama_kv_cache_unified`, `sched_reserve`) do not
//! matter.

use serde::Serialize;

/// What a buffer line is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    Model,
    Kv,
    Compute,
    Output,
    /// Recurrent state.
    Rs,
    /// Anything else llama.cpp reports as "... buffer size" (LoRA, state buffers).
    Other(String),
}

/// One `<backend> <kind> buffer size = <x> MiB` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BufferLine {
    /// The logging function (`load_tensors`, `llama_kv_cache`, `sched_reserve`).
    pub component: String,
    /// The buffer type (`CUDA0`, `CPU_Mapped`, `Vulkan_Host`).
    pub backend: String,
    pub kind: BufferKind,
    /// The figure as printed (two decimals of MiB).
    pub mib: f64,
    pub text: String,
}

/// Where a buffer's memory is, from its buffer type's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferPlace {
    /// Device memory (`CUDA0`, `Vulkan0`, `ROCm1`, `MTL0_Mapped`, `RPC[host:port]`).
    Device,
    /// Host memory llama.cpp's placement put there (`CPU`, `CPU_Mapped`, `*_Host`, `BLAS`).
    Host,
    /// A host copy of weights re-laid out for this CPU's kernels: ggml-cpu's "extra" buffer types
    /// (`CPU_REPACK`, `AMX`, `CPU_KLEIDIAI`, older `CPU_AARCH64`). Which weights go there depends
    /// on the CPU the server was built for, which no model file says, so the recipe does not model
    /// them and a comparison keeps them apart.
    HostRepacked,
}

/// The names of ggml-cpu's extra (repacking) buffer types, as `ggml_backend_buft_name` prints them.
const REPACKED: [&str; 4] = ["CPU_REPACK", "AMX", "CPU_KLEIDIAI", "CPU_AARCH64"];

impl BufferLine {
    /// Where the buffer is. Device memory by Ollama's rule: not `CPU`, `CPU_*`, `BLAS` or
    /// `*_Host`, nor a CPU extra buffer type (`AMX` has no `CPU_` prefix); `Metal_Mapped` /
    /// `MTL0_Mapped` are device memory.
    pub fn place(&self) -> BufferPlace {
        let b = self.backend.as_str();
        if REPACKED.contains(&b) {
            BufferPlace::HostRepacked
        } else if b == "CPU" || b.starts_with("CPU_") || b == "BLAS" || b.ends_with("_Host") {
            BufferPlace::Host
        } else {
            BufferPlace::Device
        }
    }
    /// Whether the buffer is in device memory.
    pub fn is_gpu(&self) -> bool {
        self.place() == BufferPlace::Device
    }
    /// The figure in bytes (to the printed precision: ±5 KiB).
    pub fn bytes(&self) -> u64 {
        (self.mib * 1024.0 * 1024.0).round() as u64
    }
}

/// One KV cache summary line (`size = ... (N cells, L layers, S/T seqs), K (t): ..., V (t): ...`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KvSizeLine {
    pub mib: f64,
    pub cells: u64,
    pub layers: u64,
    pub seqs: u64,
    pub streams: u64,
    pub k_type: String,
    pub k_mib: f64,
    pub v_type: String,
    pub v_mib: f64,
}

/// The recurrent-state summary line
/// (`size = 0.22 MiB (4 cells, 3 layers, 4 seqs 0 rs_seq), R (f32): 0.04 MiB, S (f32): 0.19 MiB`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RsSizeLine {
    pub mib: f64,
    pub cells: u64,
    pub layers: u64,
    pub r_mib: f64,
    pub s_mib: f64,
}

/// Everything memory-related found in a log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LlamaLog {
    pub buffers: Vec<BufferLine>,
    pub kv_sizes: Vec<KvSizeLine>,
    pub rs_sizes: Vec<RsSizeLine>,
    /// `offloaded N/M layers to GPU`.
    pub offloaded: Option<(u64, u64)>,
    pub n_ctx: Option<u64>,
    pub n_ctx_seq: Option<u64>,
    pub n_seq_max: Option<u64>,
    pub n_batch: Option<u64>,
    pub n_ubatch: Option<u64>,
    pub kv_unified: Option<bool>,
    /// `creating non-SWA KV cache, size = N cells` / `creating SWA KV cache, size = N cells`.
    pub cells_full: Option<u64>,
    pub cells_swa: Option<u64>,
}

impl LlamaLog {
    /// Sum of the lines of one kind, split into (device, host) MiB as printed. Repacked host
    /// copies ([`BufferPlace::HostRepacked`]) are in neither: see [`LlamaLog::repacked_mib`].
    pub fn sum_mib(&self, kind: &BufferKind) -> (f64, f64) {
        (
            self.sum_at(kind, BufferPlace::Device),
            self.sum_at(kind, BufferPlace::Host),
        )
    }
    /// MiB of one kind held in the CPU's repacking buffer types (`CPU_REPACK`, `AMX`, ...).
    pub fn repacked_mib(&self, kind: &BufferKind) -> f64 {
        self.sum_at(kind, BufferPlace::HostRepacked)
    }
    fn sum_at(&self, kind: &BufferKind, place: BufferPlace) -> f64 {
        self.buffers
            .iter()
            .filter(|b| &b.kind == kind && b.place() == place)
            // From +0.0: `Sum` for floats starts at -0.0, which prints as "-0.00".
            .fold(0.0, |sum, b| sum + b.mib)
    }
}

/// Parse llama.cpp log text. Unrelated lines are ignored; a malformed number drops that line only.
pub fn parse_llama_log(text: &str) -> LlamaLog {
    let mut out = LlamaLog::default();
    for line in text.lines() {
        if let Some(b) = parse_buffer_line(line) {
            out.buffers.push(b);
        } else if let Some(k) = parse_kv_size_line(line) {
            out.kv_sizes.push(k);
        } else if let Some(r) = parse_rs_size_line(line) {
            out.rs_sizes.push(r);
        } else if let Some(rest) = line.split("offloaded ").nth(1) {
            if let Some((a, b)) = rest
                .split_whitespace()
                .next()
                .and_then(|f| f.split_once('/'))
            {
                if rest.contains("layers to GPU") {
                    if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                        out.offloaded = Some((a, b));
                    }
                }
            }
        } else if let Some(n) = after(line, "creating non-SWA KV cache, size = ") {
            out.cells_full = first_num(n);
        } else if let Some(n) = after(line, "creating     SWA KV cache, size = ")
            .or_else(|| after(line, "creating SWA KV cache, size = "))
        {
            out.cells_swa = first_num(n);
        } else if let Some((key, val)) = context_kv(line) {
            match key {
                "n_ctx" => out.n_ctx = count(val),
                "n_ctx_seq" | "n_ctx_per_seq" => out.n_ctx_seq = count(val),
                "n_seq_max" => out.n_seq_max = count(val),
                "n_batch" => out.n_batch = count(val),
                "n_ubatch" => out.n_ubatch = count(val),
                "kv_unified" => out.kv_unified = Some(val == "true" || val == "1"),
                _ => {}
            }
        }
    }
    out
}

fn after<'a>(line: &'a str, pat: &str) -> Option<&'a str> {
    line.find(pat).map(|i| &line[i + pat.len()..])
}

fn first_num(s: &str) -> Option<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .find(|t| !t.is_empty())
        .and_then(count)
}

/// `12.34 MiB`; a figure that cannot be true (`NaN`, negative, past 1 PiB) drops its line
/// ([`crate::figures`]).
fn parse_mib(s: &str) -> Option<f64> {
    let t = s.trim().strip_suffix("MiB")?.trim();
    crate::figures::check(t, crate::figures::Kind::Mib).ok()
}

/// A count from a context line (`n_ctx = 4096`), within what any server can have.
fn count(s: &str) -> Option<u64> {
    crate::figures::check_count(s).ok()
}

/// `llama_context: n_ctx = 4096` (only from the context constructor's lines).
fn context_kv(line: &str) -> Option<(&str, &str)> {
    let rest = after(line, "llama_context: ")
        .or_else(|| after(line, "llama_new_context_with_model: "))
        .or_else(|| after(line, "llama_init_from_model: "))?;
    let (k, v) = rest.split_once('=')?;
    Some((k.trim(), v.trim()))
}

fn parse_buffer_line(line: &str) -> Option<BufferLine> {
    let i = line.find(" buffer size = ")?;
    let mib = parse_mib(&line[i + " buffer size = ".len()..])?;
    let head = &line[..i];
    // "<...> component: BACKEND kind words"; an RPC device's name holds a colon of its own
    // (`RPC0[127.0.0.1:50052]`), never followed by a space.
    let colon = head.rfind(": ")?;
    let component = head[..colon].split_whitespace().last()?.to_string();
    let mut words = head[colon + 1..].split_whitespace();
    let backend = words.next()?.to_string();
    let kind_words: Vec<&str> = words.collect();
    if kind_words.is_empty() {
        return None;
    }
    let kind = match kind_words.as_slice() {
        ["model"] => BufferKind::Model,
        ["KV"] => BufferKind::Kv,
        ["compute"] => BufferKind::Compute,
        ["output"] => BufferKind::Output,
        ["RS"] => BufferKind::Rs,
        // DeepSeek V4's compressor states (`llama_dsv4_comp_state`, "DSV4 csa state buffer"):
        // buffers of its KV cache module, llama_kv_cache_dsv4.
        ["DSV4", _, "state"] => BufferKind::Kv,
        other => BufferKind::Other(other.join(" ")),
    };
    Some(BufferLine {
        component,
        backend,
        kind,
        mib,
        text: line.trim().to_string(),
    })
}

fn parse_kv_size_line(line: &str) -> Option<KvSizeLine> {
    let rest = after(line, ": size = ")?;
    let (mib, rest) = rest.split_once('(')?;
    let mib = parse_mib(mib)?;
    let (inside, rest) = rest.split_once(')')?;
    let parts: Vec<&str> = inside.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return None;
    }
    let cells = first_num(parts[0].strip_suffix("cells")?)?;
    let layers = first_num(parts[1].strip_suffix("layers")?)?;
    let (seqs, streams) = parts[2].strip_suffix("seqs")?.trim().split_once('/')?;
    // ", K (f16):  512.00 MiB, V (f16):  512.00 MiB"
    let k = after(rest, "K (")?;
    let (k_type, k) = k.split_once("):")?;
    let (k_mib, v) = k.split_once(',')?;
    let v = after(v, "V (")?;
    let (v_type, v_mib) = v.split_once("):")?;
    Some(KvSizeLine {
        mib,
        cells,
        layers,
        seqs: seqs.trim().parse().ok()?,
        streams: streams.trim().parse().ok()?,
        k_type: k_type.to_string(),
        k_mib: parse_mib(k_mib)?,
        v_type: v_type.to_string(),
        v_mib: parse_mib(v_mib.split(',').next()?)?,
    })
}

fn parse_rs_size_line(line: &str) -> Option<RsSizeLine> {
    let rest = after(line, ": size = ")?;
    let (mib, rest) = rest.split_once('(')?;
    let (inside, rest) = rest.split_once(')')?;
    let parts: Vec<&str> = inside.split(',').map(str::trim).collect();
    if parts.len() < 2 {
        return None;
    }
    let cells = first_num(parts[0].strip_suffix("cells")?)?;
    let layers = first_num(parts[1].strip_suffix("layers")?)?;
    let r = after(rest, "R (")?.split_once("):")?.1;
    let (r_mib, s) = r.split_once(',')?;
    let s_mib = after(s, "S (")?.split_once("):")?.1;
    Some(RsSizeLine {
        mib: parse_mib(mib)?,
        cells,
        layers,
        r_mib: parse_mib(r_mib)?,
        s_mib: parse_mib(s_mib.split(',').next()?)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as the real llama-server (build 7e4c0a9, -lv 4) and older builds (llm-memory.md §5)
    // print them.
    const LOG: &str = "\
0.00.697.622 I load_tensors: offloaded 3/3 layers to GPU
0.00.697.641 I load_tensors:   CPU_Mapped model buffer size =     0.43 MiB
0.00.031.901 I load_tensors:      Vulkan0 model buffer size =     0.82 MiB
0.00.698.004 I llama_context: n_seq_max             = 4
0.00.698.024 I llama_context: n_ctx                 = 1024
0.00.698.041 I llama_context: n_ctx_seq             = 1024
0.00.698.075 I llama_context: n_ubatch              = 512
0.00.698.127 I llama_context: kv_unified            = true
0.00.032.668 I llama_context: Vulkan_Host  output buffer size =     0.03 MiB
I llama_kv_cache_iswa: creating non-SWA KV cache, size = 8192 cells
I llama_kv_cache:    Vulkan0 KV buffer size =     2.00 MiB
I llama_kv_cache: size =    2.00 MiB (  8192 cells,   1 layers,  4/1 seqs), K (f16):    1.00 MiB, V (f16):    1.00 MiB
I llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells
0.00.702.262 I sched_reserve:        CPU compute buffer size =     2.01 MiB
llama_kv_cache_init:      CUDA0 KV buffer size =  1024.00 MiB
load_tensors:        CUDA0 model buffer size =  4403.49 MiB
llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (q8_0):  544.00 MiB, V (f16):  480.00 MiB
I llama_memory_recurrent: size =    0.22 MiB (     4 cells,   3 layers,  4 seqs  0 rs_seq), R (f32):    0.04 MiB, S (f32):    0.19 MiB
";

    /// A CPU build for a Xeon with AMX (llama.cpp issue #19184, LFM2 on CPU) and one for AVX2
    /// (CPU_REPACK): the extra buffer types are host copies, never device memory.
    #[test]
    fn cpu_extra_buffer_types_are_host_copies() {
        let l = parse_llama_log(
            "load_tensors:          AMX model buffer size =  1325.25 MiB\n\
             load_tensors:   CPU_Mapped model buffer size =  1186.25 MiB\n\
             load_tensors:   CPU_REPACK model buffer size =     2.00 MiB\n\
             load_tensors: CPU_KLEIDIAI model buffer size =     1.00 MiB\n\
             load_tensors:        CUDA0 model buffer size =    10.00 MiB\n",
        );
        let places: Vec<BufferPlace> = l.buffers.iter().map(BufferLine::place).collect();
        use BufferPlace::*;
        assert_eq!(
            places,
            [HostRepacked, Host, HostRepacked, HostRepacked, Device]
        );
        assert_eq!(l.sum_mib(&BufferKind::Model), (10.0, 1186.25));
        assert_eq!(l.repacked_mib(&BufferKind::Model), 1328.25);
        assert_eq!(format!("{:.2}", l.sum_mib(&BufferKind::Compute).0), "0.00");
    }

    #[test]
    fn rpc_device_names_keep_their_endpoint() {
        // llama-server b11434 over two ggml-rpc-servers (crates/workloads/tests/llama_devices.rs).
        let l = parse_llama_log(
            "0.00.021.895 I load_tensors: RPC0[127.0.0.1:35749] model buffer size =     1.52 MiB\n\
             0.00.027.113 I llama_kv_cache: RPC0[127.0.0.1:38573] KV buffer size =     0.88 MiB\n",
        );
        assert_eq!(l.buffers.len(), 2);
        assert_eq!(l.buffers[0].component, "load_tensors");
        assert_eq!(l.buffers[0].backend, "RPC0[127.0.0.1:35749]");
        assert_eq!(l.buffers[1].backend, "RPC0[127.0.0.1:38573]");
        assert_eq!(l.buffers[1].kind, BufferKind::Kv);
        assert!(l.buffers.iter().all(BufferLine::is_gpu));
    }

    #[test]
    fn deepseek4_compressor_states_count_with_the_kv_cache() {
        // llama-server b11434 on a tiny deepseek4 (crates/workloads/tests/llama_indexer_grid2.rs).
        let l = parse_llama_log(
            "0.00.154.547 I llama_dsv4_comp_state:        CPU DSV4 csa state buffer size =     0.12 MiB\n\
             0.00.153.432 I llama_kv_cache:        CPU KV buffer size =     1.00 MiB\n",
        );
        assert_eq!(l.buffers[0].kind, BufferKind::Kv);
        assert_eq!(l.buffers[0].component, "llama_dsv4_comp_state");
        assert_eq!(l.sum_mib(&BufferKind::Kv), (0.0, 1.12));
    }

    #[test]
    fn parses_buffers_kv_and_context() {
        let l = parse_llama_log(LOG);
        assert_eq!(l.offloaded, Some((3, 3)));
        assert_eq!(l.n_ctx, Some(1024));
        assert_eq!(l.n_ctx_seq, Some(1024));
        assert_eq!(l.n_seq_max, Some(4));
        assert_eq!(l.n_ubatch, Some(512));
        assert_eq!(l.kv_unified, Some(true));
        assert_eq!(l.cells_full, Some(8192));
        assert_eq!(l.cells_swa, Some(1024));
        assert_eq!(l.buffers.len(), 7);
        let b = &l.buffers[0];
        assert_eq!(
            (b.component.as_str(), b.backend.as_str(), &b.kind, b.mib),
            ("load_tensors", "CPU_Mapped", &BufferKind::Model, 0.43)
        );
        assert!(!b.is_gpu());
        assert!(l.buffers[1].is_gpu());
        assert_eq!(l.buffers[2].backend, "Vulkan_Host");
        assert_eq!(l.buffers[2].kind, BufferKind::Output);
        assert!(!l.buffers[2].is_gpu());
        assert_eq!(l.buffers[5].component, "llama_kv_cache_init");
        assert_eq!(l.sum_mib(&BufferKind::Model), (0.82 + 4403.49, 0.43));
        assert_eq!(l.kv_sizes.len(), 2);
        let k = &l.kv_sizes[1];
        assert_eq!((k.cells, k.layers, k.seqs, k.streams), (8192, 32, 1, 1));
        assert_eq!((k.k_type.as_str(), k.k_mib), ("q8_0", 544.0));
        assert_eq!((k.v_type.as_str(), k.v_mib), ("f16", 480.0));
        assert_eq!(l.buffers[5].bytes(), 1024 * 1024 * 1024);
        assert_eq!(
            l.rs_sizes,
            [RsSizeLine {
                mib: 0.22,
                cells: 4,
                layers: 3,
                r_mib: 0.04,
                s_mib: 0.19
            }]
        );
    }

    #[test]
    fn ignores_lookalikes_and_garbage() {
        let l = parse_llama_log(
            "buffer size = 3 MiB\nfoo: X model buffer size = lots MiB\n: size = 1 MiB (garbage)\n\u{0}\u{ffff}",
        );
        assert_eq!(l, LlamaLog::default());
    }
}
