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

/// The per-move limit in seconds of games in tests that are not about clocks: far past
/// what any bot of these tests needs, whatever else keeps the machine busy (the host's
/// default of 1 s was reached by a Python bot while other builds and matches filled both
/// CPUs of a shared machine).
pub const CALM_MOVE_TIME: &str = "60";

/// `--move-time` [`CALM_MOVE_TIME`], for commands that play games in tests that are not
/// about clocks.
pub const CALM_CLOCK: [&str; 2] = ["--move-time", CALM_MOVE_TIME];

/// Whether `args` set a game clock (`--move-time` or `--tc`).
pub fn sets_clock(args: &[&str]) -> bool {
    args.iter().any(|a| {
        ["--move-time", "--tc"]
            .iter()
            .any(|flag| *a == *flag || a.strip_prefix(flag).is_some_and(|r| r.starts_with('=')))
    })
}

/// Runs `stratego-host match` with `args`, and with [`CALM_CLOCK`] unless `args` set a
/// clock themselves (tests about clocks do).
pub fn run_match(args: &[&str]) -> Output {
    let mut command = Command::new(host_bin());
    command.arg("match").args(args);
    if !sets_clock(args) {
        command.args(CALM_CLOCK);
    }
    command.output().expect("run stratego-host")
}

/// [`run_match`] through the `peak-rss` helper, with the host's own peak resident memory in
/// KiB: the host's `host_peak_rss_kib` would count this test process's peak too (Linux
/// carries a process's peak across `exec`, and a test process reading records is big).
pub fn run_match_measured(args: &[&str]) -> (Output, u64) {
    let out_file = std::env::temp_dir().join(format!(
        "stratego-peak-rss-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    ));
    let mut command = Command::new(bin("peak-rss"));
    command.arg(&out_file).arg(host_bin()).arg("match").args(args);
    if !sets_clock(args) {
        command.args(CALM_CLOCK);
    }
    let out = command.output().expect("run stratego-host through peak-rss");
    let line = std::fs::read_to_string(&out_file).expect("peak-rss wrote its figure");
    let _ = std::fs::remove_file(&out_file);
    let kib = line.split_whitespace().next().and_then(|w| w.parse().ok()).expect("a peak in KiB");
    (out, kib)
}

/// Runs `stratego-host ladder --db DB ARGS`; `play` (when `args` start with it) gets
/// [`CALM_CLOCK`] after `args`: the ladder's tests are not about clocks.
pub fn ladder(db: &Path, args: &[&str]) -> Output {
    let clock: &[&str] = if args.first() == Some(&"play") { &CALM_CLOCK } else { &[] };
    Command::new(host_bin())
        .arg("ladder")
        .arg("--db")
        .arg(db)
        .args(args)
        .args(clock)
        .output()
        .expect("run stratego-host")
}

/// The stdout of a command that must have succeeded: a test that calls it fails on any
/// other exit, showing the exit code and the command's stderr.
pub fn ok(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// A bot spec (JSON) that runs `command` with a calm clock of its own: 60 s to start, to
/// set up and for each move, whatever the event's limits. For the opponent of a bot whose
/// tight limit a test is about (only that bot's limit is then tight).
pub fn calm_bot(command: &str) -> String {
    let command = serde_json::to_string(command).expect("a string");
    format!(
        r#"{{"command": {command}, "startup_time": {CALM_MOVE_TIME}, "setup_time": {CALM_MOVE_TIME}, "move_time": {CALM_MOVE_TIME}}}"#
    )
}

/// Polls `done` every 20 ms until it holds or `limit` has passed; whether it held. For
/// waits on other processes, which a busy machine may delay by seconds: the limit is only
/// how long a broken run takes to fail, never what a test asserts about time.
pub fn wait_for(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `trial` (given its number) `trials` times and asserts that at most `wrong_at_most`
/// of them failed (panicked), naming `what`: the verdict of a timing test as a rate, so
/// that one slow hypervisor tick does not decide it. Each failure's message is printed as
/// it happens.
pub fn judge_over_trials(what: &str, trials: usize, wrong_at_most: usize, trial: impl Fn(usize)) {
    let mut wrong = Vec::new();
    for i in 0..trials {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| trial(i))).is_err() {
            wrong.push(i);
        }
    }
    assert!(
        wrong.len() <= wrong_at_most,
        "{what}: {} of {trials} trials failed (at most {wrong_at_most} may): trials {wrong:?}",
        wrong.len()
    );
}

/// Whether this process may run a thread at a real-time priority (`SCHED_FIFO`), as the
/// host's stall watchdogs and the timing tests' stalling threads do: root or
/// `CAP_SYS_NICE`, and a real-time budget. Tried on a short-lived thread of its own.
pub fn realtime_allowed() -> bool {
    std::thread::spawn(|| {
        // SAFETY: a plain integer and a stack struct; only this short-lived thread is affected.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &libc::sched_param { sched_priority: 1 }) == 0 }
    })
    .join()
    .unwrap_or(false)
}

/// Says that `test` was skipped and why, as `skipped: TEST: REASON`, for a test that
/// returns early because this machine or user cannot run it. Written to the process's
/// standard error itself, past the test harness's capture of `eprintln!`, so that a plain
/// `cargo test` shows it although the test passes: a skip is never silent.
pub fn skip(test: &str, reason: &str) {
    use std::io::Write;
    let line = format!("skipped: {test}: {reason}\n");
    // One write of the whole line, so that other tests' output does not split it.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// For a timing test that needs real-time priorities ([`realtime_allowed`]): true when it
/// may run; else says `skipped: TEST: …` with the reason ([`skip`]) and returns false.
pub fn realtime_or_skip(test: &str) -> bool {
    if realtime_allowed() {
        return true;
    }
    skip(
        test,
        "needs real-time priorities (root or CAP_SYS_NICE), as the host's stall watchdogs do; \
         this process may not use them",
    );
    false
}

/// The records of a run (`DIR/games.jsonl`) as JSON values.
pub fn records(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).expect("records file");
    text.lines().map(|l| serde_json::from_str(l).expect("a record is JSON")).collect()
}

/// The names the records of `dir/games.jsonl` give red and blue, sorted, each once.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = records(dir)
        .iter()
        .flat_map(|r| [r["bots"]["red"]["name"].clone(), r["bots"]["blue"]["name"].clone()])
        .map(|n| n.as_str().expect("a name").to_owned())
        .collect();
    names.sort();
    names.dedup();
    names
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
/// options (through [`run_match`]: a calm clock unless `extra` sets one), asserts the host
/// exited 0, and returns the records sorted by game.
pub fn play_against_sample_bot(name: &str, bot: &str, games: u32, extra: &[&str]) -> Vec<serde_json::Value> {
    play_against(name, bot, "sample-bot", games, extra)
}

/// [`play_against_sample_bot`] with `opponent` (a bot argument) instead of the sample bot.
pub fn play_against(name: &str, bot: &str, opponent: &str, games: u32, extra: &[&str]) -> Vec<serde_json::Value> {
    let dir = TempDir::new(name);
    let games = games.to_string();
    let mut args = vec![bot, opponent, "--games", &games, "--out", dir.0.to_str().unwrap()];
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

/// The server-sent events in the text of a stream (the live page's `/events`): each
/// message's name and its data as JSON; a message without a name or data is skipped.
pub fn sse_events(stream: &str) -> Vec<(String, serde_json::Value)> {
    stream
        .split("\n\n")
        .filter_map(|block| {
            let name = block.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((name.to_owned(), serde_json::from_str(data).expect("an event's data is JSON")))
        })
        .collect()
}

/// A small Python bot driven by `KEY=VALUE` arguments, for tests that need exact setups and
/// endings: `red=SETUP` / `blue=SETUP` (its setup for each colour, in any form `setup`
/// accepts, e.g. `a1=F a2=B b1=B`; without, its pieces in the order of the request), and at its N-th turn of a game `resign=N`, `crash=N`
/// (exit 1), `illegal=N` (the move `a1-a2`), `sleep=N` (no answer for 30 s); otherwise it
/// plays the first of `legal_moves`. `back=1` fills its squares from its back rank forward,
/// its Flag first, then its Bombs, then the rest in the request's order (the Flag on the back
/// rank, so that no first moves of the opponent can take it; the request lists the Flag last); `delay_ms=N` waits N ms before each move;
/// `hold=N:PATH[,N:PATH…]` waits at its N-th turn of a game until the file PATH exists
/// (`hold_red=…`, `hold_blue=…`: only in the games it plays that colour). `multi=1` says `multi_game`; `post=1` writes, after
/// each `game_over`, the info line `after GAME_ID` and the stderr line `stderr after
/// GAME_ID`; `exit_note=1` writes `bye` to stderr when told to quit.
pub const SCRIPTED_BOT: &str = r#"import sys, json, time, os
args = dict(a.split("=", 1) for a in sys.argv[1:])
def holds_of(key):
    return [h.split(":", 1) for h in args.get(key, "").split(",") if h]
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
            squares = m["squares"]
            if args.get("back") == "1":
                squares = sorted(squares, key=lambda s: int(s[1:]), reverse=color == "blue")
                army = sorted(army, key=lambda r: {"flag": 0, "bomb": 1}.get(r, 2))
            send({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(squares, army))})
    elif t == "turn":
        turns += 1
        for n, path in holds_of("hold") + holds_of("hold_" + color):
            while n == str(turns) and not os.path.exists(path):
                time.sleep(0.02)
        if "delay_ms" in args:
            time.sleep(int(args["delay_ms"]) / 1000)
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

/// `record`'s game after its first `ply` plies, replayed by the rules crate, and every square
/// of its board with an empty value (`""`), for a test to fill in.
pub fn replayed(
    record: &stratego_protocol::record::GameRecord,
    ply: usize,
) -> (stratego_rules::Game, std::collections::BTreeMap<String, String>) {
    use stratego_rules::{Color, Deployment, Game, Ruleset, Square};
    let rules = Ruleset::try_from(record.ruleset.clone()).unwrap();
    let red = Deployment::parse(&rules, Color::Red, record.deployments.red.as_deref().unwrap()).unwrap();
    let blue = Deployment::parse(&rules, Color::Blue, record.deployments.blue.as_deref().unwrap()).unwrap();
    let (width, height) = (rules.width(), rules.height());
    let mut game = Game::new(rules, &red, &blue).unwrap();
    for p in &record.plies[..ply] {
        game.play(p.ply.mv).unwrap();
    }
    let mut board = std::collections::BTreeMap::new();
    for rank in 0..height {
        for file in 0..width {
            board.insert(Square::new(file, rank).unwrap().to_string(), String::new());
        }
    }
    (game, board)
}

/// Every square of the board as the pages' `data-piece` values (`red:9`, `blue:?`, "" for
/// an empty square), computed by replaying the first `ply` plies of `record` with the rules
/// crate: the spectator's (`None`: every rank) or one side's view.
pub fn expected_board(
    record: &stratego_protocol::record::GameRecord,
    ply: usize,
    viewer: Option<stratego_rules::Color>,
) -> std::collections::BTreeMap<String, String> {
    let (game, mut board) = replayed(record, ply);
    match viewer {
        None => {
            for (sq, color, rank) in game.board_pieces() {
                board.insert(sq.to_string(), format!("{}:{}", color.name(), rank.code()));
            }
        }
        Some(viewer) => {
            for p in game.view_pieces(viewer) {
                board.insert(p.square.to_string(), format!("{}:{}", p.color.name(), p.rank.map_or('?', |r| r.code())));
            }
        }
    }
    board
}

/// A Python bot that fails to start on its `fail`-th start (counted in `count_file`; the
/// host's start-up check before the first game is the first), and plays the first legal
/// move otherwise.
pub fn flaky_start_bot(dir: &Path, fail: u32) -> String {
    start_counting_bot(dir, "flaky.py", &format!("n == {fail}"), "0", "license server unreachable", "")
}

/// A Python bot, `DIR/FILE`, that counts its starts in `DIR/starts` (the host's start-up check is the first) and, on the starts where
/// the Python condition `fails` on `n` (the start's number) holds, sleeps `sleep_s` (a
/// Python expression of `n`, in seconds), writes `message` to stderr and exits 1; it plays
/// the first legal move otherwise. Its name is `flaky`; `tag`, a comment, only makes
/// another program of it (another content hash).
pub fn start_counting_bot(dir: &Path, file: &str, fails: &str, sleep_s: &str, message: &str, tag: &str) -> String {
    let path = dir.join(file);
    let count = dir.join("starts");
    std::fs::write(
        &path,
        format!(
            r#"# {tag}
import json, sys, time
path = {count:?}
try:
    n = int(open(path).read())
except OSError:
    n = 0
n += 1
open(path, "w").write(str(n))
if {fails}:
    time.sleep({sleep_s})
    print({message:?}, file=sys.stderr, flush=True)
    sys.exit(1)
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        print(json.dumps({{"type": "ready", "name": "flaky"}}), flush=True)
    elif t == "setup_request":
        army = [r for r, k in m["pieces"].items() for _ in range(k)]
        print(json.dumps({{"type": "setup", "deployment": " ".join(f"{{s}}={{r}}" for s, r in zip(m["squares"], army))}}), flush=True)
    elif t == "turn":
        print(json.dumps({{"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]}}), flush=True)
    elif t == "quit":
        break
"#,
            count = count.display().to_string()
        ),
    )
    .unwrap();
    format!("python3 {}", path.display())
}

/// A TCP connection to `addr` (an IPv4 `ADDR:PORT`) from the local address `from` (any of
/// 127.0.0.0/8 on Linux: each is another client address to the server), with read and
/// write timeouts of `limit`.
pub fn connect_from(from: std::net::Ipv4Addr, addr: &str, limit: std::time::Duration) -> std::net::TcpStream {
    use std::os::fd::FromRawFd as _;
    let target: std::net::SocketAddrV4 = addr.parse().expect("an IPv4 address and port");
    let sin = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(ip).to_be() },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: plain socket calls on a descriptor this function owns until it is handed to
    // the TcpStream; the pointers point to values of the sizes given.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let s = std::net::TcpStream::from_raw_fd(fd);
        let local = sin(from, 0);
        let r = libc::bind(fd, (&raw const local).cast(), len);
        assert_eq!(r, 0, "bind {from}: {}", std::io::Error::last_os_error());
        let remote = sin(*target.ip(), target.port());
        let r = libc::connect(fd, (&raw const remote).cast(), len);
        assert_eq!(r, 0, "connect from {from} to {addr}: {}", std::io::Error::last_os_error());
        s.set_read_timeout(Some(limit)).unwrap();
        s.set_write_timeout(Some(limit)).unwrap();
        s
    }
}

/// Everything a child's pipe says, collected by a thread of its own as it comes (read the
/// text at any time; a test polls it while the child runs).
pub fn collect_pipe(mut pipe: impl std::io::Read + Send + 'static) -> std::sync::Arc<std::sync::Mutex<String>> {
    let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let into = text.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

/// Remote bots' end-to-end helpers: a host listening for them on 127.0.0.1, `connect`
/// clients, tokens (shared by remote.rs and chaos_remote.rs).
pub mod remote {
    /// One WebSocket frame from the front of `buf`, if it is whole: its length in bytes, its
    /// opcode and its payload (unmasked).
    pub fn frame(buf: &[u8]) -> Option<(usize, u8, Vec<u8>)> {
        if buf.len() < 2 {
            return None;
        }
        let opcode = buf[0] & 0x0f;
        let masked = buf[1] & 0x80 != 0;
        let (len, mut at) = match buf[1] & 0x7f {
            126 => (u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?) as usize, 4),
            127 => (u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize, 10),
            n => (n as usize, 2),
        };
        let mask = if masked {
            let m: [u8; 4] = buf.get(at..at + 4)?.try_into().ok()?;
            at += 4;
            Some(m)
        } else {
            None
        };
        let mut payload = buf.get(at..at + len)?.to_vec();
        if let Some(m) = mask {
            for (i, b) in payload.iter_mut().enumerate() {
                *b ^= m[i % 4];
            }
        }
        Some((at + len, opcode, payload))
    }

    use std::io::{BufRead, BufReader, Read};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use crate::{CALM_CLOCK, TempDir, host_bin};

    /// A host running an event with remote bots, its stderr collected.
    pub struct Host {
        child: Child,
        /// The port it listens on.
        pub port: u16,
        /// It said it listens on `wss://` (with `--tls-cert`).
        pub tls: bool,
        stderr: Arc<Mutex<String>>,
    }

    impl Host {
        /// Starts `stratego-host ARGS --listen 127.0.0.1:0` and waits for its listening line.
        pub fn start(args: &[&str]) -> Host {
            let mut child = Command::new(host_bin())
                .args(args)
                .args(["--listen", "127.0.0.1:0"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the host starts");
            let stderr = Arc::new(Mutex::new(String::new()));
            let (tx, rx) = std::sync::mpsc::channel();
            let pipe = child.stderr.take().unwrap();
            let keep = stderr.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    for (scheme, tls) in [("ws", false), ("wss", true)] {
                        if let Some(rest) = line.split(&format!("on {scheme}://127.0.0.1:")).nth(1) {
                            let _ = tx.send((rest.trim().parse::<u16>().unwrap_or(0), tls));
                        }
                    }
                    let mut s = keep.lock().unwrap();
                    s.push_str(&line);
                    s.push('\n');
                }
            });
            let (port, tls) = match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(p) => p,
                Err(_) => {
                    let _ = child.kill();
                    panic!("the host did not say where it listens: {}", stderr.lock().unwrap());
                }
            };
            Host { child, port, tls, stderr }
        }

        /// Its `ws://` address.
        pub fn url(&self) -> String {
            format!("ws://127.0.0.1:{}", self.port)
        }

        /// What it wrote to stderr so far.
        pub fn stderr(&self) -> String {
            self.stderr.lock().unwrap().clone()
        }

        /// Waits for the host to exit (at most `limit`); its exit code, stdout and stderr.
        pub fn finish(self, limit: Duration) -> (i32, String, String) {
            let (code, out, err, _) = self.finish_with_peak(limit);
            (code, out, err)
        }

        /// [`Host::finish`], and the host's peak resident memory in MiB: the high-water mark of
        /// its own address space (`VmHWM`), as /proc last showed it before it exited. (Not its
        /// summary's "host peak RSS": getrusage's figure starts from the peak of the process
        /// that spawned it, carried over the exec, here this test binary with every test
        /// running in it.)
        pub fn finish_with_peak(mut self, limit: Duration) -> (i32, String, String, f64) {
            let start = Instant::now();
            let status_file = format!("/proc/{}/status", self.child.id());
            let mut peak_kib = 0u64;
            loop {
                let hwm = std::fs::read_to_string(&status_file).ok().and_then(|status| {
                    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
                    line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
                });
                peak_kib = peak_kib.max(hwm.unwrap_or(0));
                if let Some(status) = self.child.try_wait().unwrap() {
                    let mut out = String::new();
                    self.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
                    // Let the stderr thread take the last lines.
                    std::thread::sleep(Duration::from_millis(100));
                    return (status.code().unwrap_or(-1), out, self.stderr(), peak_kib as f64 / 1024.0);
                }
                if start.elapsed() > limit {
                    let _ = self.child.kill();
                    panic!("the host did not finish within {limit:?}: {}", self.stderr());
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    impl Drop for Host {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// A `connect` client, killed when dropped.
    pub struct Client(pub Child);

    impl Drop for Client {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    impl Client {
        /// `stratego-host connect URL --token-file F --retry-s 30 -- BOT`.
        pub fn start(url: &str, token_file: &Path, bot: &[impl AsRef<std::ffi::OsStr>]) -> Client {
            Client::start_with(url, token_file, &["--retry-s", "30"], bot)
        }

        /// `stratego-host connect URL --token-file F OPTIONS -- BOT`.
        pub fn start_with(
            url: &str,
            token_file: &Path,
            options: &[&str],
            bot: &[impl AsRef<std::ffi::OsStr>],
        ) -> Client {
            Client(
                Command::new(host_bin())
                    .args(["connect", url, "--token-file", token_file.to_str().unwrap()])
                    .args(options)
                    .arg("--")
                    .args(bot)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("connect starts"),
            )
        }

        /// Waits for it to exit (at most `limit`): its exit code and stderr.
        pub fn finish(mut self, limit: Duration) -> (i32, String) {
            let start = Instant::now();
            loop {
                if let Some(status) = self.0.try_wait().unwrap() {
                    let mut err = String::new();
                    self.0.stderr.take().unwrap().read_to_string(&mut err).unwrap();
                    return (status.code().unwrap_or(-1), err);
                }
                assert!(start.elapsed() < limit, "connect did not exit within {limit:?}");
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        /// Waits for it to exit (at most `limit`), else kills it: its exit code if it exited by
        /// itself, and its stderr.
        pub fn finish_or_kill(mut self, limit: Duration) -> (Option<i32>, String) {
            let start = Instant::now();
            let code = loop {
                if let Some(status) = self.0.try_wait().unwrap() {
                    break status.code();
                }
                if start.elapsed() >= limit {
                    let _ = self.0.kill();
                    let _ = self.0.wait();
                    break None;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            let mut err = String::new();
            self.0.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            (code, err)
        }
    }

    /// A new token in `dir/NAME.token` (via the real `token` command) and its SHA-256.
    pub fn token(dir: &TempDir, name: &str) -> (PathBuf, String) {
        let path = dir.join(&format!("{name}.token"));
        let out = Command::new(host_bin()).args(["token", "--out", path.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let sha = stdout.trim().strip_prefix("token_sha256 = \"").and_then(|s| s.strip_suffix('"')).expect(&stdout);
        (path, sha.to_owned())
    }

    /// A remote bot's spec.
    pub fn remote_spec(name: &str, sha: &str) -> String {
        format!(r#"{{"name":"{name}","remote":true,"token_sha256":"{sha}"}}"#)
    }

    /// The sample setup book (Gravon setups: no flag on a front row, so no scout takes one at
    /// the first ply): for tests whose game must reach its bot's turns and `--max-plies`.
    pub fn book() -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/data/setups-sample.txt").display().to_string()
    }

    /// The sample bot (the host binary's `sample-bot`), as a command for `connect`.
    pub fn sample_bot() -> Vec<String> {
        vec![host_bin().display().to_string(), "sample-bot".to_owned()]
    }

    /// `stratego-host match sample-bot REMOTE --games GAMES --out OUT EXTRA` listening on
    /// 127.0.0.1 (see [`Host::start`]), with a calm clock unless `extra` sets one.
    pub fn remote_match(remote: &str, games: u32, out: &Path, extra: &[&str]) -> Host {
        let games = games.to_string();
        let mut args = vec!["match", "sample-bot", remote, "--games", &games, "--out", out.to_str().unwrap()];
        if !crate::sets_clock(extra) {
            args.extend(CALM_CLOCK);
        }
        args.extend(extra);
        Host::start(&args)
    }

    /// The token in a token file, as a raw client sends it.
    pub fn token_text(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap().trim().to_owned()
    }

    /// For a test bot that speaks WebSocket itself: its answer to `message` when it is a
    /// `hello` (`ready`, named `raw`; `rules` becomes the game's ruleset) or a
    /// `setup_request` (a random setup of a fixed seed); `None` for any other message, which
    /// the bot answers itself.
    pub fn raw_reply(rules: &mut stratego_rules::Ruleset, message: &serde_json::Value) -> Option<String> {
        match message["type"].as_str()? {
            "hello" => {
                let spec = serde_json::from_value::<stratego_rules::RulesetSpec>(message["ruleset"].clone()).unwrap();
                *rules = stratego_rules::Ruleset::try_from(spec).unwrap();
                Some(r#"{"type":"ready","name":"raw"}"#.to_owned())
            }
            "setup_request" => {
                let color =
                    if message["color"] == "red" { stratego_rules::Color::Red } else { stratego_rules::Color::Blue };
                let mut n = 7u64;
                let d = stratego_rules::Deployment::random(rules, color, &mut || {
                    n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    n >> 11
                });
                Some(serde_json::json!({"type": "setup", "deployment": d.to_rows(rules)}).to_string())
            }
            _ => None,
        }
    }
}

/// `stratego-host arena` in the tests: its admin commands, an arena running in the
/// background, and the games its file holds (one helper for every arena test file).
pub mod arena {
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Output, Stdio};
    use std::time::Duration;

    use crate::{TempDir, host_bin, wait_for};

    /// `stratego-host arena ARGS`, run to its end.
    pub fn arena(args: &[&str]) -> Output {
        Command::new(host_bin()).arg("arena").args(args).output().expect("the host runs")
    }

    /// An `arena run` in the background, its stderr in a file.
    pub struct Arena {
        /// The arena's process.
        pub child: Child,
        stderr: PathBuf,
    }

    impl Arena {
        /// Starts `stratego-host arena run DB ARGS` (stdout piped, stderr to `DIR/TAG.stderr`).
        pub fn start(db: &Path, dir: &TempDir, tag: &str, args: &[&str]) -> Arena {
            let stderr = dir.join(&format!("{tag}.stderr"));
            let child = Command::new(host_bin())
                .args(["arena", "run", db.to_str().unwrap()])
                .args(args)
                .stdout(Stdio::piped())
                .stderr(std::fs::File::create(&stderr).unwrap())
                .spawn()
                .expect("the arena starts");
            Arena { child, stderr }
        }

        /// What it wrote to stderr so far.
        pub fn stderr(&self) -> String {
            std::fs::read_to_string(&self.stderr).unwrap_or_default()
        }

        /// Waits (at most 240 s) until `done`, failing at once with its stderr if the arena
        /// exits first.
        pub fn until(&mut self, what: &str, mut done: impl FnMut() -> bool) {
            let mut exited = None;
            let ok = wait_for(Duration::from_secs(240), || {
                exited = self.child.try_wait().unwrap();
                exited.is_some() || done()
            });
            assert!(exited.is_none(), "the arena exited ({exited:?}) before {what}: {}", self.stderr());
            assert!(ok, "{what}: not within 240 s: {}", self.stderr());
        }

        /// The port it listens on for remote bots (`--listen 127.0.0.1:0`), once it says so.
        pub fn port(&mut self) -> u16 {
            let mut port = None;
            let stderr = self.stderr.clone();
            self.until("it listens", || {
                let text = std::fs::read_to_string(&stderr).unwrap_or_default();
                port = text.split("on ws://127.0.0.1:").nth(1).and_then(|r| r.split_whitespace().next()?.parse().ok());
                port.is_some()
            });
            port.unwrap()
        }

        /// Sends it `signal`.
        pub fn signal(&self, signal: i32) {
            // SAFETY: a signal to our own child.
            unsafe { libc::kill(self.child.id() as i32, signal) };
        }

        /// Waits (at most 120 s) for it to exit: its exit code (None: killed by a signal),
        /// stdout and stderr.
        pub fn wait(mut self) -> (Option<i32>, String, String) {
            use std::io::Read as _;
            let limit = Duration::from_secs(120);
            let mut status = None;
            let exited = wait_for(limit, || {
                status = self.child.try_wait().unwrap();
                status.is_some()
            });
            assert!(exited, "the arena did not exit within {limit:?}: {}", self.stderr());
            let mut out = String::new();
            if let Some(mut stdout) = self.child.stdout.take() {
                stdout.read_to_string(&mut out).unwrap();
            }
            (status.unwrap().code(), out, self.stderr())
        }

        /// SIGINT, then [`Arena::wait`].
        pub fn stop(self) -> (Option<i32>, String, String) {
            self.signal(libc::SIGINT);
            self.wait()
        }
    }

    impl Drop for Arena {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// One saved game of an arena's file.
    #[derive(Debug, Clone)]
    pub struct Saved {
        /// Its id.
        pub id: String,
        /// Red's name (its rating line's).
        pub red: String,
        /// Blue's name.
        pub blue: String,
        /// Red's score (1, 0.5, 0).
        pub red_score: f64,
        /// How it ended (a reason's code: `ply_limit`, `crash`, …).
        pub reason: String,
    }

    /// The games the file `db` holds, in the order they were saved.
    pub fn saved(db: &Path) -> Vec<Saved> {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.busy_timeout(Duration::from_secs(30)).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT g.game_id, r.name, b.name, g.result, g.reason FROM games g JOIN bots r ON r.id = g.red_bot
                 JOIN bots b ON b.id = g.blue_bot ORDER BY g.id",
            )
            .unwrap();
        stmt.query_map([], |r| {
            Ok(Saved { id: r.get(0)?, red: r.get(1)?, blue: r.get(2)?, red_score: r.get(3)?, reason: r.get(4)? })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    /// `games` in the order their runs started them (each id ends in its number in its run,
    /// after its run's prefix; runs in the order of their prefixes' clock).
    pub fn in_start_order(mut games: Vec<Saved>) -> Vec<Saved> {
        let order = |id: &str| {
            let (prefix, n) = id.rsplit_once('-').unwrap();
            (prefix.to_owned(), n.parse::<u64>().unwrap())
        };
        games.sort_by_key(|g| order(&g.id));
        games
    }

    /// The games of `name` among `games`.
    pub fn games_of(games: &[Saved], name: &str) -> usize {
        games.iter().filter(|g| g.red == name || g.blue == name).count()
    }
}

/// Every record of the records file `path` (plain or compact), read strictly by the host's one
/// reader of records (`stratego-records`, issue #43 item 4): a torn last line or frame is an
/// error here (a finished test run leaves none), as is any line that is not a record.
pub fn read_records(path: &Path) -> Result<Vec<stratego_protocol::record::GameRecord>, String> {
    let (records, torn) = stratego_records::read_file(path)?;
    match torn {
        Some(torn) => Err(format!("{}: {} is torn ({} bytes)", path.display(), torn.position, torn.bytes)),
        None => Ok(records),
    }
}
