//! The catalogues are whole: every key of the English reference in every language and nothing
//! else, every key used by the program, each translation with the same values as English, and
//! every file valid Fluent.

use gpuledger_lang::{catalogue_json, keys, languages_json, sources, Area, Lang, AREAS};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each message's source text (its first line and its indented continuation lines), by key.
fn messages(ftl: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in ftl.lines() {
        let starts_message = line.split_once(" =").filter(|(id, _)| {
            !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        if let Some((id, _)) = starts_message {
            current = Some(id.to_string());
            out.insert(id.to_string(), line.to_string());
        } else if line.starts_with(' ') {
            if let Some(id) = &current {
                out.get_mut(id).unwrap().push_str(line);
            }
        } else {
            current = None;
        }
    }
    out
}

/// The `$values` a message's text refers to.
fn values(text: &str) -> BTreeSet<String> {
    text.split('$')
        .skip(1)
        .map(|s| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect()
        })
        .collect()
}

#[test]
fn every_file_is_valid_fluent() {
    for lang in Lang::ALL {
        for area in AREAS {
            let parsed = fluent_syntax::parser::parse(sources(lang, area));
            assert!(
                parsed.is_ok(),
                "catalogues/{lang}/{}.ftl: {:?}",
                area.name(),
                parsed.err().map(|e| e.1)
            );
        }
    }
}

#[test]
fn every_language_has_exactly_the_english_keys_with_the_same_values() {
    let mut problems = Vec::new();
    for area in AREAS {
        let english = messages(sources(Lang::En, area));
        assert_eq!(
            english.keys().cloned().collect::<Vec<_>>().len(),
            keys(Lang::En, area).len(),
            "{}: the test's reading of the file and Fluent's disagree",
            area.name()
        );
        for lang in Lang::ALL {
            let file = format!("catalogues/{lang}/{}.ftl", area.name());
            let ks = keys(lang, area);
            let unique: BTreeSet<&String> = ks.iter().collect();
            if unique.len() != ks.len() {
                problems.push(format!("{file}: a key is defined twice"));
            }
            let theirs = messages(sources(lang, area));
            for (k, text) in &english {
                match theirs.get(k) {
                    None => problems.push(format!("{file}: missing {k}")),
                    Some(t) if values(t) != values(text) => problems.push(format!(
                        "{file}: {k} uses {:?}, English {:?}",
                        values(t),
                        values(text)
                    )),
                    Some(_) => {}
                }
            }
            for k in theirs.keys().filter(|k| !english.contains_key(*k)) {
                problems.push(format!("{file}: {k} is not in English"));
            }
            for k in ks.iter().filter(|k| !k.starts_with(area.prefix())) {
                problems.push(format!("{file}: {k} does not start with {}", area.prefix()));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && name != "catalogues" && name != "node_modules" {
                source_files(&p, out);
            }
        } else if [".rs", ".js", ".html", ".mjs"]
            .iter()
            .any(|x| name.ends_with(x))
        {
            out.push(p);
        }
    }
}

/// A key is used when some source file of the program names it in quotes (keys are never
/// put together from pieces, so that this test can find them; the one exception, each
/// argument's `cli-arg-…`, is checked both ways by the CLI's test).
#[test]
fn every_key_is_used_by_the_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    source_files(&root.join("crates"), &mut files);
    let this = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let text: String = files
        .iter()
        .filter(|p| !p.starts_with(&this))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let unused: Vec<String> = AREAS
        .iter()
        .flat_map(|a| keys(Lang::En, *a))
        // Each argument's help is found by the argument's name; the CLI's own test
        // (help_lang.rs) fails on an argument without a key and on a key without an argument.
        .filter(|k| !k.starts_with("cli-arg-"))
        .filter(|k| {
            !["\"", "'", "`"]
                .iter()
                .any(|q| text.contains(&format!("{q}{k}{q}")))
        })
        .collect();
    assert!(unused.is_empty(), "keys no source file uses: {unused:?}");
}

#[test]
fn plurals_follow_each_language() {
    let one = |lang: Lang, n: u32| {
        lang.t_args(
            "report-unknown-processes",
            &[("gpu", "0".into()), ("count", n.into())],
        )
    };
    assert!(one(Lang::En, 1).contains("memory of 1 process is unknown"));
    assert!(one(Lang::En, 2).contains("memory of 2 processes is unknown"));
    // Chinese has one form for every number.
    assert_eq!(one(Lang::ZhCn, 1).replace('1', "2"), one(Lang::ZhCn, 2));
    assert!(
        one(Lang::ZhTw, 3).contains("3 個處理程序"),
        "{}",
        one(Lang::ZhTw, 3)
    );
}

#[test]
fn terminal_text_has_no_isolation_marks_and_a_missing_key_is_its_name() {
    let t = Lang::ZhCn.t_args("report-unattributed-on", &[("gpu", "1".into())]);
    assert_eq!(t, "GPU1 上未归属（驱动、系统、其他用户、未知进程）");
    assert_eq!(Lang::ZhTw.t("report-no-such-key"), "report-no-such-key");
}

#[test]
fn the_page_gets_an_area_as_json_with_placeholders() {
    let json: serde_json::Value =
        serde_json::from_str(&catalogue_json(Lang::ZhTw, Area::Reports)).unwrap();
    assert_eq!(json["report-devices"], "裝置");
    assert_eq!(
        json["report-unattributed-on"],
        "GPU{$gpu} 上未歸屬（驅動程式、系統、其他使用者、未知處理程序）"
    );
    assert_eq!(
        json.as_object().unwrap().len(),
        keys(Lang::En, Area::Reports).len()
    );
}

#[test]
fn the_page_gets_the_languages_for_its_switch() {
    let v: serde_json::Value = serde_json::from_str(&languages_json()).unwrap();
    assert_eq!(v[1]["code"], "zh-CN");
    assert_eq!(v[2]["name"], "繁體中文");
}
