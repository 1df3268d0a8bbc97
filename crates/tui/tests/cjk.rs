//! The live view in Chinese (issue 39): process, user and model names in CJK take two cells a
//! character. Every column starts where its header does on every row, nothing runs into the
//! next column or past the screen, no wide character is cut in half, at 80×24 and 120×40, in
//! Simplified and Traditional Chinese.

use gpuledger_lang::Lang;
use gpuledger_tui::app::{Column, Geometry};
use gpuledger_tui::{App, ThemeKind};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

mod support;
use support::sample;

const SERVER: &str = "通义千问推理服务器";
const TRAINER: &str = "大规模分布式训练脚本第二版";
const MODEL: &str = "/models/通义千问-7B-Chat.gguf";

/// The README's sample machine with a CJK user, two CJK process names and a CJK model file.
fn cjk_snapshot() -> gpuledger_model::Snapshot {
    let mut snap = sample();
    for p in &mut snap.processes {
        match p.pid {
            4242 => {
                p.name = Some(SERVER.into());
                p.user = Some("张三".into());
                if let Some(w) = p.workload.as_mut() {
                    std::sync::Arc::make_mut(w).model = Some(MODEL.into());
                }
            }
            5151 => {
                p.name = Some(TRAINER.into());
                p.user = Some("李四".into());
            }
            _ => {}
        }
    }
    snap
}

fn live(lang: Lang, t0: Instant) -> App {
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    app.lang = lang;
    app.apply(support::round(cjk_snapshot()), t0);
    app
}

fn draw(app: &mut App, w: u16, h: u16, t0: Instant) -> (Buffer, Geometry) {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut drawn = None;
    term.draw(|f| drawn = Some(gpuledger_tui::ui::draw(f, app, t0)))
        .unwrap();
    let g = drawn.unwrap();
    app.geometry = g.clone();
    (term.backend().buffer().clone(), g)
}

/// Cells `x0..x1` of row `y` as a terminal shows them: a wide character's second cell is part
/// of the character, not a character of its own.
fn text(buf: &Buffer, y: u16, x0: u16, x1: u16) -> String {
    let mut out = String::new();
    let mut covered = 0;
    for x in 0..x1 {
        let sym = buf[(x, y)].symbol();
        if covered > 0 {
            covered -= 1;
            continue;
        }
        covered = sym.width().saturating_sub(1);
        if x >= x0 {
            out.push_str(sym);
        }
    }
    out
}

/// Whether the cell at `x` is the second half of a wide character that starts left of it.
fn covered(buf: &Buffer, x: u16, y: u16) -> bool {
    x > 0 && buf[(x - 1, y)].symbol().width() > 1
}

/// A cell's text is the value whole, or its start cut with `…`.
fn whole_or_cut(cell: &str, value: &str) -> bool {
    let cell = cell.trim_end();
    cell == value
        || cell
            .strip_suffix('…')
            .is_some_and(|head| !head.is_empty() && value.starts_with(head))
}

