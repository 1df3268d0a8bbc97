//! Files another process named (a model folder on its command line, a file it has open) are
//! reached the way that process reaches them, and no further.
//!
//! - Through the process's own root: `/proc/PID/root` is another file system for a process in a
//!   container, and the kernel follows an absolute symlink met under it from *our* root, so a
//!   container's `/models/m/x -> /data/x` would name the host's `/data/x`. Here every symlink is
//!   followed by hand, component by component, inside the process's root (`..` never climbs
//!   above it, an absolute target starts again from it), as Linux's `openat2(RESOLVE_IN_ROOT)`
//!   does; at most 40 links, the kernel's own limit.
//! - Inside the model folder: a file of a model folder must stay in it once resolved (a hub
//!   cache's `snapshots/REV/` may lead to its repository's `blobs/`, as the hub lays it out). A
//!   shard that leads elsewhere (`model.safetensors -> /etc/shadow`) is refused, not read.
//! - The file opened is the file checked: the resolved path is opened and its device and inode
//!   must be those seen when it was resolved (a name swapped for a symlink in between is
//!   refused).

use std::fs::{File, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed in one resolution (Linux's `MAXSYMLINKS`).
#[cfg(unix)]
const MAX_LINKS: u32 = 40;

/// Where a process's `/` is, seen from here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRoot {
    host: PathBuf,
}

impl ProcessRoot {
    /// This machine's own root.
    pub fn host() -> ProcessRoot {
        ProcessRoot::at("/")
    }

    /// A root at `host` (a process's `/proc/PID/root`, or a recorded tree).
    pub fn at(host: impl Into<PathBuf>) -> ProcessRoot {
        ProcessRoot { host: host.into() }
    }

    /// Is this another root than this machine's?
    pub fn is_other(&self) -> bool {
        self.host != Path::new("/")
    }

    /// The root a path reached through [`crate::runtimes::hf::in_process_root`] lies under
    /// (`PROC/PID/root` when it starts there, else this machine's `/`), and the path as the
    /// process sees it.
    pub fn split(proc_root: &Path, pid: u32, seen: &Path) -> (ProcessRoot, PathBuf) {
        let root = proc_root.join(pid.to_string()).join("root");
        match seen.strip_prefix(&root) {
            Ok(inner) => (ProcessRoot::at(root), Path::new("/").join(inner)),
            Err(_) => (ProcessRoot::host(), seen.to_path_buf()),
        }
    }

    /// The path, as the process sees it, reached from here (no resolution).
    pub fn reach(&self, inner: &Path) -> PathBuf {
        self.host.join(inner.strip_prefix("/").unwrap_or(inner))
    }

    /// `path` (the process's, absolute) with every symlink followed inside this root: the
    /// result has no symlink left in it and names the same file for the process.
    #[cfg(unix)]
    pub fn resolve(&self, path: &Path) -> io::Result<PathBuf> {
        // A relative path: from our working directory on our own root; from its `/` elsewhere
        // (another process's working directory is not known here).
        let abs;
        let path = if path.is_relative() && !self.is_other() {
            abs = std::path::absolute(path)?;
            &abs
        } else {
            path
        };
        let mut done = PathBuf::from("/");
        // Steps still to walk, last first.
        let mut todo: Vec<Step> = Vec::new();
        push_steps(&mut todo, path)?;
        let mut links = 0;
        while let Some(step) = todo.pop() {
            match step {
                Step::Root => done = PathBuf::from("/"),
                Step::Parent => {
                    done.pop();
                }
                Step::Name(name) => {
                    let next = done.join(name);
                    let here = self.reach(&next);
                    if !std::fs::symlink_metadata(&here)?.file_type().is_symlink() {
                        done = next;
                        continue;
                    }
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io::Error::other(format!(
                            "more than {MAX_LINKS} symbolic links"
                        )));
                    }
                    push_steps(&mut todo, &std::fs::read_link(&here)?)?;
                }
            }
        }
        Ok(done)
    }

    /// Elsewhere the process's root is this machine's: the file system resolves.
    #[cfg(not(unix))]
    pub fn resolve(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(self.reach(path))
    }

    /// `path` resolved ([`ProcessRoot::resolve`]) and reached from here, ready to open.
    pub fn reached(&self, path: &Path) -> io::Result<Reached> {
        let inner = self.resolve(path)?;
        Reached::new(self.reach(&inner), inner)
    }
}

