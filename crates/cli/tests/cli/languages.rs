//! The language changes what people read, never what programs read: the same snapshot under
//! `--lang en|zh-CN|zh-TW`, `LANG=zh_CN.UTF-8`, `LC_ALL=zh_HK.UTF-8` and `GPULEDGER_LANG=zh-TW`
//! gives byte-identical `--json`, `--format csv` and `/metrics`, while the table is in the chosen
//! language with its columns in line for CJK names.

use crate::serve_support::*;
use crate::support::*;
use std::path::PathBuf;
use std::process::Command;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/sample-snapshot.json")
}

/// A way of choosing a language: command-line arguments before the command, and one locale
/// variable.
type Choice = (
    &'static [&'static str],
    Option<(&'static str, &'static str)>,
);

const CHOICES: [Choice; 7] = [
    (&[], None),
    (&["--lang", "en"], None),
    (&["--lang", "zh-CN"], None),
    (&["--lang", "zh-TW"], None),
    (&[], Some(("LANG", "zh_CN.UTF-8"))),
    (&[], Some(("LC_ALL", "zh_HK.UTF-8"))),
    (&[], Some(("GPULEDGER_LANG", "zh-TW"))),
];

/// The binary replaying `file`, with no language set (not even the English `isolate` asks for)
/// unless the choice sets one.
fn command(file: &std::path::Path, choice: &Choice) -> Command {
    let mut c = gpuledger_command();
    for v in ["GPULEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
        c.env_remove(v);
    }
    if let Some((k, v)) = choice.1 {
        c.env(k, v);
    }
    c.arg("--replay").arg(file).args(choice.0);
    c
}

