//! `stratego-host check`: the conformance battery for bot authors.

use std::process::Command;

use stratego_tests::{TempDir, host_bin, misbehaving};

fn check(bot: &str, extra: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(host_bin()).arg("check").arg(bot).args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_sample_bot_passes_every_check() {
    let (code, report) = check("sample-bot", &[]);
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains("0 failed"), "{report}");
    for part in [
        "classic: a valid setup as Red",
        "isf: a whole game as Blue",
        "barrage:",
        "tolerates unknown fields",
        "several games in one process",
    ] {
        assert!(report.contains(part), "{part}: {report}");
    }
}

#[test]
fn an_illegal_move_fails_with_what_was_sent_got_and_expected() {
    let (code, report) = check(&misbehaving("--misbehave illegal-move --at 3"), &["--rules", "classic"]);
    assert_eq!(code, Some(4), "{report}");
    let fail = report.lines().find(|l| l.contains("FAIL") && l.contains("whole game as Red")).expect(&report);
    assert!(
        fail.contains("sent: turn")
            && fail.contains("is illegal")
            && fail.contains("expected one of the turn's legal_moves"),
        "{fail}"
    );
    assert!(report.contains("PASS  starts and answers hello"), "{report}");
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
    let failed: Vec<&str> = report.lines().filter(|l| l.contains("FAIL")).collect();
    assert_eq!(failed.len(), 1, "{report}");
    assert!(failed[0].contains("tolerates unknown fields") && failed[0].contains("x_future_field"), "{report}");
    assert!(report.contains("PASS  barrage: exits on quit"), "{report}");
}

#[test]
fn a_bot_that_cannot_start_exits_3() {
    let (code, _) = check("/nonexistent/bot", &[]);
    assert_eq!(code, Some(3));
}
