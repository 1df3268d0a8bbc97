//! `snapshot --group-by`: measured memory per owner per device, as a table or as JSON
//! (`gpuledger.groups/1`). The device's unattributed memory is its own row, never any owner's;
//! a group's processes whose memory is unknown are counted beside its sum, not added to it.

use crate::columns::{Align, Columns};
use gpuledger_lang::{Lang, Value};
use gpuledger_model::owner::{DeviceGroups, Group, OwnerGroups, NAMESPACE_UNKNOWN};
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::{term_safe, term_safe_text, words, GroupBy};
use std::fmt::Write;

pub use gpuledger_model::owner::GROUPS_SCHEMA;

/// The groups as aligned text. `replay` names the recording shown, if one is.
pub fn render_groups_table(g: &OwnerGroups, host: Option<&str>, replay: Option<&str>) -> String {
    render_groups_table_in(g, host, replay, Lang::En)
}

/// [`render_groups_table`] in `lang`.
pub fn render_groups_table_in(
    g: &OwnerGroups,
    host: Option<&str>,
    replay: Option<&str>,
    lang: Lang,
) -> String {
    let mut out = String::new();
    let taken = || -> Value<'_> { g.taken_at.as_str().into() };
    if let Some(src) = replay {
        let args = [("file", src.into()), ("taken", taken())];
        let _ = writeln!(out, "{}", lang.t_args("report-replay", &args));
    }
    let unknown_host = lang.t("report-unknown-host");
    let args = [
        ("by", g.group_by.as_str().into()),
        ("host", host.unwrap_or(&unknown_host).into()),
        ("taken", taken()),
    ];
    let _ = writeln!(out, "{}\n", lang.t_args("report-groups-title", &args));
    if g.devices.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-no-gpu"));
    }
    for d in &g.devices {
        device_block(&mut out, d, g.group_by, lang);
    }
    if !g.notes.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-groups-notes"));
        for n in &g.notes {
            let _ = writeln!(out, "  - {}", n.in_lang(lang));
        }
    }
    term_safe_text(&out).into_owned()
}

/// The first column's heading: what the rows are grouped by.
fn by_heading(by: GroupBy, lang: Lang) -> String {
    lang.t(match by {
        GroupBy::Pod => "report-groups-by-pod",
        GroupBy::Namespace => "report-groups-by-namespace",
        GroupBy::Container => "report-groups-by-container",
        GroupBy::Job => "report-groups-by-job",
        GroupBy::User => "report-groups-by-user",
        GroupBy::Unit => "report-groups-by-unit",
        GroupBy::Owner => "report-groups-by-owner",
    })
}

/// A group's label: an owner's name as it is; the group of processes without such an owner, and
/// pods whose namespace is unknown, in the reader's words (the JSON keeps the English label).
fn group_label(grp: &Group, by: GroupBy, lang: Lang) -> String {
    let key = match (&grp.key, by) {
        (None, GroupBy::Pod | GroupBy::Namespace) => "report-groups-outside-pod",
        (None, GroupBy::Container) => "report-groups-outside-container",
        (None, GroupBy::Job) => "report-groups-outside-job",
        (None, GroupBy::User) => "report-groups-outside-user",
        (None, GroupBy::Unit) => "report-groups-outside-unit",
        (None, GroupBy::Owner) => "report-groups-outside-owner",
        (Some(_), GroupBy::Namespace) if grp.label == NAMESPACE_UNKNOWN => {
            "report-groups-namespace-unknown"
        }
        // `user alice`, `namespace ml`: the kind's word in the language, the name as it is.
        (Some(k), GroupBy::User | GroupBy::Namespace) => {
            let key = if by == GroupBy::User {
                "report-groups-user"
            } else {
                "report-groups-namespace"
            };
            let name = term_safe(k).into_owned();
            return lang.t_args(key, &[("name", name.into())]);
        }
        _ => return term_safe(&grp.label).into_owned(),
    };
    lang.t(key)
}

fn device_block(out: &mut String, d: &DeviceGroups, by: GroupBy, lang: Lang) {
    let args = [
        ("gpu", d.index.to_string().into()),
        ("name", d.name.as_deref().unwrap_or(words::UNKNOWN).into()),
        ("used", human_opt(d.used_bytes).into()),
    ];
    let _ = writeln!(out, "{}", lang.t_args("report-groups-device", &args));
    let mut rows: Vec<Vec<String>> = vec![vec![
        by_heading(by, lang),
        lang.t("report-groups-col-processes"),
        lang.t("report-col-memory"),
    ]];
    for grp in &d.groups {
        let mut mem = human_bytes(grp.memory_bytes);
        if grp.memory_unknown_processes > 0 {
            let _ = write!(
                mem,
                " (+{} {})",
                grp.memory_unknown_processes,
                words::UNKNOWN
            );
        }
        rows.push(vec![
            group_label(grp, by, lang),
            grp.processes.to_string(),
            mem,
        ]);
    }
    let (label, value) = match (d.unattributed_bytes, d.over_attributed_bytes) {
        (Some(u), _) => ("report-groups-unattributed", human_bytes(u)),
        (None, Some(o)) => ("report-groups-over-attributed", human_bytes(o)),
        (None, None) => ("report-groups-unattributed-unknown", words::UNKNOWN.into()),
    };
    rows.push(vec![lang.t(label), String::new(), value]);
    out.push_str(
        &Columns::new(&[Align::Left, Align::Right, Align::Right])
            .indent("  ")
            .max_width(0, 64)
            .render(&rows),
    );
    out.push('\n');
}

