//! Chaos layer: the clock cannot be cheated, and every message reaches a bot whole (issue
//! #41 items 0 and 1), with real host runs and the `clock-cheat-bot` test bot.
//!
//! Item 0: a bot that leaves its turn's last byte unread while it thinks (in a child
//! process, or asleep), or that simply sleeps, is charged its thinking: time it slept or
//! waited for its own child is never credited as a machine stall, and its clock starts at
//! its first read of the turn, not when it has emptied its pipe. Item 1: a turn of the full
//! view (5–6 KB, more than a page) goes into the bot's pipe whole, so that a bot that reads
//! it late loses on time with every line it gets whole, and `game_over` never lands inside
//! the cut turn.
//!
//! The default tests judge what the cheat gains by far (a credit of tens of milliseconds a
//! move, where an honest sleeper is credited only its waits for a CPU after it wakes: well
//! under a millisecond a move on average, even on a loaded machine). The test that compares
//! the move at which each bot flags with the honest control's is a timing test (ignored,
//! run by `.ci/timing.sh`): load changes what the honest control is credited.

use stratego_tests::{TempDir, bin, realtime_or_skip, records, run_match};

/// The test bot's command line.
fn cheat_bot(args: &str) -> String {
    format!("{} {args}", bin("clock-cheat-bot").display())
}

