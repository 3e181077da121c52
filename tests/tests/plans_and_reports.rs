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

/// Drops the last record of `dir/games.jsonl` of a game `bot` played, as if the run had
/// been stopped before it.
fn drop_last_record_of(dir: &Path, bot: &str) {
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let plays = |l: &str| {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        r["bots"]["red"]["name"] == bot || r["bots"]["blue"]["name"] == bot
    };
    let last = lines.iter().rposition(|l| plays(l)).expect("a game of the bot");
    lines.remove(last);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
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
        // About versions of the bot named `bot` (its command's name; its ready.name is `scripted`).
        "--names-from-commands",
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
    // The author edits the script; the run is resumed (one of its games was not finished:
    // the new version plays it, so the change is on record).
    std::fs::write(tmp.join("bot.py"), format!("{SCRIPTED_BOT}\n# tuned\n")).unwrap();
    drop_last_record_of(&out, "bot");
    let played = stratego_tests::read_records(&out.join("games.jsonl"))
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

fn host(dir: &Path, args: &[&str]) -> Output {
    run(&host_bin(), dir, args)
}

#[test]
fn merge_refusals_name_the_directory_of_each_value_and_one_directory_is_singular() {
    let tmp = TempDir::new("plans-merge-words");
    let (d2, d4) = (tmp.join("two"), tmp.join("four"));
    for (dir, games) in [(&d2, "2"), (&d4, "4")] {
        let out = host(
            &tmp.0,
            &["match", "sample-bot", "sample-bot --strategy random", "--games", games, "--seed", "3", "-q", "--out"]
                .into_iter()
                .chain([dir.to_str().unwrap()])
                .collect::<Vec<_>>(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let refused = host(&tmp.0, &["merge", d2.to_str().unwrap(), d4.to_str().unwrap()]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("event.games_per_pairing: 2 in {}, 4 in {}", d2.display(), d4.display())), "{err}");
    let one = host(&tmp.0, &["merge", d2.to_str().unwrap()]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(stderr(&one).contains("merged 1 directory (shards whole): 2 of 2 planned games"), "{}", stderr(&one));
}

#[test]
fn ladder_commands_other_than_add_do_not_create_a_ladder() {
    let tmp = TempDir::new("plans-ladder-typo");
    let typo = tmp.join("typo.sqlite");
    for command in [&["table"][..], &["play", "--games", "1"][..]] {
        let mut args = vec!["ladder", "--db", typo.to_str().unwrap()];
        args.extend_from_slice(command);
        let out = host(&tmp.0, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("no such ladder file") && err.contains("add NAME COMMAND"), "{err}");
        assert!(!typo.exists(), "`ladder {command:?}` created {}", typo.display());
    }
    let added = host(&tmp.0, &["ladder", "--db", typo.to_str().unwrap(), "add", "h", "sample-bot"]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    assert!(typo.exists());
}

#[test]
fn a_record_holds_both_seats_clocks_when_bots_have_their_own() {
    let tmp = TempDir::new("plans-seat-clocks");
    let out_dir = tmp.join("run");
    let out = host(
        &tmp.0,
        &[
            "match",
            r#"{"command": "sample-bot", "move_time": 2}"#,
            "sample-bot --strategy random",
            "--move-time",
            "1",
            "--games",
            "2",
            "--seed",
            "4",
            "-q",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for r in stratego_tests::records(&out_dir) {
        let fast_red = r["bots"]["red"]["name"] == "sample-bot-random";
        let (red, blue) = if fast_red { (1000, 2000) } else { (2000, 1000) };
        assert_eq!(r["time_controls"]["red"]["move_ms"], red, "{}", r["time_controls"]);
        assert_eq!(r["time_controls"]["blue"]["move_ms"], blue, "{}", r["time_controls"]);
        assert_eq!(r["time_control"], r["time_controls"]["red"]);
    }
    // Without clocks of their own, the record keeps its one time control.
    let plain = tmp.join("plain");
    let out = host(
        &tmp.0,
        &[
            "match",
            "sample-bot",
            "sample-bot --strategy random",
            "--games",
            "1",
            "-q",
            "--out",
            plain.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stratego_tests::records(&plain)[0].get("time_controls").is_none());
}

#[test]
fn sprt_json_gives_elo_as_numbers_and_the_summary_names_an_unpaired_game() {
    let tmp = TempDir::new("plans-sprt");
    let dir = tmp.join("run");
    let args = ["sprt", "sample-bot", "sample-bot --strategy random", "--max-games", "4", "--seed", "2", "-q"];
    let json = host(&tmp.0, &[&args[..], &["--json", "--out", dir.to_str().unwrap()]].concat());
    let report: serde_json::Value = serde_json::from_slice(&json.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&json.stdout)));
    assert!(report["elo"]["score"].is_f64() && report["elo"]["los"].is_f64(), "{report}");
    assert!(report["elo_text"].is_string(), "{report}");
    assert_eq!(report["unpaired_games"], 0, "{report}");
    // Its last game lost (as when a run is interrupted between the two games of a pair):
    // the games count it, the pairs cannot, and the summary says so.
    let games = drop_last_record(&dir) - 1;
    let merged = host(&tmp.0, &["merge", dir.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&merged.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&merged.stderr)));
    assert_eq!(report["games"], games, "{report}");
    assert_eq!(report["unpaired_games"], 1, "{report}");
    let text = host(&tmp.0, &["merge", dir.to_str().unwrap()]);
    let summary = String::from_utf8_lossy(&text.stdout);
    assert!(
        summary.contains(
            "(1 game without its colour-swapped partner is counted in the games, not in the pairs nor the LLR)"
        ),
        "{summary}"
    );
}

#[test]
fn counts_of_one_are_singular() {
    let tmp = TempDir::new("plans-singular");
    let dir = tmp.join("run");
    let args = ["match", "sample-bot", "sample-bot --strategy random", "--games", "1", "--seed", "6", "--out"];
    let args: Vec<&str> = args.into_iter().chain([dir.to_str().unwrap()]).collect();
    let first = host(&tmp.0, &args);
    assert!(String::from_utf8_lossy(&first.stdout).contains("Match: 1 game, "), "{:?}", first);
    assert!(
        stderr(&first).contains("(1 game; 1 viewer pages") || stderr(&first).contains("(1 game;"),
        "{}",
        stderr(&first)
    );
    let again = host(&tmp.0, &args);
    assert!(
        stderr(&again).contains("resuming") && stderr(&again).contains(": 1 game already finished"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn warnings_are_written_like_the_hosts_other_messages() {
    let tmp = TempDir::new("plans-warning-words");
    let dir = tmp.join("run");
    let args = ["match", "sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "6", "-q", "--out"];
    let args: Vec<&str> = args.into_iter().chain([dir.to_str().unwrap()]).collect();
    assert_eq!(host(&tmp.0, &args).status.code(), Some(0));
    // A torn last line, as a host killed in the middle of a write leaves.
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.lines().last().unwrap();
    let keep = text.len() - last.len() - 1;
    std::fs::write(&path, format!("{}{}", &text[..keep], &last[..last.len() / 2])).unwrap();
    let resumed = host(&tmp.0, &args);
    let err = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(err.contains("stratego-host: warning: ") && err.contains("line 2 is torn"), "{err}");
    assert!(!err.contains(" WARN ") && !err.contains("stratego_host::"), "{err}");
}

#[test]
fn out_naming_a_file_is_refused_in_words() {
    let tmp = TempDir::new("plans-out-file");
    let file = tmp.join("afile");
    std::fs::write(&file, "mine\n").unwrap();
    let out = host(&tmp.0, &["match", "sample-bot", "sample-bot", "--games", "1", "--out", file.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is a file, not a directory") && !err.contains("os error"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
}

#[test]
fn a_corrupted_line_stops_every_command_by_default_and_read_only_commands_can_skip_it() {
    let tmp = TempDir::new("plans-bad-line");
    let dir = tmp.join("run");
    let d = dir.to_str().unwrap();
    let run_args =
        ["match", "sample-bot", "sample-bot --strategy random", "--games", "4", "--seed", "8", "-q", "--out", d];
    assert_eq!(host(&tmp.0, &run_args).status.code(), Some(0));
    // Line 2 of 4 is corrupted (a disk error, a bad edit).
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let lost: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    let lost_id = lost["game_id"].as_str().unwrap().to_owned();
    lines[1] = format!("{}#garbage", &lines[1][..lines[1].len() / 2]);
    let corrupted = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(&path, &corrupted).unwrap();
    let html = tmp.join("all.html");
    let h = html.to_str().unwrap();
    let replay = ["replay", d, "--ply", "0"];
    let export = ["export", d, "--html", h];
    let merge = ["merge", d];
    // By default every command stops at it, naming the line, and leaves the file alone.
    for args in [&replay[..], &export[..], &merge[..], &run_args[..]] {
        let out = host(&tmp.0, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("games.jsonl:2"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), corrupted, "{args:?} changed the file");
    }
    assert!(stderr(&host(&tmp.0, &replay)).contains("--skip-bad-lines"));
    // With --skip-bad-lines the read-only commands skip it, and say so.
    let skipped = format!("{}: skipped 1 line that is not a game record (--skip-bad-lines): line 2", path.display());
    let out = host(&tmp.0, &[&replay[..], &["--skip-bad-lines"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains(&skipped), "{}", stderr(&out));
    let out = host(&tmp.0, &[&export[..], &["--skip-bad-lines"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains(&skipped) && stderr(&out).contains("(3 games)"), "{}", stderr(&out));
    assert!(!std::fs::read_to_string(&html).unwrap().contains(&lost_id));
    // merge reports the game on the skipped line as missing (exit 1), the rest merged.
    let out = host(&tmp.0, &[&merge[..], &["--skip-bad-lines"]].concat());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&skipped) && err.contains("3 of 4 planned games"), "{err}");
    assert!(err.contains(&format!("1 game missing: {lost_id}")), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), corrupted);
}

#[test]
fn replay_without_game_says_which_game_it_shows_and_how_to_pick_another() {
    let tmp = TempDir::new("plans-replay-which");
    let dir = tmp.join("run");
    let d = dir.to_str().unwrap();
    let out = host(
        &tmp.0,
        &["match", "sample-bot", "sample-bot --strategy random", "--games", "3", "--seed", "8", "-q", "--out", d],
    );
    assert_eq!(out.status.code(), Some(0));
    let recs = stratego_tests::read_records(&dir.join("games.jsonl")).unwrap();
    let out = host(&tmp.0, &["replay", d, "--ply", "0"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("showing game {}, the first of the 3 games in ", recs[0].game_id))
            && err.contains(&format!("--game ID shows another (next: --game {})", recs[1].game_id)),
        "{err}"
    );
    let chosen = host(&tmp.0, &["replay", d, "--ply", "0", "--game", &recs[1].game_id]);
    assert_eq!(chosen.status.code(), Some(0));
    assert!(!stderr(&chosen).contains("showing game"), "{}", stderr(&chosen));
}

#[test]
fn viewer_pages_link_back_to_the_index_and_on_to_the_next_game() {
    let tmp = TempDir::new("plans-viewer-links");
    let dir = tmp.join("run");
    let d = dir.to_str().unwrap();
    let out = host(
        &tmp.0,
        &["match", "sample-bot", "sample-bot --strategy random", "--games", "3", "--seed", "8", "-q", "--out", d],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let pages: Vec<String> = index
        .split("href=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .filter(|h| h.starts_with("games/"))
        .collect();
    assert_eq!(pages.len(), 3, "{index}");
    for (i, page) in pages.iter().enumerate() {
        let html = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(html.contains(r#"<a id="to-index" href="../index.html">"#), "{page}");
        // The link resolves from the page's own directory to the index.
        assert!(dir.join(page).parent().unwrap().join("../index.html").is_file());
        match pages.get(i + 1) {
            Some(next) => {
                let name = next.strip_prefix("games/").unwrap();
                assert!(html.contains(&format!(r#"<a id="next-game" href="{name}">"#)), "{page} -> {next}");
            }
            None => assert!(!html.contains("next-game"), "{page} is the last"),
        }
    }
}

#[test]
fn default_names_tell_bots_apart_by_the_arguments_that_differ() {
    let tmp = TempDir::new("plans-names");
    let out = host(
        &tmp.0,
        &[
            "tournament",
            "--bot",
            "sample-bot --strategy search --worlds 2",
            "--bot",
            "sample-bot --strategy search --worlds 3",
            "--bot",
            "sample-bot --strategy random",
            "--bot",
            "sample-bot --strategy random",
            "--games",
            "2",
            "--seed",
            "1",
            "-q",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for name in
        ["\"sample-bot-search\"", "\"sample-bot-search-worlds-3\"", "\"sample-bot-random\"", "\"sample-bot-random-2\""]
    {
        assert!(text.contains(name), "{name} in {text}");
    }
}
