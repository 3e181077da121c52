//! What cutechess and fastchess organisers reach for (issue #44, items 12, 13 and 15's
//! config errors): a tournament file's problems named all at once, a results export that
//! Ordo and BayesElo read, options given to every bot, the ladder from another directory
//! and from two runners at once.
//!
//! Real host binary, real bot processes (the sample bot), real files; clocks are calm
//! ([`CALM_CLOCK`]).

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Item 15: a tournament file with three bad fields names all three, each with its line
/// and key, and exits 2 without playing (before: only the first, `games`, was named; a
/// run per mistake).
#[test]
fn a_tournament_file_with_three_bad_fields_names_all_three() {
    let tmp = TempDir::new("formats-config");
    let file = tmp.join("event.toml");
    std::fs::write(
        &file,
        "games = 3\n\
         move_time = \"fast\"\n\
         event = \"Winter Cup\"\n\
         setups_order = \"shuffled\"\n\
         \n\
         [[bot]]\n\
         command = \"sample-bot\"\n\
         \n\
         [[bot]]\n\
         command = \"sample-bot --strategy random\"\n",
    )
    .unwrap();
    let out = tmp.join("out");
    let run = host(&["tournament", path(&file), "--out", path(&out)]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    let shown = path(&file);
    for (line, key, problem) in [
        (1, "games", "must be even (games are played in colour-swapped pairs)"),
        (2, "move_time", "\"fast\" is not a number of seconds"),
        (4, "setups_order", "\"shuffled\" is not an order (random or sequential)"),
    ] {
        let expected = format!("{shown}: line {line}, {key}: {problem}");
        assert!(stderr.lines().any(|l| l.ends_with(&expected)), "no {expected:?} in:\n{stderr}");
    }
    assert_eq!(stderr.lines().filter(|l| l.contains(shown)).count(), 3, "{stderr}");
    assert!(!out.exists(), "nothing is played: {stderr}");
    // Keys serde refuses (an unknown key, a wrong type) are named beside the values.
    std::fs::write(
        &file,
        "colour = \"red\"\nno_html = \"yes\"\ngames = 0\n\n[[bot]]\ncommand = \"sample-bot\"\n\n\
         [[bot]]\ncommand = \"sample-bot\"\nnmae = \"x\"\n",
    )
    .unwrap();
    let run = host(&["tournament", path(&file)]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    for expected in [
        format!("{shown}: line 1: unknown key \"colour\""),
        format!("{shown}: line 2, no_html: invalid type: string \"yes\", expected a boolean"),
        format!("{shown}: line 3, games: must be at least 2 (one colour-swapped pair)"),
        format!("{shown}: line 10, bot[2]: unknown key \"nmae\" (did you mean \"name\"?)"),
    ] {
        assert!(stderr.contains(&expected), "no {expected:?} in:\n{stderr}");
    }
}

/// The records of an `--out` directory, in file order.
fn records_of(dir: &Path) -> Vec<serde_json::Value> {
    stratego_tests::records(dir)
}

/// Item 12c: `export --pgn OUT DIR…` writes one PGN block per game, the tags Ordo and
/// BayesElo read (White = Red, Black = Blue, Result 1-0 / 0-1 / 1/2-1/2, the game id as a
/// tag), from the records of two runs, each block exactly as the record says (before:
/// `--pgn` was an unknown flag, exit 2). Ordo and BayesElo are not installable here
/// (neither is in the package lists of /work/.library/env): the file is read by a parser
/// of the PGN tag-pair grammar, which checks every block is tags, an empty line and a
/// result token that agrees with the `Result` tag.
#[test]
fn export_pgn_writes_the_results_ordo_and_bayeselo_read() {
    let tmp = TempDir::new("formats-pgn");
    let (one, two) = (tmp.join("one"), tmp.join("two"));
    for (dir, seed, event) in [(&one, "11", "Winter \"Cup\""), (&two, "12", "Spring")] {
        let mut args = vec![
            "tournament",
            "--bot",
            "sample-bot",
            "--bot",
            "sample-bot --strategy random",
            "--bot",
            "sample-bot --strategy search --worlds 2",
            "--games",
            "2",
            "--max-plies",
            "300",
            "--seed",
            seed,
            "--event",
            event,
            "--no-html",
            "-q",
            "--out",
        ];
        args.push(path(dir));
        args.extend(CALM_CLOCK);
        let run = host(&args);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    }
    let pgn = tmp.join("results.pgn");
    let run = host(&["export", "--pgn", path(&pgn), path(&one), path(&two)]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("(12 games)"), "{}", text(&run.stderr));
    let written = std::fs::read_to_string(&pgn).unwrap();

    // The PGN grammar, as the rating tools read it: blocks of `[Tag "value"]` lines, an
    // empty line, the result token, an empty line.
    let mut games = Vec::new();
    let mut lines = written.lines().peekable();
    while lines.peek().is_some() {
        let mut tags = Vec::new();
        while let Some(line) = lines.next_if(|l| l.starts_with('[')) {
            let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix("\"]")).expect("[Tag \"value\"]");
            let (tag, value) = inner.split_once(" \"").expect("a tag and a quoted value");
            assert!(tag.chars().all(|c| c.is_ascii_alphanumeric()), "{line}");
            tags.push((tag.to_owned(), value.replace("\\\"", "\"").replace("\\\\", "\\")));
        }
        assert_eq!(lines.next(), Some(""), "an empty line after the tags:\n{written}");
        let result = lines.next().expect("a result token");
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&result), "{result}");
        assert_eq!(lines.next(), Some(""), "an empty line after the game");
        let tag = |t: &str| tags.iter().find(|(k, _)| k == t).map(|(_, v)| v.clone()).expect(t);
        assert_eq!(tag("Result"), result);
        let names: Vec<&str> = tags.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["Event", "Site", "Date", "Round", "White", "Black", "Result", "GameId", "Termination"]);
        games.push((tag("Event"), tag("Round"), tag("White"), tag("Black"), result.to_owned(), tag("GameId")));
    }
    let mut expected = Vec::new();
    for (dir, event) in [(&one, "Winter \"Cup\""), (&two, "Spring")] {
        for r in records_of(dir) {
            let result = match r["result"]["winner"].as_str() {
                Some("red") => "1-0",
                Some("blue") => "0-1",
                _ => "1/2-1/2",
            };
            expected.push((
                event.to_owned(),
                (r["pair"].as_u64().unwrap() + 1).to_string(),
                r["bots"]["red"]["name"].as_str().unwrap().to_owned(),
                r["bots"]["blue"]["name"].as_str().unwrap().to_owned(),
                result.to_owned(),
                r["game_id"].as_str().unwrap().to_owned(),
            ));
        }
    }
    assert_eq!(games.len(), 12);
    assert_eq!(games, expected);
    assert!(games.iter().any(|g| g.4 != "1/2-1/2"), "some game is decided: {games:?}");

    // Not over a records file; a file that is not PGN only with --force.
    let over = host(&["export", "--pgn", path(&one.join("games.jsonl")), path(&one)]);
    assert_eq!(over.status.code(), Some(2), "{}", text(&over.stderr));
    let notes = tmp.join("notes.txt");
    std::fs::write(&notes, "my notes").unwrap();
    let refused = host(&["export", "--pgn", path(&notes), path(&one)]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("is not a PGN file"), "{}", text(&refused.stderr));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
}

