//! Tournaments and SPRTs through the real binary, between real bot processes.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Command, Output};

use stratego_tests::read_records;
use stratego_tests::{CALM_CLOCK, TempDir, host_bin, wait_for};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).current_dir(repo()).output().expect("run stratego-host")
}

/// [`host`] with a calm clock, for commands that play games (these are not about clocks).
fn host_playing(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).args(CALM_CLOCK).current_dir(repo()).output().expect("run stratego-host")
}

fn book() -> String {
    repo().join("host/tests/data/setups-sample.txt").display().to_string()
}

#[test]
fn a_round_robin_of_four_bots_with_a_setup_book_adds_up() {
    let dir = TempDir::new("round-robin");
    let out_dir = dir.0.to_str().unwrap();
    let out = host_playing(&[
        "tournament",
        "--bot",
        "sample-bot --strategy random",
        "--bot",
        "sample-bot",
        "--bot",
        "sample-bot --strategy search --worlds 4",
        "--bot",
        "python3 examples/python/bot.py",
        "--games",
        "2",
        "--setups",
        &book(),
        "--seed",
        "5",
        "-j",
        "2",
        "--out",
        out_dir,
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(report["games"], 12);
    assert_eq!(report["planned"], 12);
    let names: HashSet<String> =
        report["ranking"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap().to_owned()).collect();
    // The Python example goes by its ready.name (its command names it `bot`).
    let want: HashSet<String> = ["sample-bot-random", "sample-bot-heuristic", "sample-bot-search", "python-example"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(names, want, "stable names, whoever the opponent");
    // The crosstable adds up: every game gives one point, each bot played 6 games.
    let mut total = 0.0;
    for b in report["ranking"].as_array().unwrap() {
        assert_eq!(b["games"], 6, "{b}");
        let (w, d, l) = (b["wins"].as_u64().unwrap(), b["draws"].as_u64().unwrap(), b["losses"].as_u64().unwrap());
        assert_eq!(w + d + l, 6);
        assert_eq!(b["points"].as_f64().unwrap(), w as f64 + d as f64 / 2.0);
        total += b["points"].as_f64().unwrap();
        assert!(b["elo_err95"].as_f64().is_some_and(|e| e > 0.0), "an error bar: {b}");
    }
    assert_eq!(total, 12.0);
    let cross = report["crosstable"].as_array().unwrap();
    for (i, row) in cross.iter().enumerate() {
        for (j, cell) in row.as_array().unwrap().iter().enumerate() {
            if i == j {
                assert!(cell.is_null());
                continue;
            }
            let (p, n) = (cell[0].as_f64().unwrap(), cell[1].as_u64().unwrap());
            let (q, m) = (cross[j][i][0].as_f64().unwrap(), cross[j][i][1].as_u64().unwrap());
            assert_eq!((n, m), (2, 2));
            assert_eq!(p + q, 2.0, "the points between two bots add up to their games");
        }
    }
    // Records: unique ids, the stable names, and both games of a pair play the same two
    // book setups with the seats swapped.
    let records = read_records(&dir.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 12);
    let ids: HashSet<_> = records.iter().map(|r| r.game_id.clone()).collect();
    assert_eq!(ids.len(), 12, "game ids are unique across the run");
    let mut pairs: BTreeMap<u32, Vec<_>> = BTreeMap::new();
    for r in &records {
        assert!(want.contains(&r.bots.red.name) && want.contains(&r.bots.blue.name), "{}", r.bots.red.name);
        assert!(r.book_setups.red.is_some() && r.book_setups.blue.is_some());
        r.play_through().unwrap_or_else(|e| panic!("{}: {e}", r.game_id));
        pairs.entry(r.pair).or_default().push(r);
    }
    assert_eq!(pairs.len(), 6);
    for games in pairs.values() {
        let [a, b] = games.as_slice() else { panic!("a pair has two games") };
        assert_eq!(a.deployments, b.deployments, "same setups by colour");
        assert_eq!(a.bots.red.name, b.bots.blue.name, "seats swapped");
        assert_eq!(a.bots.blue.name, b.bots.red.name);
    }
}

#[test]
fn a_gauntlet_plays_its_seed_against_every_other_bot_only() {
    let out = host_playing(&[
        "tournament",
        "--format",
        "gauntlet",
        "--seed-bot",
        "sample-bot-heuristic",
        "--bot",
        "sample-bot",
        "--bot",
        "sample-bot --strategy random",
        "--bot",
        "python3 examples/python/bot.py",
        "--games",
        "2",
        "--seed",
        "3",
        "-q",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("Tournament: 4 of 4 games"), "{stdout}");
    // The two non-seeds never met: their crosstable cells are empty.
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains("sample-bot-random") || l.contains(" bot ")).collect();
    assert!(rows.iter().any(|l| l.contains('·')), "{stdout}");
    // The default safety margin is shown with the table.
    assert!(stdout.contains("\n  time margin 3 ms past each limit; moves that used it: "), "{stdout}");
}

#[test]
fn a_tournament_config_file_is_validated_with_file_line_and_key() {
    let dir = TempDir::new("bad-config");
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        "games = 2\n[[bot]]\ncommand = \"sample-bot\"\n[[bot]]\ncommand = \"sample-bot\"\nmove_time = \"fast\"\n",
    )
    .unwrap();
    let out = host(&["tournament", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.toml: line 6, bot[2].move_time: \"fast\" is not a number of seconds"), "{err}");
}

#[test]
fn sprt_of_heuristic_against_random_accepts_h1_with_exit_0() {
    let out = host_playing(&[
        "sprt",
        "sample-bot",
        "sample-bot --strategy random",
        "--elo0",
        "0",
        "--elo1",
        "100",
        "--seed",
        "1",
        "-j",
        "2",
        "--json",
        "-q",
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(report["verdict"], "H1", "{report}");
    assert_eq!(out.status.code(), Some(0));
    let llr = report["llr"].as_f64().unwrap();
    assert!(llr >= report["bounds"][1].as_f64().unwrap(), "{report}");
    assert!(report["games"].as_u64().unwrap() < 200, "it stops as soon as it knows: {report}");
}

#[test]
fn sprt_of_equal_bots_with_tight_bounds_accepts_h0_or_stops_at_the_limit_with_its_code() {
    let out = host_playing(&[
        "sprt",
        "sample-bot --strategy random",
        "sample-bot --strategy random",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--max-games",
        "20",
        "--seed",
        "2",
        "-j",
        "2",
        "--json",
        "-q",
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    match report["verdict"].as_str().unwrap() {
        "H0" => assert_eq!(out.status.code(), Some(10)),
        "inconclusive" => {
            assert_eq!(out.status.code(), Some(11));
            assert_eq!(report["games"], 20);
        }
        other => panic!("random vs random accepted {other}: {report}"),
    }
}

#[test]
fn sprt_rejects_bad_bounds_with_exit_2() {
    let out = host(&["sprt", "sample-bot", "sample-bot", "--elo0", "5", "--elo1", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--elo1 (1) must be more than --elo0 (5)"));
}

#[test]
fn sigint_ends_a_tournament_with_the_table_of_the_finished_games_and_exit_130() {
    use std::process::Stdio;
    let dir = TempDir::new("tournament-sigint");
    // Quick random bots, and one that hangs in its first game: the run cannot finish.
    let hang = stratego_tests::misbehaving("--misbehave move-timeout --at 1");
    let child = Command::new(host_bin())
        .args([
            "tournament",
            "--bot",
            "sample-bot --strategy random",
            "--bot",
            "sample-bot",
            "--bot",
            &hang,
            "--games",
            "2",
            "--move-time",
            "60",
            "--json",
            "-q",
            "--out",
            dir.0.to_str().unwrap(),
        ])
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The two games between the quick bots come first; then the hanging bot's game waits.
    let records = dir.join("games.jsonl");
    let two = wait_for(std::time::Duration::from_secs(120), || {
        std::fs::read_to_string(&records).map(|t| t.lines().count()).unwrap_or(0) >= 2
    });
    assert!(two, "the two games between the quick bots were not recorded within 120 s");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: sending SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the table of what finished");
    assert_eq!(report["interrupted"], true);
    let finished = report["games"].as_u64().unwrap();
    assert!(finished >= 2, "{report}");
    assert_eq!(read_records(&records).unwrap().len() as u64, finished, "every finished game is in the records");
}
