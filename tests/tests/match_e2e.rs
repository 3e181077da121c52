//! Whole matches through the real binary between real bot processes.

use stratego_host::record::GameRecord;
use stratego_rules::Color;
use stratego_tests::read_records;
use stratego_tests::{CALM_CLOCK, TempDir, host_bin, run_match, wait_for};

#[test]
fn a_full_game_between_sample_bots_is_recorded_and_replays_to_the_same_result() {
    let dir = TempDir::new("full-game");
    let out = run_match(&["--games", "1", "--seed", "11", "--out", dir.0.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(summary["games"], 1);
    let records = read_records(&dir.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert!(!r.plies.is_empty());
    assert_eq!(summary["plies"], r.plies.len());
    assert!(!r.result.reason.is_fault(), "{:?}", r.result);
    let outcome = r.play_through().unwrap().expect("the rules ended the game");
    assert_eq!(outcome.winner, r.result.winner);
    assert_eq!(stratego_host::reason::Reason::from(outcome.reason), r.result.reason);
    assert!(r.deployments.red.is_some() && r.deployments.blue.is_some());
    assert_eq!(r.bots.red.reported_name.as_deref(), Some("sample-bot-heuristic"));
    assert!(r.bots.red.bytes_to_bot > 0 && r.bots.blue.bytes_from_bot > 0);
}

#[test]
fn a_ten_game_match_alternates_colours_and_every_record_replays() {
    let dir = TempDir::new("ten-games");
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "10",
        "--seed",
        "5",
        "-j",
        "2",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Match: 10 games"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().filter(|l| l.starts_with("game ")).count(), 10, "a live line per game: {stderr}");
    let mut records: Vec<GameRecord> = read_records(&dir.join("games.jsonl")).unwrap();
    records.sort_by_key(|r| r.index);
    assert_eq!(records.iter().map(|r| r.index).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    for r in &records {
        let a_red = r.index % 2 == 0;
        let red_name = &r.bots.red.name;
        assert_eq!(red_name == "sample-bot-random", a_red, "game {}: colours alternate", r.index);
        let outcome = r.play_through().unwrap_or_else(|e| panic!("game {}: {e}", r.index));
        if let Some(o) = outcome {
            assert_eq!(o.winner, r.result.winner);
        } else {
            panic!("game {} did not end by the rules: {:?}", r.index, r.result);
        }
    }
    // The heuristic bot should beat the random one in most games.
    let heuristic_wins = records
        .iter()
        .filter(|r| r.result.winner == Some(if r.index % 2 == 0 { Color::Blue } else { Color::Red }))
        .count();
    assert!(heuristic_wins >= 8, "heuristic won only {heuristic_wins} of 10");
}

#[test]
fn the_default_match_needs_no_arguments() {
    let out = std::process::Command::new(host_bin()).args(["match", "--games", "1", "-q"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("sample-bot"));
}

#[test]
fn the_same_seed_replays_the_same_games() {
    let run = |name: &str| {
        let dir = TempDir::new(name);
        let out = run_match(&[
            "sample-bot --strategy random",
            "sample-bot",
            "--games",
            "2",
            "--seed",
            "99",
            "--out",
            dir.0.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let mut recs = read_records(&dir.join("games.jsonl")).unwrap();
        recs.sort_by_key(|r| r.index);
        recs.into_iter().map(|r| (r.deployments, r.plies.iter().map(|p| p.ply).collect::<Vec<_>>())).collect::<Vec<_>>()
    };
    assert_eq!(run("seed-a"), run("seed-b"));
}

#[test]
fn records_survive_a_kill_of_the_host() {
    // Kill -9 the host in the middle of a match: every finished game is in the records.
    let dir = TempDir::new("kill9");
    let mut child = std::process::Command::new(host_bin())
        .args(["match", "--games", "200", "--seed", "3", "-q", "--out", dir.0.to_str().unwrap()])
        .args(CALM_CLOCK)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once three games are recorded (however slow the machine), as more are played:
    // at no particular point of a game. (Not as soon as a third line shows: that may be
    // while it is written, and a kill in the middle of a write of several pages cuts it,
    // which is why a resumed run drops a torn last line.)
    let whole_lines = || {
        let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap_or_default();
        if text.ends_with('\n') { text.lines().count() } else { 0 }
    };
    let recorded = wait_for(std::time::Duration::from_secs(120), || whole_lines() >= 3);
    assert!(recorded, "3 games not recorded within 120 s");
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap_or_default();
    assert!(text.lines().count() >= 3 && text.ends_with('\n'), "no half-written record");
    for line in text.lines() {
        let r: GameRecord = serde_json::from_str(line).expect("every line is a whole record");
        r.play_through().unwrap();
    }
}
