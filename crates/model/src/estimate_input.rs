//! An estimate's inputs, each with where it came from: one type for every recipe (llama.cpp's
//! and the runtimes' own: vLLM, SGLang, PyTorch), so `explain --json` and `estimate --json`
//! write a source the same way whichever recipe ran.

use gpuledger_lang::Said;
use serde::Serialize;

/// Where an input to a recipe came from. In JSON: `{"kind": "flag", "flag": "-c 4096"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum InputSource {
    /// A GGUF metadata key.
    Gguf { key: String },
    /// The model's tensor table (a GGUF file's, or the safetensors headers).
    Tensors { detail: Said },
    /// A command-line flag as written (and, for a runtime recipe, where it was read).
    Flag { flag: Said },
    /// An environment variable.
    Env { var: Said },
    /// The running server's own answer.
    Runtime { detail: Said },
    /// The runtime's default (a sentence: each view says it in its reader's language).
    Default { detail: Said },
    /// Computed from other inputs by the runtime's rule.
    Derived { rule: Said },
    /// An assumption gpuledger makes where the file and flags do not say.
    Assumed { why: Said },
    /// A file other than the model's tensors: `config.json`, an open file, where a model folder
    /// was found.
    File { detail: Said },
    /// What a driver measured (the device's memory total).
    Measured { detail: Said },
}

impl InputSource {
    const GGUF_HEADER: &'static str = "GGUF header";

    /// The tensor table of a GGUF file's header (vLLM serving a GGUF file). Written and read
    /// back here only ([`InputSource::is_gguf_header`]), so rewording it cannot change a rule.
    pub fn gguf_header() -> InputSource {
        InputSource::Tensors {
            detail: Said::new("recipe-src-gguf-header", vec![]),
        }
    }

    /// Whether this is [`InputSource::gguf_header`].
    pub fn is_gguf_header(&self) -> bool {
        matches!(self, InputSource::Tensors { detail } if *detail == Self::GGUF_HEADER)
    }

    /// The words inside the source, without its kind: `--max-model-len 2048 (/proc/7/cmdline)`
    /// for a flag. A recipe's sentences quote it where they say where a value came from.
    pub fn detail(&self) -> &str {
        match self {
            InputSource::Gguf { key } => key,
            InputSource::Flag { flag } => flag,
            InputSource::Env { var } => var,
            InputSource::Derived { rule } => rule,
            InputSource::Assumed { why } => why,
            InputSource::Default { detail } => detail,
            InputSource::Tensors { detail }
            | InputSource::File { detail }
            | InputSource::Measured { detail } => detail,
            InputSource::Runtime { detail } => detail,
        }
    }

    /// [`InputSource::detail`] as a sentence, so a recipe that quotes a source inside its own
    /// sentence keeps the source's words in the reader's language.
    pub fn said_detail(&self) -> Said {
        match self {
            InputSource::Derived { rule: s }
            | InputSource::Assumed { why: s }
            | InputSource::Default { detail: s }
            | InputSource::Tensors { detail: s }
            | InputSource::File { detail: s }
            | InputSource::Measured { detail: s }
            | InputSource::Flag { flag: s }
            | InputSource::Env { var: s }
            | InputSource::Runtime { detail: s } => s.clone(),
            other => Said::verbatim(other.detail()),
        }
    }
}

/// One named input with its value and source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Input {
    /// An identifier (`max_model_len`, `n_ctx`) as written, or a name in words (`KV bytes per
    /// block (per rank)`) each view says in its language.
    pub name: Said,
    /// The value as written (a figure, a path), or a sentence each view says in its language.
    pub value: Said,
    pub source: InputSource,
}

impl Input {
    pub fn new(name: impl Into<Said>, value: impl ToString, source: InputSource) -> Input {
        Input::said(name, Said::verbatim(value.to_string()), source)
    }

    /// An input whose value is a sentence (`0.00 GiB in 6 tensors, 3 file(s)`).
    pub fn said(name: impl Into<Said>, value: Said, source: InputSource) -> Input {
        Input {
            name: name.into(),
            value,
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_written_with_its_kind() {
        let i = Input::new(
            "device memory total",
            80u64 << 30,
            InputSource::Measured {
                detail: "the driver".into(),
            },
        );
        let v = serde_json::to_value(&i).unwrap();
        assert_eq!(v["value"], "85899345920");
        assert_eq!(v["source"]["kind"], "measured");
        assert_eq!(v["source"]["detail"], "the driver");
        assert_eq!(i.source.detail(), "the driver");
    }
}
