//! Workload groups in tree mode (docs/DESIGN.md concept 7: a workload is the unit of "why"). A
//! workload of several processes (vLLM's API server → engine core → one worker per
//! tensor-parallel rank) is one row with its members' measured total, whatever holds the memory
//! (the server and the engine core hold none, so they are not GPU processes and had no row to
//! hang the workers under). `f` unfolds it to its members; T / K and the details on that row act
//! on the group's root, named with the group.

use super::{App, CellValue, Column, Confirm, Overlay, Row};
use crate::actions::Check;
use gpuledger_model::units::human_bytes;
use gpuledger_model::{GroupTotals, Process};
use std::collections::HashMap;

/// The workload root a process belongs to: itself when it is no group's member.
pub fn root_of(p: &Process) -> u32 {
    p.workload
        .as_ref()
        .and_then(|w| w.member.as_ref()?.root_pid)
        .unwrap_or(p.pid)
}

impl App {
    /// `rows` (in tree order) with each group of two or more processes replaced by its row at
    /// its first member's place, followed by its members one level down when unfolded.
    pub(super) fn fold_groups(&mut self, rows: Vec<Row>) -> Vec<Row> {
        let Some(snap) = &self.snapshot else {
            return rows;
        };
        let all: Vec<&Process> = snap.processes.iter().collect();
        let groups = gpuledger_model::Snapshot::group_totals(&all);
        let group_of: HashMap<u32, u32> = groups
            .iter()
            .flat_map(|g| g.members.iter().map(|&m| (m, g.root_pid)))
            .collect();
        let mut members: HashMap<u32, Vec<Row>> = HashMap::new();
        for r in &rows {
            if let Some(&root) = group_of.get(&snap.processes[r.proc_idx].pid) {
                members.entry(root).or_default().push(*r);
            }
        }
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let Some(&root) = group_of.get(&snap.processes[r.proc_idx].pid) else {
                out.push(r);
                continue;
            };
            // The first member seen stands for the group; its place is the group's.
            let Some(m) = members.remove(&root) else {
                continue;
            };
            out.push(Row {
                depth: 0,
                group: Some(root),
                ..r
            });
            if self.table.unfolded.contains(&root) {
                out.extend(m.into_iter().map(|r| Row { depth: 1, ..r }));
            }
        }
        self.table.groups = groups;
        out
    }

    /// The group whose root is `root`, as the last rebuild found it.
    pub fn group(&self, root: u32) -> Option<&GroupTotals> {
        self.table.groups.iter().find(|g| g.root_pid == root)
    }

    /// `f`: unfold the selected group to its members, or fold it back (from a member's row too).
    pub(super) fn toggle_group_fold(&mut self) {
        if !self.table.tree {
            self.message = Some(self.lang.t("tui-msg-fold-needs-tree"));
            return;
        }
        let Some(r) = self.selected_row().copied() else {
            return;
        };
        let root = r
            .group
            .or_else(|| {
                let root = root_of(self.process(&r));
                self.group(root).map(|g| g.root_pid)
            })
            .filter(|root| self.group(*root).is_some());
        let Some(root) = root else {
            self.message = Some(self.lang.t("tui-msg-nothing-to-unfold"));
            return;
        };
        if !self.table.unfolded.remove(&root) {
            self.table.unfolded.insert(root);
        }
        self.rebuild();
        // The selection stays on the group's row.
        if let Some(i) = self.table.rows.iter().position(|r| r.group == Some(root)) {
            self.select(i);
        }
    }

    /// A group row's cell where it is the group's, not its first member's; `None` for the
    /// columns the member stands in for (the user and owner they share).
    pub(super) fn group_cell(&self, root: u32, col: Column) -> Option<CellValue> {
        let g = self.group(root)?;
        let snap = self.snapshot.as_ref()?;
        Some(match col {
            Column::Pid => CellValue::Known(root.to_string()),
            Column::Name => CellValue::Known(format!(
                "{} {} processes",
                if self.table.unfolded.contains(&root) {
                    "▾"
                } else {
                    "▸"
                },
                g.members.len()
            )),
            Column::Workload => CellValue::Known(gpuledger_model::term_safe(&g.label).into_owned()),
            Column::Memory => g
                .measured_bytes
                .map_or(CellValue::Unknown, |b| CellValue::Known(human_bytes(b))),
            Column::Device => {
                let mut idx: Vec<u32> = snap
                    .processes
                    .iter()
                    .filter(|p| g.members.contains(&p.pid))
                    .flat_map(|p| &p.usage)
                    .filter_map(|u| snap.device_by_uuid(&u.device).map(|d| d.index))
                    .collect();
                idx.sort_unstable();
                idx.dedup();
                // `0-3` for a run (it fits the column), else each index.
                let run = idx.len() > 1 && idx.windows(2).all(|w| w[1] == w[0] + 1);
                CellValue::Known(match (run, idx.first(), idx.last()) {
                    (true, Some(a), Some(b)) => format!("{a}-{b}"),
                    _ => idx.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
                })
            }
            Column::User | Column::Owner => return None,
            _ => CellValue::Nothing,
        })
    }

    /// T / K on a group's row: the root is signalled (the runtime ends its members), the
    /// confirmation names the group, its members and their memory.
    pub(super) fn ask_terminate_group(&mut self, root: u32, force: bool) {
        let Some(g) = self.group(root).cloned() else {
            return;
        };
        let snap = self.snapshot.as_ref().unwrap();
        let root_proc = snap.processes.iter().find(|p| p.pid == root);
        let start_time = root_proc.and_then(|p| p.start_time);
        let name = self
            .lang
            .t_args("tui-group-root-name", &[("label", g.label.as_str().into())]);
        let warning = match self.terminator.check(root, start_time, &name) {
            Check::Allowed => None,
            Check::SecondConfirmation(why) => Some(why.in_lang(self.lang)),
            Check::Refused(why) => {
                let args = [
                    ("pid", root.to_string().into()),
                    ("name", name.as_str().into()),
                    ("why", why.in_lang(self.lang).into()),
                ];
                self.message = Some(self.lang.t_args("tui-msg-will-not-end", &args));
                return;
            }
        };
        let members: Vec<String> = snap
            .processes
            .iter()
            .filter(|p| g.members.contains(&p.pid))
            .map(|p| {
                let role = p
                    .workload
                    .as_ref()
                    .and_then(|w| w.member.as_ref())
                    .map_or("member".to_string(), |m| {
                        gpuledger_views::labels::role_label(&m.role, self.lang)
                    });
                format!("{} {role}", p.pid)
            })
            .collect();
        self.overlay = Overlay::Confirm(Confirm {
            pid: root,
            start_time,
            name,
            memory: self.lang.t_args(
                "tui-confirm-group-memory",
                &[
                    (
                        "bytes",
                        g.measured_bytes
                            .map_or(self.lang.t("tui-confirm-group-unknown"), human_bytes)
                            .into(),
                    ),
                    ("n", g.members.len().to_string().into()),
                ],
            ),
            detail: self.lang.t_args(
                "tui-confirm-group-detail",
                &[(
                    "members",
                    members
                        .join(self.lang.t("tui-list-separator").as_str())
                        .into(),
                )],
            ),
            force,
            warning,
            stage: 1,
            also: Vec::new(),
            tagged: false,
        });
    }
}
