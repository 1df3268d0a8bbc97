//! The registry of runtimes and every fact derived from it: which kinds are AI, which are
//! servers, what names a process or a workload's root, which libraries support a kind. The one
//! list is [`super::RUNTIMES`]; a test builds a [`Registry`] of its own to try a runtime.

use super::runtime::{Library, Runtime, Seen};
use gpuledger_lang::Said;
use gpuledger_model::WorkloadKind;
use std::path::Path;

/// Runtimes in the order identification tries them (the first that recognises a process wins).
pub struct Registry(pub &'static [&'static dyn Runtime]);

impl Registry {
    /// The runtimes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'static dyn Runtime> + '_ {
        self.0.iter().copied()
    }

    /// The runtime that owns `kind`.
    pub fn for_kind(&self, kind: WorkloadKind) -> Option<&'static dyn Runtime> {
        self.iter().find(|r| r.kinds().contains(&kind))
    }

    /// Whether `kind` is an AI workload: one a registered runtime owns, whose memory the
    /// estimated ledger can model.
    pub fn is_ai(&self, kind: WorkloadKind) -> bool {
        self.for_kind(kind).is_some()
    }

    /// Whether a process of `kind` serves an API (and so should listen on a port).
    pub fn is_server(&self, kind: WorkloadKind) -> bool {
        self.for_kind(kind).is_some_and(|r| r.is_server(kind))
    }

    /// The kind the program's name, process title or command line names.
    pub fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        self.iter().find_map(|r| r.named(seen))
    }

    /// The kind an ancestor's command line names as a workload's root.
    pub fn names_root(&self, seen: &Seen) -> Option<WorkloadKind> {
        self.iter().find_map(|r| r.names_root(seen))
    }

    /// The library family that supports `kind`.
    pub fn library(&self, kind: WorkloadKind) -> Option<&'static Library> {
        self.for_kind(kind)?.library(kind)
    }

    /// Every library family a runtime declares, each once, with the kind it names alone (if
    /// any), in registration order.
    pub fn libraries(&self) -> Vec<(&'static Library, Option<WorkloadKind>)> {
        let mut out: Vec<(&'static Library, Option<WorkloadKind>)> = Vec::new();
        for r in self.iter() {
            let by_lib = r.named_by_library();
            for kind in r.kinds() {
                let Some(lib) = r.library(*kind) else {
                    continue;
                };
                let names = by_lib.filter(|k| r.library(*k).is_some_and(|l| same(l, lib)));
                match out.iter_mut().find(|(l, _)| same(l, lib)) {
                    Some((_, k)) => *k = k.or(names),
                    None => out.push((lib, names)),
                }
            }
        }
        out
    }

    /// The command line as the runtime of `kind` reads it ([`Runtime::read_args`]).
    pub fn read_args(
        &self,
        kind: WorkloadKind,
        argv: &[String],
        proc_root: &Path,
        pid: u32,
    ) -> (Vec<String>, Option<Said>) {
        self.for_kind(kind).map_or_else(
            || (argv.to_vec(), None),
            |r| r.read_args(argv, proc_root, pid),
        )
    }

    /// Whether a command line alone names the runtime of `kind` ([`Runtime::names_argv`]).
    pub fn names_argv(&self, kind: WorkloadKind, argv: &[String]) -> bool {
        self.for_kind(kind)
            .map_or(!argv.is_empty(), |r| r.names_argv(argv))
    }
}

/// Library families are told apart by address (each is one `static`).
pub fn same(a: &Library, b: &Library) -> bool {
    std::ptr::eq(a, b)
}
