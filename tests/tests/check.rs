//! `stratego-host check`: the conformance battery for bot authors.

use std::path::Path;
use std::process::Command;

use stratego_tests::{CALM_CLOCK, TempDir, host_bin, misbehaving};

/// `stratego-host check BOT` with `extra` and a calm clock (these checks are not about
/// clocks; the default is 1 s a move).
fn check(bot: &str, extra: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(host_bin()).arg("check").arg(bot).args(extra).args(CALM_CLOCK).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A Python bot: `NAME` and `MULTI` set, then `PLAYER` (which answers every request with
/// the first legal choice), then `main`, run as `python3 FILE ARG`.
fn python_bot(dir: &TempDir, file: &str, multi_game: bool, main: &str, arg: &str) -> String {
    let path = dir.join(file);
    let multi = if multi_game { "True" } else { "False" };
    std::fs::write(&path, format!("NAME = {file:?}\nMULTI = {multi}\n{PLAYER}\n{main}\n")).unwrap();
    format!("python3 {} {arg}", path.display())
}

const PLAYER: &str = r#"import json, os, sys, time
def answer(m):
    if m["type"] == "hello":
        return {"type": "ready", "name": NAME, "multi_game": MULTI}
    if m["type"] == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        return {"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))}
    if m["type"] == "turn":
        return {"type": "move", "move": m["legal_moves"][0]}
def play(on_quit=lambda: None):
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "quit":
            on_quit()
            break
        a = answer(m)
        if a:
            print(json.dumps(a), flush=True)
"#;

/// The lines of a report whose status is `status` (`PASS`, `FAIL`, `NOT RUN`).
fn lines<'a>(report: &'a str, status: &str) -> Vec<&'a str> {
    let prefix = format!("  {status}  ");
    report.lines().filter(|l| l.starts_with(&prefix)).collect()
}

#[test]
fn the_sample_bot_passes_every_check() {
    let (code, report) = check("sample-bot", &[]);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.starts_with("check: sample-bot-heuristic (")
            && report.lines().next().unwrap().ends_with(") against sample-bot-random"),
        "{report}"
    );
    assert!(report.contains("0 failed, 0 not run"), "{report}");
    for part in [
        "classic: a valid setup as Red",
        "isf: a whole game as Blue",
        "barrage:",
        "tolerates unknown fields",
        "several games in one process",
        // A multi-game bot is kept after its game, then told quit: it must still exit.
        "PASS  classic: exits on quit (Red): the process exited with status 0",
        "PASS  barrage: exits on quit (Blue): the process exited with status 0",
    ] {
        assert!(report.contains(part), "{part}: {report}");
    }
}

#[test]
fn an_illegal_move_fails_with_the_turn_sent_what_came_back_and_what_was_expected() {
    let (code, report) = check(&misbehaving("--misbehave illegal-move --at 3"), &["--rules", "classic"]);
    assert_eq!(code, Some(4), "{report}");
    let fail = report.lines().find(|l| l.contains("FAIL") && l.contains("whole game as Red")).expect(&report);
    // Its third turn as Red is the turn of ply 4; the move it sent moves a Blue piece.
    assert!(
        fail.contains("sent: turn at ply 4 (Red to move, ")
            && fail.contains(" legal moves: ")
            && fail.contains("got: illegal_move: ")
            && fail.contains("is illegal: the piece on")
            && fail.contains("expected one of the turn's legal_moves"),
        "{fail}"
    );
    assert!(report.contains("PASS  starts and answers hello"), "{report}");
    let depends = "depends on \"classic: a whole game as Red with legal moves in time\"";
    assert!(report.contains(&format!("NOT RUN  classic: exits on quit (Red): {depends}")), "{report}");
}

