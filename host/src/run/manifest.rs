//! A run's output directory: `manifest.json` (what the run plays: the plan, its hash, the
//! host version, each bot's command and a hash of its executable) beside the append-only
//! `games.jsonl` (read and written by the records crate, through [`crate::record`]). With it, running the same command again on the directory plays only the
//! games not finished yet; a different plan is refused with what differs; shards of one plan
//! can be merged ([`crate::commands::merge`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stratego_rules::RulesetSpec;

use crate::game::setup_book::SetupBook;
use crate::run::executor::Entrant;
use crate::run::referee::GameSettings;
use crate::run::schedule;

/// Everything that decides which games a run plays and how: its hash identifies the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `match`, `tournament` or `sprt`.
    pub command: String,
    /// The schedule's input (bots, format, games per pairing, seed, book size).
    pub event: schedule::EventSpec,
    /// The rules.
    pub rules: RulesetSpec,
    /// Each bot's name, command and clocks, by id.
    pub bots: Vec<PlanBot>,
    /// The setup book's content hash, when one is used.
    pub book: Option<String>,
    /// Faults forgiven per bot and game.
    pub strikes: u32,
    /// For `sprt`: the test and its game limit.
    pub sprt: Option<(stratego_stats::Sprt, u32)>,
    /// `--draw-after-no-capture` and `--adjudicate-material`; left out when off, so a plan
    /// without them keeps the hash it had before they existed.
    #[serde(default, skip_serializing_if = "crate::run::adjudicate::Adjudication::is_off")]
    pub adjudication: crate::run::adjudicate::Adjudication,
}

/// A bot as the plan knows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanBot {
    /// Stable name.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Its clocks.
    pub time_control: stratego_protocol::TimeControl,
}

/// Which slice of the plan a directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    /// Shards in all.
    pub count: u32,
}

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format of this file.
    pub manifest_version: u32,
    /// The plan's hash (FNV-1a 64 of its JSON; the shard is not part of it).
    pub plan_hash: String,
    /// `stratego-host` version that wrote it.
    pub host_version: String,
    /// The plan.
    pub plan: Plan,
    /// The slice this directory plays, if sharded.
    pub shard: Option<Shard>,
    /// Each bot's program and the hash of its content ([`executable_hash`]): of the version
    /// that played its latest games in the directory (the current one when it has played
    /// none), to tell when a bot changed between runs. A new version replaces it only once
    /// a game played with it is finished (`commands::play`).
    pub executables: Vec<Option<(String, String)>>,
    /// The event's name (`--event`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Bots whose program changed between runs on this directory, in words (`bot: bot.py
    /// HASH -> HASH after N games`): its games were played by more than one version (an
    /// entry is added once a game of the new version is finished, never after 0 games).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// The event's name for a rerun on a directory whose manifest names it `stored`, the
/// command giving `given` (`--event` or the file's `event`): the name is kept with the plan,
/// so a rerun without one takes the stored name, and one with another name is refused.
///
/// # Errors
/// Both are given and differ.
pub fn settle_event(stored: Option<&str>, given: Option<String>, dir: &Path) -> Result<Option<String>, String> {
    match (stored, given) {
        (Some(s), Some(g)) if s != g => Err(format!(
            "--out {}: the directory holds the event {s:?}, this command names it {g:?} (the name is kept with the plan: give --event {s:?}, or none)",
            dir.display()
        )),
        (stored, given) => Ok(given.or_else(|| stored.map(str::to_owned))),
    }
}

/// How a bot's program changed, for people: what is hashed, the old hash, the new one
/// (`none` when the file could not be read).
pub fn describe_change(old: &Option<(String, String)>, new: &Option<(String, String)>) -> (String, String, String) {
    let what = new.as_ref().or(old.as_ref()).map_or_else(|| "its program".to_owned(), |(w, _)| w.clone());
    let hash =
        |v: &Option<(String, String)>| v.as_ref().map_or_else(|| "none (unreadable)".to_owned(), |(_, h)| h.clone());
    (what, hash(old), hash(new))
}

/// FNV-1a, 64 bits: a fixed, documented hash (std's hasher may change between versions).
pub fn fnv64(bytes: &[u8]) -> u64 {
    fnv64_more(0xcbf2_9ce4_8422_2325, bytes)
}

fn fnv64_more(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// FNV-1a 64 of a file's content, read in chunks (an executable can be large: the host's
/// memory must not grow with it).
fn fnv64_file(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Some(h),
            Ok(n) => h = fnv64_more(h, &buf[..n]),
            Err(_) => return None,
        }
    }
}

