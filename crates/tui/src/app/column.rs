//! The process table's columns, one spec each ([`COLUMNS`]): title, where it ranks when the
//! terminal is narrow, its width, alignment, first sort direction, what its cell shows, how it
//! sorts, and the export's column for it. Adding a column is a variant here, its spec row, and
//! the data it reads; the layout, header, cells, sorting and sort keys all read the spec.

use super::{fmt_runtime, short_command, App, Row};
use gpuledger_model::units::human_bytes;
use gpuledger_model::words;
use gpuledger_views::csv::col;
use std::cmp::Ordering;

/// Table columns, in display order (the order of [`COLUMNS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Device,
    Pid,
    User,
    /// Who the process belongs to: a pod, a Slurm job, a container, a systemd unit.
    Owner,
    Name,
    Workload,
    Type,
    Memory,
    Gpu,
    Cpu,
    Rss,
    /// RSS as a share of the host's RAM.
    HostMem,
    /// How long the process has run, at the snapshot's time.
    Time,
    Command,
}

/// One cell's value. Whether it is known is data, so the style (unknown is dim, never red)
/// is chosen from it, never by comparing the rendered text with `n/a`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellValue {
    Known(String),
    /// Could not be read: shown as `n/a`, its reason in the details.
    Unknown,
    /// Nothing applies (no owner beyond the user): shown as `—`.
    Nothing,
}

impl CellValue {
    pub fn text(&self) -> &str {
        match self {
            CellValue::Known(s) => s,
            CellValue::Unknown => words::UNKNOWN,
            CellValue::Nothing => words::NOTHING,
        }
    }

    pub fn is_known(&self) -> bool {
        matches!(self, CellValue::Known(_))
    }

    fn from_opt(v: Option<String>) -> CellValue {
        v.map_or(CellValue::Unknown, CellValue::Known)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Numbers: right-aligned under a right-aligned title, so the `%` ends where it ends.
    Right,
}

/// When the terminal is too narrow for every column, which are placed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// What answers "who and why": placed before anything else (at [`Width::narrow`] on a
    /// narrow terminal), then grown to its content.
    Essential,
    /// Placed after the essentials and the memory bar, lowest rank first, only whole, and only
    /// where `leave` cells remain after it (for the bar and COMMAND to grow).
    Optional { rank: u8, leave: u16 },
    /// Essential with several devices, optional at `rank` with one, absent with none.
    PerDevice { rank: u8 },
}

/// A column's width: its content's, kept within `min..=max`; an essential column shrinks to
/// `narrow` (at most) when the terminal is narrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    pub min: u16,
    pub max: u16,
    pub narrow: u16,
}

impl Width {
    const fn fixed(n: u16) -> Width {
        Width {
            min: n,
            max: n,
            narrow: n,
        }
    }
    const fn content(min: u16, max: u16) -> Width {
        Width {
            min,
            max,
            narrow: u16::MAX,
        }
    }
}

/// Where a column can have values at all; elsewhere it is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Always,
    /// Host CPU/RSS figures: not in a replay or a remote view.
    HostFigures,
    /// Some process has an owner that says more than its user (a pod, a job, a unit).
    SomeOwner,
}

/// Everything the table knows about one column.
pub struct ColumnSpec {
    pub column: Column,
    pub title: &'static str,
    pub priority: Priority,
    pub width: Width,
    pub align: Align,
    /// Sorts largest first on the first press (numbers); text sorts alphabetically.
    pub descending: bool,
    pub shown: Shown,
    /// What the cell shows; unknown values are [`CellValue::Unknown`], never 0.
    pub cell: fn(&App, &Row) -> CellValue,
    pub sort: fn(&App, &Row) -> SortVal,
    /// The column of the CSV export (`e`) that holds this value, where it has one.
    pub csv: Option<&'static str>,
}

/// Shorthands for the spec rows.
const fn optional(rank: u8) -> Priority {
    Priority::Optional { rank, leave: 0 }
}
fn num(v: Option<f64>) -> SortVal {
    SortVal::Num(v)
}
fn text(v: Option<&str>) -> SortVal {
    SortVal::Text(v.map(str::to_lowercase))
}

