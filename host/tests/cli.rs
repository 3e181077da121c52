//! The command line: usage errors exit 2 with a clear message; a bot that cannot start
//! exits 3 before any game.

use std::process::Command;

fn host() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stratego-host"))
}

#[test]
fn help_lists_the_match_options() {
    let out = host().args(["match", "--help"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--games",
        "--rules",
        "--seed",
        "--tc",
        "--move-time",
        "--setup-time",
        "--startup-time",
        "--concurrency",
        "--out",
        "--json",
        "--verbose",
        "--quiet",
        "--max-line",
        "--read-grace-ms",
        "--host-priority",
    ] {
        assert!(text.contains(flag), "--help lacks {flag}");
    }
}

#[test]
fn bad_options_exit_2_and_say_what_is_wrong() {
    let cases: [(&[&str], &str); 7] = [
        (&["match", "--host-priority", "max"], "invalid value 'max' for '--host-priority <PRIORITY>'"),
        (&["match", "--read-grace-ms", "soon"], "invalid value 'soon' for '--read-grace-ms <MS>'"),
        (&["match", "--rules", "nosuch"], "--rules \"nosuch\": not a preset"),
        (&["match", "--tc", "abc"], "--tc \"abc\": bank: \"abc\" is not a number of seconds"),
        (&["match", "--games", "0"], "--games: must be at least 1"),
        (&["match", "--move-time=-1"], "--move-time: \"-1\" is not a number of seconds"),
        (&["match", "{\"command\": \"x\", \"nme\": 1}"], "unknown field `nme`"),
    ];
    for (args, want) in cases {
        let out = host().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn a_bad_ruleset_file_names_the_field() {
    let path = std::env::temp_dir().join(format!("bad-rules-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"lakes": ["k5"]}"#).unwrap();
    let out = host().args(["match", "--rules", path.to_str().unwrap()]).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lakes: square k5 is outside the 10x10 board"));
}

#[test]
fn a_missing_bot_exits_3_before_any_game() {
    let plain = std::env::temp_dir().join(format!("not-executable-{}", std::process::id()));
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let plain = plain.to_str().unwrap().to_owned();
    for (bot, want) in [
        ("/nonexistent/bot", "does not exist"),
        ("no-such-bot-program-xyz", "not found on PATH"),
        (plain.as_str(), "not executable"),
    ] {
        let out = host().args(["match", bot, "sample-bot"]).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{bot}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{bot}: {err}");
        assert!(!err.contains("game 1"), "no game may start");
    }
}

#[test]
fn every_host_priority_and_the_write_clock_play_a_match() {
    for args in [["--host-priority", "normal"], ["--host-priority", "nice"], ["--read-grace-ms", "0"]] {
        let out = host().args(["match", "--games", "2", "--json", "-q"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["games"], 2, "{args:?}");
        assert!(summary["bots"][0]["faults"].as_object().unwrap().is_empty(), "{args:?}: {summary}");
    }
}
