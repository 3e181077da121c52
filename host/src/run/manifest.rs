//! A run's output directory: `manifest.json` (what the run plays: the plan, its hash, the
//! host version, each bot's command and a hash of its executable) beside the append-only
//! `games.jsonl`. With it, running the same command again on the directory plays only the
//! games not finished yet; a different plan is refused with what differs; shards of one plan
//! can be merged ([`crate::commands::merge`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stratego_rules::RulesetSpec;

use crate::game::setup_book::SetupBook;
use crate::record::GameRecord;
use crate::run::executor::Entrant;
use crate::run::referee::GameSettings;
use crate::run::schedule;
use stratego_records::GameDigest;
pub use stratego_records::Position;

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
            let clip = |v: &Value| crate::session::json_session::clip(&v.to_string());
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
/// ([`crate::supervise::bot_spec::program_files`]: `java -cp out Bot` is `Bot`, hashed from
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
    } else if let Some(files) = crate::supervise::bot_spec::program_files(command, dir) {
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

/// The records file of the `--out` directory `dir`: `games.jsonl.zst` (the compact form,
/// RECORDS.md) when it is there, else `games.jsonl` (whether or not it exists).
///
/// # Errors
/// The directory holds both files.
pub fn records_path(dir: &Path) -> Result<PathBuf, String> {
    Ok(stratego_records::records_file(dir)?.unwrap_or_else(|| dir.join(stratego_records::PLAIN_FILE)))
}

/// Whether `path` is a records file in the compact form (zstd frames).
fn is_compact(path: &Path) -> Result<bool, String> {
    stratego_records::Form::of_file(path)
        .map(|f| f == stratego_records::Form::Compact)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The finished games of a directory's `games.jsonl` (or `games.jsonl.zst`). A torn last
/// line or frame (the host was killed in the middle of a write, which a single write makes
/// unlikely but not impossible) is reported and cut off the file, so that later appends
/// start on a clean line or frame.
///
/// # Errors
/// A line (frame) other than the last is not a record, the directory holds both forms, or
/// the file cannot be read or cut.
pub fn read_records(dir: &Path) -> Result<Vec<GameRecord>, String> {
    let path = records_path(dir)?;
    if path.exists() && is_compact(&path)? {
        return read_compact(&path, true);
    }
    let bytes = match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(b) => b,
    };
    let mut records = Vec::new();
    let mut good_end = 0;
    let mut start = 0;
    let mut line_no = 0;
    while start < bytes.len() {
        line_no += 1;
        let end = bytes[start..].iter().position(|&b| b == b'\n').map(|i| start + i);
        let line = &bytes[start..end.unwrap_or(bytes.len())];
        let parsed = std::str::from_utf8(line).ok().and_then(|l| serde_json::from_str::<GameRecord>(l).ok());
        match (parsed, end) {
            (Some(r), Some(e)) => {
                records.push(r);
                good_end = e + 1;
                start = e + 1;
            }
            // The last line, a whole record without its newline: a record (RECORDS.md; the
            // writer starts the next one on a line of its own).
            (Some(r), None) => {
                records.push(r);
                break;
            }
            (None, None) | (None, Some(_)) if end.is_none_or(|e| e + 1 == bytes.len()) => {
                crate::notice::warn(format_args!(
                    "{}: line {line_no} is torn (the host was stopped, or a write failed, while writing it): {} bytes dropped",
                    path.display(),
                    bytes.len() - good_end
                ));
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                f.set_len(good_end as u64).map_err(|e| format!("{}: {e}", path.display()))?;
                break;
            }
            _ => return Err(format!("{}:{line_no}: not a game record", path.display())),
        }
    }
    Ok(records)
}

/// The game ids of the finished games of a directory's records file, in file order, for a
/// resumed run: what [`read_records`] finds, without holding the records. A plain file's
/// lines are not parsed but for the last (to tell a torn one) and those that do not begin
/// as the host writes a record (`{"game_id":"…"`): a line in the middle that is not a
/// record shows when the records are read ([`records_iter`]). A torn last line (frame) is
/// reported and cut off the file, as by [`read_records`].
///
/// # Errors
/// The directory holds both forms, a line without a game id, or the file cannot be read
/// or cut.
pub fn scan_finished(dir: &Path) -> Result<Vec<String>, String> {
    let path = records_path(dir)?;
    if path.exists() && is_compact(&path)? {
        // Each frame is decoded (one at a time), its line not parsed: the id is read from
        // its start, as in a plain file.
        let mut lines = stratego_records::RecordReader::open(&path).map_err(|e| e.to_string())?.raw_lines();
        let mut ids = Vec::new();
        for line in lines.by_ref() {
            let line = line.map_err(|e| e.to_string())?;
            ids.push(game_id_of(&line).ok_or_else(|| format!("{}: a frame without a game id", path.display()))?);
        }
        if let Some(torn) = lines.torn() {
            warn_torn(&path, torn, true);
            stratego_records::cut_torn_tail(&path, torn).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        return Ok(ids);
    }
    scan_plain(&path, SCAN_CHUNK)
}

/// [`scan_finished`] of a plain file, read `chunk` bytes at a time (more for a longer line).
fn scan_plain(path: &Path, chunk: usize) -> Result<Vec<String>, String> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(f) => f,
    };
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    // Large reads, lines found by memchr in place: a line is known not to be the last
    // once a byte follows it; the bytes from the start of the line not yet known so are
    // kept at the front of the buffer for the next read.
    let mut buf = vec![0u8; chunk.max(1)];
    let (mut filled, mut kept_from) = (0usize, 0u64);
    let mut ids = Vec::new();
    let mut line_no = 0usize;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if n == 0 {
            break;
        }
        filled += n;
        let mut start = 0;
        // Lines ending before the last byte read: not the last line.
        while let Some(p) = memchr::memchr(b'\n', &buf[start..filled.saturating_sub(1)]) {
            line_no += 1;
            let line = &buf[start..start + p + 1];
            ids.push(game_id_of(line).ok_or_else(|| format!("{}:{line_no}: not a game record", path.display()))?);
            start += p + 1;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        kept_from += start as u64;
    }
    // What is left is the last line: every newline before the last byte read was a line's
    // end with more after it.
    let (rest, last_start) = (&buf[..filled], kept_from);
    if rest.is_empty() {
        return Ok(ids);
    }
    line_no += 1;
    // The last line: a whole record (with its newline or without: RECORDS.md), or torn.
    let whole = serde_json::from_slice::<GameRecord>(rest).is_ok();
    if whole {
        ids.push(game_id_of(rest).ok_or_else(|| format!("{}:{line_no}: not a game record", path.display()))?);
    } else {
        crate::notice::warn(format_args!(
            "{}: line {line_no} is torn (the host was stopped, or a write failed, while writing it): {} bytes dropped",
            path.display(),
            rest.len()
        ));
        let f = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
        f.set_len(last_start).map_err(io)?;
    }
    Ok(ids)
}