/// The columns, in display order.
pub const COLUMNS: [ColumnSpec; 14] = [
    ColumnSpec {
        column: Column::Device,
        title: "DEV",
        priority: Priority::PerDevice { rank: 4 },
        width: Width::fixed(3),
        align: Align::Right,
        descending: false,
        shown: Shown::Always,
        cell: |a, r| CellValue::from_opt(a.device_of(r).map(|d| d.index.to_string())),
        sort: |a, r| num(a.device_of(r).map(|d| d.index as f64)),
        csv: Some(col::DEVICE_INDEX),
    },
    ColumnSpec {
        column: Column::Pid,
        title: "PID",
        priority: Priority::Essential,
        width: Width::content(3, u16::MAX),
        align: Align::Right,
        descending: false,
        shown: Shown::Always,
        // A tagged process (Space) is marked where the eye looks for which process it is.
        cell: |a, r| {
            let p = a.process(r);
            let mark = if a.table.tagged.contains(&(p.pid, p.start_time)) {
                "*"
            } else {
                ""
            };
            CellValue::Known(format!("{mark}{}", p.pid))
        },
        sort: |a, r| num(Some(a.process(r).pid as f64)),
        csv: Some(col::PID),
    },
    ColumnSpec {
        column: Column::User,
        title: "USER",
        priority: optional(1),
        width: Width::content(4, 10),
        align: Align::Left,
        descending: false,
        shown: Shown::Always,
        cell: |a, r| CellValue::from_opt(a.process(r).user.clone()),
        sort: |a, r| text(a.process(r).user.as_deref()),
        csv: Some(col::USER),
    },
    ColumnSpec {
        column: Column::Owner,
        title: "OWNER",
        priority: optional(2),
        // `pod 3f2a1b9c…/ctr 9b1c0d2e…` is 27.
        width: Width::content(5, 28),
        align: Align::Left,
        descending: false,
        shown: Shown::SomeOwner,
        cell: |a, r| match &a.process(r).owner {
            Some(o) => CellValue::Known(o.label.clone()),
            None => CellValue::Nothing,
        },
        sort: |a, r| text(a.process(r).owner.as_ref().map(|o| o.label.as_str())),
        csv: Some(col::OWNER),
    },
    ColumnSpec {
        column: Column::Name,
        title: "NAME",
        priority: Priority::Essential,
        width: Width {
            min: 4,
            max: 20,
            narrow: 8,
        },
        align: Align::Left,
        descending: false,
        shown: Shown::Always,
        cell: |a, r| CellValue::from_opt(a.process(r).name.clone()),
        sort: |a, r| text(a.process(r).name.as_deref()),
        csv: Some(col::NAME),
    },
    ColumnSpec {
        column: Column::Workload,
        title: "WORKLOAD",
        priority: Priority::Essential,
        // `llama.cpp · Qwen3-8B-Q4_K_M` is 27.
        width: Width {
            min: 8,
            max: WORKLOAD_MAX,
            narrow: 10,
        },
        align: Align::Left,
        descending: false,
        shown: Shown::Always,
        // Not identified: unknown (`n/a`), not "nothing applies".
        // Its kind in the reader's language where it is a word (`browser`), not a product name.
        cell: |a, r| {
            CellValue::from_opt(
                a.process(r)
                    .workload
                    .as_ref()
                    .map(|w| workload_cell(w, a.lang)),
            )
        },
        sort: |a, r| text(a.workload(a.process(r)).as_deref()),
        csv: Some(col::WORKLOAD),
    },
    ColumnSpec {
        column: Column::Type,
        title: "TYPE",
        priority: optional(3),
        width: Width::fixed(4),
        align: Align::Left,
        descending: false,
        shown: Shown::Always,
        cell: |a, r| CellValue::Known(a.usage(r).kinds_label()),
        sort: |a, r| SortVal::Text(Some(a.usage(r).kinds_label())),
        csv: Some(col::TYPE),
    },
    ColumnSpec {
        column: Column::Memory,
        title: "GPU MEM",
        priority: Priority::Essential,
        width: Width::content(7, u16::MAX),
        // The bar first, then the byte label right-aligned in its own width (`ui::table`).
        align: Align::Left,
        descending: true,
        shown: Shown::Always,
        // The views' one byte formatting (`8.38 GiB`, `16 GiB`, `455 MiB`): the same figure as
        // `snapshot`, `explain` and the cards write; right-aligned, so the units line up.
        cell: |a, r| CellValue::from_opt(a.usage(r).memory_bytes.map(human_bytes)),
        sort: |a, r| num(a.usage(r).memory_bytes.map(|v| v as f64)),
        csv: Some(col::MEMORY_BYTES),
    },
    ColumnSpec {
        column: Column::Gpu,
        // The process's share of the GPU: SM%, as the snapshot table names it.
        title: "SM%",
        priority: Priority::Essential,
        width: Width::content(4, u16::MAX),
        align: Align::Right,
        descending: true,
        shown: Shown::Always,
        cell: |a, r| CellValue::from_opt(a.usage(r).engines.sm_percent.map(|v| format!("{v}%"))),
        sort: |a, r| num(a.usage(r).engines.sm_percent.map(f64::from)),
        csv: Some(col::SM_PERCENT),
    },
    ColumnSpec {
        column: Column::Cpu,
        title: "CPU%",
        priority: optional(6),
        width: Width::fixed(5),
        align: Align::Right,
        descending: true,
        shown: Shown::HostFigures,
        cell: |a, r| {
            CellValue::from_opt(
                a.host_of(r)
                    .and_then(|h| h.cpu_percent)
                    .map(|v| format!("{v:.1}")),
            )
        },
        sort: |a, r| num(a.host_of(r).and_then(|h| h.cpu_percent)),
        csv: Some(col::CPU_PERCENT),
    },
    ColumnSpec {
        column: Column::Rss,
        title: "RSS",
        priority: optional(7),
        width: Width::content(5, u16::MAX),
        align: Align::Right,
        descending: true,
        shown: Shown::HostFigures,
        cell: |a, r| CellValue::from_opt(a.host_of(r).and_then(|h| h.rss_bytes).map(human_bytes)),
        sort: |a, r| num(a.host_of(r).and_then(|h| h.rss_bytes).map(|v| v as f64)),
        csv: Some(col::RSS_BYTES),
    },
    ColumnSpec {
        column: Column::HostMem,
        title: "RAM%",
        priority: Priority::Optional { rank: 8, leave: 21 },
        width: Width::fixed(5),
        align: Align::Right,
        descending: true,
        shown: Shown::HostFigures,
        cell: |a, r| {
            CellValue::from_opt(
                a.host_of(r)
                    .and_then(|h| h.mem_percent)
                    .map(|v| format!("{v:.1}")),
            )
        },
        sort: |a, r| num(a.host_of(r).and_then(|h| h.mem_percent)),
        csv: None,
    },
    ColumnSpec {
        column: Column::Time,
        title: "TIME",
        priority: Priority::Optional { rank: 9, leave: 21 },
        width: Width::content(4, u16::MAX),
        align: Align::Right,
        descending: true,
        shown: Shown::Always,
        cell: |a, r| CellValue::from_opt(a.run_secs(a.process(r)).map(fmt_runtime)),
        sort: |a, r| num(a.run_secs(a.process(r)).map(|v| v as f64)),
        csv: None,
    },
    ColumnSpec {
        column: Column::Command,
        title: "COMMAND",
        // At least 12 cells; the width left over goes here (`ui::table`).
        priority: optional(5),
        width: Width::fixed(12),
        align: Align::Left,
        descending: false,
        shown: Shown::Always,
        // The program and the script it runs by their file names first; the whole line is
        // in the details and the export.
        cell: |a, r| match &a.process(r).cmdline {
            Some(c) if !c.is_empty() => CellValue::Known(short_command(c)),
            _ => CellValue::from_opt(a.command_line(r)),
        },
        sort: |a, r| SortVal::Text(a.process(r).cmdline.as_ref().map(|c| c.join(" "))),
        csv: Some(col::COMMAND),
    },
];

