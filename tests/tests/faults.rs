//! One misbehaving bot per fault: it loses with the right reason code and a useful
//! message, the opponent wins, and the host exits normally.

use stratego_tests::{TempDir, calm_bot, misbehaving, play_against};

/// Plays one game: the misbehaving bot as Red, misbehaving at its second turn, against the
/// sample bot (with a calm clock of its own).
fn forfeit(kind: &str, extra: &[&str]) -> serde_json::Value {
    forfeit_at(kind, 2, extra)
}

/// [`forfeit`], misbehaving at its turn `at`.
fn forfeit_at(kind: &str, at: u32, extra: &[&str]) -> serde_json::Value {
    let bot = misbehaving(&format!("--misbehave {kind} --at {at}"));
    let mut args = vec!["--seed", "1"];
    args.extend_from_slice(extra);
    let mut recs = play_against(&format!("fault-{kind}"), &bot, &calm_bot("sample-bot"), 1, &args);
    assert_eq!(recs.len(), 1);
    recs.remove(0)
}

fn assert_fault(kind: &str, reason: &str, message_part: &str, extra: &[&str]) {
    assert_fault_at(kind, 2, reason, message_part, extra);
}

fn assert_fault_at(kind: &str, at: u32, reason: &str, message_part: &str, extra: &[&str]) {
    let r = forfeit_at(kind, at, extra);
    let result = &r["result"];
    assert_eq!(result["reason"], reason, "{kind}: {result}");
    assert_eq!(result["faulty"], "red", "{kind}: {result}");
    assert_eq!(result["winner"], "blue", "{kind}: {result}");
    let msg = result["message"].as_str().unwrap();
    assert!(msg.contains(message_part), "{kind}: message {msg:?} lacks {message_part:?}");
}

// The tight limits below are for the misbehaving bot, which never answers in time: it
// never needs them for anything it does answer (its start-up and setup for the setup
// timeout come under the default 10 s; the move timeout is at its first turn). The sample
// bot opposite keeps a calm clock of its own, so that a loaded machine cannot make it lose
// on time instead.

/// A bot that never says `ready` cannot start: the match stops before the first game (the
/// pre-flight start, issue #32) with exit 3 and the fault, and no game is recorded.
#[test]
fn startup_timeout() {
    let dir = TempDir::new("startup-timeout");
    let mut args =
        vec![misbehaving("--misbehave startup-timeout"), calm_bot("sample-bot"), "--games".into(), "4".into()];
    args.extend(["--out".into(), dir.0.display().to_string()]);
    args.extend(["--startup-time", "0.5", "--grace-ms", "100"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = stratego_tests::run_match(&args);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot start (started once before the first game"), "{err}");
    assert!(err.contains("no ready within 0.500 s"), "{err}");
    assert!(stratego_tests::records(&dir.0).is_empty(), "no game was played");
}

#[test]
fn setup_timeout() {
    let tight = ["--setup-time", "0.5", "--grace-ms", "100"];
    assert_fault("setup-timeout", "setup_timeout", "no setup within 0.500 s", &tight);
}

#[test]
fn move_timeout() {
    // At its first turn: no move of its own ever comes under the tight limit.
    let tight = ["--move-time", "0.5", "--grace-ms", "100"];
    assert_fault_at("move-timeout", 1, "move_timeout", "no move within 0.500 s", &tight);
}

#[test]
fn illegal_move() {
    assert_fault("illegal-move", "illegal_move", "is illegal: the piece on", &[]);
}

#[test]
fn unparsable_move() {
    assert_fault("unparsable-move", "illegal_move", "invalid move \"e4e5\"", &[]);
}

#[test]
fn invalid_setup() {
    assert_fault("invalid-setup", "invalid_setup", "Red places 9 bombs; the ruleset allows 6", &[]);
}

#[test]
fn malformed_json() {
    assert_fault("malformed-json", "malformed_json", "not JSON", &[]);
}

#[test]
fn malformed_message() {
    assert_fault("malformed-message", "malformed_message", "its \"move\" message is malformed", &[]);
}

#[test]
fn oversized_line() {
    assert_fault("line-too-long", "line_too_long", "longer than the limit of 1048576 bytes", &[]);
}

#[test]
fn invalid_utf8() {
    assert_fault("invalid-utf8", "invalid_utf8", "not valid UTF-8", &[]);
}

#[test]
fn unexpected_message_type_at_this_point() {
    assert_fault(
        "unexpected-message",
        "unexpected_message",
        "it sent \"ready\" when \"move\" or \"resign\" was expected",
        &[],
    );
}

#[test]
fn unknown_message_type() {
    assert_fault("unknown-type", "unexpected_message", "unknown type \"think\"", &[]);
}

#[test]
fn exit_with_status_1() {
    assert_fault("exit-1", "crash", "exited with status 1", &[]);
}

#[test]
fn killed_by_sigsegv() {
    assert_fault("sigsegv", "crash", "signal 11 (SIGSEGV)", &[]);
}

#[test]
fn closed_stdout_while_running() {
    assert_fault("close-stdout", "closed_output", "closed its standard output", &["--grace-ms", "100"]);
}

#[test]
fn resignation_is_a_loss_but_not_a_fault() {
    let r = forfeit("resign", &[]);
    assert_eq!(r["result"]["reason"], "resignation");
    assert_eq!(r["result"]["winner"], "blue");
    assert!(r["result"].get("faulty").is_none());
}

#[test]
fn info_lines_and_unknown_fields_are_accepted_and_recorded() {
    let r = forfeit("none", &[]);
    assert!(!r["result"]["reason"].as_str().unwrap().contains("malformed"), "{}", r["result"]);
    assert_eq!(r["bots"]["red"]["info"][0], "thinking");
}
