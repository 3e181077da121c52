//! Answers right around the deadline. In their own test binary, so that no CPU-burning
//! hostile bot of another test runs beside them (cargo runs test binaries one at a time).
//!
//! Timing tests: ignored by `cargo test --workspace` (milliseconds decide them, which other
//! load on the machine moves), run by `.ci/timing.sh`. They need the host at its real-time
//! priority (root or `CAP_SYS_NICE`), which sees an answer as it comes: without it each
//! test says `skipped: …` and passes.

use stratego_rules::Ruleset;
use stratego_tests::{TempDir, misbehaving, play_against_sample_bot, realtime_or_skip};

/// Games of each kind of answer around the deadline: each verdict is judged over this many,
/// so that one answer a hypervisor's tick puts on the wrong side of the deadline does not
/// decide it.
const TRIALS: usize = 20;

/// Of [`TRIALS`] answers, how many may be judged wrongly.
const WRONG_AT_MOST: usize = 1;

/// One answer of the bot of a game: the game's record, the bot's colour and its answer
/// (`None` when the game ended before it, as a move timeout does).
struct Trial {
    record: serde_json::Value,
    color: &'static str,
    answer: Option<serde_json::Value>,
}

/// [`TRIALS`] games, at 50 ms a move, of a bot that answers `kind` at its second turn
/// against the sample bot (colours alternate; games cut at 8 plies, past that turn).
fn trials(kind: &str, extra: &[&str]) -> Vec<Trial> {
    let dir = TempDir::new(&format!("deadline-{kind}-rules"));
    let mut spec = Ruleset::classic().spec().clone();
    spec.ply_limit = Some(8);
    let rules = dir.join("short.json");
    std::fs::write(&rules, serde_json::to_string(&spec).unwrap()).unwrap();
    let bot = misbehaving(&format!("--misbehave {kind} --at 2"));
    let mut args = vec!["--move-time", "0.05", "--seed", "3", "--rules", rules.to_str().unwrap()];
    args.extend_from_slice(extra);
    let records = play_against_sample_bot(&format!("deadline-{kind}"), &bot, TRIALS as u32, &args);
    assert_eq!(records.len(), TRIALS);
    records
        .into_iter()
        .map(|record| {
            // Colours alternate, the bot (named first) Red in game 0.
            let color = if record["index"].as_u64().unwrap() % 2 == 0 { "red" } else { "blue" };
            let answer = record["plies"].as_array().unwrap().iter().filter(|p| p["color"] == color).nth(1).cloned();
            Trial { record, color, answer }
        })
        .collect()
}

/// Asserts that at most [`WRONG_AT_MOST`] of `trials` fail `right` (which says what is
/// wrong with one), naming them.
fn assert_rate(what: &str, trials: &[Trial], right: impl Fn(&Trial) -> Result<(), String>) {
    let wrong: Vec<String> = trials.iter().filter_map(|t| right(t).err()).collect();
    assert!(
        wrong.len() <= WRONG_AT_MOST,
        "{what}: {} of {} judged wrongly (at most {WRONG_AT_MOST} may be):\n{}",
        wrong.len(),
        trials.len(),
        wrong.join("\n")
    );
}

/// The time from the clock's start to the answer: the charged time plus any machine stall
/// credited to the bot (a bot that busy-waits on the wall clock answers on time whatever
/// the stalls, and is credited for the CPU time it lost to them).
fn wall_us(ply: &serde_json::Value) -> u64 {
    ply["time_us"].as_u64().unwrap() + ply["stall_us"].as_u64().unwrap_or(0)
}

/// A bot that takes 40 ms to read each turn and then thinks 75 ms, at a 100 ms limit, in
/// a classic game cut at 30 plies. Games expected to be lost on time run without the stall
/// credit: stalls of the bot's CPU are credited even while it sleeps, and 15 ms of them in
/// a move would rightly save it.
fn slow_reader(read_grace_ms: &str, stall_credit: bool) -> serde_json::Value {
    let dir = TempDir::new(&format!("slow-reader-rules-{read_grace_ms}"));
    let mut spec = Ruleset::classic().spec().clone();
    spec.ply_limit = Some(30);
    let rules = dir.join("short.json");
    std::fs::write(&rules, serde_json::to_string(&spec).unwrap()).unwrap();
    let bot = misbehaving("--think-ms 75 --read-delay-ms 40");
    let name = format!("slow-reader-{read_grace_ms}");
    let mut args =
        vec!["--seed", "4", "--move-time", "0.1", "--read-grace-ms", read_grace_ms, "--rules", rules.to_str().unwrap()];
    if !stall_credit {
        args.push("--no-stall-credit");
    }
    play_against_sample_bot(&name, &bot, 1, &args).remove(0)
}

