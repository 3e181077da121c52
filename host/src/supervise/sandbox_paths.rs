//! What a sandboxed bot sees of the host's files (`--sandbox`, [`crate::supervise::sandbox`]):
//! the system directories, its own paths (its directory, its program's, the files its
//! command names), and the masks laid over what it must not read inside them (records,
//! setup books, other bots, `/etc` entries not every user may read). Paths only: the
//! bubblewrap arguments, cgroups and the launch are `sandbox.rs`'s; this file uses none of
//! it. Prints nothing, spawns nothing; reads the file system.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::supervise::bot_spec::BotSpec;

/// Directories of the system, bound read-only into every sandbox when they exist.
pub(crate) const SYSTEM_DIRS: &[&str] = &["/usr", "/etc", "/opt"];
/// Top-level names that are usually links into `/usr` (merged /usr) or directories.
pub(crate) const SYSTEM_LINKS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/// The user a sandboxed bot runs as when the host is root: `nobody`. Run as root's user id
/// (even in a user namespace of its own), a bot would be root to every kernel check that
/// looks at the user id outside the namespace: the kernel's settings in `/proc/sys`, files
/// owned by root. Bubblewrap then runs without a user namespace (root needs none to make
/// the others) and `setpriv` takes the bot's command to this user, with no capability left.
pub const SANDBOX_UID: u32 = 65534;
/// The group of [`SANDBOX_UID`].
pub const SANDBOX_GID: u32 = 65534;

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

pub(crate) fn is_system_path(p: &Path) -> bool {
    SYSTEM_DIRS.iter().chain(SYSTEM_LINKS).any(|d| p.starts_with(d))
}

/// What the sandboxes of a run must not show: the records directory, the setup book, the
/// tournament file, the protocol log, the ladder's file (registered with [`Masks::hide`]) and
/// each bot's own paths (registered with [`Masks::note_bot`]), masked in a sandbox whose own
/// paths contain them. The plan fills it before the first game; the run's
/// [`Supervisor`](crate::supervise::supervisor::Supervisor) owns it and every bot it starts
/// is masked with it.
#[derive(Clone, Debug, Default)]
pub struct Masks {
    /// Paths masked in every bot's sandbox (records, setup book, tournament file).
    pub(crate) hidden: BTreeSet<PathBuf>,
    /// Each bot's name and the paths that are its own (dir, program, files named in its
    /// command): masked in every other bot's sandbox.
    pub(crate) bots: Vec<(String, Vec<PathBuf>)>,
}

impl Masks {
    /// Registers a path no sandboxed bot may see (the records directory, the setup book, the
    /// tournament file, the protocol log). A path that does not exist yet is kept as given
    /// and masked once it exists.
    pub fn hide(&mut self, path: &Path) {
        self.hidden.insert(absolute(path));
    }

    /// These masks with the bots named `from[i]` named `to[i]` (their paths as they were
    /// noted: the paths are a bot's own, whoever it is named after; noting them again after
    /// the bots ran would add the files they made, such as a pid file another bot's command
    /// names inside a sandboxed bot's dir).
    #[must_use]
    pub fn renamed(&self, from: &[String], to: &[String]) -> Masks {
        let mut masks = self.clone();
        for (name, _) in &mut masks.bots {
            if let Some(i) = from.iter().position(|f| f == name) {
                name.clone_from(&to[i]);
            }
        }
        masks
    }

    /// Registers a bot's own paths, so that other bots' sandboxes mask them. Every bot of a run
    /// is registered (sandboxed or not) before its first game.
    pub fn note_bot(&mut self, spec: &BotSpec) {
        let paths = identity_paths(spec);
        if !self.bots.iter().any(|(n, p)| n == &spec.name && p == &paths) {
            self.bots.push((spec.name.clone(), paths));
        }
    }
}

/// `path` made absolute (from the host's working directory) and canonical when it exists.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
}

/// The working directory of a bot: its `dir`, or the host's.
pub(crate) fn bot_cwd(spec: &BotSpec) -> PathBuf {
    match &spec.dir {
        Some(d) => absolute(d),
        None => absolute(Path::new(".")),
    }
}

