//! A GGUF header written for a test: the architecture's keys by suffix, tensors as sparse holes.
//! Shared by the recipe tests (recipe.rs, recipe_archs.rs, recipe_indexer.rs), each using part.
#![allow(dead_code)]

use std::path::Path;

use gpuledger_workloads::gguf::writer::{array, GgufWriter};
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue, ValueType};

pub struct M {
    pub w: GgufWriter,
    pub arch: String,
}

impl M {
    pub fn new(arch: &str, n_layer: u64) -> M {
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String(arch.into()));
        let mut m = M {
            w,
            arch: arch.into(),
        };
        m.u("block_count", n_layer);
        m
    }
    pub fn u(&mut self, suffix: &str, v: u64) -> &mut Self {
        let k = format!("{}.{suffix}", self.arch);
        self.w.kv(&k, MetaValue::U32(v as u32));
        self
    }
    pub fn arr(&mut self, suffix: &str, v: &[u64]) -> &mut Self {
        let k = format!("{}.{suffix}", self.arch);
        let vals = v.iter().map(|&x| MetaValue::I32(x as i32)).collect();
        self.w.kv(&k, array(ValueType::I32, vals));
        self
    }
    pub fn bools(&mut self, suffix: &str, v: &[bool]) -> &mut Self {
        let k = format!("{}.{suffix}", self.arch);
        let vals = v.iter().map(|&x| MetaValue::Bool(x)).collect();
        self.w.kv(&k, array(ValueType::Bool, vals));
        self
    }
    pub fn tensor(&mut self, name: &str, dims: &[u64], ty: &str) -> &mut Self {
        self.w
            .tensor(name, dims, GgmlType::from_name(ty).expect("type"));
        self
    }
    /// Written under the test binary's own folder, so two binaries never write one file.
    pub fn open(&self, name: &str) -> GgufModel {
        let binary = module_path!().split("::").next().unwrap_or("recipe");
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(binary);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(format!("{name}.gguf"));
        self.w.write(&p).unwrap();
        GgufModel::open(&p).unwrap()
    }
}