impl Plan {
    /// The plan of a run: `command` and `sprt` are the competition's (its name, and for
    /// `sprt` the test and its game limit), the rest the run's.
    pub fn new(
        command: &str,
        sprt: Option<(stratego_stats::Sprt, u32)>,
        event: &schedule::EventSpec,
        settings: &GameSettings,
        bots: &[Entrant],
        book: Option<&SetupBook>,
    ) -> Plan {
        Plan {
            command: command.to_owned(),
            event: event.clone(),
            rules: settings.rules.spec().clone(),
            bots: bots
                .iter()
                .map(|b| PlanBot {
                    name: b.spec.name.clone(),
                    command: b.spec.plan_command(),
                    time_control: b.time_control.to_wire(),
                })
                .collect(),
            book: book.map(|b| format!("{:016x}", b.fingerprint())),
            strikes: settings.strikes,
            sprt,
            adjudication: settings.adjudication,
        }
    }

    /// The plan's hash, in hex.
    pub fn hash(&self) -> String {
        format!("{:016x}", fnv64(serde_json::to_string(self).expect("a plan serialises").as_bytes()))
    }

    /// The hash a manifest written before `same_program_groups` (see
    /// [`schedule::EventSpec`]) gave this plan: that of its JSON with the event's
    /// same-program bots as pairs. The same as [`Plan::hash`] when no two bots are one
    /// program.
    pub fn legacy_hash(&self) -> String {
        let json = serde_json::to_string(self).expect("a plan serialises");
        let (old, now) = self.event.legacy_json();
        format!("{:016x}", fnv64(json.replacen(&now, &old, 1).as_bytes()))
    }

    /// Whether `hash` (a manifest's `plan_hash`) is this plan's, in the form of this host
    /// or of an older one ([`Plan::legacy_hash`]).
    pub fn has_hash(&self, hash: &str) -> bool {
        hash == self.hash() || hash == self.legacy_hash()
    }

    /// Where this plan differs from `other` (the directory's against the command's), as
    /// `path: old -> new` lines for people, e.g. `event.games_per_pairing: 4 -> 2`.
    pub fn differences(&self, other: &Plan) -> Vec<String> {
        self.differences_between(other, "in the directory", "in this command")
    }

    /// [`Plan::differences`] with the two sides named by `mine` and `theirs` (`merge` names
    /// the directories: `in shard-1`, `in shard-2`).
    pub fn differences_between(&self, other: &Plan, mine: &str, theirs: &str) -> Vec<String> {
        let (a, b) = (serde_json::to_value(self).unwrap_or_default(), serde_json::to_value(other).unwrap_or_default());
        let mut out = Vec::new();
        diff("", &a, &b, (mine, theirs), &mut out);
        out.truncate(20);
        out
    }
}

fn diff(path: &str, a: &serde_json::Value, b: &serde_json::Value, sides: (&str, &str), out: &mut Vec<String>) {
    use serde_json::Value;
    let join = |k: &str| if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                diff(&join(k), v, y.get(k).unwrap_or(&Value::Null), sides, out);
            }
            for (k, v) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                diff(&join(k), &Value::Null, v, sides, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), v, w, sides, out);
            }
        }
        _ if a != b => {
            let clip = |v: &Value| crate::text::clip(&v.to_string());
            out.push(format!("{path}: {} {}, {} {}", clip(a), sides.0, clip(b), sides.1));
        }
        _ => {}
    }
}

/// Holds the run directory for one run at a time: two hosts appending the same games to one
/// directory would record them twice.
pub struct DirLock {
    _file: std::fs::File,
}