#[test]
fn a_bot_that_rejects_unknown_fields_fails_only_that_check() {
    let dir = TempDir::new("strict-bot");
    let path = dir.join("strict.py");
    std::fs::write(
        &path,
        r#"import json, random, sys
KNOWN = {"hello": {"type","protocol","game_id","color","ruleset","time_control","seed","max_line_bytes","opponent"},
         "setup_request": {"type","game_id","color","squares","pieces","exact_counts","time_ms","fixed"},
         "turn": {"type","game_id","ply","color","plies","pieces","captured","legal_moves","clock"},
         "game_over": {"type","game_id","result","winner","reason","message","plies","total_plies","opponent_setup"},
         "quit": {"type"}}
for line in sys.stdin:
    m = json.loads(line)
    if set(m) - KNOWN[m["type"]]:
        sys.exit("unknown field")
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "strict"}), flush=True)
    elif m["type"] == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        print(json.dumps({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))}), flush=True)
    elif m["type"] == "turn":
        print(json.dumps({"type": "move", "move": m["legal_moves"][0]}), flush=True)
    elif m["type"] == "quit":
        break
"#,
    )
    .unwrap();
    let (code, report) = check(&format!("python3 {}", path.display()), &["--rules", "barrage"]);
    assert_eq!(code, Some(4), "{report}");
    let failed = lines(&report, "FAIL");
    assert_eq!(failed.len(), 1, "{report}");
    assert!(failed[0].contains("tolerates unknown fields") && failed[0].contains("x_future_field"), "{report}");
    // The same game without the field was played again: the field is the cause.
    assert!(failed[0].contains("sent: hello, every message with") && failed[0].contains("without the field went on"));
    assert!(report.contains("    | unknown field"), "its stderr is shown: {report}");
    assert!(report.contains("PASS  barrage: exits on quit"), "{report}");
    assert!(report.contains("0 not run"), "{report}");
}

#[test]
fn a_bot_that_crashes_at_start_is_reported_once_with_its_traceback() {
    let dir = TempDir::new("crash-at-start");
    let path = dir.join("crash.py");
    // Long lines first: the report shows only the last ten lines, each clipped.
    std::fs::write(
        &path,
        r#"import sys
for i in range(30):
    print("noise " + "x" * 500, file=sys.stderr)
def answer(message):
    return mesage
for line in sys.stdin:
    print(answer(line), flush=True)
"#,
    )
    .unwrap();
    let bot = format!("python3 {}", path.display());
    let (code, report) = check(&bot, &["--rules", "classic"]);
    // It never says `ready`: a bot that cannot start (exit 3, as `check --help` says).
    assert_eq!(code, Some(3), "{report}");
    let failed = lines(&report, "FAIL");
    assert_eq!(failed.len(), 1, "{report}");
    assert!(
        failed[0].starts_with("  FAIL  starts and answers hello with ready and a name: sent: hello (its seed ")
            && failed[0].contains("); got: crash: ")
            && failed[0].contains("exited with status 1"),
        "{report}"
    );
    // Everything else depends on it, and says so instead of failing again.
    let not_run = lines(&report, "NOT RUN");
    assert_eq!(not_run.len(), 9, "4 checks a game, 2 games, and the probe: {report}");
    for line in &not_run {
        assert!(line.ends_with(": depends on \"starts and answers hello with ready and a name\""), "{line}");
    }
    assert!(report.contains("NOT RUN  classic: a valid setup as Red: depends on"), "{report}");
    assert!(report.contains("NOT RUN  tolerates unknown fields in host messages: depends on"), "{report}");
    assert!(report.ends_with("0 passed, 1 failed, 9 not run\n"), "{report}");
    // Nothing claims a request that was never sent.
    let mut ours = report.lines().filter(|l| !l.starts_with("    | "));
    assert!(ours.all(|l| !l.contains("setup_request") && !l.contains("turn")), "{report}");
    // The traceback's last lines, under the failure, bounded.
    let stderr: Vec<&str> = report.lines().filter(|l| l.starts_with("    | ")).collect();
    assert_eq!(stderr.len(), 10, "{report}");
    assert!(stderr[9].starts_with("    | NameError: name 'mesage' is not defined"), "{report}");
    assert!(stderr.contains(&"    | Traceback (most recent call last):"), "{report}");
    assert!(stderr.iter().all(|l| l.chars().count() <= 6 + 201), "{report}");
    assert!(stderr[0].starts_with("    | noise xxx") && stderr[0].ends_with('…'), "{report}");

    // For machines: every check, with its status; a check not run names what it waited for.
    let out = Command::new(host_bin())
        .args(["check", &bot, "--rules", "classic", "--json"])
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let results: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results.len(), 10);
    assert_eq!(results[0]["status"], "fail");
    assert_eq!(results[0]["passed"], false);
    assert!(results[0]["stderr"].as_array().unwrap().len() == 10);
    for r in &results[1..] {
        assert_eq!(r["status"], "not_run", "{r}");
        assert_eq!(r["passed"], false, "{r}");
        assert_eq!(r["depends_on"], "starts and answers hello with ready and a name", "{r}");
    }
}

