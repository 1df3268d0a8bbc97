//! The ggml tensor type table: id, name, block size (elements) and bytes per block.
//!
//! Ids from `enum ggml_type` (ggml.h); sizes from ggml's `type_traits` / the `static_assert`s on the
//! block structs in ggml-common.h (llama.cpp's ggml.h and ggml-common.h). Removed ids (4, 5, 31–33,
//! 36–38) are listed so an old file gets a precise error instead of "unknown".

use serde::Serialize;

/// One ggml tensor type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct GgmlType {
    pub id: u32,
    pub name: &'static str,
    /// Elements per block; 0 for removed types.
    pub block_size: u64,
    /// Bytes per block.
    pub type_size: u64,
}

macro_rules! t {
    ($id:expr, $name:expr, $blk:expr, $sz:expr) => {
        GgmlType {
            id: $id,
            name: $name,
            block_size: $blk,
            type_size: $sz,
        }
    };
}

/// Every id up to `GGML_TYPE_COUNT` (40) at the llama.cpp revision the note read.
pub const GGML_TYPES: &[GgmlType] = &[
    t!(0, "F32", 1, 4),
    t!(1, "F16", 1, 2),
    t!(2, "Q4_0", 32, 18),
    t!(3, "Q4_1", 32, 20),
    t!(4, "Q4_2 (removed)", 0, 0),
    t!(5, "Q4_3 (removed)", 0, 0),
    t!(6, "Q5_0", 32, 22),
    t!(7, "Q5_1", 32, 24),
    t!(8, "Q8_0", 32, 34),
    t!(9, "Q8_1", 32, 36),
    t!(10, "Q2_K", 256, 84),
    t!(11, "Q3_K", 256, 110),
    t!(12, "Q4_K", 256, 144),
    t!(13, "Q5_K", 256, 176),
    t!(14, "Q6_K", 256, 210),
    t!(15, "Q8_K", 256, 292),
    t!(16, "IQ2_XXS", 256, 66),
    t!(17, "IQ2_XS", 256, 74),
    t!(18, "IQ3_XXS", 256, 98),
    t!(19, "IQ1_S", 256, 50),
    t!(20, "IQ4_NL", 32, 18),
    t!(21, "IQ3_S", 256, 110),
    t!(22, "IQ2_S", 256, 82),
    t!(23, "IQ4_XS", 256, 136),
    t!(24, "I8", 1, 1),
    t!(25, "I16", 1, 2),
    t!(26, "I32", 1, 4),
    t!(27, "I64", 1, 8),
    t!(28, "F64", 1, 8),
    t!(29, "IQ1_M", 256, 56),
    t!(30, "BF16", 1, 2),
    t!(31, "Q4_0_4_4 (removed)", 0, 0),
    t!(32, "Q4_0_4_8 (removed)", 0, 0),
    t!(33, "Q4_0_8_8 (removed)", 0, 0),
    t!(34, "TQ1_0", 256, 54),
    t!(35, "TQ2_0", 256, 66),
    t!(36, "IQ4_NL_4_4 (removed)", 0, 0),
    t!(37, "IQ4_NL_4_8 (removed)", 0, 0),
    t!(38, "IQ4_NL_8_8 (removed)", 0, 0),
    t!(39, "MXFP4", 32, 17),
];

impl GgmlType {
    /// The type with this id, if the table knows it (removed ids included).
    pub fn from_id(id: u32) -> Option<GgmlType> {
        GGML_TYPES.get(id as usize).copied()
    }

    /// Case-insensitive lookup by name, as `-ctk q8_0` spells it.
    pub fn from_name(name: &str) -> Option<GgmlType> {
        GGML_TYPES
            .iter()
            .find(|t| t.is_usable() && t.name.eq_ignore_ascii_case(name))
            .copied()
    }

    pub fn is_usable(&self) -> bool {
        self.block_size != 0
    }

    /// A block-quantised type (block size above one), as ggml_is_quantized sees it for sizing.
    pub fn is_quantized(&self) -> bool {
        self.block_size > 1
    }

    /// Lower-case name as llama.cpp prints cache types (`f16`, `q8_0`).
    pub fn lower_name(&self) -> String {
        self.name.to_ascii_lowercase()
    }

    /// Bytes of `n` elements (`ggml_row_size`); `None` when `n` is not a whole number of blocks
    /// or the product overflows.
    pub fn row_bytes(&self, n: u64) -> Option<u64> {
        if self.block_size == 0 || !n.is_multiple_of(self.block_size) {
            return None;
        }
        (n / self.block_size).checked_mul(self.type_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_match_positions() {
        for (i, t) in GGML_TYPES.iter().enumerate() {
            assert_eq!(t.id as usize, i, "{}", t.name);
        }
        assert_eq!(GGML_TYPES.len(), 40);
        assert!(GgmlType::from_id(40).is_none());
    }

    #[test]
    fn bits_per_weight_match_the_known_figures() {
        // (name, bits per weight) from the llama.cpp quantisation tables.
        let want = [
            ("Q4_0", 4.5),
            ("Q8_0", 8.5),
            ("Q2_K", 2.625),
            ("Q3_K", 3.4375),
            ("Q4_K", 4.5),
            ("Q5_K", 5.5),
            ("Q6_K", 6.5625),
            ("IQ2_XXS", 2.0625),
            ("IQ2_XS", 2.3125),
            ("IQ3_XXS", 3.0625),
            ("IQ1_S", 1.5625),
            ("IQ1_M", 1.75),
            ("IQ4_XS", 4.25),
            ("TQ1_0", 1.6875),
            ("TQ2_0", 2.0625),
            ("MXFP4", 4.25),
            ("BF16", 16.0),
        ];
        for (name, bpw) in want {
            let t = GgmlType::from_name(name).unwrap();
            let got = t.type_size as f64 * 8.0 / t.block_size as f64;
            assert_eq!(got, bpw, "{name}");
        }
    }

    #[test]
    fn row_bytes_needs_whole_blocks() {
        let q8 = GgmlType::from_name("q8_0").unwrap();
        assert_eq!(q8.row_bytes(4096), Some(4096 / 32 * 34));
        assert_eq!(q8.row_bytes(33), None);
        assert!(GgmlType::from_name("Q4_0_4_4 (removed)").is_none());
        assert_eq!(GgmlType::from_id(31).unwrap().row_bytes(32), None);
    }
}