/// The JSON form (schema `gpuledger.groups/1`).
pub fn render_groups_json(g: &OwnerGroups) -> String {
    let mut s =
        serde_json::to_string_pretty(g).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::{device, process, snapshot, TAKEN_AT};
    use gpuledger_model::*;

    /// One H200 (10 GiB used): two processes of pods (2 GiB, and memory unknown) and one of no
    /// pod (1 GiB).
    fn snap() -> Snapshot {
        let mut d = device(0, "GPU-0", None, Some(10 << 30));
        d.name = Some("NVIDIA H200".into());
        let mut procs: Vec<Process> = [
            (1, "aaaa1111-0000", Some(2u64 << 30)),
            (2, "bbbb2222-0000", None),
        ]
        .into_iter()
        .map(|(pid, uid, mem)| {
            let mut o = Owner::new(OwnerKind::Pod, "/kubepods/x");
            o.pod_uid = Some(uid.into());
            o.relabel();
            let mut p = process(pid, "GPU-0", mem);
            p.owner = Some(o);
            p
        })
        .collect();
        procs.push(process(3, "GPU-0", Some(1 << 30)));
        snapshot(TAKEN_AT, vec![d], procs)
    }

    #[test]
    fn table_keeps_unattributed_and_unknowns_apart() {
        let g = group_memory(&snap(), GroupBy::Pod);
        let t = render_groups_table(&g, Some("node-1"), None);
        assert!(
            t.starts_with("gpuledger snapshot --group-by pod · node-1 · "),
            "{t}"
        );
        let line = |needle: &str| t.lines().find(|l| l.contains(needle)).unwrap().to_string();
        assert!(
            line("pod aaaa1111-0000").ends_with("1         2 GiB"),
            "{t}"
        );
        assert!(
            line("pod bbbb2222-0000").ends_with("1  0 B (+1 n/a)"),
            "{t}"
        );
        assert!(
            line("not in a Kubernetes pod").ends_with("1         1 GiB"),
            "{t}"
        );
        assert!(line("unattributed").ends_with("7 GiB"), "{t}");
        assert!(
            t.contains("NOTES\n  - pod name and namespace come from the kubelet"),
            "{t}"
        );
    }

    /// The fixed labels and the notes in the reader's language; owners' names as they are.
    #[test]
    fn chinese_says_the_fixed_labels_and_keeps_the_names() {
        let t =
            render_groups_table_in(&group_memory(&snap(), GroupBy::Pod), None, None, Lang::ZhCn);
        assert!(t.contains("  不在 Kubernetes Pod 中 "), "{t}");
        assert!(t.contains("pod aaaa1111-0000"), "{t}");
        assert!(t.contains("  - Pod 名称和命名空间来自 kubelet"), "{t}");
        let t = render_groups_table_in(
            &group_memory(&snap(), GroupBy::Namespace),
            None,
            None,
            Lang::ZhTw,
        );
        assert!(
            t.contains("命名空間未知（kubelet 無法給出 Pod 的名稱；見附註）"),
            "{t}"
        );
        let mut s = snap();
        s.processes[2].user = Some("张三".into());
        let t = render_groups_table_in(&group_memory(&s, GroupBy::User), None, None, Lang::ZhCn);
        assert!(t.contains("  用户 张三 "), "{t}");
        assert!(!t.contains("not in") && !t.contains("user 张三"), "{t}");
    }

    #[test]
    fn json_names_its_schema_and_the_grouping() {
        let g = group_memory(&snap(), GroupBy::Namespace);
        let v: serde_json::Value = serde_json::from_str(&render_groups_json(&g)).unwrap();
        assert_eq!(v["schema"], GROUPS_SCHEMA);
        assert_eq!(v["group_by"], "namespace");
        let groups = v["devices"][0]["groups"].as_array().unwrap();
        assert_eq!(groups[0]["key"], "");
        assert!(groups[0]["label"]
            .as_str()
            .unwrap()
            .contains("the kubelet could not name the pod"));
        assert_eq!(groups[0]["memory_unknown_processes"], 1);
        assert_eq!(groups[1]["key"], serde_json::Value::Null);
        assert_eq!(v["devices"][0]["unattributed_bytes"], 7u64 << 30);
    }
}
