//! What cutechess and fastchess organisers reach for (issue #44, items 12, 13 and 15's
//! config errors): a tournament file's problems named all at once, a results export that
//! Ordo and BayesElo read, options given to every bot, the ladder from another directory
//! and from two runners at once.
//!
//! Real host binary, real bot processes (the sample bot), real files; clocks are calm
//! ([`CALM_CLOCK`]).

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{TempDir, host_bin};

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
