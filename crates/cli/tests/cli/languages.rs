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
    for v in [
        "GPULEDGER_LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_MESSAGES",
        "LANG",
    ] {
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
    // A recording's own error (the history crate's) too.
    let history = gpuledger_command()
        .args([
            "--lang",
            "zh-CN",
            "history",
            "--db",
            "/no/such/recording.db",
        ])
        .output()
        .unwrap();
    assert_eq!(history.status.code(), Some(1));
    let err = String::from_utf8_lossy(&history.stderr);
    assert!(
        err.contains("/no/such/recording.db: 没有这个录制（用 `gpuledger record` 开始录制）"),
        "{err}"
    );
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

/// A mistyped option is a usage error in the reader's language (clap's English otherwise),
/// with clap's suggestion and usage line and its exit status, 2.
#[test]
fn a_usage_error_speaks_the_language_and_keeps_its_status() {
    let run = |env: Option<(&str, &str)>| {
        let mut c = gpuledger_command();
        c.args(["snapshot", "--groups"]);
        if let Some((k, v)) = env {
            // The harness asks for English through GPULEDGER_LANG; the locale decides here.
            c.env_remove("GPULEDGER_LANG").env(k, v);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8(out.stderr).unwrap()
    };
    let en = run(None);
    assert!(
        en.starts_with("error: unexpected argument '--groups' found"),
        "{en}"
    );
    let cn = run(Some(("LANG", "zh_CN.UTF-8")));
    assert!(cn.starts_with("错误：无法识别的参数 '--groups'\n"), "{cn}");
    assert!(cn.contains("提示：是否要用 '--group-by'？"), "{cn}");
    assert!(
        cn.contains("\n用法：gpuledger snapshot --group-by <"),
        "{cn}"
    );
    assert!(!cn.contains("error:") && !cn.contains("Usage:"), "{cn}");
}

/// A saved verify record replayed: its JSON the same in each language, its frame in the
/// language; the judge's verdicts as it wrote them.
#[test]
fn verify_replays_the_same_json_in_every_language_and_speaks_the_frame() {
    let record = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/verify/fake-nvml-double-count.json");
    let run = |choice: &Choice, args: &[&str]| {
        let out = command(&record, choice).args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let english = run(&CHOICES[0], &["verify", "--json"]);
    assert!(english.contains("\"verdicts\""), "{english}");
    for choice in &CHOICES[1..] {
        assert!(run(choice, &["verify", "--json"]) == english, "{choice:?}");
    }
    let en = run(&CHOICES[0], &["verify"]);
    assert!(
        en.contains("\ngpuledger verify: ") && en.contains("\nexpected: the child absent"),
        "{en}"
    );
    let cn = run(&CHOICES[4], &["verify"]);
    assert!(
        cn.contains("\ngpuledger verify：PID ") && cn.contains("\n预期：子进程起初不存在"),
        "{cn}"
    );
    let tw = run(&CHOICES[3], &["verify"]);
    assert!(
        tw.starts_with("重播 ") && tw.contains("位於 CUDA 裝置 0 "),
        "{tw}"
    );
}

/// GNU `LANGUAGE` picks the language before `LANG`, unless the locale is C.
#[test]
fn gnu_language_comes_before_lang_unless_the_locale_is_c() {
    let file = sample();
    let table = |language: &str, lang: &str| {
        let mut c = command(&file, &CHOICES[0]);
        c.env("LANGUAGE", language).env("LANG", lang);
        stdout_of(c, &["snapshot"])
    };
    assert!(table("de:zh_TW:zh_CN", "en_US.UTF-8").contains("\n裝置\n"));
    assert!(table("zh_TW", "C").contains("\nDEVICES\n"));
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
        for v in [
            "GPULEDGER_LANG",
            "LANGUAGE",
            "LC_ALL",
            "LC_MESSAGES",
            "LANG",
        ] {
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

/// The estimate's inputs (where each default came from, what was assumed), its notes, its
/// overhead line and the fit check's reason are sentences made by the recipe: each reads in
/// the chosen language, while the JSON keeps the English (the test above).
#[test]
fn the_estimate_s_inputs_and_notes_speak_the_language() {
    let d = tempfile::tempdir().unwrap();
    let model = crate::estimate_cli::big_model(d.path());
    let m = Machine::two_gpus();
    let text = |lang: &str| {
        let args = [
            "--lang",
            lang,
            "estimate",
            model.to_str().unwrap(),
            "--device",
            "1",
            "--fit",
            "off",
            "--no-fit-check",
        ];
        let out = m.command(&args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let says = |lang: &str, all: &[&str]| {
        let t = text(lang);
        for s in all {
            assert!(t.contains(s), "{lang}: {s}\n{t}");
        }
        t
    };
    says(
        "en",
        &[
            "default (-c not given: 0 = the model's training context)",
            "default (-np not given: -1 = auto: 4 slots, unified cache)",
            "  - -ngl auto: assumed everything fits;",
            "fit: fit check not requested (--no-fit-check)",
        ],
    );
    let cn = says(
        "zh-CN",
        &[
            "默认值（未给出 -c：0 = 模型的训练上下文）",
            "默认值（未给出 -np：-1 = 自动：4 个槽位，统一缓存）",
            "默认值（统一，因为 -np 为自动）",
            "  - -ngl auto：假定全部放得下；",
            "能否放下：未要求检查能否放下（--no-fit-check）",
        ],
    );
    let tw = says(
        "zh-TW",
        &[
            "預設值（未指定 -c：0 = 模型的訓練上下文）",
            "  - -ngl auto：假定全部放得下；",
            "能否放入：未要求檢查能否放入（--no-fit-check）",
        ],
    );
    for (lang, t) in [("zh-CN", &cn), ("zh-TW", &tw)] {
        for english in ["not given", "assumed everything fits", "fit check"] {
            assert!(!t.contains(english), "{lang}: {english}\n{t}");
        }
    }
}

/// `--help`'s summaries, headings and exit statuses in the chosen language, from the flag or
/// the locale; English is clap's own text whatever LANG says when --lang en is given.
#[test]
fn help_speaks_the_chosen_language() {
    let help = |choice: &Choice, args: &[&str]| {
        let mut c = gpuledger_command();
        for v in [
            "GPULEDGER_LANG",
            "LANGUAGE",
            "LC_ALL",
            "LC_MESSAGES",
            "LANG",
        ] {
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

/// `--help` of every command in each language: clap's own words too (usage, options, defaults,
/// the help flag), nothing left in English of what clap adds; English unchanged.
#[test]
fn help_speaks_the_language_with_clap_s_own_words() {
    let help = |lang: &str, args: &[&str]| {
        let out = gpuledger_command()
            .args(["--lang", lang])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let en = help("en", &["kill", "--help"]);
    for english in ["Usage:", "Options:", "[default: 3s]", "Print help"] {
        assert!(en.contains(english), "{english}\n{en}");
    }
    for (lang, words) in [
        (
            "zh-CN",
            [
                "用法：gpuledger kill",
                // clap puts an ASCII colon after every heading it writes.
                "选项:",
                "[默认值：3s]",
                "显示帮助",
                "跳过正常结束这一步",
            ],
        ),
        (
            "zh-TW",
            [
                "用法：gpuledger kill",
                "選項:",
                "[預設值：3s]",
                "顯示說明",
                "略過正常結束的步驟",
            ],
        ),
    ] {
        let kill = help(lang, &["kill", "--help"]);
        for w in words {
            assert!(kill.contains(w), "{lang}: {w}\n{kill}");
        }
        for sub in [
            &["--help"][..],
            &["kill", "--help"],
            &["snapshot", "-h"],
            &["probe", "--help"],
            &["verify", "--help"],
            &["estimate", "--help"],
            &["watch", "--help"],
            &["serve", "--help"],
            &["ui", "--help"],
            &["help"],
        ] {
            let text = help(lang, sub);
            for clap_word in [
                "Usage:",
                "Options:",
                "Arguments:",
                "[default:",
                "[env:",
                "[possible values:",
                "Print help",
                "Print version",
                "Exit status",
                "Before acting",
                "llama-server flags",
                "Alert expressions",
                "Endpoints (",
                "The page shows",
            ] {
                assert!(
                    !text.contains(clap_word),
                    "{lang} {sub:?}: {clap_word}\n{text}"
                );
            }
        }
    }
}

/// `gpuledger man --lang X --dir D`: every page in the language (section titles, the options'
/// help, clap's words), the main page with the live view's keys in it; `man -l` renders them
/// where man is installed.
#[test]
fn man_pages_in_each_language() {
    for (lang, name, options, kill_force, keys) in [
        (
            "zh-CN",
            "名称",
            "选项",
            "跳过正常结束这一步",
            "实时视图按键",
        ),
        (
            "zh-TW",
            "名稱",
            "選項",
            "略過正常結束的步驟",
            "即時檢視按鍵",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = gpuledger_command()
            .args(["--lang", lang, "man", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut pages = 0;
        for e in std::fs::read_dir(dir.path()).unwrap() {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            pages += 1;
            assert!(
                text.contains(&format!(".SH {name}\n")),
                "{}",
                path.display()
            );
            assert!(
                text.contains(&format!(".SH {options}\n")),
                "{}",
                path.display()
            );
            for english in [
                ".SH NAME",
                ".SH SYNOPSIS",
                ".SH OPTIONS",
                "Print help",
                "[default:",
            ] {
                assert!(!text.contains(english), "{}: {english}", path.display());
            }
        }
        assert!(pages >= 17, "{pages} pages");
        let kill = std::fs::read_to_string(dir.path().join("gpuledger-kill.1")).unwrap();
        assert!(kill.contains(kill_force), "{kill}");
        let main = std::fs::read_to_string(dir.path().join("gpuledger.1")).unwrap();
        assert!(main.contains(&format!(".SH {keys}\n")), "{main}");
        let printed = gpuledger_command()
            .args(["--lang", lang, "man"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(printed.stdout).unwrap(), main);
        if let Ok(out) = Command::new("man")
            .arg("-l")
            .arg(dir.path().join("gpuledger-kill.1"))
            .env("MANWIDTH", "80")
            .env("MAN_KEEP_FORMATTING", "0")
            .env("LANG", "C.UTF-8")
            .output()
        {
            if out.status.success() {
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(text.contains(kill_force), "{text}");
            }
        }
    }
}

/// The sources' own sentences on this machine (no NVIDIA driver here, or one found): in the
/// reader's language in selftest's text, and the same English in its JSON and the snapshot's.
#[test]
fn the_sources_sentences_speak_the_language_and_their_json_stays_english() {
    let run = |lang: &str, args: &[&str]| {
        let out = gpuledger_command()
            .args(["--lang", lang])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let sources = |lang: &str| {
        let v: serde_json::Value =
            serde_json::from_str(&run(lang, &["snapshot", "--json"])).unwrap();
        v["sources"].to_string()
    };
    let english = sources("en");
    assert!(english.contains("\"procfs\""), "{english}");
    assert_eq!(sources("zh-CN"), english);
    assert_eq!(sources("zh-TW"), english);
    let json = run("en", &["selftest", "--json"]);
    assert_eq!(run("zh-TW", &["selftest", "--json"]), json);
    assert!(json.contains("GPU process"), "{json}");
    let cn = run("zh-CN", &["selftest"]);
    assert!(cn.contains(" 个 GPU 进程中有 "), "{cn}");
    let tw = run("zh-TW", &["selftest"]);
    assert!(tw.contains(" 個 GPU 處理程序中有 "), "{tw}");
    if json.contains("libnvidia-ml.so.1 not found") {
        assert!(
            cn.contains("看不到：未找到 libnvidia-ml.so.1（试过 "),
            "{cn}"
        );
        assert!(tw.contains("找不到 libnvidia-ml.so.1（已嘗試 "), "{tw}");
    }
}

/// The snapshot's notes (`Said`): the reader's language in the table, the same English in the
/// JSON. No GPU on a test machine without one gives the "no GPU found" note; with one, the
/// note list may be empty, and the JSON is still compared.
#[test]
fn the_snapshot_notes_speak_the_language_and_their_json_stays_english() {
    let run = |lang: &str, args: &[&str]| {
        let out = gpuledger_command()
            .args(["--lang", lang])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let notes = |lang: &str| {
        let v: serde_json::Value =
            serde_json::from_str(&run(lang, &["snapshot", "--json"])).unwrap();
        v["notes"].to_string()
    };
    let english = notes("en");
    assert_eq!(notes("zh-CN"), english);
    assert_eq!(notes("zh-TW"), english);
    if english.contains("no GPU found by any source") {
        let cn = run("zh-CN", &["snapshot"]);
        assert!(
            cn.contains("所有数据源都没有找到 GPU（见 `gpuledger selftest`）"),
            "{cn}"
        );
        let tw = run("zh-TW", &["snapshot"]);
        assert!(
            tw.contains("所有資料來源都沒有找到 GPU（請見 `gpuledger selftest`）"),
            "{tw}"
        );
        assert!(!cn.contains("no GPU found by any source"), "{cn}");
    }
}

/// The lines of a Chinese report that hold an English sentence: a run of three or more
/// lowercase English words is a sentence that was not given a key. The system's own words (an
/// OS error, from the `: ` before it up to its `(os error N)`, or its words where a pane wrapped
/// it) and a program's quoted log line (`"Flash Attention was auto, set to enabled"`) are
/// theirs, and cut out first.
pub(crate) fn english_sentences(text: &str) -> Vec<String> {
    let os_error = |l: &str| {
        let l = match (l.find(": "), l.find("(os error")) {
            (Some(a), Some(b)) if a < b => format!("{}{}", &l[..a], &l[b..]),
            _ => l.to_string(),
        };
        let l = l.split('"').step_by(2).collect::<Vec<_>>().join("\"\"");
        // An OS error wrapped onto the next line of a pane, and the GGUF reader's own words
        // before one, are the same system's words.
        let mut l = l.replace("No such file or directory", "");
        for w in [
            "such file or directory",
            "file or directory",
            "Permission denied",
            "cannot open:",
            // dlopen's own words for a library that is not there.
            "cannot open shared object file",
        ] {
            l = l.replace(w, "");
        }
        l
    };
    let english = |l: &str| {
        let (mut run, mut best) = (0, 0);
        for w in l.split(' ') {
            let word = w.trim_matches(|c: char| ",.;:()'`".contains(c));
            if !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()) {
                run += 1;
                best = best.max(run);
            } else {
                run = 0;
            }
        }
        best >= 3
    };
    text.lines().map(os_error).filter(|l| english(l)).collect()
}

/// What the Chinese reports of a whole machine say holds no English sentence.
#[test]
fn chinese_reports_of_a_machine_hold_no_english_sentence() {
    let m = Machine::two_gpus();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db").display().to_string();
    let svg = dir.path().join("r.svg").display().to_string();
    let mut found = Vec::new();
    for lang in ["zh-CN", "zh-TW"] {
        for args in [
            &["snapshot"][..],
            &["explain", "4242"],
            &["explain", "5151"],
            &["explain", "9999"],
            &["explain", "6001"],
            &["explain", "1200"],
            &["selftest"],
            &["kill", "--dry-run", "5151"],
            &["kill", "--dry-run", "9999"],
            &["history", "--db", "/no/such/recording.db"],
            &["snapshot", "--groups"],
            &["plot", "--db", "/no/such/recording.db"],
            &["snapshot", "--group-by", "pod"],
            &["snapshot", "--group-by", "job"],
            &["snapshot", "--group-by", "owner"],
            &["record", "--db", &db, "--count", "1", "--interval", "100ms"],
            // What the recording just made shows, and the alerts on live samples.
            &["history", "--db", &db],
            &["plot", "--db", &db, "--out", &svg],
            &[
                "watch",
                "--alert",
                "device.memory.used > 1%",
                "--count",
                "1",
                "--interval",
                "100ms",
            ],
        ] {
            let out = m.run(&[&["--lang", lang][..], args].concat());
            let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            // Not vacuous: each command said something, in Chinese.
            assert!(
                text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{text}"
            );
            for l in english_sentences(&text) {
                found.push(format!("[{lang} {}] {l}", args.join(" ")));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