pub(crate) fn is_host_exe(program: &str) -> bool {
    std::env::current_exe().is_ok_and(|exe| absolute(&exe) == absolute(Path::new(program)))
}

/// A bot's program as the host would run it: a path (relative to its working directory),
/// or found on PATH.
pub(crate) fn resolve_program(spec: &BotSpec, cwd: &Path) -> Option<PathBuf> {
    let program = &spec.command[0];
    if program.contains('/') {
        return Some(cwd.join(program));
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var).map(|d| d.join(program)).find(|p| is_executable(p))
}

/// The paths that identify a bot (masked in other bots' sandboxes): its `dir`, its
/// program unless it is a system program or the host itself, and the files and
/// directories its arguments name.
pub(crate) fn identity_paths(spec: &BotSpec) -> Vec<PathBuf> {
    let cwd = bot_cwd(spec);
    let mut out = Vec::new();
    if spec.dir.is_some() {
        out.push(cwd.clone());
    }
    if let Some(p) = resolve_program(spec, &cwd).map(|p| absolute(&p)) {
        if !is_system_path(&p) && !is_host_exe(&p.to_string_lossy()) {
            out.push(p);
        }
    }
    out.extend(argument_paths(spec, &cwd));
    out.retain(|p| p.exists() && !is_system_path(p) && p != Path::new("/"));
    out.sort();
    out.dedup();
    out
}

/// Existing files and directories named by a bot's arguments (not flags).
pub(crate) fn argument_paths(spec: &BotSpec, cwd: &Path) -> Vec<PathBuf> {
    spec.command[1..]
        .iter()
        .filter(|a| !a.starts_with('-') && !a.is_empty())
        .map(|a| cwd.join(a))
        .filter(|p| p.exists())
        .map(|p| absolute(&p))
        .collect()
}

/// The directory a bot owns: its `dir`; without one, the directory of its program when
/// its command names it by path, else that of the first file its arguments name
/// (`python3 bots/me/bot.py`). Paths its arguments name are shown to it only inside this
/// directory: a command written by a bot's author cannot widen its sandbox
/// (`bot.py /root`); the organiser widens it with `dir`.
pub(crate) fn own_dir(spec: &BotSpec, cwd: &Path) -> Option<PathBuf> {
    if spec.dir.is_some() {
        return Some(cwd.to_owned());
    }
    if is_host_exe(&spec.command[0]) {
        return None;
    }
    if spec.command[0].contains('/') {
        return absolute(&cwd.join(&spec.command[0])).parent().map(Path::to_owned);
    }
    argument_paths(spec, cwd).into_iter().find(|p| p.is_file()).and_then(|p| p.parent().map(Path::to_owned))
}

/// The paths a bot's arguments name that it is shown (inside its [`own_dir`]) and those it
/// is not.
pub(crate) fn split_argument_paths(spec: &BotSpec, cwd: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let own = own_dir(spec, cwd);
    argument_paths(spec, cwd)
        .into_iter()
        .filter(|p| !is_system_path(p))
        .partition(|p| own.as_ref().is_some_and(|o| p.starts_with(o)))
}