#[test]
fn chinese_columns_line_up_by_display_width_at_80x24_and_120x40() {
    let t0 = Instant::now();
    let cases = [
        (Lang::ZhCn, ["名称", "显存", "q 退出"]),
        (Lang::ZhTw, ["名稱", "記憶體", "q 離開"]),
    ];
    for (lang, words) in cases {
        for (w, h) in [(80u16, 24u16), (120, 40)] {
            let mut app = live(lang, t0);
            let (buf, g) = draw(&mut app, w, h, t0);
            let screen: String = (0..h).map(|y| text(&buf, y, 0, w) + "\n").collect();
            let at = format!("{lang} {w}x{h}:\n{screen}");
            let hy = g.header_y.expect("a table header");
            let header = text(&buf, hy, 0, w);
            assert!(
                header.contains(words[0]) && header.contains(words[1]),
                "{at}"
            );
            assert!(!header.contains("NAME") && !header.contains("USER"), "{at}");
            assert!(screen.contains(words[2]), "the footer's keys: {at}");
            // Nothing runs past the right edge: a wide character never starts in the last cell.
            for y in 0..h {
                assert!(buf[(w - 1, y)].symbol().width() < 2, "row {y}: {at}");
            }
            let cols = &g.header_cells;
            assert!(cols.iter().any(|c| c.2 == Column::Name), "{at}");
            // Every header whole: a column is never narrower than its translated title.
            for &(x0, x1, c) in cols {
                let title = c.title_in(lang);
                assert!(text(&buf, hy, x0, x1).contains(&title), "{title}: {at}");
            }
            let rows = g.body_rows.min(app.table.rows.len()) as u16;
            assert!(rows >= 6, "every process has its row: {at}");
            let mut saw_server = false;
            for y in g.body_y..g.body_y + rows {
                let row = app.table.rows[(y - g.body_y) as usize];
                let p = app.process(&row).clone();
                for &(x0, x1, c) in cols {
                    // The column starts in its header's cell: the separator before it is a blank
                    // cell of its own, not the half of a wide character from the column before.
                    if x0 > 0 {
                        assert!(!covered(&buf, x0, y), "{c:?} at {x0}, row {y}: {at}");
                        assert_eq!(buf[(x0 - 1, y)].symbol(), " ", "{c:?} row {y}: {at}");
                    }
                    let cell = text(&buf, y, x0, x1);
                    assert!(
                        cell.width() <= usize::from(x1 - x0),
                        "{c:?}: {cell:?}: {at}"
                    );
                    let want = match c {
                        Column::Name => p.name.clone(),
                        Column::User => p.user.clone(),
                        _ => None,
                    };
                    if let Some(v) = want {
                        assert!(whole_or_cut(&cell, &v), "{c:?} {cell:?} for {v:?}: {at}");
                    }
                    if c == Column::Pid {
                        // Right-aligned: the digits end at the column's last cell.
                        assert!(cell.ends_with(&p.pid.to_string()), "{cell:?}: {at}");
                    }
                    if c == Column::Name && p.pid == 4242 {
                        saw_server = cell.starts_with("通义");
                    }
                    if c == Column::Workload && p.pid == 4242 {
                        assert!(
                            cell.contains("通义"),
                            "the model's CJK name: {cell:?}: {at}"
                        );
                    }
                }
            }
            assert!(saw_server, "{at}");
        }
    }
}

#[test]
fn chinese_cards_help_and_ledger_labels_align() {
    let t0 = Instant::now();
    let mut app = live(Lang::ZhCn, t0);
    let (buf, _) = draw(&mut app, 120, 40, t0);
    let screen: String = (0..40).map(|y| text(&buf, y, 0, 120) + "\n").collect();
    assert!(
        screen.contains("显存 "),
        "the card's memory line:\n{screen}"
    );
    assert!(screen.contains("进程 "), "the card's books:\n{screen}");
    // The ESTIMATE pane of the llama-server row: labels in ten columns by display width, so
    // the figures end in one column whatever the label's script.
    let i = app
        .table
        .rows
        .iter()
        .position(|r| app.process(r).pid == 4242)
        .unwrap();
    app.table.selected = i;
    app.handle_key(
        ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Enter),
        t0,
    );
    let (buf, _) = draw(&mut app, 120, 40, t0);
    let lines: Vec<String> = (0..40).map(|y| text(&buf, y, 0, 120)).collect();
    let all = lines.join("\n");
    assert!(all.contains("估算（计算所得，不是实测）"), "{all}");
    let end_of_figure = |label: &str| -> usize {
        let l = lines
            .iter()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("{label}:\n{all}"));
        let start = l.find(label).unwrap();
        let after = &l[start..];
        // The figure ends at its unit (`GiB` / `MiB`).
        let unit = after.find("iB").unwrap_or_else(|| panic!("{label}: {l}"));
        l[..start].width() + after[..unit + 2].width()
    };
    let weights = end_of_figure("权重");
    assert_eq!(end_of_figure("KV 缓存"), weights, "{all}");
    assert_eq!(end_of_figure("GPU 合计"), weights, "{all}");
    // The help in Traditional Chinese fits 80×24 with its title.
    let mut app = live(Lang::ZhTw, t0);
    app.handle_key(support::key('?'), t0);
    let (buf, _) = draw(&mut app, 80, 24, t0);
    let screen: String = (0..24).map(|y| text(&buf, y, 0, 80) + "\n").collect();
    assert!(screen.contains("說明 — 按 ? F1 或 Esc 關閉"), "{screen}");
    assert!(screen.contains("n/a = 未知，絕不是 0"), "{screen}");
}

