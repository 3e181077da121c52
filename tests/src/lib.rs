//! Helpers for the end-to-end tests: the host binary, temporary directories, records and
//! /proc checks.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `target/<profile>/NAME`: binaries of the workspace, built by `cargo test --workspace`
/// because their packages have integration tests.
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
    let bin = dir.join(name);
    assert!(bin.exists(), "{} is missing: run the tests with `cargo test --workspace`", bin.display());
    bin
}

/// The host binary.
pub fn host_bin() -> PathBuf {
    bin("stratego-host")
}

/// The release host binary, for the benchmarks: built first (a no-op when up to date), in
/// `CARGO_TARGET_DIR` if set.
pub fn release_host() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status =
        Command::new(cargo).args(["build", "--release", "-q", "-p", "stratego-host"]).status().expect("cargo build");
    assert!(status.success());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("release/stratego-host")
}

/// The misbehaving test bot, as a command line for `match`.
pub fn misbehaving(args: &str) -> String {
    format!("{} {args}", bin("misbehaving-bot").display())
}

/// A fresh temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates one named after the test.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("stratego-e2e-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A path inside.
    pub fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `stratego-host match` with `args`.
pub fn run_match(args: &[&str]) -> Output {
    Command::new(host_bin()).arg("match").args(args).output().expect("run stratego-host")
}

/// The records of a run (`DIR/games.jsonl`) as JSON values.
pub fn records(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).expect("records file");
    text.lines().map(|l| serde_json::from_str(l).expect("a record is JSON")).collect()
}

/// Whether a process exists (a zombie counts as gone: it holds no resources but its pid).
pub fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').map(|(_, rest)| !rest.trim_start().starts_with('Z')).unwrap_or(false),
        Err(_) => false,
    }
}

/// Pids of live processes whose process group is `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // fields[0] = state, [1] = ppid, [2] = pgrp
        if fields.len() > 2 && fields[2].parse::<i32>() == Ok(pgid) && fields[0] != "Z" {
            out.push(pid);
        }
    }
    out
}

/// Pids written to a pid file, one per line.
pub fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// Plays a match of `games` games of `bot` (Red first) against the sample bot with `extra`
/// options, asserts the host exited 0, and returns the records sorted by game.
pub fn play_against_sample_bot(name: &str, bot: &str, games: u32, extra: &[&str]) -> Vec<serde_json::Value> {
    let dir = TempDir::new(name);
    let games = games.to_string();
    let mut args = vec![bot, "sample-bot", "--games", &games, "--out", dir.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_match(&args);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records(&dir.0);
    recs.sort_by_key(|r| r["index"].as_u64());
    recs
}

/// Asserts that every game ended by the rules (no fault, no resignation).
pub fn assert_rule_endings(name: &str, recs: &[serde_json::Value]) {
    for r in recs {
        let reason = r["result"]["reason"].as_str().unwrap();
        assert!(
            ["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"].contains(&reason),
            "{name}: a game must end by the rules: {}",
            r["result"]
        );
    }
}

/// A small Python bot driven by `KEY=VALUE` arguments, for tests that need exact setups and
/// endings: `red=SETUP` / `blue=SETUP` (its setup for each colour, in any form `setup`
/// accepts, e.g. `a1=F a2=B b1=B`; without, its pieces in the order of the request), and at its N-th turn of a game `resign=N`, `crash=N`
/// (exit 1), `illegal=N` (the move `a1-a2`), `sleep=N` (no answer for 30 s); otherwise it
/// plays the first of `legal_moves`. `multi=1` says `multi_game`; `post=1` writes, after
/// each `game_over`, the info line `after GAME_ID` and the stderr line `stderr after
/// GAME_ID`; `exit_note=1` writes `bye` to stderr when told to quit.
pub const SCRIPTED_BOT: &str = r#"import sys, json, time
args = dict(a.split("=", 1) for a in sys.argv[1:])
def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()
turns, color, game = 0, None, None
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        color, game, turns = m["color"], m["game_id"], 0
        send({"type": "ready", "name": "scripted", "multi_game": args.get("multi") == "1"})
    elif t == "setup_request":
        if color in args:
            send({"type": "setup", "deployment": args[color]})
        else:
            army = [r for r, n in m["pieces"].items() for _ in range(n)]
            send({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))})
    elif t == "turn":
        turns += 1
        if args.get("resign") == str(turns):
            send({"type": "resign"})
        elif args.get("crash") == str(turns):
            sys.exit(1)
        elif args.get("illegal") == str(turns):
            send({"type": "move", "move": "a1-a2", "ply": m["ply"]})
        else:
            if args.get("sleep") == str(turns):
                time.sleep(30)
            send({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]})
    elif t == "game_over":
        if args.get("post") == "1":
            send({"type": "info", "text": "after " + game})
            print("stderr after " + game, file=sys.stderr, flush=True)
    elif t == "quit":
        if args.get("exit_note") == "1":
            print("bye", file=sys.stderr, flush=True)
        break
"#;

/// Writes [`SCRIPTED_BOT`] into `dir` and returns the command line that runs it with
/// `args` (each `KEY=VALUE` quoted as one word).
pub fn scripted_bot(dir: &TempDir, args: &[&str]) -> String {
    let path = dir.join("scripted_bot.py");
    if !path.exists() {
        std::fs::write(&path, SCRIPTED_BOT).unwrap();
    }
    let mut cmd = format!("python3 {}", path.display());
    for a in args {
        cmd.push_str(&format!(" '{a}'"));
    }
    cmd
}
