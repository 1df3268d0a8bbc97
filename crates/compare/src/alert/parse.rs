//! The alert language's text: tokens, the grammar, units on thresholds, and errors that point
//! at the column.

use super::{parse_bytes, Cond, Expr, Field, Op, Threshold, FIELDS};
use gpuledger_lang::{said::Said, Lang};

/// A parse error pointing at the offending token: `column` is 1-based, in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub text: String,
    pub column: usize,
    pub width: usize,
    pub message: Said,
}

impl ParseError {
    /// The message, the expression and a caret under the fault, in `lang`.
    pub fn in_lang(&self, lang: Lang) -> String {
        let column = self.column.to_string();
        let line = lang.t_args(
            "report-alert-at-column",
            &[
                ("message", self.message.in_lang(lang).into()),
                ("column", column.into()),
            ],
        );
        format!(
            "{line}\n  {}\n  {}{}",
            self.text,
            " ".repeat(self.column - 1),
            "^".repeat(self.width.max(1))
        )
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.in_lang(Lang::En))
    }
}

impl std::error::Error for ParseError {}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Op(Op),
    Number(f64, String),
    End,
}

struct Token {
    tok: Tok,
    /// Character offset (0-based) and width.
    col: usize,
    width: usize,
}

/// The number starting at `start`, with its unit if one follows; an error as (column, width,
/// message).
fn number(chars: &[char], start: usize) -> Result<Token, (usize, usize, Said)> {
    let mut i = start;
    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
        i += 1;
    }
    let num: String = chars[start..i].iter().collect();
    let n: f64 = num.parse().map_err(|_| {
        let num = format!("{num:?}");
        (
            start,
            i - start,
            Said::new("report-alert-not-a-number", vec![("value", num.into())]),
        )
    })?;
    // A unit glued to the number, or after a space: `8GiB`, `8 GiB`, `90%`.
    let mut j = i;
    while j < chars.len() && chars[j] == ' ' {
        j += 1;
    }
    let ustart = j;
    while j < chars.len() && (chars[j].is_ascii_alphabetic() || chars[j] == '%') {
        j += 1;
    }
    let unit: String = chars[ustart..j].iter().collect();
    // Glued, anything is read as the unit (and rejected later if wrong); after a space,
    // only a known unit, so `85 and ...` and `85 device.power` read as they should.
    const UNITS: [&str; 16] = [
        "b", "k", "kib", "m", "mib", "g", "gib", "t", "tib", "kb", "mb", "gb", "tb", "%", "c", "w",
    ];
    let glued = ustart == i;
    let known = UNITS.contains(&unit.to_ascii_lowercase().as_str());
    let next_is_ident = chars
        .get(j)
        .is_some_and(|c| *c == '.' || *c == '_' || c.is_ascii_digit());
    if !unit.is_empty() && (glued || (known && !next_is_ident)) {
        i = j;
    }
    let unit = if i == j { unit } else { String::new() };
    Ok(Token {
        tok: Tok::Number(n, unit),
        col: start,
        width: i - start,
    })
}

fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let err = |col: usize, width: usize, message: Said| ParseError {
        text: text.to_string(),
        column: col + 1,
        width,
        message,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '>' || c == '<' {
            let eq = chars.get(i + 1) == Some(&'=');
            let op = match (c, eq) {
                ('>', false) => Op::Gt,
                ('>', true) => Op::Ge,
                ('<', false) => Op::Lt,
                _ => Op::Le,
            };
            let w = if eq { 2 } else { 1 };
            out.push(Token {
                tok: Tok::Op(op),
                col: i,
                width: w,
            });
            i += w;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let t = number(&chars, i).map_err(|(col, width, m)| err(col, width, m))?;
            i = t.col + t.width;
            out.push(t);
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Word(chars[start..i].iter().collect()),
                col: start,
                width: i - start,
            });
        } else {
            let key = if c == '=' || c == '!' {
                "report-alert-unexpected-comparison"
            } else {
                "report-alert-unexpected-character"
            };
            let c = format!("{c:?}");
            return Err(err(i, 1, Said::new(key, vec![("char", c.into())])));
        }
    }
    out.push(Token {
        tok: Tok::End,
        col: chars.len(),
        width: 1,
    });
    Ok(out)
}

