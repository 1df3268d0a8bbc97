//! Text fitting by display width: CJK and emoji take two cells, combining marks none.

use gpuledger_model::words::or_unknown_with;
/// Columns `s` takes on screen: CJK and emoji take two, combining marks none (the views' one
/// measure, so the live view and the tables agree).
pub use gpuledger_views::columns::display_width as width_of;
use unicode_width::UnicodeWidthChar;

/// Fit `s` into `w` columns: cut with `…` or pad on the right. Counts display width, so a
/// CJK name is cut at the right cell and the next column still lines up.
pub fn fit(s: &str, w: usize) -> String {
    let n = width_of(s);
    if n <= w {
        return format!("{s}{}", " ".repeat(w - n));
    }
    if w == 0 {
        return String::new();
    }
    let mut t = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let cw = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        t.push(ch);
        used += cw;
    }
    t.push('…');
    // A wide character that did not fit leaves one cell: pad it so the width is exact.
    t.push_str(&" ".repeat(w - 1 - used));
    t
}

pub(crate) fn fit_right(s: &str, w: usize) -> String {
    let n = width_of(s);
    if n <= w {
        format!("{}{s}", " ".repeat(w - n))
    } else {
        fit(s, w)
    }
}

/// A bar of `w` cells, `frac` full, in eighths.
pub fn bar(frac: f64, w: usize) -> (String, String) {
    const PART: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (frac.clamp(0.0, 1.0) * w as f64 * 8.0).round() as usize;
    let full = eighths / 8;
    let mut filled = "█".repeat(full);
    let mut used = full;
    if full < w && !eighths.is_multiple_of(8) {
        filled.push_str(PART[eighths % 8]);
        used += 1;
    }
    (filled, "░".repeat(w.saturating_sub(used)))
}

/// `v` with `suffix` (`42%`), or "n/a".
pub(crate) fn opt<T: ToString>(v: Option<T>, suffix: &str) -> String {
    or_unknown_with(v, |x| format!("{}{suffix}", x.to_string()))
}

/// The end of `s` that fits `w` cells, with `…` in front when cut: the cursor end of a typed
/// text is the part the user is working on.
pub(crate) fn tail_fit(s: &str, w: usize) -> String {
    if width_of(s) <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for ch in s.chars().rev() {
        let cw = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + cw > w - 1 {
            break;
        }
        kept.push(ch);
        used += cw;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}