/// How much of a plain records file [`scan_finished`] reads at a time (more for a longer
/// line).
const SCAN_CHUNK: usize = 4 << 20;

/// The game id of a record's line: read from its start when it begins as the host writes
/// records (`{"game_id":"ID",`), else parsed (`None`: not a record).
fn game_id_of(line: &[u8]) -> Option<String> {
    const START: &[u8] = b"{\"game_id\":\"";
    if let Some(rest) = line.strip_prefix(START) {
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
        if rest[end] == b'"' && rest.get(end + 1) == Some(&b',') {
            return std::str::from_utf8(&rest[..end]).ok().map(str::to_owned);
        }
    }
    #[derive(Deserialize)]
    struct Id {
        game_id: String,
    }
    let text = std::str::from_utf8(line).ok()?;
    if text.trim().is_empty() {
        return None;
    }
    serde_json::from_str::<Id>(text).ok().map(|i| i.game_id)
}

/// Every record of the records file `path` (either form: the records crate's reader); a
/// torn last line or frame is reported, and cut off the file when `cut` (resume appends
/// after it).
fn read_compact(path: &Path, cut: bool) -> Result<Vec<GameRecord>, String> {
    let read = stratego_records::read_all(path).map_err(|e| e.to_string())?;
    if let Some(torn) = &read.torn {
        warn_torn(path, torn, cut);
        if cut {
            stratego_records::cut_torn_tail(path, torn).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(read.records)
}

/// Says that a records file ends in a torn line or frame, and what becomes of it.
fn warn_torn(path: &Path, torn: &stratego_records::Torn, cut: bool) {
    crate::notice::warn(format_args!(
        "{}: {} is torn (the host was stopped, or a write failed, while writing it): {} bytes {}",
        path.display(),
        torn.position,
        torn.bytes,
        if cut { "dropped" } else { "not read" }
    ));
}

/// The records of the `--out` directory `dir` (either form), read one at a time (a torn
/// last line or frame ends them quietly; nothing is cut): for what reads a large directory
/// without holding it (its index, `merge`).
///
/// # Errors
/// The directory holds both forms, or the file cannot be opened (none is no error: no
/// records); each item is a record or why a line (frame) is not one.
pub fn records_iter(dir: &Path) -> Result<Box<dyn Iterator<Item = Result<GameRecord, String>>>, String> {
    let path = records_path(dir)?;
    if !path.exists() {
        return Ok(Box::new(std::iter::empty()));
    }
    if !is_compact(&path)? {
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Box::new(parallel_plain(file, path, parse_whole)));
    }
    let reader = stratego_records::RecordReader::open(&path).map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|r| r.map_err(|e| e.to_string()))))
}

