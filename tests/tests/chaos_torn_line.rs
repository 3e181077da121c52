//! One rule for the last line of a records file (issue #43, item 4), as RECORDS.md writes
//! it, followed by resume and by the read-only commands, through the real binary: a last
//! line that is a whole record but lost its newline is a record (resume keeps it and plays
//! the rest, the next record starting on a line of its own); a last line that is not a
//! whole record is a torn tail, dropped (resume cuts it off and plays that game again;
//! `export` leaves it out with a warning and does not touch the file). Before, resume cut a
//! whole record without its newline and played its game again, and `export` refused a file
//! with a torn last line.

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin};

/// `match sample-bot "sample-bot --strategy random" --games 4 --seed 8 -q --out DIR`.
fn run(dir: &Path) -> Output {
    Command::new(host_bin())
        .args(["match", "sample-bot", "sample-bot --strategy random", "--games", "4", "--seed", "8", "-q", "--out"])
        .arg(dir)
        .args(CALM_CLOCK)
        .output()
        .expect("run stratego-host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A finished 4-game run in `tmp/name`, and its 4 lines (each with its newline).
fn finished_run(tmp: &TempDir, name: &str) -> (std::path::PathBuf, Vec<String>) {
    let dir = tmp.join(name);
    let out = run(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    assert_eq!(lines.len(), 4, "{text}");
    (dir, lines)
}

/// The game ids of each line of `dir`'s records file (every line must be a record).
fn ids(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "the file ends with a whole line");
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:.200}"));
            v["game_id"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn resume_keeps_a_whole_last_record_without_its_newline_and_plays_only_the_rest() {
    let tmp = TempDir::new("torn-unterminated");
    let (dir, lines) = finished_run(&tmp, "run");
    // Games 1-3, the third without its newline; game 4 not saved.
    let cut = format!("{}{}{}", lines[0], lines[1], lines[2].trim_end_matches('\n'));
    std::fs::write(dir.join("games.jsonl"), &cut).unwrap();
    let out = run(&dir);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("3 games already finished") && !err.contains("is torn"), "{err}");
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert!(text.starts_with(&format!("{}\n", cut)), "the third record is kept as it was, then a newline");
    let want: Vec<String> = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["game_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids(&dir), want, "each game once, the fourth played now");
}

#[test]
fn resume_cuts_a_torn_last_line_and_plays_that_game_again() {
    let tmp = TempDir::new("torn-resume");
    let (dir, lines) = finished_run(&tmp, "run");
    let torn = format!("{}{}{}{}", lines[0], lines[1], lines[2], &lines[3][..lines[3].len() / 2]);
    std::fs::write(dir.join("games.jsonl"), &torn).unwrap();
    let out = run(&dir);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("line 4 is torn") && err.contains("3 games already finished"), "{err}");
    assert_eq!(ids(&dir).len(), 4, "the torn game played again, in its place");
}

#[test]
fn export_leaves_out_a_torn_last_line_with_a_warning_and_reads_an_unterminated_whole_one() {
    let tmp = TempDir::new("torn-export");
    let (dir, lines) = finished_run(&tmp, "run");
    let file = dir.join("games.jsonl");
    let html = tmp.join("all.html");
    let export = || Command::new(host_bin()).arg("export").arg(&dir).arg("--html").arg(&html).output().unwrap();
    // Torn: three games read, the file left as it is.
    let torn = format!("{}{}{}{}", lines[0], lines[1], lines[2], &lines[3][..lines[3].len() / 2]);
    std::fs::write(&file, &torn).unwrap();
    let out = export();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("line 4 is torn") && err.contains("not read") && err.contains("(3 games)"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), torn, "a read-only command changes nothing");
    // A whole record without its newline: four games.
    std::fs::write(&file, lines.concat().trim_end_matches('\n')).unwrap();
    let out = export();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("(4 games)") && !err.contains("is torn"), "{err}");
}
