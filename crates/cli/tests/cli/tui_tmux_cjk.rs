//! End to end, in Chinese (issue 39): the real binary's live view in tmux, chosen by `--lang
//! zh-CN` and by `LANG=zh_TW.UTF-8`, on the fake NVML and a recorded /proc tree whose processes,
//! users and model file have CJK names. What tmux shows is compared column by column, by display
//! width (a CJK character takes two cells), at 120×40 and 80×24.

use super::tui_tmux::{line_with, Tmux};
use crate::support::*;
use unicode_width::UnicodeWidthStr;

/// [`TWO_GPUS`]'s processes with CJK names, users and model file.
fn cjk_machine() -> Machine {
    let t = ProcTree::new();
    let passwd = t.dir.path().join("etc/passwd");
    let mut users = std::fs::read_to_string(&passwd).unwrap();
    users.push_str(
        "张三:x:1002:1002::/home/zhangsan:/bin/bash\n李四:x:1003:1003::/home/lisi:/bin/sh\n",
    );
    std::fs::write(&passwd, users).unwrap();
    t.add(
        4242,
        "推理服务",
        1002,
        500_000,
        &[
            "/opt/llama/llama-server",
            "-m",
            "/models/通义千问-7B-Chat.gguf",
            "-c",
            "8192",
        ],
    );
    t.add(5151, "训练任务", 1003, 600_000, &["python3", "训练.py"]);
    t.add(
        6001,
        "ollama",
        0,
        700_000,
        &["/usr/local/bin/ollama", "serve"],
    );
    t.add(1200, "Xorg", 0, 1_000, &["/usr/lib/xorg/Xorg", ":0"]);
    Machine::new(TWO_GPUS, t)
}

/// The display column where `needle` starts in `line`, and where it ends.
fn columns(line: &str, needle: &str) -> (usize, usize) {
    let i = line
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle:?} in {line:?}"));
    let start = line[..i].width();
    (start, start + needle.width())
}

/// The words of one language the test looks for.
struct Words {
    quit: &'static str,
    user: &'static str,
    name: &'static str,
    workload: &'static str,
    memory: &'static str,
    help: &'static str,
    details: &'static str,
}

const ZH_CN: Words = Words {
    quit: "q 退出",
    user: "用户",
    name: "名称",
    workload: "工作负载",
    memory: "显存",
    help: "帮助 — 按 ? F1 或 Esc 关闭",
    details: "详情 — 按 Esc 关闭",
};

const ZH_TW: Words = Words {
    quit: "q 離開",
    user: "使用者",
    name: "名稱",
    workload: "工作負載",
    memory: "記憶體",
    help: "說明 — 按 ? F1 或 Esc 關閉",
    details: "詳細資料 — 按 Esc 關閉",
};

/// The table's rows under the header of screen `s`, and the header, checked column by column.
fn check_table(s: &str, w: usize, words: &Words, with_user: bool) {
    for l in s.lines() {
        assert!(
            l.width() <= w,
            "wider than the window ({}): {l:?}\n{s}",
            l.width()
        );
    }
    let header = line_with(s, words.workload);
    assert!(
        header.contains(words.name) && header.contains(words.memory),
        "{s}"
    );
    assert!(
        !header.contains("NAME") && !header.contains("WORKLOAD"),
        "{s}"
    );
    let rows: Vec<&str> = s
        .lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take_while(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert!(rows.len() >= 4, "{s}");
    let (_, pid_end) = columns(header, "PID");
    let (name_at, _) = columns(header, words.name);
    let (workload_at, _) = columns(header, words.workload);
    let user_at = with_user.then(|| columns(header, words.user).0);
    let row = |pid: &str| {
        *rows
            .iter()
            .find(|r| r.contains(&format!(" {pid} ")))
            .unwrap_or_else(|| panic!("no row for {pid}:\n{s}"))
    };
    for (pid, name, user) in [
        ("4242", "推理服务", "张三"),
        ("5151", "训练任务", "李四"),
        ("6001", "ollama", "root"),
        ("1200", "Xorg", "root"),
    ] {
        let r = row(pid);
        // PID right-aligned under its header; the name, user and workload start where their
        // headers do, counted in display columns.
        assert_eq!(
            columns(r, &format!(" {pid} ")).1 - 1,
            pid_end,
            "{pid}:\n{s}"
        );
        assert_eq!(columns(r, name).0, name_at, "{pid} {name}:\n{s}");
        if let Some(at) = user_at {
            assert_eq!(columns(r, user).0, at, "{pid} {user}:\n{s}");
        }
        let workload = r
            .get(r.find(name).unwrap() + name.len()..)
            .unwrap()
            .trim_start();
        assert_eq!(columns(r, workload).0, workload_at, "{pid}:\n{s}");
    }
    assert!(
        row("4242").contains("llama.cpp · 通义千问"),
        "the CJK model name:\n{s}"
    );
}

fn view_in(words: &Words, env: &str, args: &str) {
    let Some(t) = Tmux::new() else { return };
    let m = cjk_machine();
    let cmd = format!(
        "{env} FAKE_NVML_SCENARIO='{}' NO_COLOR= '{}' --nvml-lib '{}' --proc-root '{}' -d 0.5 {args}; echo EXITED:$?; sleep 60",
        m.scenario.display(),
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
        m.root().display()
    );
    t.session(120, 40, &cmd);
    let s = t.wait("the first frame in Chinese", 15, |s| {
        s.contains("推理服务") && s.contains(words.quit)
    });
    check_table(&s, 120, words, true);
    eprintln!("{}", s);
    // The main screen, the help and a process's details hold no English sentence.
    let mut left = crate::languages::english_sentences(&s);
    t.keys(&["?"]);
    let help = t.wait("the help", 10, |h| h.contains(words.help));
    left.extend(crate::languages::english_sentences(&help));
    // Apart: Escape and Enter in one burst read as Alt+Enter.
    t.keys(&["Escape"]);
    t.wait("the help closed", 10, |h| !h.contains(words.help));
    t.keys(&["Enter"]);
    let details = t.wait("a process's details", 10, |d| d.contains(words.details));
    left.extend(crate::languages::english_sentences(&details));
    assert!(left.is_empty(), "{}\n{help}\n{details}", left.join("\n"));
    t.keys(&["Escape"]);
    t.cmd(&["resize-window", "-t", "gl", "-x", "80", "-y", "24"]);
    let s = t.wait("the compact layout", 10, |s| {
        s.contains("GPU0 H200") && s.contains(words.quit)
    });
    check_table(&s, 80, words, false);
    eprintln!("{}", s);
    t.exit_with("q");
}

#[test]
fn live_view_in_tmux_with_lang_zh_cn_lines_up_cjk_names() {
    view_in(&ZH_CN, "", "--lang zh-CN");
}

#[test]
fn live_view_in_tmux_with_lang_zh_tw_from_the_locale() {
    // GPULEDGER_LANG (set to `en` for every test) would come first: the locale decides here.
    view_in(
        &ZH_TW,
        "env -u GPULEDGER_LANG -u LC_ALL -u LC_MESSAGES LANG=zh_TW.UTF-8",
        "",
    );
}
