//! Reporting for bot authors and organisers (issue #32, items 10, 11, 12, 15, 16), through
//! the real host binary and real bot processes.

use std::process::{Command, Output};

use stratego_tests::{TempDir, host_bin, misbehaving, records};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

/// The colour the misbehaving bot played in a record.
fn misbehaving_color(rec: &serde_json::Value) -> &'static str {
    if rec["bots"]["red"]["name"].as_str().unwrap().contains("misbehaving") { "red" } else { "blue" }
}

/// Plays one game of the misbehaving bot in `kind` against the sample bot; returns the
/// host's output and the record.
fn one_game(name: &str, kind: &str, extra: &[&str]) -> (Output, serde_json::Value) {
    let dir = TempDir::new(name);
    let bot = misbehaving(kind);
    let mut args = vec!["match", &bot, "sample-bot", "--games", "1", "--seed", "7", "--out", dir.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = host(&args);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records(&dir.0);
    assert_eq!(recs.len(), 1);
    (out, recs.remove(0))
}

const FLUSH_HINT: &str = "nothing at all came back: did the bot flush its output?";

#[test]
fn a_setup_time_out_with_nothing_back_asks_whether_the_bot_flushed() {
    // It flushes `ready`, then writes its setup into a buffer it never flushes.
    let (_, rec) = one_game("flush-setup", "--misbehave buffer-after-ready", &["--setup-time", "1"]);
    assert_eq!(rec["result"]["reason"], "setup_timeout", "{}", rec["result"]);
    let message = rec["result"]["message"].as_str().unwrap();
    assert!(message.contains("no setup within 1.000 s"), "{message}");
    assert!(message.contains(FLUSH_HINT), "{message}");
}

#[test]
fn a_move_time_out_with_nothing_back_asks_whether_the_bot_flushed() {
    // Its second turn is never answered, not even with an info line.
    let (_, rec) = one_game("flush-move", "--misbehave move-timeout --at 2", &["--move-time", "1"]);
    assert_eq!(rec["result"]["reason"], "move_timeout", "{}", rec["result"]);
    let message = rec["result"]["message"].as_str().unwrap();
    assert!(message.contains(FLUSH_HINT), "{message}");
}

#[test]
fn a_second_answer_to_a_turn_is_recorded_and_warned_about() {
    let (out, rec) = one_game("double-move", "--misbehave double-move --at 2", &["--move-time", "5"]);
    let color = misbehaving_color(&rec);
    // The game went on by the rules: the second answer was not played.
    let reason = rec["result"]["reason"].as_str().unwrap();
    assert!(
        ["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"].contains(&reason),
        "{}",
        rec["result"]
    );
    let unrequested = rec["bots"][color]["unrequested"].as_array().expect("the record lists the unrequested answer");
    assert_eq!(unrequested.len(), 1, "{unrequested:?}");
    let text = unrequested[0].as_str().unwrap();
    assert!(text.starts_with("an answer no request asked for was ignored: "), "{text}");
    assert!(text.contains(" for ply "), "{text}");
    assert!(rec["bots"][if color == "red" { "blue" } else { "red" }].get("unrequested").is_none());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("an answer no request asked for was ignored"), "a console warning: {err}");
    assert!(err.contains(rec["game_id"].as_str().unwrap()), "the warning names the game: {err}");
}

#[test]
fn check_logs_the_protocol_to_a_file() {
    let dir = TempDir::new("check-log");
    let log = dir.join("check.log");
    let out = host(&["check", "sample-bot", "--rules", "barrage", "--log-protocol", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let text = std::fs::read_to_string(&log).expect("the protocol log was written");
    for part in
        [r#""type":"hello""#, r#""type":"ready""#, r#""type":"setup_request""#, r#""type":"turn""#, r#""type":"quit""#]
    {
        assert!(text.contains(part), "{part} in the log: {}", &text[..text.len().min(2000)]);
    }
}

#[test]
fn check_counts_stderr_until_the_process_has_exited() {
    // A multi-game bot that writes 2 MiB to stderr when told to quit.
    let bot = misbehaving("--misbehave quit-stderr-flood");
    let out = host(&["check", &bot, "--rules", "barrage", "--json"]);
    let results: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let stderr: Vec<&serde_json::Value> =
        results.iter().filter(|r| r["name"].as_str().unwrap().contains("stderr within")).collect();
    assert_eq!(stderr.len(), 2, "{results:?}");
    for r in stderr {
        assert_eq!(r["status"], "fail", "{r}");
        assert!(r["detail"].as_str().unwrap().contains("until its process ended"), "{r}");
    }
    assert_eq!(out.status.code(), Some(4));
}
