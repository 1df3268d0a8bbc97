//! A command's failure as a sentence of the catalogue: main prints it in the reader's language
//! (its `error_text` downcasts a [`Said`]), while anything else that reads the error sees its
//! English. One way for every command to fail in words, instead of `bail!` with English.

use gpuledger_lang::said::{Arg, Said};
use gpuledger_lang::Lang;

/// An error and its causes, as anyhow's `{:#}` writes them, each sentence said in `lang` (the
/// other errors are already in it, or are the system's own words).
pub fn in_lang(e: &anyhow::Error, lang: Lang) -> String {
    e.chain()
        .map(|c| {
            if let Some(s) = c.downcast_ref::<gpuledger_history::store::StoreError>() {
                s.in_lang(lang)
            } else if let Some(s) = c.downcast_ref::<Said>() {
                s.in_lang(lang)
            } else if let Some(u) = c.downcast_ref::<crate::Usage>() {
                u.0.in_lang(lang)
            } else if let Some(g) = c.downcast_ref::<gpuledger_workloads::GgufError>() {
                g.said().in_lang(lang)
            } else if let Some(p) = c.downcast_ref::<gpuledger_cuda::ProbeError>() {
                p.said().in_lang(lang)
            } else {
                c.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(": ")
}

/// The failure `key` with its values, as an error.
pub fn failed(key: &'static str, args: Vec<(&'static str, Arg)>) -> anyhow::Error {
    anyhow::Error::new(Said::new(key, args))
}

/// An error as the value of such a sentence: one that is itself a sentence stays one (said in
/// the same language); any other (the OS's words) is its text.
pub fn cause(e: &anyhow::Error) -> Arg {
    match e.downcast_ref::<Said>() {
        Some(s) => s.clone().into(),
        None => format!("{e:#}").into(),
    }
}

/// A path as such a value.
pub fn path(p: &std::path::Path) -> Arg {
    p.display().to_string().into()
}

/// `path` could not be written.
pub fn cannot_write(p: &std::path::Path, e: &std::io::Error) -> anyhow::Error {
    failed(
        "cli-err-cannot-write",
        vec![("path", path(p)), ("error", e.to_string().into())],
    )
}
