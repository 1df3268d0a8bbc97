//! Files: where gpuledger keeps its own (recordings, probe results, exports), and how a file that
//! someone else named is described when it cannot be used. One rule each, for every crate.

use std::ffi::OsString;
use std::path::PathBuf;

/// gpuledger's data folder, reading the environment through `env`: `%LOCALAPPDATA%\gpuledger` on
/// Windows, `~/Library/Application Support/gpuledger` on macOS, else `$XDG_DATA_HOME/gpuledger` or
/// `~/.local/share/gpuledger` (a relative XDG_DATA_HOME is invalid by the XDG rules and ignored).
/// `None` when nothing it needs is set.
pub fn data_dir_with(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = if cfg!(windows) {
        set("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        set("HOME").map(|h| h.join("Library").join("Application Support"))
    } else {
        set("XDG_DATA_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| set("HOME").map(|h| h.join(".local").join("share")))
    }?;
    Some(base.join("gpuledger"))
}

/// What kind of file `ft` is, in words, for messages like "is not a regular file: it is a FIFO".
pub fn file_kind(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into())
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn data_dir_follows_xdg() {
        let d = data_dir_with(env(&[("XDG_DATA_HOME", "/x/data"), ("HOME", "/home/a")]));
        assert_eq!(d, Some(PathBuf::from("/x/data/gpuledger")));
        let d = data_dir_with(env(&[("XDG_DATA_HOME", "rel"), ("HOME", "/home/a")]));
        assert_eq!(d, Some(PathBuf::from("/home/a/.local/share/gpuledger")));
        assert_eq!(data_dir_with(env(&[])), None);
    }

    #[test]
    fn kinds_in_words() {
        let dir = std::env::temp_dir();
        assert_eq!(
            file_kind(&std::fs::metadata(&dir).unwrap().file_type()),
            "a directory"
        );
        let dev = std::fs::metadata("/dev/null").unwrap().file_type();
        assert_eq!(file_kind(&dev), "a character device");
    }
}
