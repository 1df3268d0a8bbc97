//! The process table's state: its rows as shown, the selection, sort, filter, tree, tags and
//! sideways scroll. The rows are rebuilt from the snapshot by `App::rebuild`.

use super::{Column, Row, RowKey};
use std::collections::BTreeSet;

pub struct ProcessTable {
    /// The rows as shown: filtered, sorted, in tree order when `tree`.
    pub rows: Vec<Row>,
    pub selected: usize,
    /// What the selection is, so that it follows its process when the order moves.
    pub(super) selected_key: Option<RowKey>,
    pub sort: Column,
    pub descending: bool,
    pub filter: String,
    pub filter_editing: bool,
    pub tree: bool,
    /// Rows grouped per GPU (as nvitop lists them), the sort applying within each device.
    pub by_device: bool,
    /// Processes tagged with Space (pid, start time): T/K act on all of them.
    pub tagged: BTreeSet<(u32, Option<u64>)>,
    /// How many cells the rows are scrolled to the left (h / l), as nvitop scrolls its rows:
    /// the whole row moves and the rest of the command lines comes into view.
    pub row_scroll: u16,
    /// Tree view: the workload groups of the last rebuild, and those unfolded (root PIDs).
    pub groups: Vec<gpuledger_model::GroupTotals>,
    pub unfolded: BTreeSet<u32>,
}

impl Default for ProcessTable {
    /// Largest GPU memory first.
    fn default() -> ProcessTable {
        ProcessTable {
            rows: Vec::new(),
            selected: 0,
            selected_key: None,
            sort: Column::Memory,
            descending: true,
            filter: String::new(),
            filter_editing: false,
            tree: false,
            by_device: false,
            tagged: BTreeSet::new(),
            row_scroll: 0,
            groups: Vec::new(),
            unfolded: BTreeSet::new(),
        }
    }
}
