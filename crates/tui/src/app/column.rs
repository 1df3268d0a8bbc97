//! The process table's columns: titles, order, and which sort largest first.

/// Table columns, in display order.
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

impl Column {
    pub const ALL: [Column; 14] = [
        Column::Device,
        Column::Pid,
        Column::User,
        Column::Owner,
        Column::Name,
        Column::Workload,
        Column::Type,
        Column::Memory,
        Column::Gpu,
        Column::Cpu,
        Column::Rss,
        Column::HostMem,
        Column::Time,
        Column::Command,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Device => "DEV",
            Column::Pid => "PID",
            Column::User => "USER",
            Column::Owner => "OWNER",
            Column::Name => "NAME",
            Column::Workload => "WORKLOAD",
            Column::Type => "TYPE",
            Column::Memory => "GPU MEM",
            // The process's share of the GPU: SM%, as the snapshot table names it.
            Column::Gpu => "SM%",
            Column::Cpu => "CPU%",
            Column::Rss => "RSS",
            Column::HostMem => "RAM%",
            Column::Time => "TIME",
            Column::Command => "COMMAND",
        }
    }

    /// Numbers sort largest first on the first press; text alphabetically.
    pub(super) fn default_descending(self) -> bool {
        matches!(
            self,
            Column::Memory
                | Column::Gpu
                | Column::Cpu
                | Column::Rss
                | Column::HostMem
                | Column::Time
        )
    }

    pub(super) fn index(self) -> usize {
        Column::ALL.iter().position(|&c| c == self).unwrap()
    }
}
