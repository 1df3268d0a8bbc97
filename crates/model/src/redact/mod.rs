//! Secrets stay secret: the one detector for every text that leaves the program (command lines,
//! process names and titles, environment values, evidence, texts read from files).
//!
//! The detector looks for secrets by what announces them and by their shape:
//! - names (`names`): `--api-key X`, `--token=X`, `HF_TOKEN=X`, `DB_PASS=X`, `Password=X;`,
//!   `"auth": {...}`, `Authorization: Bearer X`, `?access_token=X` — a name's [`Strength`] says
//!   whether its value goes always, unless it is a path, or only when it looks random;
//! - argument structure (`args`): what one argument announces about the next, and the glued
//!   short options of common clients (curl `-HAuthorization:…`, `-uuser:X`, mysql `-pX`,
//!   redis-cli `-a X`, `docker login -p X`), inside `sh -c "..."` strings too;
//! - text (`text`): `name=value` and `name:value` pairs anywhere, JSON nested in an argument,
//!   URL userinfo (`postgres://u:pa/X@h`), credential query and fragment keys;
//! - shape (`tokens`): provider token formats (GitHub, GitLab, Slack, AWS, Google, OpenAI,
//!   Anthropic, Hugging Face, Stripe, …), JWTs, webhook URLs and PEM private keys, with no name.
//!
//! A redacted value becomes [`REDACTED`]; the name before it stays. Redacting twice changes
//! nothing. Collection redacts each process's command line, name and executable path once as
//! they enter the snapshot; every snapshot read from outside (a replay, a recording, a remote
//! server, a file given to `diff`) goes through [`redact_snapshot`]; and outputs that write
//! command lines redact them again, whoever built the snapshot. The environment view shows
//! values only for known-safe names (`env`).

mod args;
pub mod env;
pub mod names;
mod text;
mod tokens;

#[cfg(test)]
mod tests;

pub use env::{is_safe_env_name, redact_env_var, HIDDEN_ENV};
pub use names::{is_secret_name, strength, Strength};

pub const REDACTED: &str = "<redacted>";

/// Redact a command line given as its argument list.
pub fn redact_arg_list(args: &[String]) -> Vec<String> {
    let mut w = args::Walker::default();
    args.iter().map(|a| w.arg(a)).collect()
}

/// Redact secrets inside free text (a process name or title, a shell string, an error message,
/// an evidence line): its words are walked as a command line, keeping the original spacing.
pub fn redact_text(s: &str) -> String {
    // What spans spaces or lines goes first: JSON values with spaces, PEM key bodies.
    let s = text::redact_quoted_pairs(s);
    let s = tokens::hide_pem(&s);
    redact_words(&s)
}

/// Text with several words: redact them as an argument list and put them back in place, keeping
/// the original spacing. Quotes around words are kept out of the way of the flag rules.
fn redact_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut w = args::Walker::default();
    let mut last = 0;
    for (b, e) in word_spans(s) {
        let word = &s[b..e];
        // Quotes a shell would remove: `'Authorization: Bearer X'` splits into quoted words.
        let inner_b = word.len() - word.trim_start_matches(['\'', '"']).len();
        let inner_e = word.trim_end_matches(['\'', '"']).len().max(inner_b);
        out.push_str(&s[last..b]);
        out.push_str(&word[..inner_b]);
        out.push_str(&w.arg(&word[inner_b..inner_e]));
        out.push_str(&word[inner_e..]);
        last = e;
    }
    out.push_str(&s[last..]);
    out
}

/// The byte spans of the whitespace-separated words of `s`.
fn word_spans(s: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                spans.push((b, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        spans.push((b, s.len()));
    }
    spans
}

/// Redact what a process says about itself as it enters a snapshot: its name (a process can set
/// its own title to `--token=X`) and its executable's path. The command line is redacted where
/// it is read, once per process.
pub fn redact_process_names(p: &mut crate::Process) {
    for t in [&mut p.name, &mut p.exe].into_iter().flatten() {
        *t = redact_text(t);
    }
}

/// Redact every text of a snapshot that can carry a secret. Collection already does this; a
/// snapshot read from a file (a replay, an old recording, one written by hand) is passed
/// through here too, so what is shown never depends on who wrote the file.
pub fn redact_snapshot(snap: &mut crate::Snapshot) {
    for p in &mut snap.processes {
        if let Some(c) = &mut p.cmdline {
            *c = redact_arg_list(c);
        }
        redact_process_names(p);
        if let Some(w) = &mut p.workload {
            let w = std::sync::Arc::make_mut(w);
            if let Some(m) = &mut w.model {
                *m = redact_text(m);
            }
            for e in &mut w.evidence {
                e.showed = e.showed.map_text(&redact_text);
            }
            for m in &mut w.missing {
                *m = m.map_text(&redact_text);
            }
            if let Some(m) = &mut w.member {
                m.evidence = m.evidence.map_text(&redact_text);
            }
        }
        if let Some(e) = &mut p.estimate {
            redact_estimate(std::sync::Arc::make_mut(e));
        }
    }
}

/// The estimate's texts: the recipe, the overhead's source and the reported figures are free
/// text from files and servers too.
fn redact_estimate(e: &mut crate::EstimatedMemory) {
    for t in [&mut e.model, &mut e.recipe] {
        *t = redact_text(t);
    }
    e.overhead_source = e.overhead_source.map_text(&redact_text);
    if let Some(w) = &mut e.why {
        *w = w.map_text(&redact_text);
    }
    if let Some(t) = &mut e.compute_label {
        *t = t.map_text(&redact_text);
    }
    for n in &mut e.not_modelled {
        *n = n.map_text(&redact_text);
    }
    for r in &mut e.reported {
        r.what = r.what.map_text(&redact_text);
        r.source = redact_text(&r.source);
        if let Some(t) = &mut r.text {
            *t = t.map_text(&redact_text);
        }
    }
}
