//! Source health and the serving loop's collection counters.

use super::family::{single, Family, Val};
use super::MetricsOptions;
use gpuledger_model::{Snapshot, SourceState};

pub(super) fn health(out: &mut String, snap: &Snapshot, opts: &MetricsOptions) {
    let mut f = Family::new(
        out,
        "gpuledger_source_up",
        "gauge",
        "1 when the source worked in the latest round, 0 when it was unavailable or failed.",
    );
    for s in &snap.sources {
        let up = u64::from(s.status == SourceState::Ok);
        let state = match s.status {
            SourceState::Ok => "ok",
            SourceState::Unavailable => "unavailable",
            SourceState::Error => "error",
        };
        f.sample(
            &[("source", Some(&s.name)), ("state", Some(state))],
            Some(Val::U(up)),
        );
    }
    single(
        out,
        "gpuledger_snapshot_replay",
        "gauge",
        "1 when the served snapshot is a recording, not the live machine.",
        Val::U(u64::from(opts.replay)),
    );
    let Some(c) = opts.collection else { return };
    single(
        out,
        "gpuledger_collection_duration_seconds",
        "gauge",
        "Wall time of the latest collection round.",
        Val::F(c.duration_seconds),
    );
    single(
        out,
        "gpuledger_collection_last_round_timestamp_seconds",
        "gauge",
        "Unix time at which the latest collection round finished.",
        Val::F(c.last_round_unix_seconds),
    );
    for (name, help, v) in [
        (
            "gpuledger_collection_rounds_total",
            "Collection rounds completed.",
            c.rounds_total,
        ),
        (
            "gpuledger_collection_errors_total",
            "Collection rounds in which at least one source reported an error.",
            c.errors_total,
        ),
        (
            "gpuledger_collection_skipped_rounds_total",
            "Rounds skipped because the previous round overran the interval (never queued).",
            c.skipped_total,
        ),
    ] {
        single(out, name, "counter", help, Val::U(v));
    }
}
