//! Saved plans that travel (issue #32, items 5 and 6), the smaller reporting fixes (item 14)
//! and skipping corrupted record lines on request (item 13), through the real binary with
//! real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stratego_tests::{SCRIPTED_BOT, TempDir, host_bin};

fn run(host: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(host).args(args).current_dir(dir).output().expect("run stratego-host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Copies of the host binary in two unrelated directories.
fn two_copies(tmp: &TempDir) -> (PathBuf, PathBuf) {
    let a = tmp.join("node-a/opt/bin/stratego-host");
    let b = tmp.join("node-b/usr/local/arena/stratego-host");
    for copy in [&a, &b] {
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(host_bin(), copy).unwrap();
    }
    (a, b)
}

/// Drops the last record of `dir/games.jsonl`, as if the run had been stopped before it.
fn drop_last_record(dir: &Path) -> usize {
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&path, lines[..lines.len() - 1].iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    lines.len()
}

const SAMPLE_TOURNAMENT: &[&str] = &[
    "tournament",
    "--bot",
    "sample-bot",
    "--bot",
    "sample-bot --strategy random",
    "--bot",
    "sample-bot --strategy search --worlds 2",
    "--games",
    "2",
    "--seed",
    "5",
    "-j",
    "2",
    "-q",
    "--json",
];

#[test]
fn shards_and_resumes_by_identical_hosts_installed_in_different_places_merge_and_resume() {
    let tmp = TempDir::new("plans-portable");
    let (a, b) = two_copies(&tmp);
    let (s1, s2) = (tmp.join("shard-1"), tmp.join("shard-2"));
    for (host, shard, dir) in [(&a, "1/2", &s1), (&b, "2/2", &s2)] {
        let mut args = SAMPLE_TOURNAMENT.to_vec();
        args.extend(["--shard", shard, "--out", dir.to_str().unwrap()]);
        let out = run(host, &tmp.0, &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    // Neither manifest names where its host was installed.
    for dir in [&s1, &s2] {
        let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
        assert!(!manifest.contains("node-a") && !manifest.contains("node-b"), "{manifest}");
    }
    for host in [&a, &b] {
        let merged = run(host, &tmp.0, &["merge", s1.to_str().unwrap(), s2.to_str().unwrap(), "--json"]);
        assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
        assert!(stderr(&merged).contains("merged 2 directories (shards 1/2, 2/2): 6 of 6 planned games"));
    }
    // A run started by copy A resumes with copy B, playing only what is left, with no
    // warning about a changed bot (the program is the same).
    let whole = tmp.join("whole");
    let mut args = SAMPLE_TOURNAMENT.to_vec();
    args.extend(["--out", whole.to_str().unwrap()]);
    let first = run(&a, &tmp.0, &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(drop_last_record(&whole), 6);
    let resumed = run(&b, &tmp.0, &args);
    let err = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(err.contains("5 games already finished") && !err.contains("warning"), "{err}");
    assert_eq!(std::fs::read_to_string(whole.join("games.jsonl")).unwrap().lines().count(), 6);
}

/// A tournament of the scripted bot (resigning at once, for short games) and two sample
/// bots, run in `cwd` where the script is `bot.py`.
fn script_tournament(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tournament",
        "--bot",
        "python3 bot.py resign=1",
        "--bot",
        "sample-bot",
        "--bot",
        "sample-bot --strategy random",
        "--games",
        "2",
        "--seed",
        "9",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn host_in(dir: &Path, args: &[String]) -> Output {
    Command::new(host_bin()).args(args).current_dir(dir).output().expect("run stratego-host")
}

#[test]
fn a_changed_script_is_reported_in_plain_words_even_with_q_and_stays_on_record() {
    let tmp = TempDir::new("plans-changed-script");
    std::fs::write(tmp.join("bot.py"), SCRIPTED_BOT).unwrap();
    let out = tmp.join("run");
    let args = script_tournament(&out, &[]);
    let first = host_in(&tmp.0, &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    // The manifest names the script, not the interpreter found on PATH.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["executables"][0][0], "bot.py", "{manifest}");
    assert_eq!(manifest["executables"][1][0], "sample-bot (built in)", "{manifest}");
    // The author edits the script; the run is resumed (one game was not finished).
    std::fs::write(tmp.join("bot.py"), format!("{SCRIPTED_BOT}\n# tuned\n")).unwrap();
    drop_last_record(&out);
    let played = stratego_host::record::read_records(&out.join("games.jsonl"))
        .unwrap()
        .iter()
        .filter(|r| r.bots.red.name == "bot" || r.bots.blue.name == "bot")
        .count();
    let resumed = host_in(&tmp.0, &args);
    let err = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(
        err.contains("stratego-host: warning: bot bot: bot.py changed since the run in ")
            && err.contains(&format!("its {played} games so far were played by the old version")),
        "{err}"
    );
    assert!(!err.contains("Some(") && !err.contains(" WARN "), "{err}");
    // The directory remembers the change: a later run does not take the new hash silently.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let changed = manifest["changed"][0].as_str().unwrap_or_default();
    assert!(changed.starts_with("bot: bot.py ") && changed.ends_with(&format!(" after {played} games")), "{manifest}");
}

#[test]
fn merge_refuses_shards_played_by_different_versions_of_a_bot_unless_told() {
    let tmp = TempDir::new("plans-mixed-merge");
    let (s1, s2) = (tmp.join("shard-1"), tmp.join("shard-2"));
    std::fs::write(tmp.join("bot.py"), SCRIPTED_BOT).unwrap();
    let one = host_in(&tmp.0, &script_tournament(&s1, &["--shard", "1/2"]));
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    std::fs::write(tmp.join("bot.py"), format!("{SCRIPTED_BOT}\n# tuned\n")).unwrap();
    let two = host_in(&tmp.0, &script_tournament(&s2, &["--shard", "2/2"]));
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
    let dirs = [s1.to_str().unwrap(), s2.to_str().unwrap()];
    let refused = run(&host_bin(), &tmp.0, &["merge", dirs[0], dirs[1]]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("different versions of a bot") && err.contains("bot bot: bot.py "), "{err}");
    assert!(err.contains(&format!("in {}", dirs[0])) && err.contains(&format!("in {}", dirs[1])), "{err}");
    let forced = run(&host_bin(), &tmp.0, &["merge", dirs[0], dirs[1], "--mixed-versions"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(stderr(&forced).contains("stratego-host: warning: merging games of different versions of a bot"));
}