/// A record read as its digest (all a report or an index row reads of it), its line kept
/// to read it whole when that is wanted (a viewer page): [`digests_iter`].
pub struct Digested {
    /// The record's digest.
    pub digest: GameDigest,
    whole: Whole,
}

/// Where a [`Digested`] record's whole form comes from.
enum Whole {
    /// Its line, not parsed yet.
    Line(Vec<u8>),
    /// The record, already read.
    Record(Box<GameRecord>),
}

impl Digested {
    /// A record already read whole.
    pub fn of(record: GameRecord) -> Digested {
        Digested { digest: GameDigest::of(&record), whole: Whole::Record(Box::new(record)) }
    }

    /// A record's line (its JSON, with or without its newline) read as a digest, the line
    /// kept.
    ///
    /// # Errors
    /// The line is not a record's JSON (why, in serde_json's words).
    pub fn from_line(line: Vec<u8>) -> Result<Digested, String> {
        parse_digested(line)
    }

    /// The whole record (its line parsed now, when it was read as a digest).
    ///
    /// # Errors
    /// The line is a digest but not a whole record (a ply's move that is not a move): the
    /// game named, and why.
    pub fn record(self) -> Result<GameRecord, String> {
        match self.whole {
            Whole::Record(r) => Ok(*r),
            Whole::Line(line) => {
                parse_whole(line).map_err(|e| format!("game {}: not a game record: {e}", self.digest.game_id))
            }
        }
    }
}

/// As [`records_iter`], each record read as its [`Digested`] form: a plain file's lines
/// parsed without their moves ([`GameDigest::parse`], a few times faster), by up to 4
/// threads; a compact file's records read whole (their digests made of them).
///
/// # Errors
/// As [`records_iter`]'s.
pub fn digests_iter(dir: &Path) -> Result<Box<dyn Iterator<Item = Result<Digested, String>>>, String> {
    let path = records_path(dir)?;
    if path.exists() && !is_compact(&path)? {
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Box::new(parallel_plain(file, path, parse_digested)));
    }
    Ok(Box::new(records_iter(dir)?.map(|r| r.map(Digested::of))))
}

/// A plain line as a whole record.
fn parse_whole(line: Vec<u8>) -> Result<GameRecord, String> {
    std::str::from_utf8(&line)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<GameRecord>(t).map_err(|e| e.to_string()))
}

/// A plain line as a digest, the line kept.
fn parse_digested(line: Vec<u8>) -> Result<Digested, String> {
    let digest = std::str::from_utf8(&line)
        .map_err(|e| e.to_string())
        .and_then(|t| GameDigest::parse(t).map_err(|e| e.to_string()))?;
    Ok(Digested { digest, whole: Whole::Line(line) })
}

/// Lines of a plain records file handed to the parsing threads at once.
const BATCH_LINES: usize = 64;

/// A batch of lines of a plain records file: its number in the file, the number of its
/// first line, the lines, and whether it holds the file's last line.
type LineBatch = (usize, usize, Vec<Vec<u8>>, bool);