/// One step of a walk: to the root, up, or into a name.
#[cfg(unix)]
enum Step {
    Root,
    Parent,
    Name(std::ffi::OsString),
}

/// Push `path`'s steps so that they pop in order.
#[cfg(unix)]
fn push_steps(todo: &mut Vec<Step>, path: &Path) -> io::Result<()> {
    let start = todo.len();
    for c in path.components() {
        todo.push(match c {
            Component::RootDir => Step::Root,
            Component::ParentDir => Step::Parent,
            Component::Normal(n) => Step::Name(n.to_os_string()),
            Component::CurDir => continue,
            Component::Prefix(_) => return Err(io::Error::other("a path with a drive prefix")),
        });
    }
    todo[start..].reverse();
    Ok(())
}

/// A file resolved inside a process's root: where it is from here, and the identity it had when
/// it was resolved.
#[derive(Debug, Clone)]
pub struct Reached {
    /// Resolved, reached from here: what is opened.
    pub host: PathBuf,
    /// Resolved, as the process sees it.
    pub inner: PathBuf,
    identity: Option<(u64, u64)>,
}

impl Reached {
    fn new(host: PathBuf, inner: PathBuf) -> io::Result<Reached> {
        let identity = identity(&std::fs::symlink_metadata(&host)?);
        Ok(Reached {
            host,
            inner,
            identity,
        })
    }

    /// Device and inode when it was resolved (`None` where the platform has none).
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.identity
    }

    /// Open the file for reading: a regular file only, never blocking
    /// ([`gpuledger_sources::regular::open_regular`]), and the file that was resolved (same
    /// device and inode), with its metadata.
    pub fn open(&self) -> io::Result<(File, Metadata)> {
        let f = gpuledger_sources::regular::open_regular(&self.host)?;
        let md = f.metadata()?;
        if self.identity.is_some() && identity(&md) != self.identity {
            return Err(io::Error::other(
                "the file changed between resolving its name and opening it",
            ));
        }
        Ok((f, md))
    }
}

impl Reached {
    /// The whole file, refused past `max` bytes (at most `max + 1` are read whatever its
    /// length says).
    pub fn read_bounded(&self, max: u64) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let (f, md) = self.open()?;
        if md.len() > max {
            return Err(io::Error::other(format!(
                "larger than the limit of {max} bytes"
            )));
        }
        let mut bytes = Vec::with_capacity(md.len() as usize);
        f.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Err(io::Error::other(format!(
                "larger than the limit of {max} bytes"
            )));
        }
        Ok(bytes)
    }
}

