//! The `--fit` fixtures (fixtures/llama-logs/fit/): a model's GGUF header as text (its scalar
//! metadata and tensor table: all the recipe reads; the tokenizer's arrays are left out, the
//! vocabulary size then coming from `token_embd.weight`), and the lines llama-server logged while
//! it fitted. Written by `llama_fit.rs` with `GPULEDGER_FIT_FIXTURES=DIR`; read by `fit_steps.rs`.

#![allow(dead_code)]

use std::fmt::Write;
use std::path::Path;

use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue};

/// The model's header as text: `kv KEY TYPE VALUE` and `tensor NAME DIMS TYPE`, tab-separated.
pub fn dump(m: &GgufModel) -> String {
    let mut o = String::new();
    for (k, v) in &m.first().metadata {
        let (t, v) = match v {
            MetaValue::U32(x) => ("u32", x.to_string()),
            MetaValue::I32(x) => ("i32", x.to_string()),
            MetaValue::U64(x) => ("u64", x.to_string()),
            MetaValue::F32(x) => ("f32", x.to_string()),
            MetaValue::Bool(x) => ("bool", x.to_string()),
            MetaValue::String(s) if !s.contains(['\t', '\n']) => ("str", s.clone()),
            _ => continue,
        };
        let _ = writeln!(o, "kv\t{k}\t{t}\t{v}");
    }
    for t in m.tensors() {
        let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "tensor\t{}\t{}\t{}",
            t.name,
            dims.join(","),
            t.ggml_type.name
        );
    }
    o
}

/// The model `dump` wrote, rebuilt as a GGUF header at `path` (data as a sparse hole).
pub fn rebuild(text: &str, path: &Path) -> GgufModel {
    let mut w = GgufWriter::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["kv", k, t, v] => {
                let v = match *t {
                    "u32" => MetaValue::U32(v.parse().unwrap()),
                    "i32" => MetaValue::I32(v.parse().unwrap()),
                    "u64" => MetaValue::U64(v.parse().unwrap()),
                    "f32" => MetaValue::F32(v.parse().unwrap()),
                    "bool" => MetaValue::Bool(v.parse().unwrap()),
                    "str" => MetaValue::String(v.to_string()),
                    other => panic!("{}: value type {other}", path.display()),
                };
                w.kv(k, v);
            }
            ["tensor", name, dims, t] => {
                let dims: Vec<u64> = dims.split(',').map(|d| d.parse().unwrap()).collect();
                w.tensor(name, &dims, GgmlType::from_name(t).unwrap());
            }
            _ => panic!("{}: {line:?}", path.display()),
        }
    }
    w.write(path).unwrap();
    GgufModel::open(path).unwrap()
}
