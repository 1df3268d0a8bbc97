//! Text columns for every text table in the views: one aligner that measures what a terminal
//! shows (display width, so a CJK name or an emoji does not push its row out of line), and the
//! one "value or n/a" helper for cells.

pub use gpuledger_model::words::or_unknown_with;
use unicode_width::UnicodeWidthStr;

/// Columns a terminal uses to show `s`.
pub fn display_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` padded with spaces to `w` display columns (`format!("{s:<w$}")` counts chars, which
/// puts a CJK label one column short per character).
pub fn pad_end(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(display_width(s))))
}

/// `s` cut to at most `w` columns with `…` when it is longer, never halving a wide character
/// (a CJK name cut at an odd column ends one column short instead).
pub fn cut_to_width(s: &str, w: usize) -> String {
    if display_width(s) <= w {
        return s.to_string();
    }
    let mut t = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + cw + 1 > w {
            break;
        }
        t.push(ch);
        used += cw;
    }
    if w > 0 {
        t.push('…');
    }
    t
}

/// Which side of its column a cell keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// How rows of cells become lines: each column as wide as its widest cell (or `max`), cells
/// `gap` apart, each line starting with `indent` and trimmed at the end. The last column is
/// padded only when it keeps right (a left one has nothing after it to line up).
#[derive(Debug, Clone)]
pub struct Columns<'a> {
    align: &'a [Align],
    indent: &'a str,
    gap: usize,
    max: Vec<Option<usize>>,
    min: Vec<usize>,
}

impl<'a> Columns<'a> {
    /// Columns kept as `align` says (a column past its end keeps left), two spaces apart.
    pub fn new(align: &'a [Align]) -> Self {
        Columns {
            align,
            indent: "",
            gap: 2,
            max: Vec::new(),
            min: Vec::new(),
        }
    }

    /// Text before every line (`"  "` under a section heading).
    pub fn indent(mut self, indent: &'a str) -> Self {
        self.indent = indent;
        self
    }

    /// Cells `gap` spaces apart (two unless set).
    pub fn gap(mut self, gap: usize) -> Self {
        self.gap = gap;
        self
    }

    /// Column `i` is at least `width` wide, whatever its cells: rows rendered one at a time
    /// (a table streamed as it is read) line up with each other and their header.
    pub fn min_width(mut self, i: usize, width: usize) -> Self {
        if self.min.len() <= i {
            self.min.resize(i + 1, 0);
        }
        self.min[i] = width;
        self
    }

    /// Column `i` never pads wider than `width`: one long value does not push every row right
    /// (it overflows its own line only).
    pub fn max_width(mut self, i: usize, width: usize) -> Self {
        if self.max.len() <= i {
            self.max.resize(i + 1, None);
        }
        self.max[i] = Some(width);
        self
    }

    /// The rows as lines, each ending in `\n`.
    pub fn render<S: AsRef<str>>(&self, rows: &[Vec<S>]) -> String {
        let widths = self.widths(rows);
        let mut out = String::new();
        for r in rows {
            let mut line = String::from(self.indent);
            for (i, c) in r.iter().enumerate() {
                let c = c.as_ref();
                let pad = " ".repeat(widths[i].saturating_sub(display_width(c)));
                let last = i + 1 == r.len();
                match self.align.get(i).copied().unwrap_or(Align::Left) {
                    Align::Right => {
                        line.push_str(&pad);
                        line.push_str(c);
                    }
                    Align::Left => {
                        line.push_str(c);
                        if !last {
                            line.push_str(&pad);
                        }
                    }
                }
                if !last {
                    line.push_str(&" ".repeat(self.gap));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    fn widths<S: AsRef<str>>(&self, rows: &[Vec<S>]) -> Vec<usize> {
        let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut w = vec![0usize; ncol];
        for r in rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(display_width(c.as_ref()));
            }
        }
        for (w, max) in w.iter_mut().zip(&self.max) {
            if let Some(m) = max {
                *w = (*w).min(*m);
            }
        }
        for (w, min) in w.iter_mut().zip(&self.min) {
            *w = (*w).max(*min);
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_counts_display_columns() {
        assert_eq!(pad_end("weights", 10), "weights   ");
        assert_eq!(pad_end("权重", 10), "权重      ");
        assert_eq!(display_width(&pad_end("KV 缓存", 16)), 16);
        assert_eq!(pad_end("a long label", 4), "a long label");
    }

    #[test]
    fn cutting_measures_columns_not_chars() {
        assert_eq!(cut_to_width("llama-server -m x", 9), "llama-se…");
        // 通义千问 is 8 columns: cut to 7, the fourth character does not fit in half.
        let c = cut_to_width("通义千问-7B-Chat.gguf", 7);
        assert_eq!(c, "通义千…");
        assert_eq!(display_width(&c), 7);
        // Cut to 8: three characters and the ellipsis (7); a fourth would take 9.
        assert_eq!(display_width(&cut_to_width("通义千问-7B-Chat.gguf", 8)), 7);
        assert_eq!(display_width(&cut_to_width("a通义千问-7B-Chat.gguf", 8)), 8);
        assert_eq!(cut_to_width("short", 60), "short");
    }

    #[test]
    fn columns_line_up_by_display_width() {
        let rows = vec![
            vec!["name", "bytes", "note"],
            vec!["模型", "1", "wide name"],
            vec!["x", "12345", ""],
        ];
        let t = Columns::new(&[Align::Left, Align::Right])
            .indent("  ")
            .render(&rows);
        assert_eq!(
            t,
            "  name  bytes  note\n  模型      1  wide name\n  x     12345\n"
        );
    }

    #[test]
    fn rows_rendered_one_at_a_time_line_up_at_their_minimum_widths() {
        let cols = Columns::new(&[Align::Left, Align::Right])
            .gap(1)
            .min_width(0, 4)
            .min_width(1, 5);
        let head = cols.render(&[vec!["ab", "n"]]);
        let row = cols.render(&[vec!["模", "123"]]);
        let long = cols.render(&[vec!["abcdef", "1"]]);
        assert_eq!(head, "ab       n\n");
        assert_eq!(row, "模     123\n");
        assert_eq!(long, "abcdef     1\n");
    }

    #[test]
    fn a_capped_column_overflows_only_its_own_line() {
        let rows = vec![vec!["a", "long value", "x"], vec!["b", "v", "y"]];
        let t = Columns::new(&[]).max_width(1, 3).render(&rows);
        assert_eq!(t, "a  long value  x\nb  v    y\n");
    }
}
