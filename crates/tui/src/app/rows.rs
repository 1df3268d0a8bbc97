//! The rows: cell text, sorting, filtering, the process tree, the selection.

use super::{App, CellValue, Column, Row, SortVal, COLUMNS};
use gpuledger_model::words;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

impl App {
    /// A cell's value, from its column's spec: known, unknown (`n/a`), or nothing applies.
    pub fn cell(&self, row: &Row, col: Column) -> CellValue {
        if let Some(v) = row.group.and_then(|root| self.group_cell(root, col)) {
            return v;
        }
        (col.spec().cell)(self, row)
    }

    /// The text of a cell, as shown. Unknown values are `n/a`, never 0.
    pub fn cell_text(&self, row: &Row, col: Column) -> String {
        self.cell(row, col).text().to_string()
    }

    pub(super) fn sort_value(&self, row: &Row, col: Column) -> SortVal {
        (col.spec().sort)(self, row)
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
                if self.table.descending {
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
        // The whole command line, not the shortened one the table shows.
        let hay = [
            Column::Pid,
            Column::User,
            Column::Owner,
            Column::Name,
            Column::Workload,
        ]
        .iter()
        .map(|&c| self.cell_text(row, c))
        .chain(Some(
            self.command_line(row)
                .unwrap_or_else(|| words::UNKNOWN.into()),
        ))
        .chain(self.device_of(row).map(|d| d.label()))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
        hay.contains(needle)
    }

    /// Rebuild the row list from the snapshot: filter, sort, tree; then find the selection again.
    pub fn rebuild(&mut self) {
        let Some(snap) = &self.snapshot else {
            self.table.rows.clear();
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
                    group: None,
                })
            })
            .collect();
        let needle = self.table.filter.to_lowercase();
        rows.retain(|r| self.matches(r, &needle));
        // Each row's value once (a text column lower-cases or joins per row), not per comparison.
        let mut keyed: Vec<(SortVal, Row)> = rows
            .into_iter()
            .map(|r| (self.sort_value(&r, self.table.sort), r))
            .collect();
        keyed.sort_by(|(va, a), (vb, b)| self.compare((va, a), (vb, b)));
        let mut rows: Vec<Row> = keyed.into_iter().map(|(_, r)| r).collect();
        if self.table.by_device {
            // Stable: the chosen order holds within each device.
            rows.sort_by_key(|r| self.device_of(r).map_or(u32::MAX, |d| d.index));
        }
        if self.table.tree {
            rows = self.treeify(rows);
            rows = self.fold_groups(rows);
        } else {
            self.table.groups.clear();
        }
        self.table.rows = rows;
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
        if self.table.rows.is_empty() {
            self.table.selected = 0;
            return;
        }
        if let Some(key) = self.table.selected_key.clone() {
            let exact = self.table.rows.iter().position(|r| self.key_of(r) == key);
            let same_proc = || {
                self.table.rows.iter().position(|r| {
                    let p = self.process(r);
                    p.pid == key.pid && p.start_time == key.start_time
                })
            };
            if let Some(i) = exact.or_else(same_proc) {
                self.table.selected = i;
            }
        }
        self.table.selected = self.table.selected.min(self.table.rows.len() - 1);
        self.table.selected_key = Some(self.key_of(&self.table.rows[self.table.selected]));
    }

    pub(super) fn select(&mut self, i: usize) {
        if self.table.rows.is_empty() {
            return;
        }
        self.table.selected = i.min(self.table.rows.len() - 1);
        self.table.selected_key = Some(self.key_of(&self.table.rows[self.table.selected]));
    }

    pub fn set_sort(&mut self, col: Column) {
        if self.table.sort == col {
            self.table.descending = !self.table.descending;
        } else {
            self.table.sort = col;
            self.table.descending = col.spec().descending;
        }
        self.rebuild();
    }

    pub(super) fn cycle_sort(&mut self, forward: bool) {
        let n = COLUMNS.len();
        let i = self.table.sort.index();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.table.sort = COLUMNS[j].column;
        self.table.descending = COLUMNS[j].descending;
        self.rebuild();
    }
}
