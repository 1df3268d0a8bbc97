//! The public llama-server command lines of `fixtures/llama-server-cmdlines/cmdlines.txt`, split
//! into words as a shell would, with what each is expected to set. Included with `#[path]` by the
//! tests that read them (collection's parser in workloads, `gpuledger estimate` in the CLI).

use std::path::Path;

/// One command line.
#[allow(dead_code)]
pub struct Entry {
    /// Where it was copied from.
    pub source: String,
    /// Its words: `NAME=value` assignments in front, the program (when written), the flags.
    pub words: Vec<String>,
    /// `key=value` the recipe's settings must show (`c`, `np`, `ngl`, `fa`, `model` ...).
    pub expect: Vec<(String, String)>,
    /// The flags named as changing memory but not modelled (one word each).
    pub not_modelled: Vec<String>,
    /// The buffer-type overrides (`-ot`, `--n-cpu-moe` ...), by flag, in the order given.
    pub overrides: Vec<String>,
    /// The flags that are not llama-server's.
    pub unknown: Vec<String>,
}

#[allow(dead_code)]
impl Entry {
    /// The argv a running process of this line has: without the assignments in front (they are
    /// its environment), the program first (an empty name when the line has none).
    pub fn argv(&self) -> Vec<String> {
        let words: Vec<String> = self
            .words
            .iter()
            .skip_while(|w| is_assignment(w))
            .cloned()
            .collect();
        if words.first().is_some_and(|w| w.starts_with('-')) {
            std::iter::once(String::new()).chain(words).collect()
        } else {
            words
        }
    }

    pub fn expected(&self, key: &str) -> Option<&str> {
        self.expect
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(n, _)| {
        !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

pub fn read(root: &Path) -> Vec<Entry> {
    let path = root.join("fixtures/llama-server-cmdlines/cmdlines.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut entries = Vec::new();
    for block in text.split("\n\n") {
        let mut e = Entry {
            source: String::new(),
            words: Vec::new(),
            expect: Vec::new(),
            not_modelled: Vec::new(),
            overrides: Vec::new(),
            unknown: Vec::new(),
        };
        let mut command = String::new();
        for line in block.lines() {
            let list = |v: &str| v.split_whitespace().map(String::from).collect::<Vec<_>>();
            if let Some(v) = line.strip_prefix("# source: ") {
                e.source = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("# expect: ") {
                e.expect = list(v)
                    .iter()
                    .map(|kv| {
                        let (k, v) = kv.split_once('=').expect("key=value");
                        (k.to_string(), v.to_string())
                    })
                    .collect();
            } else if let Some(v) = line.strip_prefix("# not-modelled: ") {
                e.not_modelled = list(v);
            } else if let Some(v) = line.strip_prefix("# overrides: ") {
                e.overrides = list(v);
            } else if let Some(v) = line.strip_prefix("# unknown: ") {
                e.unknown = list(v);
            } else if !line.starts_with('#') {
                let l = line.trim_end();
                let l = l
                    .strip_suffix(" \\")
                    .or_else(|| l.strip_suffix(" ^"))
                    .unwrap_or(l);
                command.push_str(l);
                command.push(' ');
            }
        }
        if !e.source.is_empty() {
            e.words = words(&command);
            entries.push(e);
        }
    }
    entries
}

/// Split as a POSIX shell does for these lines: spaces separate words, `'...'` is literal,
/// `"..."` is literal but for `\"` and `\\`; a backslash elsewhere is kept (Windows paths).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\')) => {
                            cur.push(chars.next().unwrap())
                        }
                        c => cur.push(c),
                    }
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}
