//! A small GGUF writer for tests, fixtures, the fuzz seeds and the bench: headers with any
//! metadata and a tensor table; the data section is written as a sparse hole of the right size
//! (the reader never looks at tensor data).

use std::io::Write;
use std::path::Path;

use super::{GgmlType, MetaValue, DEFAULT_ALIGNMENT};

#[derive(Debug, Clone)]
pub struct GgufWriter {
    pub version: u32,
    pub metadata: Vec<(String, MetaValue)>,
    pub tensors: Vec<(String, Vec<u64>, GgmlType)>,
}

impl Default for GgufWriter {
    fn default() -> Self {
        GgufWriter {
            version: 3,
            metadata: Vec::new(),
            tensors: Vec::new(),
        }
    }
}

impl GgufWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn kv(&mut self, key: &str, v: MetaValue) -> &mut Self {
        self.metadata.push((key.to_string(), v));
        self
    }

    pub fn tensor(&mut self, name: &str, dims: &[u64], t: GgmlType) -> &mut Self {
        self.tensors.push((name.to_string(), dims.to_vec(), t));
        self
    }

    pub fn alignment(&self) -> u64 {
        self.metadata
            .iter()
            .find(|(k, _)| k == "general.alignment")
            .and_then(|(_, v)| v.as_u64())
            .unwrap_or(DEFAULT_ALIGNMENT)
    }

    /// Bytes of each tensor (`ggml_nbytes`); panics on shapes the reader would reject, which is
    /// the caller's bug in a test.
    pub fn tensor_bytes(dims: &[u64], t: GgmlType) -> u64 {
        let n: u64 = dims.iter().product();
        n / t.block_size * t.type_size
    }

    /// The header, padded to the alignment, and the size of the data section after it.
    pub fn header(&self) -> (Vec<u8>, u64) {
        let align = self.alignment();
        let mut b = Vec::new();
        b.extend_from_slice(b"GGUF");
        b.extend_from_slice(&self.version.to_le_bytes());
        b.extend_from_slice(&(self.tensors.len() as i64).to_le_bytes());
        b.extend_from_slice(&(self.metadata.len() as i64).to_le_bytes());
        for (k, v) in &self.metadata {
            put_str(&mut b, k);
            b.extend_from_slice(&v.value_type().id().to_le_bytes());
            put_value(&mut b, v);
        }
        let mut off = 0u64;
        for (name, dims, t) in &self.tensors {
            put_str(&mut b, name);
            b.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            for d in dims {
                b.extend_from_slice(&(*d as i64).to_le_bytes());
            }
            b.extend_from_slice(&t.id.to_le_bytes());
            b.extend_from_slice(&off.to_le_bytes());
            off += Self::tensor_bytes(dims, *t).div_ceil(align) * align;
        }
        let padded = (b.len() as u64).div_ceil(align) * align;
        b.resize(padded as usize, 0);
        (b, off)
    }

    /// Write the file: header, then a sparse data section.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let (h, data) = self.header();
        let mut f = std::fs::File::create(path)?;
        f.write_all(&h)?;
        f.set_len(h.len() as u64 + data)?;
        Ok(())
    }
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(&(s.len() as u64).to_le_bytes());
    b.extend_from_slice(s.as_bytes());
}

fn put_value(b: &mut Vec<u8>, v: &MetaValue) {
    match v {
        MetaValue::U8(x) => b.push(*x),
        MetaValue::I8(x) => b.push(*x as u8),
        MetaValue::Bool(x) => b.push(*x as u8),
        MetaValue::U16(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::I16(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::U32(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::I32(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::F32(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::U64(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::I64(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::F64(x) => b.extend_from_slice(&x.to_le_bytes()),
        MetaValue::String(s) => put_str(b, s),
        MetaValue::Array(a) => {
            b.extend_from_slice(&a.elem_type.id().to_le_bytes());
            let vals = a.values.as_deref().unwrap_or(&[]);
            b.extend_from_slice(&(vals.len() as u64).to_le_bytes());
            for x in vals {
                put_value(b, x);
            }
        }
    }
}

/// Shorthand for an array value.
pub fn array(elem_type: super::ValueType, values: Vec<MetaValue>) -> MetaValue {
    MetaValue::Array(super::MetaArray {
        elem_type,
        len: values.len() as u64,
        values: Some(values),
    })
}
