//! Bots that say they are single-threaded (`ready.single_threaded`), or are seen so over
//! their first turns (with one thread, or with idle other threads), share one CPU when there
//! are no more games at once than CPUs; a bot that thinks on its opponent's time, starts a
//! thread, or whose other threads start computing is let off that CPU. The bots
//! report their allowed CPUs on stderr (`misbehaving-bot --report-cpus`), which the records
//! keep.
//!
//! The host infers how a bot runs from timing: whether it is back in its read within 2 ms
//! when a turn is written, and how many milliseconds of CPU it uses outside its turns. Other
//! load on the machine changes both, so the tests of what it infers or lets go are timing
//! tests: ignored by `cargo test --workspace`, run by `.ci/timing.sh`. The bots that say
//! they are single-threaded are placed by what they say, and stay in the default suite.

use stratego_tests::{TempDir, misbehaving, records, run_match};

fn cores() -> usize {
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    assert!(n >= 2, "these tests compare one CPU with all of them: they need a machine with 2 CPUs or more");
    n
}

/// The CPU lists each bot reported over a one-game match, by colour.
fn reported(red: &str, blue: &str, extra: &[&str]) -> (Vec<serde_json::Value>, [Vec<String>; 2]) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = TempDir::new(&format!("auto-pin-{}", RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let (r, b) = (misbehaving(red), misbehaving(blue));
    let mut args = vec![r.as_str(), b.as_str(), "--seed", "3", "--out", dir.0.to_str().unwrap()];
    if !extra.contains(&"--games") {
        args.extend_from_slice(&["--games", "1"]);
    }
    args.extend_from_slice(extra);
    let out = run_match(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = records(&dir.0);
    let lists = ["red", "blue"].map(|c| {
        recs[0]["bots"][c]["stderr_tail"]
            .as_str()
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.strip_prefix("cpus: "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    });
    (recs, lists)
}

fn all_cpus() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_owned()
}

#[test]
fn two_single_threaded_bots_share_one_cpu_and_others_do_not() {
    cores();
    let all = all_cpus();
    // Both single-threaded, one game at a time: both on the slot's CPU from their first turn.
    let (_, [red, blue]) = reported("--single-threaded --report-cpus", "--single-threaded --report-cpus", &[]);
    assert_eq!(red.len(), 1, "red's CPUs changed during the game: {red:?}");
    assert_eq!(red, blue, "both bots on the same CPU");
    assert!(red[0].parse::<usize>().is_ok(), "one CPU, not {:?} (all: {all})", red[0]);

    // Only one of them is single-threaded (the other has a second thread that computes at
    // each turn): neither is moved.
    let (_, [red, blue]) = reported("--single-threaded --report-cpus", "--report-cpus --helper-cpu-ms 3", &[]);
    assert_eq!((red, blue), (vec![all.clone()], vec![all.clone()]));

    // --no-auto-pin: neither is moved.
    let (_, [red, blue]) =
        reported("--single-threaded --report-cpus", "--single-threaded --report-cpus", &["--no-auto-pin"]);
    assert_eq!((red, blue), (vec![all.clone()], vec![all.clone()]));

    // More games at once than CPUs: no sharing (each slot would not have a CPU of its own).
    // As many games as slots: a run starts no more slots than it has games.
    let j = (cores() + 1).to_string();
    let (_, [red, _]) =
        reported("--single-threaded --report-cpus", "--single-threaded --report-cpus", &["-j", &j, "--games", &j]);
    assert_eq!(red, vec![all]);
}

#[test]
#[ignore = "timing: a bot let go for 30 ms of CPU spun on its opponent's time"]
fn a_bot_that_thinks_on_its_opponents_time_is_let_off_the_shared_cpu() {
    cores();
    let all = all_cpus();
    // Red spins 30 ms after each of its moves, through Blue's turns (Blue thinks 10 ms).
    let (recs, [red, blue]) = reported(
        "--single-threaded --report-cpus --ponder-ms 30",
        "--single-threaded --report-cpus --think-ms 10",
        &["--move-time", "0.5"],
    );
    assert!(red.len() >= 2 && red[0] != all, "red first shared a CPU, then not: {red:?}");
    assert_eq!(red.last().unwrap(), &all, "red was let go: {red:?}");
    assert_eq!(blue.len(), 1, "blue stays where it was: {blue:?}");
    let note = note(&recs, "red");
    assert!(note.contains("said it was single-threaded but used"), "the record says why: {note:?}");
    assert!(recs[0]["bots"]["blue"]["process_note"].is_null());
}

/// The note a bot's record of the first game keeps.
fn note(recs: &[serde_json::Value], color: &str) -> String {
    recs[0]["bots"][color]["process_note"].as_str().unwrap_or_default().to_owned()
}

#[test]
#[ignore = "timing: single-threaded bots inferred from prompt reads (2 ms) and little CPU off their turns"]
fn bots_seen_to_be_single_threaded_share_one_cpu_after_their_first_turns() {
    cores();
    let all = all_cpus();
    // Neither says so, but both have one thread and compute only on their own turns.
    let (recs, [red, blue]) = reported("--report-cpus --misbehave resign --at 30", "--report-cpus", &[]);
    assert_eq!(red.len(), 2, "red ran on every CPU, then on one: {red:?}");
    assert_eq!(red[0], all);
    assert!(red[1].parse::<usize>().is_ok(), "one CPU, not {:?} (all: {all})", red[1]);
    assert_eq!(red, blue, "both bots on the same CPU");
    for color in ["red", "blue"] {
        let note = note(&recs, color);
        assert!(
            note.contains("did not say single_threaded, but over its first 4 turns it had one thread"),
            "the record says why {color} was run so: {note:?}"
        );
    }

    // One has a second thread from its start, which only sleeps: its main thread reads the
    // turns and does the computing, so it is taken for single-threaded too, and both share
    // a CPU (all its threads on it).
    let (recs, [red, blue]) = reported("--report-cpus --idle-thread --misbehave resign --at 30", "--report-cpus", &[]);
    assert_eq!(red.len(), 2, "red ran on every CPU, then on one: {red:?}");
    assert_eq!(red, blue, "both bots on the same CPU");
    let red_note = note(&recs, "red");
    assert!(
        red_note.contains("did not say single_threaded, but over its first 4 turns its main thread did its computing"),
        "{red_note:?}"
    );

    // One whose second thread computes at each turn, or that reads its turns on a second
    // thread: not taken for single-threaded, and neither moves; the other alone is (its
    // note says so).
    for red_args in ["--helper-cpu-ms 3", "--read-on-thread"] {
        let (recs, [red, blue]) =
            reported(&format!("--report-cpus {red_args} --misbehave resign --at 30"), "--report-cpus", &[]);
        assert_eq!((red, blue), (vec![all.clone()], vec![all.clone()]), "{red_args}");
        assert_eq!(note(&recs, "red"), "", "{red_args}");
        assert!(note(&recs, "blue").contains("did not say single_threaded"));
    }

    // One spins 5 ms after each of its moves (it thinks on its opponent's time): not taken
    // for single-threaded.
    let (recs, [red, blue]) = reported(
        "--report-cpus --ponder-ms 5 --misbehave resign --at 20",
        "--report-cpus --think-ms 3",
        &["--move-time", "0.5"],
    );
    assert_eq!((red, blue), (vec![all.clone()], vec![all.clone()]));
    assert_eq!(note(&recs, "red"), "");

    // One sleeps 5 ms before it reads each turn (it is not blocked in its read when the
    // turn is written, so its late reads are its own): not taken for single-threaded. (A
    // bot blocked in its read that the machine keeps from a CPU reads late too; that does
    // not count against it.)
    let (recs, [red, blue]) = reported(
        "--report-cpus --think-ms 3 --read-delay-ms 5 --misbehave resign --at 20",
        "--report-cpus --think-ms 3",
        &["--move-time", "0.5"],
    );
    assert_eq!((red, blue), (vec![all.clone()], vec![all]));
    assert_eq!(note(&recs, "red"), "");
    assert!(note(&recs, "blue").contains("did not say single_threaded"), "blue is: {:?}", note(&recs, "blue"));
}

/// Red (`red_args` besides `--report-cpus --think-ms 5`) against a bot that thinks 5 ms a
/// move: both are seen single-threaded and share a CPU, then red alone is let go. Red's note.
fn shared_then_red_let_go(red_args: &str) -> String {
    cores();
    let all = all_cpus();
    let (recs, [red, blue]) = reported(
        &format!("--report-cpus --think-ms 5 {red_args} --misbehave resign --at 30"),
        "--report-cpus --think-ms 5",
        &["--move-time", "0.5"],
    );
    assert_eq!(red.len(), 3, "red ran on every CPU, then on one, then on every CPU again: {red:?}");
    assert_eq!((&red[0], &red[2]), (&all, &all));
    assert_eq!(blue, red[..2], "blue stays on the shared CPU");
    note(&recs, "red")
}

#[test]
#[ignore = "timing: single-threaded bots inferred from prompt reads (2 ms) and little CPU off their turns"]
fn a_bot_seen_to_be_single_threaded_that_starts_a_thread_is_let_off_the_shared_cpu() {
    // Both think 5 ms a move (their scheduler accounts are looked at); red starts a second
    // thread at its 12th turn.
    let note = shared_then_red_let_go("--idle-thread-at 12");
    assert!(note.contains("then had more than one thread: it no longer shares CPU"), "{note:?}");
}

#[test]
#[ignore = "timing: single-threaded bots inferred from prompt reads (2 ms) and little CPU off their turns"]
fn a_bot_whose_idle_thread_starts_computing_is_let_off_the_shared_cpu() {
    // Red has a second thread from its start, which only sleeps until its 12th turn, then
    // computes 5 ms at each turn.
    let note = shared_then_red_let_go("--helper-cpu-ms 5 --helper-at 12");
    assert!(note.contains("its main thread did its computing"), "{note:?}");
    assert!(note.contains("but its other threads then used"), "{note:?}");
    assert!(note.contains("it no longer shares CPU"), "{note:?}");
}
