//! The rows: cell text, sorting, filtering, the process tree, the selection.

use super::{fmt_runtime, short_command, App, Column, Row};
use gpuledger_model::units::bytes_one_decimal;
use gpuledger_model::words;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

impl App {
    /// The text of a cell, as shown (and exported). Unknown values are `n/a`, never 0.
    pub fn cell_text(&self, row: &Row, col: Column) -> String {
        let p = self.process(row);
        let u = self.usage(row);
        let host = self.host.get(&p.pid);
        match col {
            Column::Device => self
                .device_of(row)
                .map(|d| d.index.to_string())
                .unwrap_or_else(|| words::UNKNOWN.into()),
            // A tagged process (Space) is marked where the eye looks for which process it is.
            Column::Pid if self.tagged.contains(&(p.pid, p.start_time)) => format!("*{}", p.pid),
            Column::Pid => p.pid.to_string(),
            Column::User => p.user.clone().unwrap_or_else(|| "n/a".into()),
            Column::Owner => p
                .owner
                .as_ref()
                .map(|o| o.label.clone())
                .unwrap_or_else(|| words::NOTHING.into()),
            Column::Name => p.name.clone().unwrap_or_else(|| "n/a".into()),
            // Not identified: unknown (`n/a`), not "nothing applies".
            Column::Workload => self.workload(p).unwrap_or_else(|| words::UNKNOWN.into()),
            Column::Type => u.kinds_label(),
            // One precision per column (`9.5 GiB`, `500.0 MiB`), the decimal points aligned.
            Column::Memory => u
                .memory_bytes
                .map(bytes_one_decimal)
                .unwrap_or_else(|| "n/a".into()),
            Column::Gpu => u
                .engines
                .sm_percent
                .map(|v| format!("{v}%"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Cpu => host
                .and_then(|h| h.cpu_percent)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Rss => host
                .and_then(|h| h.rss_bytes)
                .map(bytes_one_decimal)
                .unwrap_or_else(|| "n/a".into()),
            Column::HostMem => host
                .and_then(|h| h.mem_percent)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Time => self
                .run_secs(p)
                .map(fmt_runtime)
                .unwrap_or_else(|| "n/a".into()),
            Column::Command => p
                .cmdline
                .as_ref()
                .map(|c| c.join(" "))
                .or_else(|| p.exe.clone())
                .unwrap_or_else(|| "n/a".into()),
        }
    }

    /// The command as the table shows it: the program and the script it runs by their file
    /// names first ([`short_command`]); the whole line is in the details and the export.
    pub fn command_cell(&self, row: &Row) -> String {
        let p = self.process(row);
        match &p.cmdline {
            Some(c) if !c.is_empty() => short_command(c),
            _ => self.cell_text(row, Column::Command),
        }
    }

    pub(super) fn sort_value(&self, row: &Row, col: Column) -> SortVal {
        let p = self.process(row);
        let u = self.usage(row);
        let host = self.host.get(&p.pid);
        match col {
            Column::Device => SortVal::Num(self.device_of(row).map(|d| d.index as f64)),
            Column::Pid => SortVal::Num(Some(p.pid as f64)),
            Column::Memory => SortVal::Num(u.memory_bytes.map(|v| v as f64)),
            Column::Gpu => SortVal::Num(u.engines.sm_percent.map(f64::from)),
            Column::Cpu => SortVal::Num(host.and_then(|h| h.cpu_percent)),
            Column::Rss => SortVal::Num(host.and_then(|h| h.rss_bytes).map(|v| v as f64)),
            Column::HostMem => SortVal::Num(host.and_then(|h| h.mem_percent)),
            Column::Time => SortVal::Num(self.run_secs(p).map(|v| v as f64)),
            Column::User => SortVal::Text(p.user.as_ref().map(|s| s.to_lowercase())),
            Column::Owner => SortVal::Text(p.owner.as_ref().map(|o| o.label.to_lowercase())),
            Column::Name => SortVal::Text(p.name.as_ref().map(|s| s.to_lowercase())),
            Column::Workload => SortVal::Text(self.workload(p).map(|w| w.to_lowercase())),
            Column::Type => SortVal::Text(Some(u.kinds_label())),
            Column::Command => SortVal::Text(p.cmdline.as_ref().map(|c| c.join(" "))),
        }
    }

    /// Sort order: unknown values always last (whatever the direction), then PID and device.
    /// `va`, `vb`: the rows' values in the sort column.
    fn compare(&self, (va, a): (&SortVal, &Row), (vb, b): (&SortVal, &Row)) -> Ordering {
        let primary = match (va.is_known(), vb.is_known()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => Ordering::Equal,
            (true, true) => {
                let o = va.cmp(vb);
                if self.descending {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        primary
            .then_with(|| self.process(a).pid.cmp(&self.process(b).pid))
            .then_with(|| a.usage_idx.cmp(&b.usage_idx))
    }

    pub(super) fn matches(&self, row: &Row, needle: &str) -> bool {
        if needle.is_empty() {
            return true;
        }
        let hay = [
            Column::Pid,
            Column::User,
            Column::Owner,
            Column::Name,
            Column::Workload,
            Column::Command,
        ]
        .iter()
        .map(|&c| self.cell_text(row, c))
        .chain(self.device_of(row).map(|d| d.label()))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
        hay.contains(needle)
    }

    /// Rebuild the row list from the snapshot: filter, sort, tree; then find the selection again.
    pub fn rebuild(&mut self) {
        let Some(snap) = &self.snapshot else {
            self.rows.clear();
            return;
        };
        let mut rows: Vec<Row> = snap
            .processes
            .iter()
            .enumerate()
            .flat_map(|(pi, p)| {
                (0..p.usage.len()).map(move |ui| Row {
                    proc_idx: pi,
                    usage_idx: ui,
                    depth: 0,
                })
            })
            .collect();
        let needle = self.filter.to_lowercase();
        rows.retain(|r| self.matches(r, &needle));
        // Each row's value once (a text column lower-cases or joins per row), not per comparison.
        let mut keyed: Vec<(SortVal, Row)> = rows
            .into_iter()
            .map(|r| (self.sort_value(&r, self.sort), r))
            .collect();
        keyed.sort_by(|(va, a), (vb, b)| self.compare((va, a), (vb, b)));
        let mut rows: Vec<Row> = keyed.into_iter().map(|(_, r)| r).collect();
        if self.by_device {
            // Stable: the chosen order holds within each device.
            rows.sort_by_key(|r| self.device_of(r).map_or(u32::MAX, |d| d.index));
        }
        if self.tree {
            rows = self.treeify(rows);
        }
        self.rows = rows;
        self.reselect();
    }

    /// Children (by `ppid`) directly under their parent, each level in the current sort order.
    pub(super) fn treeify(&self, sorted: Vec<Row>) -> Vec<Row> {
        let snap = self.snapshot.as_ref().unwrap();
        // Groups of rows per PID, in sorted order of their first row.
        let mut order: Vec<u32> = Vec::new();
        let mut groups: HashMap<u32, Vec<Row>> = HashMap::new();
        for r in sorted {
            let pid = snap.processes[r.proc_idx].pid;
            groups
                .entry(pid)
                .or_insert_with(|| {
                    order.push(pid);
                    Vec::new()
                })
                .push(r);
        }
        let present: HashSet<u32> = order.iter().copied().collect();
        let ppids: HashMap<u32, Option<u32>> =
            snap.processes.iter().map(|p| (p.pid, p.ppid)).collect();
        let parent_of = |pid: u32| -> Option<u32> {
            ppids
                .get(&pid)
                .copied()
                .flatten()
                .filter(|pp| *pp != pid && present.contains(pp))
        };
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut roots = Vec::new();
        for &pid in &order {
            match parent_of(pid) {
                Some(pp) => children.entry(pp).or_default().push(pid),
                None => roots.push(pid),
            }
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        fn walk(
            pid: u32,
            depth: u16,
            groups: &HashMap<u32, Vec<Row>>,
            children: &HashMap<u32, Vec<u32>>,
            seen: &mut HashSet<u32>,
            out: &mut Vec<Row>,
        ) {
            if !seen.insert(pid) {
                return;
            }
            for r in &groups[&pid] {
                out.push(Row { depth, ..*r });
            }
            for &c in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
                walk(c, depth + 1, groups, children, seen, out);
            }
        }
        for &r in &roots {
            walk(r, 0, &groups, &children, &mut seen, &mut out);
        }
        // A ppid cycle has no root: show what is left flat rather than hide it.
        for &pid in &order {
            walk(pid, 0, &groups, &children, &mut seen, &mut out);
        }
        out
    }

    pub(super) fn reselect(&mut self) {
        if self.rows.is_empty() {
            self.selected = 0;
            return;
        }
        if let Some(key) = self.selected_key.clone() {
            let exact = self.rows.iter().position(|r| self.key_of(r) == key);
            let same_proc = || {
                self.rows.iter().position(|r| {
                    let p = self.process(r);
                    p.pid == key.pid && p.start_time == key.start_time
                })
            };
            if let Some(i) = exact.or_else(same_proc) {
                self.selected = i;
            }
        }
        self.selected = self.selected.min(self.rows.len() - 1);
        self.selected_key = Some(self.key_of(&self.rows[self.selected]));
    }

    pub(super) fn select(&mut self, i: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.selected = i.min(self.rows.len() - 1);
        self.selected_key = Some(self.key_of(&self.rows[self.selected]));
    }

    pub fn set_sort(&mut self, col: Column) {
        if self.sort == col {
            self.descending = !self.descending;
        } else {
            self.sort = col;
            self.descending = col.default_descending();
        }
        self.rebuild();
    }

    pub(super) fn cycle_sort(&mut self, forward: bool) {
        let n = Column::ALL.len();
        let i = self.sort.index();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.sort = Column::ALL[j];
        self.descending = self.sort.default_descending();
        self.rebuild();
    }

    // ---- keys --------------------------------------------------------------------------------
}

#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub(super) enum SortVal {
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