/// The paths bound read-only into a bot's sandbox (see the module's documentation): its
/// `dir`; its program (the file alone; for a program found on PATH outside the system,
/// that PATH directory); the files and directories its arguments name inside its
/// [`own_dir`]. Without a `dir`, a bot sees no directory of its own whole: two bots in one
/// folder do not see each other's files.
pub(crate) fn own_binds(spec: &BotSpec) -> Vec<PathBuf> {
    let cwd = bot_cwd(spec);
    let mut binds = Vec::new();
    if spec.dir.is_some() {
        binds.push(cwd.clone());
    }
    if is_host_exe(&spec.command[0]) {
        if let Ok(exe) = std::env::current_exe() {
            binds.push(absolute(&exe));
        }
    } else if let Some(found) = resolve_program(spec, &cwd) {
        if spec.command[0].contains('/') {
            // The program where the command names it, and where it really is (a link).
            binds.push(std::path::absolute(&found).unwrap_or_else(|_| found.clone()));
            binds.push(absolute(&found));
        } else {
            let dir = found.parent().map(Path::to_owned).unwrap_or_default();
            if dir.file_name().is_some_and(|n| n == "shims") {
                // pyenv, rbenv, nodenv, asdf: the shim runs the manager from its root.
                binds.extend(dir.parent().map(absolute));
            } else {
                binds.push(absolute(&dir));
            }
            // A program that is a link (nvm, alternatives outside /usr) needs its target too.
            let real = absolute(&found);
            binds.extend(real.parent().map(Path::to_owned));
        }
    }
    binds.extend(split_argument_paths(spec, &cwd).0);
    binds.retain(|p| p.exists() && !is_system_path(p) && p != Path::new("/"));
    binds.sort();
    binds.dedup();
    // A path inside another bound path is already there.
    let all = binds.clone();
    binds.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    binds
}

/// The game records the host can recognise within `dir`, at any depth (every entry is
/// looked at: there is no cap to give up at), masked in the sandbox of a bot that sees
/// `dir`:
///
/// - a run's directory (holding a `games.jsonl` or `games.jsonl.zst`, or a `manifest.json`
///   that is a run's): the directory whole, or, when it is `dir` itself or holds one of
///   the bot's `own` paths, those files and the records files in it one by one;
/// - a records file under any other name: `*.jsonl` whose first 4 KiB hold a `"game_id"`
///   (exports, merges), `*.jsonl.zst` that is a zstd file (archives, compact exports);
/// - a ladder file (`*.db`, `*.sqlite`, `*.sqlite3` holding the ladder's tables) and its
///   `-wal`, `-shm` and `-journal` files.
///
/// Symbolic links are not followed (a link leads to a path the sandbox shows only if it
/// is bound, and then that path is scanned itself).
pub(crate) fn records_within(dir: &Path, own: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let entries: Vec<(PathBuf, std::fs::FileType)> =
            entries.flatten().filter_map(|e| Some((e.path(), e.file_type().ok()?))).collect();
        let is_run = entries.iter().any(|(p, t)| t.is_file() && is_run_file(p));
        let holds_own = d == dir || own.iter().any(|o| o.starts_with(&d));
        if is_run && !holds_own {
            out.push(d);
            continue;
        }
        for (p, t) in entries {
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file() && (is_run_file(&p) || is_records_file(&p)) {
                if is_ladder_file(&p) {
                    let name = p.as_os_str().to_owned();
                    for suffix in ["-wal", "-shm", "-journal"] {
                        let mut side = name.clone();
                        side.push(suffix);
                        out.push(PathBuf::from(side));
                    }
                }
                out.push(p);
            }
        }
    }
    out
}

/// The first `n` bytes of a file (fewer when it is shorter).
pub(crate) fn head(path: &Path, n: u64) -> Vec<u8> {
    use std::io::Read;
    let mut buf = Vec::new();
    if let Ok(f) = File::open(path) {
        let _ = f.take(n).read_to_end(&mut buf);
    }
    buf
}

pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A file that makes its directory a run's: `games.jsonl`, `games.jsonl.zst`, or a
/// `manifest.json` with a run's plan.
pub(crate) fn is_run_file(path: &Path) -> bool {
    match path.file_name().and_then(|n| n.to_str()) {
        Some("games.jsonl" | "games.jsonl.zst") => true,
        Some("manifest.json") => contains(&head(path, 4096), b"\"plan_hash\""),
        _ => false,
    }
}

/// A records file under another name, or a ladder file (see [`records_within`]).
pub(crate) fn is_records_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if name.ends_with(".jsonl") {
        contains(&head(path, 4096), b"\"game_id\"")
    } else if name.ends_with(".jsonl.zst") {
        // A zstd frame, or a skippable frame (magic 0x184D2A50 to 0x184D2A5F).
        matches!(head(path, 4)[..], [0x28, 0xb5, 0x2f, 0xfd] | [0x50..=0x5f, 0x2a, 0x4d, 0x18])
    } else {
        is_ladder_file(path)
    }
}

