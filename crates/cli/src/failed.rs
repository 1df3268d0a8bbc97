//! A command's failure as a sentence of the catalogue: main prints it in the reader's language
//! ([`in_lang`] downcasts it), while anything else that reads the error sees its English. One
//! way for every command to fail in words, instead of `bail!` with English.

use gpuledger_lang::said::{Arg, Said};
use gpuledger_lang::Lang;

/// An error and its causes, as anyhow's `{:#}` writes them, each sentence said in `lang` (the
/// other errors are already in it, or are the system's own words).
pub fn in_lang(e: &anyhow::Error, lang: Lang) -> String {
    e.chain()
        .map(|c| error_in_lang(c, lang))
        .collect::<Vec<_>>()
        .join(": ")
}

/// One error in `lang` where it is (or carries) a sentence of the catalogue, else its text as
/// it is: the one list of such errors, for the error printer and for clap's usage errors.
pub fn error_in_lang(e: &(dyn std::error::Error + 'static), lang: Lang) -> String {
    if let Some(s) = e.downcast_ref::<Said>() {
        s.in_lang(lang)
    } else if let Some(u) = e.downcast_ref::<crate::Usage>() {
        u.0.in_lang(lang)
    } else if let Some(s) = e.downcast_ref::<gpuledger_history::store::StoreError>() {
        s.in_lang(lang)
    } else if let Some(x) = e.downcast_ref::<gpuledger_workloads::estimate::EstimateError>() {
        x.said().in_lang(lang)
    } else if let Some(g) = e.downcast_ref::<gpuledger_workloads::GgufError>() {
        g.said().in_lang(lang)
    } else if let Some(p) = e.downcast_ref::<gpuledger_cuda::ProbeError>() {
        p.said().in_lang(lang)
    } else if let Some(a) = e.downcast_ref::<gpuledger_compare::alert::ParseError>() {
        a.in_lang(lang)
    } else {
        e.to_string()
    }
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

/// The file `p` and what went wrong with it (`key`: `{ $path }: … { $error }`), `e` in the
/// words of whoever reported it (the OS, a parser).
pub fn with_file(
    key: &'static str,
    p: &std::path::Path,
    e: &dyn std::fmt::Display,
) -> anyhow::Error {
    failed(
        key,
        vec![("path", path(p)), ("error", e.to_string().into())],
    )
}

/// `path` could not be written.
pub fn cannot_write(p: &std::path::Path, e: &std::io::Error) -> anyhow::Error {
    with_file("cli-err-cannot-write", p, e)
}