impl DirLock {
    /// Takes `dir/.lock` (an advisory `flock`, released when the host exits, even by
    /// `kill -9`).
    ///
    /// # Errors
    /// Another run holds it, or the file cannot be created.
    pub fn take(dir: &Path) -> Result<DirLock, String> {
        use std::os::fd::AsRawFd;
        if dir.exists() && !dir.is_dir() {
            return Err(format!(
                "--out {}: is a file, not a directory (--out names the directory the run keeps its manifest.json and games.jsonl in: give a new or existing directory)",
                dir.display()
            ));
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(".lock"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        // SAFETY: flock on a descriptor we own, with plain flags.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(format!("{}: another stratego-host run is using this directory", dir.display()));
        }
        Ok(DirLock { _file: f })
    }
}

/// What a bot's version is known by, and the hash of its content: the file that changes
/// when its author changes the bot, so that a changed bot is reported on resume and `merge`.
/// That is the host itself for the built-in sample bot (named `sample-bot (built in)`, not by
/// its path); what an interpreter or VM loads when that is not one script argument
/// ([`crate::supervise::program_files::program_files`]: `java -cp out Bot` is `Bot`, hashed from
/// the class and jar files in `out`; `java -jar x.jar`: `x.jar`; `python3 -m pkg`, `dotnet
/// bot.dll`, a script folder, and these behind `env VAR=…`); the script for a known
/// interpreter (`python3 bot.py`: `bot.py`; the interpreter only when the command names no
/// script file); otherwise
/// the program; and in every case any other argument that names a file (`--weights w.bin`).
/// The name is the command's word, never a path found on PATH, so the manifest does not
/// depend on where things are installed.
pub fn executable_hash(command: &[String], dir: Option<&Path>) -> Option<(String, String)> {
    let resolve = |p: &str| -> Option<PathBuf> {
        let path = Path::new(p);
        let path = match dir {
            Some(d) if path.is_relative() && d.join(path).is_file() => d.join(path),
            _ => path.to_owned(),
        };
        if path.is_file() {
            return Some(path);
        }
        if p.contains('/') {
            return None;
        }
        std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(p)).find(|c| c.is_file())
    };
    let is_file_arg = |a: &String| !a.starts_with('-') && (a.contains('.') || a.contains('/'));
    let (label, mut hash, rest): (String, u64, &[String]) = if crate::supervise::bot_spec::is_builtin(command) {
        let label = format!("{} (built in)", crate::supervise::bot_spec::SAMPLE_BOT);
        (label, fnv64_file(Path::new(&command[0]))?, &command[2..])
    } else if let Some(files) = crate::supervise::program_files::program_files(command, dir) {
        // What an interpreter or VM loads (a class path, a jar, a module, an assembly).
        let in_dir = |p: &str| match dir {
            Some(d) if Path::new(p).is_relative() => d.join(p),
            _ => PathBuf::from(p),
        };
        let paths: Vec<(&str, PathBuf)> = files.paths.iter().map(|p| (p.as_str(), in_dir(p))).collect();
        (files.label, fnv64_loaded(&paths, files.extensions), &command[files.rest.min(command.len())..])
    } else {
        match crate::supervise::bot_spec::script_index(command).and_then(|i| resolve(&command[i]).map(|p| (i, p))) {
            Some((i, script)) => (command[i].clone(), fnv64_file(&script)?, &command[i + 1..]),
            None => (command[0].clone(), fnv64_file(&resolve(&command[0])?)?, &command[1..]),
        }
    };
    let mut names = vec![label];
    for arg in rest.iter().filter(|a| is_file_arg(a)) {
        if let Some(h) = resolve(arg).and_then(|f| fnv64_file(&f)) {
            hash ^= h.rotate_left(names.len() as u32);
            names.push(arg.clone());
        }
    }
    Some((names.join(" "), format!("{hash:016x}")))
}

/// Files hashed at most in the folders of one program ([`fnv64_loaded`]): a class path of
/// `.` in a large working directory must not hold up the start of a run.
const MAX_LOADED_FILES: usize = 10_000;

/// The hash of what a program is loaded from: each path's content, a file's own, a
/// folder's the files in it (at any depth, in name order) whose extension is one of
/// `extensions`, each with its path in the folder, so that a class file added, removed,
/// renamed or edited changes the hash. Hidden entries and `node_modules` are not read; nor
/// are files past [`MAX_LOADED_FILES`]. A path that does not exist counts as empty. Each
/// path is given as written (hashed, so that the hash does not depend on where the bot's
/// folder is) and as found.
fn fnv64_loaded(paths: &[(&str, PathBuf)], extensions: &[&str]) -> u64 {
    let mut h = fnv64(b"loaded");
    let mut budget = MAX_LOADED_FILES;
    for (written, path) in paths {
        h = fnv64_more(h, written.as_bytes());
        if path.is_file() {
            h = fnv64_more(h, &fnv64_file(path).unwrap_or(0).to_le_bytes());
        } else if path.is_dir() {
            let mut files = Vec::new();
            folder_files(path, Path::new(""), extensions, &mut files, &mut budget);
            for (rel, file) in files {
                h = fnv64_more(h, rel.as_os_str().as_encoded_bytes());
                h = fnv64_more(h, &fnv64_file(&file).unwrap_or(0).to_le_bytes());
            }
        }
    }
    h
}

/// The files under `dir` (their paths relative to the folder first walked, and in full) whose
/// extension is one of `extensions`, in name order, at most `budget` more.
fn folder_files(dir: &Path, rel: &Path, extensions: &[&str], out: &mut Vec<(PathBuf, PathBuf)>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    entries.sort();
    for name in entries {
        if *budget == 0 {
            return;
        }
        if name.as_encoded_bytes().starts_with(b".") || name == "node_modules" {
            continue;
        }
        let path = dir.join(&name);
        // Not through symbolic links to folders: a link to `..` would never end.
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() {
            folder_files(&path, &rel.join(&name), extensions, out, budget);
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) && path.is_file() {
            *budget -= 1;
            out.push((rel.join(&name), path));
        }
    }
}

/// Reads `manifest.json` of `dir`, if there is one.
///
/// # Errors
/// The file exists but cannot be read or parsed.
pub fn read(dir: &Path) -> Result<Option<Manifest>, String> {
    let path = dir.join("manifest.json");
    match std::fs::read_to_string(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| format!("{}: {e}", path.display())),
    }
}

/// Writes `manifest.json` of `dir` atomically (a temporary file renamed over it).
///
/// # Errors
/// The file cannot be written.
pub fn write(dir: &Path, manifest: &Manifest) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(".manifest.json.tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all((serde_json::to_string_pretty(manifest).map_err(std::io::Error::other)? + "\n").as_bytes())?;
    f.sync_all()?;
    std::fs::rename(tmp, dir.join("manifest.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_published_function() {
        // FNV-1a 64 test vectors.
        assert_eq!(fnv64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
