//! Answers right around the deadline. In their own test binary, so that no CPU-burning
//! hostile bot of another test runs beside them (cargo runs test binaries one at a time).

use stratego_rules::Ruleset;
use stratego_tests::{TempDir, misbehaving, play_against_sample_bot};

fn one_game(kind: &str) -> serde_json::Value {
    let bot = misbehaving(&format!("--misbehave {kind} --at 2"));
    play_against_sample_bot(&format!("deadline-{kind}"), &bot, 1, &["--seed", "3", "--move-time", "0.05"]).remove(0)
}

/// A bot that takes 40 ms to read each turn and then thinks 75 ms, at a 100 ms limit, in
/// a classic game cut at 30 plies.
fn slow_reader(read_grace_ms: &str) -> serde_json::Value {
    let dir = TempDir::new(&format!("slow-reader-rules-{read_grace_ms}"));
    let mut spec = Ruleset::classic().spec().clone();
    spec.ply_limit = Some(30);
    let rules = dir.join("short.json");
    std::fs::write(&rules, serde_json::to_string(&spec).unwrap()).unwrap();
    let bot = misbehaving("--think-ms 75 --read-delay-ms 40");
    let name = format!("slow-reader-{read_grace_ms}");
    let args =
        ["--seed", "4", "--move-time", "0.1", "--read-grace-ms", read_grace_ms, "--rules", rules.to_str().unwrap()];
    play_against_sample_bot(&name, &bot, 1, &args).remove(0)
}

/// One test, run in sequence: two bots spinning up to their deadlines at once would delay
/// each other's wake-ups on a 2-core machine (see BENCHMARKS.md, spurious losses).
#[test]
fn answers_around_the_deadline() {
    let r = one_game("late-1ms");
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
    assert_eq!(r["result"]["faulty"], "red");
    assert!(r["result"]["message"].as_str().unwrap().contains("0.050 s"));

    let r = one_game("just-in-time");
    assert!(r["result"]["faulty"].is_null(), "2 ms before the deadline must not lose: {}", r["result"]);
    // The move really was answered close to the deadline: at least 48 ms, at most 50.
    let t = r["plies"][2]["time_us"].as_u64().unwrap();
    assert!((48_000..=50_000).contains(&t), "think time {t} µs");
}

/// The clock starts when the bot has read its turn (the host sees its stdin pipe empty),
/// within the read grace: a bot that the scheduler wakes late is not charged for it.
#[test]
fn the_clock_starts_when_the_bot_reads_its_turn() {
    // Read within the grace: charged only for the 75 ms of thinking.
    let r = slow_reader("50");
    assert!(r["result"]["faulty"].is_null(), "a late reader within the grace must not lose: {}", r["result"]);
    let red: Vec<u64> =
        r["plies"].as_array().unwrap().iter().step_by(2).map(|p| p["time_us"].as_u64().unwrap()).collect();
    assert!(red.len() >= 10, "{} moves", red.len());
    // Its first move follows the setup, not a move of its own, so it is read at once.
    for &t in &red[1..] {
        assert!((75_000..90_000).contains(&t), "charged {t} µs for 75 ms of thinking after a 40 ms read");
    }
    // No grace: the clock starts at the write and 40 + 75 ms is over the limit.
    let r = slow_reader("0");
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
    assert_eq!(r["result"]["faulty"], "red");
    // A grace shorter than the delay: charged from the write plus the grace (30 + 75 ms).
    let r = slow_reader("10");
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
}