fn stdout_of(mut c: Command, args: &[&str]) -> String {
    let out = c.args(args).output().expect("run gpuledger");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn json_and_csv_are_the_same_in_every_language() {
    let file = sample();
    // snapshot's JSON and CSV, --group-by's JSON and explain's JSON.
    let outputs = [
        &["snapshot", "--json"][..],
        &["snapshot", "--format", "csv"],
        &["snapshot", "--group-by", "user", "--json"],
        &["explain", "4242", "--json"],
    ];
    for args in outputs {
        let english = stdout_of(command(&file, &CHOICES[0]), args);
        assert!(english.len() > 1000, "{english}");
        for choice in &CHOICES[1..] {
            let got = stdout_of(command(&file, choice), args);
            assert!(got == english, "{args:?} under {choice:?} differs");
        }
    }
}

#[test]
fn metrics_are_the_same_in_every_language() {
    let file = sample();
    let mut english: Option<String> = None;
    for choice in &CHOICES {
        let mut c = command(&file, choice);
        c.args(["serve", "--listen", "127.0.0.1:0"]);
        let served = start_serving(&mut c);
        let reply = get(served.addr, "/metrics");
        assert_eq!(reply.status, 200);
        assert!(reply.body.contains("gpuledger_device_memory_used_bytes"));
        match &english {
            None => english = Some(reply.body),
            Some(e) => assert!(reply.body == *e, "/metrics under {choice:?} differs"),
        }
    }
}

#[test]
fn the_table_speaks_the_chosen_language() {
    let file = sample();
    let table = |i: usize| stdout_of(command(&file, &CHOICES[i]), &["snapshot"]);
    let en = table(0);
    assert!(
        en.contains("\nDEVICES\n") && en.contains("unattributed on GPU0"),
        "{en}"
    );
    assert_eq!(table(1), en);
    for (i, heading, unattributed) in [
        (2, "设备", "GPU0 上未归属"),
        (4, "设备", "GPU0 上未归属"),
        (3, "裝置", "GPU0 上未歸屬"),
        (5, "裝置", "GPU0 上未歸屬"),
        (6, "裝置", "GPU0 上未歸屬"),
    ] {
        let t = table(i);
        assert!(
            t.contains(&format!("\n{heading}\n")) && t.contains(unattributed),
            "{:?}:\n{t}",
            CHOICES[i]
        );
        assert!(!t.contains("DEVICES") && !t.contains("NOTES AND"), "{t}");
    }
    let explain = |i: usize| stdout_of(command(&file, &CHOICES[i]), &["explain", "4242"]);
    assert!(explain(0).contains("\nWHAT IT IS (identification, with evidence)\n"));
    assert!(explain(2)
        .contains("\n这是什么（识别结果及依据）\n  llama.cpp · Qwen3-8B-Q4_K_M（可信度：高）"));
    assert!(explain(6).contains("\n並列對照（三者從不相加）\n  實測（驅動程式）："));
}

#[test]
fn an_unknown_language_is_a_usage_error_errors_are_translated_and_lang_alone_lists_them() {
    let out = gpuledger_command()
        .args(["--lang", "xx", "snapshot"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown language 'xx'"), "{err}");
    // selftest's frame in the chosen language on this machine (the sources' findings as written).
    let selftest = gpuledger_command()
        .args(["--lang", "zh-CN", "selftest"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&selftest.stdout);
    assert!(
        text.contains(" 自检 · ") && text.contains("\n[正常] procfs\n  能看到："),
        "{text}"
    );
    // diff: its JSON the same, its text in the language.
    let sample = sample();
    let diff = |lang: &str, json: bool| {
        let mut c = gpuledger_command();
        c.args(["--lang", lang, "diff"]).arg(&sample).arg(&sample);
        if json {
            c.arg("--json");
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    assert_eq!(diff("zh-TW", true), diff("en", true));
    assert!(diff("en", false).contains("\nprocesses (measured)\n  no process changed\n"));
    let tw = diff("zh-TW", false);
    assert!(
        tw.contains("\n處理程序（實測）\n  沒有處理程序發生變化\n"),
        "{tw}"
    );
    // A common error in the chosen language; the OS's own words and the exit status unchanged.
    let missing = gpuledger_command()
        .args([
            "--lang",
            "zh-TW",
            "--replay",
            "/no/such/snapshot.json",
            "snapshot",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("/no/such/snapshot.json：無法讀取："), "{err}");
    for args in [&["--lang"][..], &["--lang", "list"]] {
        let out = gpuledger_command().args(args).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("zh-CN") && text.contains("繁體中文"),
            "{text}"
        );
    }
}

/// The sample with a CJK user, process name and model file: in zh-CN every row's cells start
/// at the display column of their header (columns measured with unicode-width, as terminals
/// count them).
#[test]
fn cjk_names_line_up_under_chinese_headers() {
    use unicode_width::UnicodeWidthStr;
    let mut snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sample()).unwrap()).unwrap();
    for p in snap["processes"].as_array_mut().unwrap() {
        if p["pid"] == 4242 {
            p["name"] = "通义千问服务".into();
            p["user"] = "张三".into();
            p["workload"]["model"] = "/models/通义千问-7B-Chat.gguf".into();
            p["cmdline"] =
                serde_json::json!(["./通义千问服务", "-m", "/models/通义千问-7B-Chat.gguf"]);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cjk.json");
    std::fs::write(&file, snap.to_string()).unwrap();
    let t = stdout_of(command(&file, &CHOICES[2]), &["snapshot"]);
    let lines: Vec<&str> = t.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.contains("工作负载"))
        .unwrap_or_else(|| panic!("{t}"));
    let col = |line: &str, pat: &str| line.find(pat).map(|i| line[..i].width());
    let rows: Vec<&str> = lines[head + 1..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert_eq!(rows.len(), 6, "{t}");
    assert!(rows
        .iter()
        .any(|r| r.contains("张三") && r.contains("通义千问服务")));
    // Where each column's cells start on a row: the source (`nvml` on every row), the
    // workload (the label the sample has there) and the command (after two spaces).
    let workload = |r: &str| {
        ["llama.cpp", "窗口合成器", "浏览器", "未识别", "Ollama"]
            .iter()
            .find_map(|w| col(r, &format!("  {w}")))
            .map(|c| c + 2)
    };
    let command = |r: &str| {
        ["/", "./", "python3 train"]
            .iter()
            .find_map(|c| col(r, &format!("  {c}")))
            .map(|c| c + 2)
    };
    for r in &rows {
        assert_eq!(
            col(r, "nvml"),
            col(lines[head], "来源"),
            "\n{}\n{r}",
            lines[head]
        );
        assert_eq!(
            workload(r),
            col(lines[head], "工作负载"),
            "\n{}\n{r}",
            lines[head]
        );
        assert_eq!(
            command(r),
            col(lines[head], "命令"),
            "\n{}\n{r}",
            lines[head]
        );
    }
}

/// `gpuledger estimate` on the fake two-GPU machine: the JSON and the exit status (3: does not
/// fit) are the same in every language; the text says the verdict in the chosen one.
#[test]
fn estimate_json_and_exit_status_are_the_same_in_every_language() {
    let d = tempfile::tempdir().unwrap();
    let model = crate::estimate_cli::big_model(d.path());
    let m = Machine::two_gpus();
    let run = |choice: &Choice, json: bool| {
        let mut args = vec![
            "estimate",
            model.to_str().unwrap(),
            "-c",
            "8192",
            "-np",
            "1",
        ];
        args.extend(["--device", "1", "--fit", "off"]);
        if json {
            args.push("--json");
        }
        let mut c = m.command(&[choice.0, &args[..]].concat());
        for v in ["GPULEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
            c.env_remove(v);
        }
        if let Some((k, v)) = choice.1 {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, english) = run(&CHOICES[0], true);
    assert_eq!(code, Some(3), "{english}");
    for choice in &CHOICES[1..] {
        assert!(run(choice, true) == (code, english.clone()), "{choice:?}");
    }
    let text = |i: usize| run(&CHOICES[i], false).1;
    assert!(text(0).contains("does NOT fit, short by"), "{}", text(0));
    for (i, says) in [
        (2, "放不下，还差"),
        (4, "放不下，还差"),
        (3, "放不下，還差"),
    ] {
        let t = text(i);
        assert!(t.contains(says) && t.contains("KV 缓存") == (i != 3), "{t}");
    }
}

/// `--help`'s summaries, headings and exit statuses in the chosen language, from the flag or
/// the locale; English is clap's own text whatever LANG says when --lang en is given.
#[test]
fn help_speaks_the_chosen_language() {
    let help = |choice: &Choice, args: &[&str]| {
        let mut c = gpuledger_command();
        for v in ["GPULEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
            c.env_remove(v);
        }
        if let Some((k, v)) = choice.1 {
            c.env(k, v);
        }
        let out = c.args(choice.0).args(args).output().unwrap();
        assert!(out.status.success(), "{choice:?} {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let en = help(&CHOICES[0], &["--help"]);
    assert!(
        en.contains("\nCommands:\n  snapshot     One collection round"),
        "{en}"
    );
    assert_eq!(
        help(
            &(&["--lang", "en"], Some(("LANG", "zh_CN.UTF-8"))),
            &["--help"]
        ),
        en
    );
    let cn = help(&CHOICES[2], &["--help"]);
    assert!(cn.contains("\n命令:\n  snapshot     采集一轮数据"), "{cn}");
    assert!(cn.contains("数据读取位置:"), "{cn}");
    let tw = help(&CHOICES[5], &["snapshot", "--help"]);
    assert!(
        tw.contains("擷取一輪資料") && tw.contains("結束狀態：\n  0  成功"),
        "{tw}"
    );
}
