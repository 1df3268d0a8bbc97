//! Why a command refuses, in the reader's language: the value parsers' reasons inside clap's
//! usage errors, the commands' own refusals (a file that is not what it should be, an option
//! that cannot be used here) and the GGUF reader's, each in Chinese with no English sentence
//! left, while the exit status stays what it is in English.

use crate::languages::english_sentences;
use crate::support::*;

/// stderr and the exit status of `args` in `lang` (and in English, for the status).
fn refused(lang: &str, args: &[&str]) -> (String, Option<i32>) {
    let out = gpuledger_command()
        .env("GPULEDGER_LANG", lang)
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn refusals_speak_the_language_and_keep_their_status() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let not_gguf = dir.join("notes.gguf");
    std::fs::write(&not_gguf, "these are notes, not a model").unwrap();
    let bad_snapshot = dir.join("bad.json");
    std::fs::write(&bad_snapshot, "{\"schema\":\"gpuledger.snapshot/9\"}").unwrap();
    let no_folder = dir.join("missing").join("x.db");
    let (not_gguf, bad_snapshot, no_folder) = (
        not_gguf.to_str().unwrap(),
        bad_snapshot.to_str().unwrap(),
        no_folder.to_str().unwrap(),
    );
    // Each case: the arguments, and the words the Simplified and the Traditional text hold.
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["history", "--since", "abc"],
            "既不是 RFC 3339",
            "既不是 RFC 3339",
        ),
        (&["-d", "5h"], "超过上限 1 h", "超過上限 1 h"),
        (
            &["watch", "--alert", "foo > 1"],
            "未知字段 \"foo\"",
            "未知欄位 \"foo\"",
        ),
        (
            &["watch", "--alert", "device.memory.used > 90"],
            "不带单位的数字",
            "不帶單位的數字",
        ),
        (
            &["verify", "--size", "0"],
            "大小必须大于 0 字节",
            "大小必須大於 0 位元組",
        ),
        (
            &["plot", "--out", "x.txt"],
            "必须以 .svg 或 .png 结尾",
            "必須以 .svg 或 .png 結尾",
        ),
        (
            &["estimate", "--backend", "foo", not_gguf],
            "不是 cuda",
            "不是 cuda",
        ),
        (&["estimate", not_gguf], "不是 GGUF 文件", "不是 GGUF 檔案"),
        (&["estimate", "-c", "4096"], "没有模型", "沒有模型"),
        (
            &["serve", "--listen", "0.0.0.0:1"],
            "不是回环地址",
            "不是回送位址",
        ),
        (
            &["--replay", bad_snapshot, "snapshot"],
            "不支持的快照格式",
            "不支援的快照格式",
        ),
        (
            &["record", "--db", no_folder, "--count", "1"],
            "请先创建它",
            "請先建立它",
        ),
        (
            &["probe", "--cuda-lib", "/nonexistent/libcuda.so.1"],
            "无法加载 CUDA 驱动库",
            "無法載入 CUDA 驅動程式庫",
        ),
    ];
    for (args, cn_words, tw_words) in cases {
        let (en, en_status) = refused("en", args);
        assert_ne!(en_status, Some(0), "{args:?} should be refused: {en}");
        for (lang, words) in [("zh-CN", cn_words), ("zh-TW", tw_words)] {
            let (text, status) = refused(lang, args);
            assert_eq!(status, en_status, "{lang} {args:?}: {text}");
            assert!(text.contains(words), "{lang} {args:?}: {text}");
            let english = english_sentences(&text);
            assert!(
                english.is_empty(),
                "{lang} {args:?}: {english:?} in\n{text}"
            );
        }
    }
}