/// What a batch's parsing gave, line by line (a torn last line ends the file quietly).
enum Parsed<T> {
    Record(T),
    Bad(String),
    Torn,
}

/// What stands for a line longer than the records limit in a batch (a NUL byte: no
/// record's line).
const TOO_LONG: &[u8] = b"\0longer than the limit\n";

/// The records of a plain records file, in file order, parsed by as many threads as there
/// are CPUs (up to 4) while one thread reads: parsing is most of the cost of reading
/// records. Reads as [`stratego_records::RecordReader`] does: blank lines are skipped, a
/// torn last line ends the records quietly, a line that is not a record is an error
/// `FILE:LINE: not a game record: …` (and the last item), and so is a line longer than
/// [`stratego_records::max_record_bytes`], read past without being held. Memory: a few batches of lines
/// per thread. Dropping the iterator stops the threads.
fn parallel_plain<T: Send + 'static>(
    file: std::fs::File,
    path: PathBuf,
    parse: fn(Vec<u8>) -> Result<T, String>,
) -> impl Iterator<Item = Result<T, String>> {
    use std::io::{BufRead, Read};
    use std::sync::mpsc;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let (batch_tx, batch_rx) = mpsc::sync_channel::<LineBatch>(2 * workers);
    let (out_tx, out_rx) = mpsc::sync_channel::<(usize, Vec<Parsed<T>>)>(2 * workers);
    let read_path = path.clone();
    let (read_err_tx, read_err_rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut input = std::io::BufReader::with_capacity(256 * 1024, file);
        let (mut batch, mut first, mut line_no, mut seq) = (Vec::new(), 1usize, 0usize, 0usize);
        let mut pending: Option<Vec<u8>> = None;
        loop {
            let mut line = Vec::new();
            // A line past the records limit is not held: read past, and marked.
            let max = stratego_records::max_record_bytes();
            let n = match (&mut input).take(max as u64 + 1).read_until(b'\n', &mut line) {
                Ok(n) => n,
                Err(e) => {
                    let _ = read_err_tx.send(format!("{}: {e}", read_path.display()));
                    0
                }
            };
            if line.len() > max && line.last() != Some(&b'\n') {
                line = TOO_LONG.to_vec();
                while let Ok(buf) = input.fill_buf() {
                    if buf.is_empty() {
                        break;
                    }
                    let (k, end) = buf.iter().position(|&b| b == b'\n').map_or((buf.len(), false), |i| (i + 1, true));
                    input.consume(k);
                    if end {
                        break;
                    }
                }
            }
            if let Some(p) = pending.take() {
                line_no += 1;
                batch.push(p);
                if batch.len() == BATCH_LINES || n == 0 {
                    let full = std::mem::take(&mut batch);
                    if batch_tx.send((seq, first, full, n == 0)).is_err() {
                        return;
                    }
                    seq += 1;
                    first = line_no + 1;
                }
            }
            if n == 0 {
                return;
            }
            pending = Some(line);
        }
    });
    let batch_rx = std::sync::Arc::new(std::sync::Mutex::new(batch_rx));
    for _ in 0..workers {
        let (rx, tx) = (batch_rx.clone(), out_tx.clone());
        let path = path.clone();
        std::thread::spawn(move || {
            loop {
                let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((seq, first, lines, last)) = next else { return };
                let count = lines.len();
                let parsed = lines
                    .into_iter()
                    .enumerate()
                    .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
                    .map(|(i, l)| {
                        let whole_line = l.ends_with(b"\n");
                        if l == TOO_LONG {
                            return Parsed::Bad(format!(
                                "{}:{}: longer than {} bytes, the longest record read (a decompression bomb or not a records file? --max-record-bytes raises the limit)",
                                path.display(),
                                first + i,
                                stratego_records::max_record_bytes()
                            ));
                        }
                        match parse(l) {
                            Ok(r) if whole_line => Parsed::Record(r),
                            _ if last && i + 1 == count => Parsed::Torn,
                            Ok(_) => Parsed::Torn,
                            Err(e) => Parsed::Bad(format!("{}:{}: not a game record: {e}", path.display(), first + i)),
                        }
                    })
                    .collect();
                if tx.send((seq, parsed)).is_err() {
                    return;
                }
            }
        });
    }
    drop(out_tx);
    // Batches come back in any order: kept until their turn.
    let mut waiting: std::collections::BTreeMap<usize, Vec<Parsed<T>>> = std::collections::BTreeMap::new();
    let mut next = 0usize;
    let mut current: std::collections::VecDeque<Parsed<T>> = std::collections::VecDeque::new();
    let mut done = false;
    std::iter::from_fn(move || {
        loop {
            if done {
                return None;
            }
            match current.pop_front() {
                Some(Parsed::Record(r)) => return Some(Ok(r)),
                Some(Parsed::Bad(e)) => {
                    done = true;
                    return Some(Err(e));
                }
                Some(Parsed::Torn) => {
                    done = true;
                    return None;
                }
                None => {}
            }
            if let Some(batch) = waiting.remove(&next) {
                next += 1;
                current.extend(batch);
                continue;
            }
            match out_rx.recv() {
                Ok((seq, batch)) => {
                    waiting.insert(seq, batch);
                }
                Err(_) => {
                    done = true;
                    return read_err_rx.try_recv().ok().map(Err);
                }
            }
        }
    })
}