/// Red's moves of every record: (time charged, stall credited), in microseconds.
fn red_moves(recs: &[serde_json::Value]) -> Vec<(u64, u64)> {
    recs.iter()
        .flat_map(|r| r["plies"].as_array().unwrap())
        .filter(|p| p["color"] == "red" && p.get("move").is_some())
        .map(|p| (p["time_us"].as_u64().unwrap(), p.get("stall_us").and_then(|s| s.as_u64()).unwrap_or(0)))
        .collect()
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// Plays `games` games of `red` against `blue` with `--seed SEED` and `extra` (the clock
/// among them), `-q`, into `dir`; asserts the host exited 0, naming `name`, and returns its
/// output and the records.
fn cheat_match(
    name: &str,
    dir: &TempDir,
    [red, blue]: [&str; 2],
    games: &str,
    seed: &str,
    extra: &[&str],
) -> (std::process::Output, Vec<serde_json::Value>) {
    let mut args = vec![red, blue, "--games", games, "--seed", seed];
    args.extend_from_slice(extra);
    args.extend(["--out", dir.0.to_str().unwrap(), "-q"]);
    let out = run_match(&args);
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let recs = records(&dir.0);
    (out, recs)
}

/// Asserts that a bot's log (its messages' types, [`whole_lines`]) holds a whole message of
/// every kind a game sends.
fn assert_every_kind_whole(kinds: &[String]) {
    for kind in ["hello", "setup_request", "turn", "game_over", "quit"] {
        assert!(kinds.iter().any(|k| k == kind), "no whole {kind} among {kinds:?}");
    }
}

/// Plays one game of `red` (which thinks `think_ms` a move) against a bot that answers at
/// once, with a clock no load can break, and checks what Red was charged and credited.
/// `grace_us`: how much later than its first read its clock may start (a bot that peeks
/// at its input without reading it: the read grace).
fn assert_charged_its_thinking(name: &str, red: &str, think_ms: u64, grace_us: u64) {
    let dir = TempDir::new(name);
    let blue = cheat_bot("");
    let waits = dir.join("waits");
    let red = cheat_bot(&format!("{red} --waits {}", waits.display()));
    let (_, recs) = cheat_match(name, &dir, [&red, &blue], "1", "11", &["--max-plies", "60", "--move-time", "60"]);
    let moves = red_moves(&recs);
    assert!(moves.len() >= 25, "{name}: only {} moves of Red: {}", moves.len(), recs[0]["result"]);
    let think = think_ms * 1000;
    // The clock ran from the bot's first read of each turn: what it took from then (charged
    // plus credited) is its thinking, less at most the host's look every millisecond for
    // that read (a clock started when the pipe was empty started up to 10 ms late: the
    // read grace).
    let raw = median(moves.iter().map(|&(t, s)| t + s).collect());
    assert!(
        raw + 3_000 + grace_us >= think,
        "{name}: a median move took {raw} µs from the read for {think} µs of thinking: {moves:?}"
    );
    // And it was charged: the median move at least its thinking less 5 ms.
    let charged = median(moves.iter().map(|&(t, _)| t).collect());
    assert!(
        charged + 5_000 + grace_us >= think,
        "{name}: a median move was charged {charged} µs for {think} µs of thinking: {moves:?}"
    );
    // Credited at most the time it waited for a CPU (as the bot itself measured it, from
    // each answer to the next), with 1 ms a move for the host's own waits to see the answer
    // (it is real-time while bots think: microseconds). Under any load: the more load, the
    // more it waits. On the code before, the partial readers were credited 40–70 ms a move
    // and the sleeper some 15 ms on average, waiting for a CPU well under 1 ms a move on
    // an idle machine.
    let credited: u64 = moves.iter().map(|&(_, s)| s).sum();
    let waited: u64 = std::fs::read_to_string(&waits)
        .expect("the bot's waits")
        .lines()
        .map(|l| l.parse::<u64>().expect("microseconds"))
        .sum();
    assert!(
        credited <= waited + 1_000 * moves.len() as u64,
        "{name}: credited {credited} µs of stalls over {} moves, in which it waited {waited} µs for a CPU: {moves:?}",
        moves.len()
    );
}

#[test]
fn a_bot_that_sleeps_is_charged_its_sleep() {
    assert_charged_its_thinking("sleeper", "--think sleep --think-ms 50", 5, 0);
}

#[test]
fn a_bot_that_leaves_its_turns_last_byte_unread_and_sleeps_is_charged_its_sleep() {
    assert_charged_its_thinking("partial-sleep", "--read partial --think sleep --think-ms 50", 5, 0);
}

#[test]
fn a_bot_that_leaves_its_turns_last_byte_unread_while_a_child_thinks_is_charged_the_childs_time() {
    assert_charged_its_thinking("partial-child", "--read partial --think child --think-ms 50", 5, 0);
}

#[test]
fn a_bot_that_peeks_at_its_turn_with_tee_and_sleeps_is_credited_nothing_for_it() {
    // It reads nothing until it has thought, so its clock starts at the latest start (the
    // 10 ms read grace): the median move is charged its thinking less at most that.
    assert_charged_its_thinking("tee-sleep", "--read tee --think sleep --think-ms 50", 50, 10_000);
}

/// The move (Red's, counted from 1) at which Red lost on time, with a 3 s bank and no
/// increment; `None` when it did not.
fn flags_at(name: &str, red: &str) -> Option<usize> {
    let dir = TempDir::new(name);
    let (_, recs) = cheat_match(name, &dir, [&cheat_bot(red), &cheat_bot("")], "1", "11", &["--tc", "3+0"]);
    let r = &recs[0]["result"];
    (r["reason"] == "move_timeout" && r["winner"] == "blue").then(|| red_moves(&recs).len() + 1)
}

#[test]
#[ignore = "timing: the honest control's flag moves with the load on the machine"]
fn cheating_bots_flag_at_the_same_move_as_the_honest_control() {
    // 80 ms of thinking a move on a 3 s bank: the honest bot (it computes 80 ms of CPU a
    // move, so that load only delays it, its waits credited) flags around its 38th move.
    // On the code before, the sleeper flagged at its 51st, the partial readers played 71
    // moves and captured the flag (loaded machine, load 12).
    let honest = flags_at("control", "--think cpu --think-ms 80").expect("the honest control flags");
    assert!((34..=40).contains(&honest), "the honest control flagged at move {honest}");
    for (name, red) in [
        ("sleeper", "--think sleep --think-ms 80"),
        ("partial-sleep", "--read partial --think sleep --think-ms 80"),
        ("partial-child", "--read partial --think child --think-ms 80"),
    ] {
        let at = flags_at(name, red).unwrap_or_else(|| panic!("{name} never lost on time"));
        // Never later than the control (within 2 moves: what the machine's waits leave of
        // the credit's precision); a few moves earlier on a loaded machine for the bot whose
        // child thinks: its child's waits for a CPU are not credited (35 vs 38 at load 11).
        assert!(at <= honest + 2 && at + 5 >= honest, "{name} flagged at move {at}, the honest control at {honest}");
    }
}

/// Every line of a bot's `--log` (every message it got) is a whole JSON message; the
/// message types, in order.
fn whole_lines(log: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).expect("the bot's log");
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("the bot got a line that is not one whole message ({e}, {} bytes): {l}", l.len())
            });
            v["type"].as_str().expect("a type").to_owned()
        })
        .collect()
}

#[test]
fn a_bot_that_reads_its_full_view_turns_late_gets_every_line_whole() {
    // With the host escalated from the start (real-time), its reads are watched from the
    // first turn: on the code before, its pipe then held one page, a full-view turn (over
    // 4 KiB) was written in part until the deadline, and `game_over` went into the middle
    // of the cut turn.
    if !realtime_or_skip("a_bot_that_reads_its_full_view_turns_late_gets_every_line_whole") {
        return;
    }
    let dir = TempDir::new("late-reader");
    let log = dir.join("late.log");
    let late = cheat_bot(&format!("--read slow --late-ms 300 --log {}", log.display()));
    let extra = ["--move-time", "0.1", "--host-priority", "realtime", "--grace-ms", "5000"];
    let (out, recs) = cheat_match("late-reader", &dir, [&late, &cheat_bot("")], "2", "3", &extra);
    for r in recs {
        // It read each turn 300 ms late: it lost on time, as it should.
        assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
    }
    let kinds = whole_lines(&log);
    assert_every_kind_whole(&kinds);
    // Each game's turn came whole, and its game_over after it.
    let turns = kinds.iter().filter(|k| *k == "turn").count();
    assert_eq!(turns, 2, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| *k == "game_over").count(), 2, "{kinds:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not one whole message"), "{err}");
}

