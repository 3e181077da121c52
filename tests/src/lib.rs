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
