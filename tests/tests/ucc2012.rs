//! Bots of the UCC 2012 line protocol (`ucc2012:` / `"protocol": "ucc2012"`) through the real
//! host binary, with the project's own legacy bot (tests/src/bin/ucc-bot.rs), which keeps
//! its board from the echoes only and exits 3 on any board or echo that does not match it:
//! a game it finishes without a fault is a game the adapter got right, line by line.

use std::process::Command;

use stratego_tests::{CALM_CLOCK, CALM_MOVE_TIME, TempDir, assert_rule_endings, bin, host_bin, records, run_match};

/// The legacy test bot as a `ucc2012:` bot argument.
fn ucc(args: &str) -> String {
    format!("ucc2012:{} {args}", bin("ucc-bot").display())
}

/// Plays a match, asserts exit 0, and returns the records by game.
fn play(name: &str, red_first: &str, other: &str, games: u32, extra: &[&str]) -> Vec<serde_json::Value> {
    let dir = TempDir::new(name);
    let games = games.to_string();
    let mut args = vec![red_first, other, "--games", &games, "--out", dir.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_match(&args);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records(&dir.0);
    recs.sort_by_key(|r| r["index"].as_u64());
    recs
}

/// The moves a side played, as `(from, to)` square names.
fn moves_of(rec: &serde_json::Value, color: &str) -> Vec<(String, String)> {
    rec["plies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["color"] == color)
        .map(|p| {
            let (a, b) = p["move"].as_str().unwrap().split_once('-').unwrap();
            (a.to_owned(), b.to_owned())
        })
        .collect()
}

fn is_long(m: &(String, String)) -> bool {
    let (a, b) = (m.0.as_bytes(), m.1.as_bytes());
    let file = |s: &[u8]| s[0];
    let rank = |s: &[u8]| std::str::from_utf8(&s[1..]).unwrap().parse::<i32>().unwrap();
    (i32::from(file(a)) - i32::from(file(b))).abs() + (rank(a) - rank(b)).abs() > 1
}

#[test]
fn a_legacy_bot_plays_a_json_bot_as_red_and_as_blue() {
    let logs = TempDir::new("ucc-both-log");
    let transcript = logs.join("ucc.txt");
    let bot = ucc(&format!("--seed 11 --prefer-long --attack --transcript {}", transcript.display()));
    let recs = play("ucc-both", &bot, "sample-bot --strategy random", 2, &["--rules", "ucc2012", "--seed", "3"]);
    assert_eq!(recs.len(), 2);
    assert_rule_endings("ucc-both", &recs);
    for (rec, color) in recs.iter().zip(["red", "blue"]) {
        assert_eq!(rec["bots"][color]["name"], "ucc-bot", "colours alternate");
        assert_eq!(rec["bots"][color]["exit"], "the process exited with status 0", "it quit on QUIT");
        let mine = moves_of(rec, color);
        assert!(mine.len() > 10, "it played a real game as {color}: {} moves", mine.len());
        assert!(mine.iter().any(is_long), "a Scout move of several squares as {color}");
        assert_eq!(rec["ruleset"]["name"], "ucc2012");
        assert!(rec["ruleset"]["two_square_limit"].is_null());
    }
    let text = std::fs::read_to_string(&transcript).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "RED ./sample-bot-random 10 10", "game 1 opens with the colour and a path-like name");
    assert_eq!(lines[1], "START");
    assert_eq!(lines[2].len(), 10, "then the board");
    assert!(lines.contains(&"BLUE ./sample-bot-random 10 10"), "game 2 as Blue");
    // Blue's first turn starts with Red's move, never START.
    let blue_at = lines.iter().position(|l| l.starts_with("BLUE ")).unwrap();
    assert_ne!(lines[blue_at + 1], "START");
    for outcome in [" OK", " KILLS ", " DIES ", " BOTHDIE "] {
        assert!(lines.iter().any(|l| l.contains(outcome)), "an echo with{outcome}");
    }
    assert!(lines.iter().any(|l| l.starts_with("QUIT ")), "QUIT ends the game");
}

#[test]
fn two_legacy_bots_play_to_a_captured_flag() {
    let logs = TempDir::new("ucc-flag-log");
    let (t1, t2) = (logs.join("a.txt"), logs.join("b.txt"));
    let a = ucc(&format!("--seed 1 --attack --transcript {}", t1.display()));
    let b = ucc(&format!("--seed 2 --transcript {}", t2.display()));
    let recs = play("ucc-flag", &a, &b, 4, &["--rules", "ucc2012", "--seed", "5"]);
    assert_rule_endings("ucc-flag", &recs);
    let captures = recs.iter().filter(|r| r["result"]["reason"] == "flag_captured").count();
    assert!(captures > 0, "{:?}", recs.iter().map(|r| r["result"].clone()).collect::<Vec<_>>());
    let text = std::fs::read_to_string(t1).unwrap() + &std::fs::read_to_string(t2).unwrap();
    assert!(text.lines().any(|l| l.ends_with(" VICTORY_FLAG")), "the capture is echoed to its mover");
    assert!(text.lines().any(|l| l.starts_with("QUIT VICTORY flag_captured")));
    assert!(text.lines().any(|l| l.starts_with("QUIT DEFEAT flag_captured")));
}

#[test]
fn a_legacy_bot_may_surrender() {
    let logs = TempDir::new("ucc-surrender-log");
    let transcript = logs.join("t.txt");
    let bot = ucc(&format!("--surrender-at 3 --transcript {}", transcript.display()));
    let recs = play("ucc-surrender", "sample-bot --strategy random", &bot, 1, &["--rules", "ucc2012"]);
    let r = &recs[0]["result"];
    assert_eq!((r["reason"].as_str(), r["winner"].as_str()), (Some("resignation"), Some("red")), "{r}");
    assert_eq!(recs[0]["plies"].as_array().unwrap().len(), 5, "Blue surrendered at its third turn");
    let text = std::fs::read_to_string(transcript).unwrap();
    assert!(text.lines().last().unwrap().starts_with("QUIT SURRENDER resignation"), "{text}");
}

#[test]
fn a_legacy_bot_that_answers_garbage_loses_and_says_what_it_sent() {
    let recs = play("ucc-garbage", &ucc("--garbage-at 2"), "sample-bot --strategy random", 1, &["--rules", "ucc2012"]);
    let r = &recs[0]["result"];
    assert_eq!((r["reason"].as_str(), r["faulty"].as_str()), (Some("malformed_message"), Some("red")), "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(m.contains("\"hello there\"") && m.contains("X Y DIRECTION [N]"), "{m}");
}