/// The character that starts at display column `col` of `line` (`None` inside a wide one).
fn at_column(line: &str, col: usize) -> Option<char> {
    let mut x = 0;
    for c in line.chars() {
        if x == col {
            return Some(c);
        }
        x += c.to_string().width();
        if x > col {
            return None;
        }
    }
    None
}

#[test]
fn chinese_filter_prompt_and_kill_confirmation_stay_in_their_box() {
    let t0 = Instant::now();
    let mut app = live(Lang::ZhCn, t0);
    app.handle_key(support::key('/'), t0);
    for c in "通义千问".chars() {
        app.handle_key(support::key(c), t0);
    }
    let (buf, _) = draw(&mut app, 80, 24, t0);
    let footer = text(&buf, 23, 0, 80);
    assert!(
        footer.starts_with(" 筛选： 通义千问█  Enter 保留 · Esc 清除"),
        "{footer:?}"
    );
    assert_eq!(app.table.rows.len(), 1, "only the server matches");
    app.handle_key(
        ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Enter),
        t0,
    );
    // K on the CJK row: the question names it whole, inside the box's borders.
    app.handle_key(support::key('K'), t0);
    let (buf, _) = draw(&mut app, 80, 24, t0);
    let lines: Vec<String> = (0..24).map(|y| text(&buf, y, 0, 80)).collect();
    let all = lines.join("\n");
    let top = lines
        .iter()
        .find(|l| l.contains("┌ 强制终止 "))
        .unwrap_or_else(|| panic!("{all}"));
    // The box's corners, in display columns.
    let start = top.find("┌ 强制终止 ").unwrap();
    let left = top[..start].width();
    let right = left + top[start..][..top[start..].find('┐').unwrap()].width();
    assert_eq!(at_column(top, right), Some('┐'), "{all}");
    for want in [
        format!("强制终止 PID 4242（{SERVER}）？"),
        "用户 张三".to_string(),
        "y = 是，其他任意键 = 否".to_string(),
    ] {
        let l = lines
            .iter()
            .find(|l| l.contains(&want))
            .unwrap_or_else(|| panic!("{want}:\n{all}"));
        // The line's text between the box's borders, at the border's display columns.
        assert_eq!(at_column(l, left), Some('│'), "{want}:\n{all}");
        assert_eq!(at_column(l, right), Some('│'), "{want}:\n{all}");
    }
}

#[test]
fn no_gpu_hint_in_chinese_is_said_once_and_wraps_whole() {
    let t0 = Instant::now();
    let mut snap = sample();
    snap.devices.clear();
    snap.processes.clear();
    // The sources' own note (English, data) is not repeated under the cards' line.
    snap.notes = vec!["no GPU found by any source (see `gpuledger selftest`)".into()];
    for (lang, said) in [(Lang::ZhCn, "未找到 GPU"), (Lang::ZhTw, "找不到 GPU")] {
        for (w, h) in [(80u16, 24u16), (120, 40)] {
            let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
            app.lang = lang;
            app.apply(support::round(snap.clone()), t0);
            let (buf, _) = draw(&mut app, w, h, t0);
            let screen: String = (0..h).map(|y| text(&buf, y, 0, w) + "\n").collect();
            assert_eq!(screen.matches(said).count(), 1, "{lang} {w}x{h}:\n{screen}");
            assert!(
                !screen.contains("no GPU found"),
                "{lang} {w}x{h}:\n{screen}"
            );
            let flat: String = screen.split_whitespace().collect();
            assert!(
                flat.contains("gpuledger--replayexamples/sample-snapshot.json"),
                "{lang} {w}x{h}:\n{screen}"
            );
        }
    }
}