#[test]
fn a_bot_that_crashes_mid_game_is_not_blamed_for_unknown_fields() {
    let (code, report) = check(&misbehaving("--misbehave exit-1 --at 3"), &["--rules", "barrage"]);
    assert_eq!(code, Some(4), "{report}");
    let failed = lines(&report, "FAIL");
    assert_eq!(failed.len(), 2, "the game as Red and as Blue: {report}");
    assert!(failed.iter().all(|l| l.contains("whole game as") && l.contains("got: crash: ")), "{report}");
    assert!(failed[0].contains("sent: turn at ply 4 (Red to move, "), "{report}");
    assert!(
        report.contains(
            "NOT RUN  tolerates unknown fields in host messages: \
             depends on \"barrage: a whole game as Red with legal moves in time\""
        ),
        "{report}"
    );
    assert!(report.contains("PASS  barrage: a valid setup as Red"), "{report}");
}

#[test]
fn an_unknown_field_probe_failing_without_the_field_too_is_not_blamed_on_the_field() {
    // Plays its first two processes' games, then every later process crashes at hello:
    // the probe game (third) fails, and so does the same game without the field (fourth).
    let dir = TempDir::new("flaky-bot");
    let counter = dir.join("starts");
    let main = r#"path = sys.argv[1]
n = int(open(path).read()) + 1 if os.path.exists(path) else 1
open(path, "w").write(str(n))
if n >= 3:
    sys.stdin.readline()
    sys.exit(f"start {n}: out of luck")
play()"#;
    let bot = python_bot(&dir, "flaky.py", false, main, &counter.display().to_string());
    let (code, report) = check(&bot, &["--rules", "barrage"]);
    assert_eq!(code, Some(4), "{report}");
    let again = "barrage: the same game as Red again, without unknown fields";
    let failed = lines(&report, "FAIL");
    assert_eq!(failed.len(), 1, "{report}");
    assert!(failed[0].starts_with(&format!("  FAIL  {again}: sent: hello (its seed ")), "{report}");
    assert!(failed[0].contains("); got: crash: "), "{report}");
    assert!(report.contains("    | start 4: out of luck"), "{report}");
    assert!(
        report.contains(&format!("NOT RUN  tolerates unknown fields in host messages: depends on \"{again}\"")),
        "{report}"
    );
    assert!(report.contains("PASS  barrage: a whole game as Red"), "{report}");
    assert_eq!(std::fs::read_to_string(Path::new(&counter)).unwrap(), "4");
}

#[test]
fn a_multi_game_bot_that_ignores_quit_fails_exits_on_quit() {
    let dir = TempDir::new("deaf-bot");
    let bot = python_bot(&dir, "deaf.py", true, "play(on_quit=lambda: time.sleep(30))", "");
    let (code, report) = check(&bot, &["--rules", "barrage"]);
    assert_eq!(code, Some(4), "{report}");
    let failed = lines(&report, "FAIL");
    assert_eq!(failed.len(), 2, "{report}");
    for (line, color) in failed.iter().zip(["Red", "Blue"]) {
        assert!(
            line.starts_with(&format!("  FAIL  barrage: exits on quit ({color}): sent: game_over, then quit; "))
                && line.contains("got: killed after the grace period"),
            "{report}"
        );
    }
    assert!(report.contains("PASS  plays several games in one process"), "{report}");
}

#[test]
fn a_bot_that_cannot_start_exits_3() {
    let (code, _) = check("/nonexistent/bot", &[]);
    assert_eq!(code, Some(3));
}