/// A file's device and inode (`None` where the platform has none to give).
pub fn identity(md: &Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((md.dev(), md.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = md;
        None
    }
}

/// A model folder a process named: its files are reached inside the process's root and must
/// stay inside the folder.
#[derive(Debug, Clone)]
pub struct ModelFolder {
    root: ProcessRoot,
    /// Resolved, as the process sees it.
    inner: PathBuf,
    /// What its files must stay under: the folder, or a hub cache's repository folder.
    fence: PathBuf,
    /// How the folder is shown: the path as it was found.
    shown: PathBuf,
}

impl ModelFolder {
    /// The folder `dir` (the process's own path) inside `root`; `shown` is how messages name it.
    pub fn open(root: ProcessRoot, dir: &Path, shown: &Path) -> Result<ModelFolder, String> {
        let inner = root
            .resolve(dir)
            .map_err(|e| format!("{}: cannot resolve: {e}", shown.display()))?;
        if !std::fs::metadata(root.reach(&inner)).is_ok_and(|m| m.is_dir()) {
            return Err(format!("{}: not a folder", shown.display()));
        }
        let fence = hub_repository(&inner).unwrap_or_else(|| inner.clone());
        Ok(ModelFolder {
            root,
            inner,
            fence,
            shown: shown.to_path_buf(),
        })
    }

    /// A folder of this machine, shown as it is named.
    pub fn on_host(dir: &Path) -> Result<ModelFolder, String> {
        ModelFolder::open(ProcessRoot::host(), dir, dir)
    }

    /// How messages name the folder.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// The folder, reached from here (for listing it).
    pub fn host_path(&self) -> PathBuf {
        self.root.reach(&self.inner)
    }

    /// How messages name the file `name` of the folder.
    pub fn shown_file(&self, name: &str) -> PathBuf {
        self.shown.join(name)
    }

    /// The folder's file `name` (a plain name, no separators), resolved inside the process's
    /// root; refused when it leads outside the folder.
    pub fn file(&self, name: &str) -> Result<Reached, FolderError> {
        let p = Path::new(name);
        if p.components().count() != 1
            || !matches!(p.components().next(), Some(Component::Normal(_)))
        {
            return Err(FolderError::Outside(format!(
                "{name:?} is not a file name in the folder"
            )));
        }
        let inner = self
            .root
            .resolve(&self.inner.join(name))
            .map_err(FolderError::Io)?;
        if !inner.starts_with(&self.fence) {
            return Err(FolderError::Outside(format!(
                "leads outside the model folder (to {}): not followed",
                inner.display()
            )));
        }
        Reached::new(self.root.reach(&inner), inner).map_err(FolderError::Io)
    }
}

/// Why a folder's file was not reached.
#[derive(Debug)]
pub enum FolderError {
    /// It leads outside the folder (or is no plain name): refused.
    Outside(String),
    /// It could not be resolved (missing, a loop, no permission).
    Io(io::Error),
}

impl std::fmt::Display for FolderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FolderError::Outside(s) => f.write_str(s),
            FolderError::Io(e) => write!(f, "cannot resolve: {e}"),
        }
    }
}

/// `.../models--ORG--NAME` for a hub cache snapshot `.../models--ORG--NAME/snapshots/REV`: its
/// files are links to `../../blobs/HASH`.
fn hub_repository(dir: &Path) -> Option<PathBuf> {
    let snapshots = dir.parent()?;
    let repo = snapshots.parent()?;
    let is_repo = repo
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("models--"));
    (snapshots.file_name()? == "snapshots" && is_repo).then(|| repo.to_path_buf())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gl-confine-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn links_are_followed_inside_the_root_and_never_above_it() {
        let d = tmp("root");
        let root = ProcessRoot::at(&d);
        std::fs::create_dir_all(d.join("data/m")).unwrap();
        std::fs::write(d.join("data/m/w"), b"x").unwrap();
        // Absolute: from the process's root, not ours.
        symlink("/data/m", d.join("models")).unwrap();
        // `..` past the root stays at the root.
        symlink("../../../../data/m/w", d.join("data/up")).unwrap();
        assert_eq!(
            root.resolve(Path::new("/models/w")).unwrap(),
            Path::new("/data/m/w")
        );
        assert_eq!(
            root.resolve(Path::new("/data/up")).unwrap(),
            Path::new("/data/m/w")
        );
        // A loop ends.
        symlink("loop", d.join("loop")).unwrap();
        assert!(root.resolve(Path::new("/loop")).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_folders_file_must_stay_in_it_except_a_hub_snapshots_blobs() {
        let d = tmp("fence");
        let m = d.join("m");
        std::fs::create_dir_all(&m).unwrap();
        std::fs::write(d.join("secret"), b"x").unwrap();
        std::fs::write(m.join("blob"), b"x").unwrap();
        symlink("../secret", m.join("out")).unwrap();
        symlink("blob", m.join("in")).unwrap();
        let f = ModelFolder::on_host(&m).unwrap();
        assert!(f.file("in").is_ok());
        let e = f.file("out").unwrap_err().to_string();
        assert!(e.contains("outside the model folder"), "{e}");
        assert!(f.file("../secret").is_err());
        // The hub cache's layout.
        let repo = d.join("hub/models--Org--M");
        std::fs::create_dir_all(repo.join("snapshots/abc")).unwrap();
        std::fs::create_dir_all(repo.join("blobs")).unwrap();
        std::fs::write(repo.join("blobs/h1"), b"x").unwrap();
        symlink(
            "../../blobs/h1",
            repo.join("snapshots/abc/model.safetensors"),
        )
        .unwrap();
        let f = ModelFolder::on_host(&repo.join("snapshots/abc")).unwrap();
        assert!(f.file("model.safetensors").is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
