//! Drawing: a pure function of the [`App`] that returns where it put things ([`Geometry`], for
//! mouse hits and paging); the terminal loop hands that back to the app. One module per pane.

use crate::app::{App, Geometry, Overlay};
use ratatui::layout::{Constraint, Layout};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::time::Instant;

mod cards;
mod chart;
mod details;
mod footer;
mod table;
mod text;
mod title;
use self::cards::{draw_cards, CARD_HEIGHT, CARD_MIN_WIDTH};
use self::chart::draw_bottom;
pub use self::chart::{chart_legend, memory_axis_top, nice_ceiling, LegendItem};
pub use self::details::{estimate_lines, evidence_lines, measured_lines};
use self::footer::{draw_footer, draw_overlay};
pub use self::footer::{prompt_line, HELP, HELP_NOTES};
use self::table::draw_table;
pub use self::table::{layout_columns, TableLayout};
pub use self::text::{bar, fit, width_of};
use self::title::draw_title;
pub use self::title::{fit_words, notes};

/// Below this size the cards become one line per device and the bottom panes are hidden,
/// unless a short table leaves them [`BOTTOM_MIN`] rows (80 columns or more; see [`draw`]).
pub const COMPACT_BELOW: (u16, u16) = (100, 32);
/// The fewest rows worth giving the bottom panes: a bordered chart with its legend and a few
/// rows of plot, the ledger pane's first lines (at 80×24 the sample's six processes leave 11).
pub const BOTTOM_MIN: u16 = 9;
/// The fewest rows for the estimate pane alone (its border and two lines), drawn where the
/// table leaves fewer than [`BOTTOM_MIN`] (at 80×24 nine processes left eight blank rows).
pub const BOTTOM_MIN_SHORT: u16 = 4;

/// The cards' rows: one line per device when compact, else bordered cards (at most a third
/// of the screen); without devices one line, two when nothing at all was found (the line says
/// what to try, which wraps on a narrow terminal).
fn cards_height(area: ratatui::layout::Rect, ndev: u16, compact: bool, nothing: bool) -> u16 {
    if ndev == 0 {
        if nothing && area.width < 110 {
            2
        } else {
            1
        }
    } else if compact {
        ndev.min((area.height / 4).max(1))
    } else {
        let per_row = (area.width / CARD_MIN_WIDTH).clamp(1, ndev);
        let rows = ndev.div_ceil(per_row);
        (rows * CARD_HEIGHT).min(area.height / 3)
    }
}

/// A message longer than the line (an export's full path) gets a second row, not a cut.
fn footer_height(app: &App, area: ratatui::layout::Rect) -> u16 {
    match &app.message {
        Some(m)
            if app.overlay == Overlay::None
                && !app.table.filter_editing
                && width_of(m) > area.width as usize
                && area.height >= 10 =>
        {
            2
        }
        _ => 1,
    }
}

pub fn draw(f: &mut Frame, app: &App, now: Instant) -> Geometry {
    let area = f.area();
    let compact = area.width < COMPACT_BELOW.0 || area.height < COMPACT_BELOW.1;
    let ndev = app.snapshot.as_ref().map_or(0, |s| s.devices.len()) as u16;

    // Nothing to show at all (no device, no process): the rows go to saying why, not to empty
    // panes.
    let nothing = app
        .snapshot
        .as_ref()
        .is_some_and(|s| s.devices.is_empty() && s.processes.is_empty());
    let cards_h = cards_height(area, ndev, compact, nothing);
    let notes = notes(app, now);
    // Compact: as many note lines as the table leaves free (at least one, at most three).
    let table_wants = app.table.rows.len().max(1) as u16 + 1;
    let spare = area.height.saturating_sub(1 + cards_h + table_wants + 2);
    let notes_h = if nothing {
        (notes.len() as u16).min(spare.max(1))
    } else {
        (notes.len() as u16).min(if compact { spare.clamp(1, 3) } else { 3 })
    };
    let footer_h = footer_height(app, area);
    // The bottom panes take the rows the table does not need (their text wraps; blank rows
    // under a short table helped nobody), never less than their usual share. In the compact
    // layout they show only in rows a short table leaves (at 100×30 six processes left 18
    // blank rows, at 80×24 four left 15), and never at the cost of a table row.
    let left = area
        .height
        .saturating_sub(1 + cards_h + notes_h + table_wants.max(3) + footer_h + 1);
    let bottom_h = if nothing {
        0
    } else if !compact && area.height >= 36 {
        let usual = (area.height * 2 / 5).clamp(12, 26);
        usual.max(left)
    } else if area.width >= 80 && left >= BOTTOM_MIN_SHORT {
        // Fewer rows than the chart needs still hold the estimate pane (chart::draw_bottom).
        left
    } else {
        0
    };
    let [title, cards, notes_area, table, bottom, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(cards_h),
        Constraint::Length(notes_h),
        Constraint::Min(3),
        Constraint::Length(bottom_h),
        Constraint::Length(footer_h),
    ])
    .areas(area);

    draw_title(f, app, title, now);
    draw_cards(f, app, cards, compact);
    let lines: Vec<Line> = notes
        .into_iter()
        .take(notes_h as usize)
        .map(|(s, warn)| {
            Line::styled(
                fit_words(&s, area.width as usize),
                if warn { app.theme.warn } else { app.theme.dim },
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines), notes_area);
    let mut geometry = draw_table(f, app, table);
    if bottom_h > 0 {
        draw_bottom(f, app, bottom, now);
    }
    draw_footer(f, app, footer);
    (geometry.details_max, geometry.details_page) = draw_overlay(f, app, area);
    geometry
}