/// Every record of the records file `path` (either form), for the read-only commands
/// (`replay`, `export`, `convert`), read by the records crate's reader as RECORDS.md says:
/// a torn last line or frame is left out with a warning (the file is not changed), a bad
/// line or frame before it is an error `FILE:LINE: …` or `FILE: frame N (byte B): …`.
///
/// # Errors
/// The file cannot be read, or holds something that is not a record.
pub fn read_records_file(path: &Path) -> Result<Vec<GameRecord>, String> {
    if !is_compact(path)? {
        check_line_lengths(path)?;
    }
    read_compact(path, false)
}

/// Checks, reading it a piece at a time, that no line of the plain file `path` is longer
/// than [`stratego_records::max_record_bytes`], before a reader that holds the file reads
/// it.
///
/// # Errors
/// The first such line, `FILE:LINE: longer than …`, or a read error.
fn check_line_lengths(path: &Path) -> Result<(), String> {
    use std::io::BufRead;
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let max = stratego_records::max_record_bytes();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, std::fs::File::open(path).map_err(io)?);
    let (mut line, mut len) = (1usize, 0usize);
    loop {
        let buf = input.fill_buf().map_err(io)?;
        if buf.is_empty() {
            return Ok(());
        }
        let n = buf.len();
        for &b in buf {
            if b == b'\n' {
                line += 1;
                len = 0;
            } else {
                len += 1;
                if len > max {
                    return Err(format!(
                        "{}:{line}: longer than {max} bytes, the longest record read (a decompression bomb or not a records file? --max-record-bytes raises the limit)",
                        path.display()
                    ));
                }
            }
        }
        input.consume(n);
    }
}

/// Every line (frame) of the records file `path` that is a game record, and where the
/// ones that are not are, skipped: for the read-only commands' `--skip-bad-lines`, so that
/// one corrupted line does not hide a whole file. Blank lines are not counted. In a plain
/// file the places are lines (1-based); in a compact file frames, and a torn last frame is
/// left out with a warning.
///
/// # Errors
/// The file cannot be read.
pub fn read_records_skipping(path: &Path) -> Result<(Vec<GameRecord>, Vec<Position>), String> {
    if is_compact(path)? {
        let (read, bad) = stratego_records::read_all_skipping(path).map_err(|e| e.to_string())?;
        if let Some(torn) = &read.torn {
            warn_torn(path, torn, false);
        }
        return Ok((read.records, bad.iter().filter_map(stratego_records::ReadError::position).collect()));
    }
    let (mut records, mut bad) = (Vec::new(), Vec::new());
    // A line past the limit is skipped like any bad line, without the file being held.
    if let Err(e) = check_line_lengths(path) {
        if !e.contains(": longer than ") {
            return Err(e);
        }
        let mut reader = stratego_records::RecordReader::open(path).map_err(|e| e.to_string())?;
        for r in reader.by_ref() {
            match r {
                Ok(r) => records.push(r),
                Err(e @ stratego_records::ReadError::Bad { .. }) => bad.extend(e.position()),
                Err(e) => return Err(e.to_string()),
            }
        }
        if let Some(t) = reader.torn() {
            bad.push(t.position);
        }
        return Ok((records, bad));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match std::str::from_utf8(line).ok().and_then(|l| serde_json::from_str::<GameRecord>(l).ok()) {
            Some(r) => records.push(r),
            None => bad.push(Position::Line(i + 1)),
        }
    }
    Ok((records, bad))
}