#[test]
fn a_bot_that_reads_byte_by_byte_gets_every_message_whole() {
    // Full-view turns read one byte a call, pausing mid-line, on a host escalated from the
    // start (when real-time is allowed; else it falls back, and the pipe is large).
    let dir = TempDir::new("slow-reader");
    let log = dir.join("slow.log");
    let slow = cheat_bot(&format!("--read slow --log {}", log.display()));
    let extra = ["--max-plies", "30", "--move-time", "60", "--host-priority", "realtime"];
    let (_, recs) = cheat_match("slow-reader", &dir, [&slow, &cheat_bot("")], "2", "5", &extra);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
    }
    let kinds = whole_lines(&log);
    assert_every_kind_whole(&kinds);
    assert!(kinds.iter().filter(|k| *k == "turn").count() >= 28, "{kinds:?}");
}

/// A shell that spins until dropped (killed with this test's process too).
struct Busy(std::process::Child);

impl Busy {
    fn start() -> Busy {
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "while :; do :; done"]);
        // SAFETY: prctl is async-signal-safe; it only sets this child's parent-death signal.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        Busy(command.spawn().expect("sh"))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "timing: two busy loops and 50 ms moves; which moves the load delays changes from run to run"]
fn full_view_turns_under_load_are_never_left_half_written() {
    // The repro: full-view turns at 50 ms a move, two games at once, beside two
    // busy loops; about one game in 30 had a turn cut at 4,096 bytes and `game_over`
    // written into it. Here one bot reads byte by byte (pausing mid-line), the other
    // reads whole lines and thinks 30 ms a move.
    let dir = TempDir::new("under-load");
    let (slow_log, whole_log) = (dir.join("slow.log"), dir.join("whole.log"));
    let slow = cheat_bot(&format!("--read slow --log {}", slow_log.display()));
    let whole = cheat_bot(&format!("--think spin --think-ms 30 --log {}", whole_log.display()));
    let _busy = [Busy::start(), Busy::start()];
    let extra = ["-j", "2", "--move-time", "0.05", "--max-plies", "200"];
    let (out, recs) = cheat_match("under-load", &dir, [&slow, &whole], "30", "101", &extra);
    assert_eq!(recs.len(), 30);
    for log in [&slow_log, &whole_log] {
        let kinds = whole_lines(log);
        assert!(kinds.iter().filter(|k| *k == "game_over").count() >= 15, "{kinds:?}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not one whole message"), "{err}");
}

#[test]
fn a_ucc_bot_and_a_slow_json_reader_get_every_message_whole_on_request_sized_pipes() {
    // Both protocols in one match, on a host escalated from the start (request-sized pipes
    // and read watch from the first message, when real-time is allowed): the UCC 2012 test
    // bot checks every line it gets (any it does not expect makes it exit with status 3),
    // the JSON bot reads byte by byte and checks every line is one whole message.
    let dir = TempDir::new("ucc-slow");
    let (transcript, log) = (dir.join("ucc.txt"), dir.join("slow.log"));
    let ucc = format!("ucc2012:{} --seed 11 --transcript {}", bin("ucc-bot").display(), transcript.display());
    let slow = cheat_bot(&format!("--read slow --log {}", log.display()));
    let extra = ["--rules", "ucc2012", "--max-plies", "40", "--move-time", "60", "--host-priority", "realtime"];
    let (_, recs) = cheat_match("ucc-slow", &dir, [&ucc, &slow], "2", "3", &extra);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
        // A bot's exit is in the record of its process's last game (the UCC bot plays one
        // game a process, the JSON bot both): never a crash.
        for color in ["red", "blue"] {
            let exit = &r["bots"][color]["exit"];
            assert!(exit.is_null() || exit == "the process exited with status 0", "{}", r["bots"][color]);
        }
        let ucc_color = if r["bots"]["red"]["name"] == "ucc-bot" { "red" } else { "blue" };
        assert_eq!(r["bots"][ucc_color]["exit"], "the process exited with status 0", "{}", r["bots"]);
    }
    let kinds = whole_lines(&log);
    assert_every_kind_whole(&kinds);
    let lines = std::fs::read_to_string(&transcript).expect("the UCC bot's transcript");
    assert_eq!(lines.lines().filter(|l| l.starts_with("QUIT")).count(), 2, "{lines}");
}