fn field_list() -> String {
    FIELDS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parse an alert expression.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    let toks = tokenize(text)?;
    let err = |t: &Token, message: Said| ParseError {
        text: text.to_string(),
        column: t.col + 1,
        width: t.width,
        message,
    };
    let mut conds = Vec::new();
    let mut i = 0;
    loop {
        // field
        let t = &toks[i];
        let field = match &t.tok {
            Tok::Word(w) => FIELDS
                .iter()
                .find(|(n, _)| n == w)
                .map(|(_, f)| *f)
                .ok_or_else(|| {
                    let w = format!("{w:?}");
                    let said = vec![("name", w.into()), ("fields", field_list().into())];
                    err(t, Said::new("report-alert-unknown-field", said))
                })?,
            Tok::End => return Err(err(t, Said::new("report-alert-field-after", vec![]))),
            _ => {
                let said = vec![("fields", field_list().into())];
                return Err(err(t, Said::new("report-alert-expected-field", said)));
            }
        };
        i += 1;
        // op
        let t = &toks[i];
        let op = match &t.tok {
            Tok::Op(op) => *op,
            _ => {
                let said = vec![("field", field.name().into())];
                return Err(err(t, Said::new("report-alert-expected-comparison", said)));
            }
        };
        i += 1;
        // value
        let t = &toks[i];
        let threshold = match &t.tok {
            Tok::Number(n, unit) => value(field, *n, unit).map_err(|m| err(t, m))?,
            _ => {
                let said = vec![("field", field.name().into())];
                return Err(err(t, Said::new("report-alert-expected-value", said)));
            }
        };
        i += 1;
        conds.push(Cond {
            field,
            op,
            threshold,
        });
        let t = &toks[i];
        match &t.tok {
            Tok::End => break,
            Tok::Word(w) if w.eq_ignore_ascii_case("and") => i += 1,
            Tok::Word(w) if w.eq_ignore_ascii_case("or") => {
                return Err(err(t, Said::new("report-alert-no-or", vec![])))
            }
            _ => return Err(err(t, Said::new("report-alert-expected-and", vec![]))),
        }
    }
    Ok(Expr {
        text: text.to_string(),
        conds,
    })
}

fn value(field: Field, n: f64, unit: &str) -> Result<Threshold, Said> {
    let written = format!("{:?}", format!("{n}{unit}"));
    let u = unit.to_ascii_lowercase();
    if field.is_memory() {
        if u == "%" {
            return Ok(Threshold::PercentOfTotal(n));
        }
        // `device.memory.used > 90` would mean 90 bytes: almost always a forgotten `%`.
        if u.is_empty() {
            let said = vec![("field", field.name().into()), ("n", n.to_string().into())];
            return Err(Said::new("report-alert-bare-number", said));
        }
        return parse_bytes(&format!("{n}{unit}"))
            .map(|b| Threshold::Absolute(b as f64))
            .map_err(|_| {
                let said = vec![("field", field.name().into()), ("value", written.into())];
                Said::new("report-alert-expected-size", said)
            });
    }
    let ok = match field {
        Field::DeviceGpu | Field::ProcessSm => u.is_empty() || u == "%",
        Field::DeviceTemperature => u.is_empty() || u == "c",
        Field::DevicePower => u.is_empty() || u == "w",
        _ => false,
    };
    if ok {
        Ok(Threshold::Absolute(n))
    } else {
        let key = match field {
            Field::DeviceTemperature => "report-alert-expected-celsius",
            Field::DevicePower => "report-alert-expected-watts",
            _ => "report-alert-expected-percentage",
        };
        let said = vec![("field", field.name().into()), ("value", written.into())];
        Err(Said::new(key, said))
    }
}