/// `error` with a hint at `--skip-bad-lines` when it is about a line of a records file
/// (`FILE:LINE: …`) or a frame of a compact one (`FILE: frame N …`).
pub fn with_skip_hint(error: String, path: &Path) -> String {
    let about_a_line = error
        .strip_prefix(&format!("{}:", path.display()))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()) || rest.starts_with(" frame "));
    if about_a_line { format!("{error} (--skip-bad-lines skips such lines)") } else { error }
}

/// Says on stderr which lines (or frames) `--skip-bad-lines` skipped in `path`, if any.
pub fn report_skipped(path: &Path, bad: &[Position]) {
    if bad.is_empty() {
        return;
    }
    const SHOWN: usize = 20;
    let more = if bad.len() > SHOWN { format!(" and {} more", bad.len() - SHOWN) } else { String::new() };
    let lines: Option<Vec<String>> = bad
        .iter()
        .take(SHOWN)
        .map(|p| match p {
            Position::Line(n) => Some(n.to_string()),
            Position::Frame { .. } => None,
        })
        .collect();
    match lines {
        Some(lines) => crate::notice::warn(format_args!(
            "{}: skipped {} that {} not a game record (--skip-bad-lines): line{} {}{more}",
            path.display(),
            stratego_stats::plural(bad.len() as u64, "line"),
            if bad.len() == 1 { "is" } else { "are" },
            if bad.len() == 1 { "" } else { "s" },
            lines.join(", ")
        )),
        None => {
            let places: Vec<String> = bad.iter().take(SHOWN).map(Position::to_string).collect();
            crate::notice::warn(format_args!(
                "{}: skipped {} that {} not a game record (--skip-bad-lines): {}{more}",
                path.display(),
                stratego_stats::plural(bad.len() as u64, "frame"),
                if bad.len() == 1 { "is" } else { "are" },
                places.join(", ")
            ));
        }
    }
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

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_off_the_file() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let line = serde_json::to_string(&rec).unwrap();
        std::fs::write(dir.join("games.jsonl"), format!("{line}\n{line}\n{}", &line[..40])).unwrap();
        let records = read_records(&dir).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(std::fs::read_to_string(dir.join("games.jsonl")).unwrap(), format!("{line}\n{line}\n"));
        // A bad line in the middle is an error, not a silent loss.
        std::fs::write(dir.join("games.jsonl"), format!("{line}\nnot json\n{line}\n")).unwrap();
        assert!(read_records(&dir).unwrap_err().ends_with("games.jsonl:2: not a game record"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_compact_file_is_read_its_torn_frame_cut_and_resume_appends_frames() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-zst-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let frame = enc.encode(&rec).unwrap();
        let whole = [frame.clone(), frame.clone()].concat();
        let file = dir.join("games.jsonl.zst");
        std::fs::write(&file, [whole.clone(), frame[..frame.len() - 5].to_vec()].concat()).unwrap();
        assert_eq!(records_path(&dir).unwrap(), file);
        assert_eq!(read_records(&dir).unwrap().len(), 2);
        assert_eq!(std::fs::read(&file).unwrap(), whole, "the torn frame is cut off");
        // The writer goes on in the compact form; the plain file is not made.
        let w = crate::record::RecordWriter::open(&dir, false).unwrap();
        assert_eq!(w.path(), file);
        w.append(&rec).unwrap();
        assert!(!dir.join("games.jsonl").exists());
        assert_eq!(read_records_file(&file).unwrap().len(), 3);
        // Both forms in one directory: which holds the run is unclear, so it is an error.
        std::fs::write(dir.join("games.jsonl"), "").unwrap();
        assert!(read_records(&dir).unwrap_err().contains("holds both"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_id_scan_finds_the_ids_of_the_records_in_both_forms_and_cuts_a_torn_tail() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut recs = Vec::new();
        for i in 0..5u32 {
            let mut r = crate::record::tests_support::record(None);
            r.game_id = format!("scan-{i}");
            r.index = i;
            recs.push(r);
        }
        // The fourth one written as another writer would (keys in another order): parsed.
        let mut lines: Vec<String> = recs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
        let mut v: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
        let id = v.as_object_mut().unwrap().remove("game_id").unwrap();
        v.as_object_mut().unwrap().insert("game_id".into(), id);
        lines[3] = serde_json::to_string(&v).unwrap() + "\n";
        assert!(!lines[3].starts_with("{\"game_id\""));
        let whole = lines.concat();
        let ids: Vec<String> = recs.iter().map(|r| r.game_id.clone()).collect();
        let plain = dir.join("games.jsonl");
        // Chunks smaller than a line, around a line, and larger than the file; with and
        // without a torn last line.
        for chunk in [1, 97, lines[0].len(), lines[0].len() + 1, 1 << 20] {
            std::fs::write(&plain, &whole).unwrap();
            assert_eq!(scan_plain(&plain, chunk).unwrap(), ids, "chunk {chunk}");
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), whole);
            std::fs::write(&plain, format!("{whole}{}", &lines[0][..50])).unwrap();
            assert_eq!(scan_plain(&plain, chunk).unwrap(), ids, "chunk {chunk}, torn");
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), whole, "the torn line is cut off");
            // A last line without its newline is a record when it is a whole one (RECORDS.md),
            // kept as it is (the writer starts the next record on a line of its own).
            let unterminated = format!("{whole}{}", lines[0].trim_end());
            std::fs::write(&plain, &unterminated).unwrap();
            let mut with_it = ids.clone();
            with_it.push(ids[0].clone());
            assert_eq!(scan_plain(&plain, chunk).unwrap(), with_it);
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), unterminated);
            // A line in the middle without an id is an error naming it.
            std::fs::write(&plain, format!("{}\n{}", lines[0], lines[1])).unwrap();
            assert!(scan_plain(&plain, chunk).unwrap_err().ends_with("games.jsonl:2: not a game record"));
        }
        // The same ids as the records read whole.
        std::fs::write(&plain, &whole).unwrap();
        let read: Vec<String> = read_records(&dir).unwrap().into_iter().map(|r| r.game_id).collect();
        assert_eq!(scan_finished(&dir).unwrap(), read);
        std::fs::remove_file(&plain).unwrap();
        // The compact form: frames decoded, ids from the lines; a torn frame cut off.
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let frames: Vec<u8> = lines.iter().flat_map(|l| enc.encode_line(l.as_bytes()).unwrap()).collect();
        let compact = dir.join("games.jsonl.zst");
        let torn = enc.encode_line(lines[0].as_bytes()).unwrap();
        std::fs::write(&compact, [frames.clone(), torn[..torn.len() - 3].to_vec()].concat()).unwrap();
        assert_eq!(scan_finished(&dir).unwrap(), ids);
        assert_eq!(std::fs::read(&compact).unwrap(), frames, "the torn frame is cut off");
        let read: Vec<String> = read_records(&dir).unwrap().into_iter().map(|r| r.game_id).collect();
        assert_eq!(read, ids);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn skipped_lines_and_frames_are_named() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-skip-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let line = serde_json::to_string(&rec).unwrap() + "\n";
        let plain = dir.join("games.jsonl");
        std::fs::write(&plain, format!("{line}not json\n{line}")).unwrap();
        let (records, bad) = read_records_skipping(&plain).unwrap();
        assert_eq!((records.len(), bad), (2, vec![Position::Line(2)]));
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let good = enc.encode(&rec).unwrap();
        let wrong = enc.encode_line(b"not json\n").unwrap();
        let compact = dir.join("other.jsonl.zst");
        std::fs::write(&compact, [good.clone(), wrong, good].concat()).unwrap();
        let (records, bad) = read_records_skipping(&compact).unwrap();
        assert_eq!(records.len(), 2);
        assert!(matches!(bad[..], [Position::Frame { number: 2, .. }]), "{bad:?}");
        let err = read_records_file(&compact).unwrap_err();
        assert!(with_skip_hint(err.clone(), &compact).ends_with("(--skip-bad-lines skips such lines)"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