/// A ladder's SQLite file: its first pages hold the ladder's tables.
pub(crate) fn is_ladder_file(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    if !["db", "sqlite", "sqlite3"].contains(&ext) {
        return false;
    }
    let h = head(path, 64 << 10);
    h.starts_with(b"SQLite format 3\0") && contains(&h, b"CREATE TABLE records") && contains(&h, b"CREATE TABLE pairs")
}

/// Bound paths that uid [`SANDBOX_UID`] cannot read (or enter, or run, for the program):
/// with the host as root, the bot could not use them.
pub(crate) fn unreadable_by_sandbox_user(spec: &BotSpec) -> Vec<PathBuf> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let others_may = |p: &Path, bits: u32| {
        std::fs::metadata(p).is_ok_and(|m| {
            let mode = m.permissions().mode();
            mode & bits == bits || (m.uid() == SANDBOX_UID && (mode >> 6) & bits == bits)
        })
    };
    let mut out: Vec<PathBuf> =
        own_binds(spec).into_iter().filter(|b| !others_may(b, if b.is_dir() { 0o5 } else { 0o4 })).collect();
    let cwd = bot_cwd(spec);
    if let Some(program) = resolve_program(spec, &cwd).map(|p| absolute(&p)) {
        if !is_system_path(&program) && !others_may(&program, 0o5) && !out.contains(&program) {
            out.push(program);
        }
    }
    out
}

/// Entries of `/etc` that not every user may read: masked, because a host run as root
/// runs its sandboxes as root's user id outside their user namespace.
pub(crate) fn etc_masks() -> &'static [PathBuf] {
    static MASKS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    MASKS.get_or_init(|| {
        let mut out = Vec::new();
        let mut stack = vec![PathBuf::from("/etc")];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for e in entries.flatten() {
                let Ok(meta) = std::fs::symlink_metadata(e.path()) else { continue };
                use std::os::unix::fs::PermissionsExt;
                let mode = meta.permissions().mode();
                if meta.is_dir() {
                    if mode & 0o005 != 0o005 {
                        out.push(e.path());
                    } else {
                        stack.push(e.path());
                    }
                } else if meta.is_file() && mode & 0o004 == 0 {
                    out.push(e.path());
                }
            }
        }
        out.sort();
        out
    })
}

/// An empty, unreadable file and directory, bound over what a sandbox must not see. They
/// live in `$TMPDIR/stratego-host-masks-UID` (mode 0700, owned by the user, reused by every
/// run of that user), or a directory of this process when that name is taken by someone
/// else.
pub(crate) fn mask_sources() -> std::io::Result<&'static (PathBuf, PathBuf)> {
    static MASK: OnceLock<Result<(PathBuf, PathBuf), String>> = OnceLock::new();
    MASK.get_or_init(|| {
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        let shared = std::env::temp_dir().join(format!("stratego-host-masks-{uid}"));
        let own = std::env::temp_dir().join(format!("stratego-host-masks-{uid}-{}", std::process::id()));
        make_masks(&shared)
            .or_else(|_| make_masks(&own))
            .map_err(|e| format!("creating the sandbox's masks in {}: {e}", own.display()))
    })
    .as_ref()
    .map_err(|e| std::io::Error::other(e.clone()))
}

pub(crate) fn make_masks(dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    // Only a real directory of ours (not a link or someone else's, in a shared /tmp).
    let meta = std::fs::symlink_metadata(dir)?;
    // SAFETY: geteuid has no preconditions.
    if !meta.is_dir() || meta.uid() != unsafe { libc::geteuid() } || meta.mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!("{} is not a private directory of this user", dir.display())));
    }
    let file = dir.join("masked-file");
    let sub = dir.join("masked-dir");
    if !file.is_file() {
        File::create(&file)?;
    }
    if !sub.is_dir() {
        std::fs::create_dir(&sub)?;
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000))?;
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o000))?;
    Ok((file, sub))
}