impl Column {
    /// The columns in display order.
    pub fn all() -> impl Iterator<Item = Column> {
        COLUMNS.iter().map(|s| s.column)
    }

    pub fn spec(self) -> &'static ColumnSpec {
        &COLUMNS[self as usize]
    }

    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// The header in `lang` (English: [`Column::title`]).
    pub fn title_in(self, lang: gpuledger_lang::Lang) -> String {
        lang.t(match self {
            Column::Device => "tui-col-dev",
            Column::Pid => "tui-col-pid",
            Column::User => "tui-col-user",
            Column::Owner => "tui-col-owner",
            Column::Name => "tui-col-name",
            Column::Workload => "tui-col-workload",
            Column::Type => "tui-col-type",
            Column::Memory => "tui-col-memory",
            Column::Gpu => "tui-col-sm",
            Column::Cpu => "tui-col-cpu",
            Column::Rss => "tui-col-rss",
            Column::HostMem => "tui-col-ram",
            Column::Time => "tui-col-time",
            Column::Command => "tui-col-command",
        })
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum SortVal {
    Num(Option<f64>),
    Text(Option<String>),
}

impl SortVal {
    pub(super) fn is_known(&self) -> bool {
        match self {
            SortVal::Num(v) => v.is_some(),
            SortVal::Text(v) => v.is_some(),
        }
    }

    pub(super) fn cmp(&self, other: &SortVal) -> Ordering {
        self.partial_cmp(other).unwrap_or(Ordering::Equal)
    }
}

/// The workload column's widest.
const WORKLOAD_MAX: u16 = 40;

/// The workload cell: its label, the model's part cut (`…`) so that the whole fits
/// [`WORKLOAD_MAX`] and a member's role (`· runner`, `· rpc device`, `· worker TP1/2`) stays in
/// sight; a label cut at its end lost exactly that (`llama.cpp · sha256-6a0746a1ec1aef3e7ec5…`).
fn workload_cell(w: &gpuledger_model::Workload, lang: gpuledger_lang::Lang) -> String {
    use gpuledger_views::columns::display_width;
    let full = gpuledger_views::labels::workload_label(w, lang);
    let max = usize::from(WORKLOAD_MAX);
    let Some(m) = w.member.as_ref().filter(|_| display_width(&full) > max) else {
        return full;
    };
    let tail = format!(" · {}", gpuledger_views::labels::role_label(&m.role, lang));
    let head = full.strip_suffix(&tail).unwrap_or(&full);
    let room = max.saturating_sub(display_width(&tail) + 1);
    let mut cut = String::new();
    for ch in head.chars() {
        if display_width(&cut) + display_width(ch.encode_utf8(&mut [0; 4])) > room {
            break;
        }
        cut.push(ch);
    }
    format!("{}…{tail}", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_headers_are_the_specs_titles() {
        for c in Column::all() {
            assert_eq!(c.title_in(gpuledger_lang::Lang::En), c.title());
        }
    }

    #[test]
    fn specs_are_in_the_enum_order() {
        for (i, s) in COLUMNS.iter().enumerate() {
            assert_eq!(s.column as usize, i, "{}", s.title);
        }
    }

    #[test]
    fn csv_names_are_columns_of_the_export() {
        use gpuledger_views::csv::{SNAPSHOT_HEADER, VIEW_EXTRA};
        for s in COLUMNS.iter() {
            if let Some(name) = s.csv {
                assert!(
                    SNAPSHOT_HEADER.contains(&name) || VIEW_EXTRA.contains(&name),
                    "{}: {name}",
                    s.title
                );
            }
        }
    }

    #[test]
    fn cell_text_follows_what_is_known() {
        assert_eq!(CellValue::Known("n/a".into()).text(), "n/a");
        assert!(CellValue::Known("n/a".into()).is_known());
        assert!(!CellValue::Unknown.is_known());
        assert_eq!(CellValue::Nothing.text(), words::NOTHING);
    }

    /// A member's role survives a long model name (an Ollama blob); a label that fits is whole.
    #[test]
    fn the_workload_cell_keeps_a_members_role() {
        use gpuledger_model::{Confidence, Member, Workload, WorkloadKind};
        use gpuledger_views::columns::display_width;
        let mut w = Workload {
            kind: WorkloadKind::LlamaCpp,
            model: Some(
                "/m/blobs/sha256-6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa"
                    .into(),
            ),
            model_name: None,
            confidence: Confidence::High,
            evidence: vec![],
            missing: vec![],
            member: Some(Member {
                root_pid: Some(1),
                role: "rpc device".into(),
                role_kind: gpuledger_model::RoleKind::RpcDevice,
                evidence: Default::default(),
            }),
        };
        let cell = workload_cell(&w, gpuledger_lang::Lang::En);
        assert_eq!(cell, "llama.cpp · sha256-6a0746a… · rpc device");
        assert_eq!(display_width(&cell), usize::from(WORKLOAD_MAX));
        w.model = Some("/m/Qwen3-8B.gguf".into());
        assert_eq!(
            workload_cell(&w, gpuledger_lang::Lang::En),
            "llama.cpp · Qwen3-8B · rpc device"
        );
        w.member = None;
        w.model = Some(format!("/m/{}.gguf", "x".repeat(60)));
        assert_eq!(workload_cell(&w, gpuledger_lang::Lang::En), w.short_label());
    }
}
