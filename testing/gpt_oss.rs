//! gpt-oss checkpoints as header-only safetensors folders (sparse files: the header and a
//! declared length, no tensor data) with the published tensor table of openai/gpt-oss-20b and
//! -120b (459 / 687 tensors; the tests check the totals against the published indexes'
//! `total_size`). Included with `#[path]` by the tests that size vLLM's MXFP4 experts
//! (workloads' vllm_mxfp4.rs, the CLI's explain of a vLLM process).

use std::path::{Path, PathBuf};

/// gpt-oss's shapes (config.json of openai/gpt-oss-20b and -120b: hidden and expert
/// intermediate 2880, 64 query heads and 8 KV heads of 64, vocabulary 201,088).
pub struct GptOss {
    pub name: &'static str,
    pub layers: u64,
    pub experts: u64,
}

impl GptOss {
    /// The Hugging Face tensor table: 19 tensors per layer plus the embeddings, the final norm
    /// and the untied head (459 tensors for 20b), each (name, dtype, shape).
    pub fn tensors(&self) -> Vec<(String, &'static str, Vec<u64>)> {
        let (h, v, e) = (2880, 201_088, self.experts);
        let mut t = vec![
            ("model.embed_tokens.weight".to_string(), "BF16", vec![v, h]),
            ("lm_head.weight".to_string(), "BF16", vec![v, h]),
            ("model.norm.weight".to_string(), "BF16", vec![h]),
        ];
        for l in 0..self.layers {
            let p = |s: &str| format!("model.layers.{l}.{s}");
            let bf = |s: &str, shape: Vec<u64>| (p(s), "BF16", shape);
            let u8_ = |s: &str, shape: Vec<u64>| (p(s), "U8", shape);
            t.extend([
                bf("input_layernorm.weight", vec![h]),
                bf("post_attention_layernorm.weight", vec![h]),
                bf("self_attn.q_proj.weight", vec![4096, h]),
                bf("self_attn.q_proj.bias", vec![4096]),
                bf("self_attn.k_proj.weight", vec![512, h]),
                bf("self_attn.k_proj.bias", vec![512]),
                bf("self_attn.v_proj.weight", vec![512, h]),
                bf("self_attn.v_proj.bias", vec![512]),
                bf("self_attn.o_proj.weight", vec![h, 4096]),
                bf("self_attn.o_proj.bias", vec![h]),
                bf("self_attn.sinks", vec![64]),
                bf("mlp.router.weight", vec![e, h]),
                bf("mlp.router.bias", vec![e]),
                u8_(
                    "mlp.experts.gate_up_proj_blocks",
                    vec![e, 2 * h, h / 32, 16],
                ),
                u8_("mlp.experts.gate_up_proj_scales", vec![e, 2 * h, h / 32]),
                bf("mlp.experts.gate_up_proj_bias", vec![e, 2 * h]),
                u8_("mlp.experts.down_proj_blocks", vec![e, h, h / 32, 16]),
                u8_("mlp.experts.down_proj_scales", vec![e, h, h / 32]),
                bf("mlp.experts.down_proj_bias", vec![e, h]),
            ]);
        }
        t
    }

    /// A model folder: config.json and one header-only `model.safetensors` (a sparse file).
    pub fn write(&self, parent: &Path) -> PathBuf {
        let dir = parent.join(format!("gpt-oss-{}", self.name));
        std::fs::create_dir_all(&dir).unwrap();
        let types: Vec<&str> = (0..self.layers)
            .map(|i| {
                if i % 2 == 0 {
                    "\"sliding_attention\""
                } else {
                    "\"full_attention\""
                }
            })
            .collect();
        let config = format!(
            r#"{{"architectures":["GptOssForCausalLM"],"model_type":"gpt_oss","hidden_size":2880,"intermediate_size":2880,"num_hidden_layers":{},"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"num_local_experts":{},"experts_per_token":4,"vocab_size":201088,"sliding_window":128,"layer_types":[{}],"torch_dtype":"bfloat16","max_position_embeddings":131072,"rope_scaling":{{"beta_fast":32.0,"beta_slow":1.0,"factor":32.0,"original_max_position_embeddings":4096,"rope_type":"yarn","truncate":false}},"rope_theta":150000,"quantization_config":{{"quant_method":"mxfp4","modules_to_not_convert":["model.layers.*.self_attn","model.layers.*.mlp.router","model.embed_tokens","lm_head"]}}}}"#,
            self.layers,
            self.experts,
            types.join(",")
        );
        std::fs::write(dir.join("config.json"), config).unwrap();
        let mut entries = Vec::new();
        let mut off = 0u64;
        for (name, dtype, shape) in self.tensors() {
            let elem = if dtype == "BF16" { 2 } else { 1 };
            let n = shape.iter().product::<u64>() * elem;
            entries.push(format!(
                r#""{name}":{{"dtype":"{dtype}","shape":{shape:?},"data_offsets":[{off},{}]}}"#,
                off + n
            ));
            off += n;
        }
        let header = format!("{{{}}}", entries.join(","));
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend(header.as_bytes());
        let path = dir.join("model.safetensors");
        std::fs::write(&path, &bytes).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(bytes.len() as u64 + off).unwrap();
        dir
    }
}

pub const GPT_OSS_20B: GptOss = GptOss {
    name: "20b",
    layers: 24,
    experts: 32,
};
// The CLI's test uses only the 20b.
#[allow(dead_code)]
pub const GPT_OSS_120B: GptOss = GptOss {
    name: "120b",
    layers: 36,
    experts: 128,
};