/// A bot command that writes its `MARK` environment variable to `file`, then is the
/// sample bot.
fn marking_bot(file: &Path, name: &str, extra: &str) -> String {
    let command = format!("printf %s \"$MARK\" > '{}'; exec '{}' sample-bot", file.display(), host_bin().display());
    format!(r#"{{"name": "{name}", "command": ["sh", "-c", {}]{extra}}}"#, serde_json::Value::String(command))
}

/// Item 12b: `--each KEY=VALUE` gives every bot an option (an environment variable, a move
/// time) that its spec leaves unset, a bot's own value winning; the tournament file's
/// `[each]` table does the same (before: `--each` was an unknown flag and `[each]` an
/// unknown key, exit 2).
#[test]
fn each_gives_every_bot_an_option_and_a_bots_own_value_wins() {
    let tmp = TempDir::new("formats-each");
    let (marks_a, marks_b) = (tmp.join("a.txt"), tmp.join("b.txt"));
    let a = marking_bot(&marks_a, "a", "");
    let b = marking_bot(&marks_b, "b", r#", "env": {"MARK": "mine"}, "move_time": 45"#);
    let out = tmp.join("match");
    let run = host(&[
        "match",
        &a,
        &b,
        "--each",
        "env.MARK=every",
        "--each",
        "move_time=30",
        "--games",
        "2",
        "--max-plies",
        "4",
        "--no-html",
        "-q",
        "--out",
        path(&out),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&marks_a).unwrap(), "every");
    assert_eq!(std::fs::read_to_string(&marks_b).unwrap(), "mine");
    let move_ms = |r: &serde_json::Value, seat: &str| r["time_controls"][seat]["move_ms"].as_u64();
    for r in records_of(&out) {
        let (a_seat, b_seat) = if r["bots"]["red"]["name"] == "a" { ("red", "blue") } else { ("blue", "red") };
        assert_eq!((move_ms(&r, a_seat), move_ms(&r, b_seat)), (Some(30_000), Some(45_000)), "{}", r["time_controls"]);
    }
    let bad = host(&["match", "--each", "move_time=fast"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("--each move_time: \"fast\" is not a number of seconds"),
        "{}",
        text(&bad.stderr)
    );

    // The file's [each]; --each on the command line wins over it, a [[bot]] table over both.
    let file = tmp.join("event.toml");
    std::fs::write(
        &file,
        format!(
            "games = 2\nmax_plies = 4\nno_html = true\n\n[each]\nmove_time = 20\nsetup_time = 25\nenv = {{ MARK = \"file\" }}\n\n\
             [[bot]]\nname = \"a\"\ncommand = [\"sh\", \"-c\", {}]\n\n[[bot]]\nname = \"b\"\ncommand = [\"sh\", \"-c\", {}]\nmove_time = 45\n",
            serde_json::Value::String(format!("printf %s \"$MARK\" > '{}'; exec '{}' sample-bot", marks_a.display(), host_bin().display())),
            serde_json::Value::String(format!("printf %s \"$MARK\" > '{}'; exec '{}' sample-bot", marks_b.display(), host_bin().display())),
        ),
    )
    .unwrap();
    let out = tmp.join("tournament");
    let run = host(&["tournament", path(&file), "--each", "move_time=30", "-q", "--out", path(&out)]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&marks_a).unwrap(), "file");
    assert_eq!(std::fs::read_to_string(&marks_b).unwrap(), "file");
    for r in records_of(&out) {
        let (a_seat, b_seat) = if r["bots"]["red"]["name"] == "a" { ("red", "blue") } else { ("blue", "red") };
        assert_eq!((move_ms(&r, a_seat), move_ms(&r, b_seat)), (Some(30_000), Some(45_000)), "{}", r["time_controls"]);
        assert_eq!(r["time_controls"][a_seat]["setup_ms"], 25_000);
    }
}

/// Item 13: a bot added with a relative command (`./bot.sh`) plays when `ladder play` runs
/// from another directory (before: exit 3, `./bot.sh` not found from there).
#[test]
fn a_ladder_plays_from_another_directory_than_add_ran_in() {
    let tmp = TempDir::new("formats-ladder-dir");
    let (bots, elsewhere) = (tmp.join("bots"), tmp.join("elsewhere"));
    std::fs::create_dir_all(&bots).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let script = bots.join("bot.sh");
    std::fs::write(&script, format!("#!/bin/sh\nexec '{}' sample-bot \"$@\"\n", host_bin().display())).unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(&mut std::fs::metadata(&script).unwrap().permissions(), 0o755);
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let db = tmp.join("ladder.db");
    let in_dir = |dir: &Path, args: &[&str]| {
        Command::new(host_bin()).current_dir(dir).arg("ladder").arg("--db").arg(&db).args(args).output().unwrap()
    };
    for (name, command) in [("a", "./bot.sh"), ("b", "./bot.sh --strategy random")] {
        let added = in_dir(&bots, &["add", name, command]);
        assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));
    }
    let mut args = vec!["play", "--games", "2", "--max-plies", "10", "-q"];
    args.extend(CALM_CLOCK);
    let played = in_dir(&elsewhere, &args);
    assert_eq!(played.status.code(), Some(0), "{}", text(&played.stderr));
    assert!(text(&played.stderr).contains("2 games played and saved"), "{}", text(&played.stderr));
    // Added again from where it was added: the same bot.
    let again = in_dir(&bots, &["add", "a", "./bot.sh"]);
    assert!(text(&again.stderr).contains("already on the ladder with this command"), "{}", text(&again.stderr));
}