/// One test, run in sequence: two bots spinning up to their deadlines at once would delay
/// each other's wake-ups on a 2-core machine (see BENCHMARKS.md, spurious losses).
#[test]
#[ignore = "timing: answers 1 ms past and 2 ms before a 50 ms limit"]
fn answers_around_the_deadline() {
    if !realtime_or_skip("answers_around_the_deadline") {
        return;
    }
    // Without the stall credit: a machine stall of a millisecond during that move would
    // rightly put the answer back in time (tests/tests/stalls.rs covers the credit).
    // Without the safety margin too (default 3 ms), which would let it off.
    let late = trials("late-1ms", &["--no-stall-credit", "--time-margin-ms", "0"]);
    assert_rate("1 ms late without a margin loses on time", &late, |t| {
        let result = &t.record["result"];
        let lost = result["reason"] == "move_timeout"
            && result["faulty"] == t.color
            && result["message"].as_str().unwrap().contains("0.050 s");
        if lost { Ok(()) } else { Err(format!("{result}")) }
    });
    for t in &late {
        assert_eq!(t.record["time_control"]["margin_ms"], serde_json::Value::Null, "no margin: the field is absent");
    }

    // With the default margin the same move is in time, and the record says it went over.
    let margin = trials("late-1ms", &["--no-stall-credit"]);
    for t in &margin {
        assert_eq!(t.record["time_control"]["margin_ms"], 3);
    }
    assert_rate("1 ms late is within the default 3 ms margin, and marked", &margin, |t| {
        let result = &t.record["result"];
        if !result["faulty"].is_null() {
            return Err(format!("lost: {result}"));
        }
        let answer = t.answer.as_ref().ok_or("no answer recorded")?;
        let over = answer["over_us"].as_u64().unwrap_or(0);
        let marked = t.record["plies"].as_array().unwrap().iter().filter(|p| p.get("over_us").is_some()).count();
        if (1..=3_000).contains(&over) && marked == 1 {
            Ok(())
        } else {
            Err(format!("over_us {over}, {marked} moves marked: {answer}"))
        }
    });

    // The move really was answered close to the deadline: at least 48 ms from the start of
    // its clock (with any machine stall credited to it added back), and charged at most 50.
    // (The time to the answer may exceed 50 ms on a busy machine: the host sees the answer
    // late, and that is credited.)
    let just = trials("just-in-time", &[]);
    assert_rate("2 ms before the deadline is in time", &just, |t| {
        let result = &t.record["result"];
        if !result["faulty"].is_null() {
            return Err(format!("lost: {result}"));
        }
        let answer = t.answer.as_ref().ok_or("no answer recorded")?;
        let (wall, charged) = (wall_us(answer), answer["time_us"].as_u64().unwrap());
        if wall >= 48_000 && charged <= 50_000 {
            Ok(())
        } else {
            Err(format!("think time {wall} µs, charged {charged} µs: {answer}"))
        }
    });
}

/// The clock starts when the bot has read its turn (the host sees its stdin pipe empty),
/// within the read grace: a bot that the scheduler wakes late is not charged for it.
#[test]
#[ignore = "timing: charged times within 3 ms of a bot's 75 ms of thinking"]
fn the_clock_starts_when_the_bot_reads_its_turn() {
    if !realtime_or_skip("the_clock_starts_when_the_bot_reads_its_turn") {
        return;
    }
    // Read within the grace: charged only for the 75 ms of thinking.
    let r = slow_reader("50", true);
    assert!(r["result"]["faulty"].is_null(), "a late reader within the grace must not lose: {}", r["result"]);
    let red: Vec<u64> = r["plies"].as_array().unwrap().iter().step_by(2).map(wall_us).collect();
    assert!(red.len() >= 10, "{} moves", red.len());
    // Its first move follows the setup, not a move of its own, so it is read at once.
    let mut moves = red[1..].to_vec();
    // The host sees the read a few microseconds after it happens (it is woken by it), so it
    // may charge a little less than the bot's own 75 ms (up to 2 ms on a busy machine). On
    // these virtual machines it also sees it milliseconds late now and then (seen in CI at
    // 5.4 ms, locally up to 8.8 ms): the hypervisor takes the host's virtual CPU as the
    // host's write of the turn wakes the bot, which reads the turn meanwhile, or wakes the
    // host's virtual CPU late. In the bot's favour, and the host cannot date the read better
    // (BENCHMARKS.md, "Ninth session"). Such moves are the exception; a clock started at
    // the end of the grace would charge every move 65 ms.
    let low: Vec<u64> = moves.iter().copied().filter(|&t| t < 72_000).collect();
    assert!(
        low.len() * 4 <= moves.len(),
        "{} of {} moves charged under 72 ms for 75 ms of thinking after a 40 ms read: {moves:?}",
        low.len(),
        moves.len()
    );
    // A move may take longer when another process takes the bot's CPU as its 75 ms run out
    // (it answers late, and its wait for the CPU is credited); most do not. From the write,
    // every move would take 115 ms.
    moves.sort_unstable();
    let median = moves[moves.len() / 2];
    assert!(
        (72_000..90_000).contains(&median),
        "median {median} µs for 75 ms of thinking after a 40 ms read: {moves:?}"
    );
    // No grace: the clock starts at the write and 40 + 75 ms is over the limit.
    let r = slow_reader("0", false);
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
    assert_eq!(r["result"]["faulty"], "red");
    // A grace shorter than the delay: charged from the write plus the grace (30 + 75 ms).
    let r = slow_reader("10", false);
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
}
