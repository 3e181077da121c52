//! Answers right around the deadline. In their own test binary, so that no CPU-burning
//! hostile bot of another test runs beside them (cargo runs test binaries one at a time).

use stratego_tests::{misbehaving, play_against_sample_bot};

fn one_game(kind: &str) -> serde_json::Value {
    let bot = misbehaving(&format!("--misbehave {kind} --at 2"));
    play_against_sample_bot(&format!("deadline-{kind}"), &bot, 1, &["--seed", "3", "--move-time", "0.05"]).remove(0)
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