/// Item 13: two `ladder play`s started at once on one ladder (eight bots, none has played)
/// do not play the same pairings in the same order (before: both chose pairs 1-2, 3-4, 5-6,
/// 7-8, in that order, every time). Each unseeded runner breaks ties by its own draw: the
/// same order for both is 1 chance in 40,320.
#[test]
fn two_concurrent_ladder_plays_spread_their_pairings() {
    let tmp = TempDir::new("formats-ladder-spread");
    let db = tmp.join("ladder.db");
    for (i, strategy) in ["random", "heuristic"].iter().cycle().take(8).enumerate() {
        let added = stratego_tests::ladder(
            &db,
            &["add", &format!("bot{}", i + 1), &format!("sample-bot --strategy {strategy} --name bot{}", i + 1)],
        );
        assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));
    }
    let runners: Vec<(std::process::Child, std::path::PathBuf)> = (0..2)
        .map(|i| {
            let out = tmp.join(&format!("out{i}"));
            let child = Command::new(host_bin())
                .args([
                    "ladder",
                    "--db",
                    path(&db),
                    "play",
                    "--games",
                    "8",
                    "--max-plies",
                    "6",
                    "-q",
                    "--out",
                    path(&out),
                ])
                .args(CALM_CLOCK)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut orders = Vec::new();
    for (child, out) in runners {
        let done = child.wait_with_output().unwrap();
        assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
        let mut records = records_of(&out);
        records.sort_by_key(|r| r["index"].as_u64());
        let pairs: Vec<(String, String)> = records
            .iter()
            .filter(|r| r["index"].as_u64().unwrap() % 2 == 0)
            .map(|r| {
                (
                    r["bots"]["red"]["name"].as_str().unwrap().to_owned(),
                    r["bots"]["blue"]["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(pairs.len(), 4, "{pairs:?}");
        orders.push(pairs);
    }
    assert_ne!(orders[0], orders[1], "both runners played the same pairings in the same order");
    let games = stratego_tests::ladder(&db, &["table", "--json"]);
    let table: serde_json::Value = serde_json::from_slice(&games.stdout).unwrap();
    assert_eq!(table["games"], 16, "{table}");
}

/// The five entrants of the knockout tests, in seed order.
const KNOCKOUT_BOTS: [&str; 10] = [
    "--bot",
    "sample-bot --strategy random --name one",
    "--bot",
    "sample-bot --name two",
    "--bot",
    "sample-bot --strategy random --name three",
    "--bot",
    "sample-bot --name four",
    "--bot",
    "sample-bot --strategy random --name five",
];

fn knockout_args<'a>(out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["tournament", "--format", "knockout", "--seed", "4", "--no-html", "-q", "--out", path(out)];
    args.extend(KNOCKOUT_BOTS);
    args.extend(extra);
    args.extend(CALM_CLOCK);
    args
}

/// Item 12a: five entrants make a bracket of eight: seeds 1 to 3 have byes, 4 meets 5; a
/// tie level after its games plays up to two more colour-swapped pairs, then the better
/// seed goes through (every game is drawn at `--max-plies 2`: each tie is 6 games, 3-3,
/// and seed 1 wins the event); the bracket is the report (before: `--format knockout`
/// was refused, exit 2).
#[test]
fn a_knockout_gives_byes_to_the_best_seeds_and_settles_level_ties_by_extra_pairs_then_seed() {
    let tmp = TempDir::new("formats-knockout-level");
    let out = tmp.join("ko");
    let run = host(&knockout_args(&out, &["--max-plies", "2"]));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "Knockout: 5 bots", "{stdout}");
    assert_eq!(lines[1], "Round 1", "{stdout}");
    let byes: Vec<&str> = lines.iter().copied().filter(|l| l.contains(" bye  -> ")).collect();
    assert_eq!(byes.len(), 3, "{stdout}");
    for (seed, line) in ["(1) ", "(2) ", "(3) "].iter().zip(&byes) {
        assert!(line.trim_start().starts_with(seed), "{line}\n{stdout}");
    }
    let played: Vec<&str> = lines.iter().copied().filter(|l| l.contains(" 3-3 ")).collect();
    // Round 1: 4 v 5; round 2: 1 v 4 and 2 v 3; the final: 1 v 2.
    assert_eq!(played.len(), 4, "{stdout}");
    for line in &played {
        assert!(line.ends_with("(level: by seed)"), "{line}");
    }
    assert!(played[0].trim_start().starts_with("(4) ") && played[0].contains(" (5) "), "{stdout}");
    assert!(played[3].trim_start().starts_with("(1) ") && played[3].contains(" (2) "), "{stdout}");
    assert_eq!(
        lines.last().copied(),
        Some(format!("Winner: {}", lines[2].split_whitespace().nth(1).unwrap()).as_str()),
        "{stdout}"
    );
    // Each level tie played its games, then two extra pairs: 6 games in three directories.
    let games_of = |dir: &Path| records_of(dir).len();
    let tie = out.join("round-1").join("tie-2");
    assert_eq!(
        [games_of(&tie), games_of(&out.join("round-1/tie-2-extra-1")), games_of(&out.join("round-1/tie-2-extra-2"))],
        [2, 2, 2]
    );
}

/// Item 12a: a knockout killed with SIGKILL in its first tie, and run again with the same
/// command, finishes the bracket exactly as an uninterrupted run with the same seed does,
/// and plays no game twice.
#[test]
fn a_knockout_killed_mid_event_finishes_the_same_bracket_when_run_again() {
    let tmp = TempDir::new("formats-knockout-kill");
    let (whole, killed) = (tmp.join("whole"), tmp.join("killed"));
    let reference = host(&knockout_args(&whole, &["--max-plies", "300"]));
    assert_eq!(reference.status.code(), Some(0), "{}", text(&reference.stderr));
    let expected = text(&reference.stdout);
    assert!(expected.contains("Winner: "), "{expected}");

    let mut child = Command::new(host_bin())
        .args(knockout_args(&killed, &["--max-plies", "300"]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = killed.join("round-1/tie-2/games.jsonl");
    let started = stratego_tests::wait_for(std::time::Duration::from_secs(120), || {
        std::fs::read_to_string(&first).is_ok_and(|t| t.lines().count() >= 1)
    });
    assert!(started, "the first tie's first game was not saved");
    let _ = Command::new("kill").args(["-KILL", &child.id().to_string()]).status();
    let _ = child.wait();
    assert!(!killed.join("round-3").exists(), "killed before the final");

    let rerun = host(&knockout_args(&killed, &["--max-plies", "300"]));
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun.stderr));
    assert_eq!(text(&rerun.stdout), expected);
    // Every tie has the games of the uninterrupted run, each once.
    let mut dirs = Vec::new();
    for round in std::fs::read_dir(&whole).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for tie in std::fs::read_dir(round.path()).unwrap().flatten() {
            dirs.push(tie.path().strip_prefix(&whole).unwrap().to_owned());
        }
    }
    assert!(!dirs.is_empty());
    for dir in dirs {
        let ids = |root: &Path| {
            let mut ids: Vec<String> =
                records_of(&root.join(&dir)).iter().map(|r| r["game_id"].as_str().unwrap().to_owned()).collect();
            ids.sort();
            ids
        };
        let (a, b) = (ids(&whole), ids(&killed));
        assert_eq!(a, b, "{}", dir.display());
        let mut unique = b.clone();
        unique.dedup();
        assert_eq!(unique, b, "a game played twice in {}", dir.display());
    }
}

/// Issue #44 item 13: a `ladder play` started while another plays does not play the pair the
/// other is playing, even when the tallies make that pair every runner's first choice (the
/// pairs a run plays are claimed in the file as they are chosen).
#[test]
fn a_ladder_play_beside_another_leaves_it_the_pair_it_is_playing() {
    let tmp = TempDir::new("formats-ladder-claims");
    let db = tmp.join("ladder.db");
    let added = |name: &str, command: &str| {
        let out = stratego_tests::ladder(&db, &["add", name, command]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    added("a1", "sample-bot --name a1");
    added("a2", "sample-bot --name a2 --strategy random");
    let first = stratego_tests::ladder(&db, &["play", "--games", "2", "--seed", "3", "--max-plies", "6", "-q"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // b1 and b2 have no games: b1 against b2 is every runner's first choice. b1 takes 4 s to
    // start, so that the first runner is still playing it when the second chooses.
    // The host binary's built-in sample bot: `cargo test` builds the host's binary, not the
    // sample-bot crate's.
    let slow = tmp.join("slow-b1.sh");
    std::fs::write(&slow, format!("#!/bin/sh\nsleep 4\nexec '{}' sample-bot --name b1\n", host_bin().display()))
        .unwrap();
    std::fs::set_permissions(&slow, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    added("b1", path(&slow));
    added("b2", "sample-bot --name b2 --strategy random");

    let play = |out: &Path| {
        let mut c = Command::new(host_bin());
        c.args(["ladder", "--db", path(&db), "play", "--games", "2", "--max-plies", "6", "-q", "--out", path(out)])
            .args(CALM_CLOCK)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        c
    };
    let (out1, out2) = (tmp.join("out1"), tmp.join("out2"));
    let runner1 = play(&out1).spawn().unwrap();
    // The first runner's claim is in the file before the second starts.
    let claims = || -> i64 {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        c.query_row("SELECT count(*) FROM claims", [], |r| r.get(0)).unwrap()
    };
    let start = std::time::Instant::now();
    while claims() == 0 {
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "the first runner claimed nothing");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let second = play(&out2).output().unwrap();
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let first = runner1.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let pair = |dir: &Path| {
        let records = records_of(dir);
        assert_eq!(records.len(), 2, "one colour-swapped pair");
        let mut p =
            [records[0]["bots"]["red"]["name"].as_str().unwrap(), records[0]["bots"]["blue"]["name"].as_str().unwrap()]
                .map(str::to_owned);
        p.sort();
        p
    };
    assert_eq!(pair(&out1), ["b1", "b2"], "the first runner plays the pair every runner would choose first");
    assert_ne!(pair(&out2), ["b1", "b2"], "the second runner left the first its pair");
    assert_eq!(claims(), 0, "both runs' claims went when they ended");
}