#[test]
fn a_legacy_bot_that_exits_loses_by_crash() {
    let recs = play("ucc-exit", "sample-bot --strategy random", &ucc("--exit-at 2"), 1, &["--rules", "ucc2012"]);
    let r = &recs[0]["result"];
    assert_eq!((r["reason"].as_str(), r["faulty"].as_str()), (Some("crash"), Some("blue")), "{r}");
}

#[test]
fn an_illegal_legacy_move_is_echoed_illegal_before_quit() {
    let logs = TempDir::new("ucc-illegal-log");
    let transcript = logs.join("t.txt");
    let bot = ucc(&format!("--illegal-at 2 --transcript {}", transcript.display()));
    let recs = play("ucc-illegal", &bot, "sample-bot --strategy random", 1, &["--rules", "ucc2012"]);
    let r = &recs[0]["result"];
    assert_eq!((r["reason"].as_str(), r["faulty"].as_str()), (Some("illegal_move"), Some("red")), "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(m.contains("the flag") || m.contains("flag"), "names the immobile Flag: {m}");
    let text = std::fs::read_to_string(transcript).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    assert!(lines[n - 2].ends_with(" ILLEGAL"), "{:?}", &lines[n - 3..]);
    assert!(lines[n - 1].starts_with("QUIT DEFEAT illegal_move"), "{:?}", &lines[n - 3..]);
}

#[test]
fn under_rules_a_legacy_bot_cannot_know_its_forfeit_says_so() {
    let bot = ucc("--shuttle");
    let recs = play("ucc-two-square", &bot, "sample-bot --strategy random", 1, &["--rules", "classic", "--seed", "2"]);
    let r = &recs[0]["result"];
    assert_eq!((r["reason"].as_str(), r["faulty"].as_str()), (Some("illegal_move"), Some("red")), "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(
        m.contains("two-square rule") && m.contains("ucc2012 bot cannot know") && m.contains("--rules ucc2012"),
        "{m}"
    );
    // The same bot under the 2012 rules shuttles without a fault.
    let recs =
        play("ucc-two-square-ok", &bot, "sample-bot --strategy random", 1, &["--rules", "ucc2012", "--seed", "2"]);
    assert_rule_endings("ucc-two-square-ok", &recs);
}

#[test]
fn a_legacy_bot_cannot_play_another_army() {
    let recs = play("ucc-barrage", &ucc(""), "sample-bot --strategy random", 1, &["--rules", "barrage"]);
    let r = &recs[0]["result"];
    assert_eq!(r["faulty"], "red", "{r}");
    assert!(r["message"].as_str().unwrap().contains("plays only the classic 10x10 board"), "{r}");
}

#[test]
fn json_specs_and_tournament_files_name_the_protocol() {
    let dir = TempDir::new("ucc-tournament");
    let toml = format!(
        "rules = \"ucc2012\"\ngames = 2\nseed = 4\nout = \"{out}\"\n\n[[bot]]\nname = \"legacy\"\ncommand = \"{ucc} \
         --seed 3\"\nprotocol = \"ucc2012\"\n\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n",
        out = dir.join("out").display(),
        ucc = bin("ucc-bot").display()
    );
    std::fs::write(dir.join("t.toml"), toml).unwrap();
    let out = Command::new(host_bin())
        .args(["tournament", dir.join("t.toml").to_str().unwrap()])
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = records(&dir.join("out"));
    assert_eq!(recs.len(), 2);
    assert_rule_endings("ucc-tournament", &recs);
    // A JSON spec, in sprt.
    let spec =
        format!(r#"{{"name": "legacy", "command": "{} --seed 5", "protocol": "ucc2012"}}"#, bin("ucc-bot").display());
    let out = Command::new(host_bin())
        .args(["sprt", &spec, "sample-bot --strategy random", "--elo0", "0", "--elo1", "50", "--max-games", "2"])
        .args(["--rules", "ucc2012", "--out", dir.join("sprt").to_str().unwrap()])
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    let sprt = records(&dir.join("sprt"));
    assert_eq!(sprt.len(), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert_rule_endings("ucc-sprt", &sprt);
    // A typo in the protocol is an error naming it.
    let bad = run_match(&[r#"{"command": "x", "protocol": "ucc"}"#, "sample-bot"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown variant `ucc`, expected `json` or `ucc2012`"));
}

#[test]
fn check_says_it_checks_json_bots_only() {
    let out = Command::new(host_bin()).args(["check", &ucc("")]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("JSON protocol only"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_legacy_bot_plays_on_the_ladder() {
    let dir = TempDir::new("ucc-ladder");
    let db = dir.join("l.sqlite");
    let ladder = |args: &[&str]| {
        let out = Command::new(host_bin()).args(["ladder", "--db", db.to_str().unwrap()]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    ladder(&["add", "legacy", &ucc("--seed 4")]);
    ladder(&["add", "rnd", "sample-bot --strategy random"]);
    ladder(&["play", "-n", "2", "--rules", "ucc2012", "--move-time", CALM_MOVE_TIME]);
    let history = ladder(&["history", "legacy"]);
    assert!(history.contains("legacy: 2 games"), "{history}");
    let endings = ["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"];
    let games: Vec<&str> = history.lines().filter(|l| l.contains("ladder-")).collect();
    assert_eq!(games.len(), 2, "{history}");
    for g in games {
        assert!(endings.iter().any(|e| g.contains(e)), "a game ended by the rules: {g}");
    }
}
