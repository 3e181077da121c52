//! Nothing the host is given or has written is lost or misfiled (issue #32, "Data loss and
//! wrong records"), through the real binary on real files: no command writes over a file
//! it did not write, records convert to Gravon and back whatever the ending, shards share
//! one seed, a bot that cannot start leaves no game, output after `game_over` is recorded
//! with the game that ended, and what is printed after an error is what was saved.

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{TempDir, host_bin, run_match};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A finished two-game match in `dir` (`DIR/games.jsonl`, `DIR/manifest.json`, `DIR/index.html`,
/// `DIR/games/`).
fn a_run(dir: &Path) {
    let out =
        run_match(&["sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "5", "--out", s(dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != ".lock") {
                files.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn export_html_never_overwrites_records_a_manifest_or_a_file_it_did_not_write() {
    let tmp = TempDir::new("nl-export");
    let run = tmp.join("run");
    a_run(&run);
    let before = snapshot(&run);
    let game = stratego_tests::records(&run)[0]["game_id"].as_str().unwrap().to_owned();
    for target in ["games.jsonl", "manifest.json"] {
        let file = run.join(target);
        for force in [false, true] {
            let mut args = vec!["export", s(&run), "--game", &game, "--html", s(&file)];
            if force {
                args.push("--force");
            }
            let out = host(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{target} force {force}: {err}");
            assert!(err.contains(s(&file)) && err.contains("never overwritten"), "{err}");
        }
    }
    assert_eq!(snapshot(&run), before, "the run's files are untouched");

    // A file of the user's: refused, unless --force.
    let notes = tmp.join("notes.html");
    std::fs::write(&notes, "<p>my own page</p>").unwrap();
    let out = host(&["export", s(&run), "--html", s(&notes)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a page this host wrote") && stderr(&out).contains("--force"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "<p>my own page</p>");
    let out = host(&["export", s(&run), "--html", s(&notes), "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&notes).unwrap().contains(&game));

    // A page the host wrote is written again without --force.
    let page = tmp.join("page.html");
    for _ in 0..2 {
        let out = host(&["export", s(&run), "--game", &game, "--html", s(&page)]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

/// A ladder with two games of two sample bots.
fn a_ladder(db: &Path) {
    for (name, cmd) in [("heuristic", "sample-bot"), ("random", "sample-bot --strategy random")] {
        let out = host(&["ladder", "--db", s(db), "add", name, cmd]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = host(&["ladder", "--db", s(db), "play", "-n", "2", "--seed", "2", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn ladder_table_html_never_overwrites_a_run_nor_writes_into_its_games_directory() {
    let tmp = TempDir::new("nl-ladder");
    let run = tmp.join("run");
    a_run(&run);
    let db = tmp.join("ladder.sqlite");
    a_ladder(&db);
    let before = snapshot(&run);
    let db_before = std::fs::read(&db).unwrap();
    let table = |out: &Path, force: bool| {
        let mut args = vec!["ladder", "--db", s(&db), "table", "--html", s(out)];
        if force {
            args.push("--force");
        }
        host(&args)
    };
    for (target, force) in [
        (run.join("manifest.json"), false),
        (run.join("manifest.json"), true),
        (run.join("games.jsonl"), true),
        (run.join("ladder.html"), false),
        (run.join("ladder.html"), true),
        (db.clone(), true),
    ] {
        let out = table(&target, force);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{} force {force}: {err}", target.display());
        assert!(err.contains(s(&target)), "the message names the file: {err}");
    }
    assert!(stderr(&table(&run.join("ladder.html"), false)).contains("holds a run"));
    assert!(stderr(&table(&db, true)).contains("never overwritten"));
    assert_eq!(snapshot(&run), before, "the run's files and games/ are untouched");
    assert!(!run.join("ladder.html").exists());
    assert_eq!(std::fs::read(&db).unwrap(), db_before);

    // Its own directory: written, and written again.
    let site = tmp.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let page = site.join("ladder.html");
    for _ in 0..2 {
        let out = table(&page, false);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert!(std::fs::read_dir(site.join("games")).unwrap().count() == 2);
    // Someone else's file beside it, in games/: refused without --force, replaced with.
    let theirs = std::fs::read_dir(site.join("games")).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&theirs, "not ours").unwrap();
    let out = table(&page, false);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(s(&theirs)), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "not ours");
    let out = table(&page, true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(std::fs::read_to_string(&theirs).unwrap(), "not ours");
}
