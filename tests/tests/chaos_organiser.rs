//! What cutechess and fastchess organisers reach for (issue #44, items 11, 12, 14, 15):
//! bots named after what tells them apart, a `sample-bot` on PATH said out loud, the small
//! words and warnings of a run.
//!
//! Real host binary, real bot processes (the sample bot, the Python and JavaScript
//! examples), real files and a real terminal (`script`); clocks are calm ([`CALM_CLOCK`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin, names_in, records};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).args(CALM_CLOCK).output().expect("run stratego-host")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(path).display().to_string()
}

/// Item 14: `env GOMAXPROCS=1 COMMAND` is named after `COMMAND`, not `env`; the two examples,
/// both `bot.*`, are told apart by their directory (`bot` and `bot-javascript`), not by a
/// run of their arguments (before: `env` and `bot`; without `env`, `bot` and
/// `bot-examples-javascript-bot.js`).
#[test]
fn env_is_skipped_and_two_bots_of_one_file_name_are_told_apart_by_their_directory() {
    let tmp = TempDir::new("organiser-names");
    let (python, javascript) = (example("python/bot.py"), example("javascript/bot.js"));
    for (i, (red, blue)) in [
        (format!("env GOMAXPROCS=1 PYTHONHASHSEED=0 python3 {python}"), format!("node {javascript}")),
        (format!("python3 {python}"), format!("env GOMAXPROCS=1 node {javascript}")),
    ]
    .iter()
    .enumerate()
    {
        let out = tmp.join(&format!("out{i}"));
        let run = host(
            &[
                "match",
                red,
                blue,
                "--games",
                "2",
                "--max-plies",
                "2",
                "--seed",
                "3",
                "--no-html",
                "--names-from-commands",
                "--out",
            ]
            .into_iter()
            .chain([out.to_str().unwrap()])
            .collect::<Vec<_>>(),
        );
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        assert_eq!(names_in(&out), ["bot", "bot-javascript"], "{red} / {blue}: {}", text(&run.stdout));
    }
}

/// Item 14: a program named `sample-bot` on PATH is played instead of the built-in bot, and
/// a warning names it (before: silently).
#[test]
fn a_sample_bot_on_path_is_named_in_a_warning() {
    let tmp = TempDir::new("organiser-path-sample-bot");
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("sample-bot");
    std::fs::write(&fake, format!("#!/bin/sh\nexec {} sample-bot \"$@\"\n", host_bin().display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = Command::new(host_bin())
        .args(["match", "sample-bot --strategy random", "sample-bot", "--games", "2", "--max-plies", "2"])
        .args(CALM_CLOCK)
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let said = format!("`sample-bot` is {} (found on PATH), not the built-in sample bot", fake.display());
    assert!(stderr.contains(&format!("stratego-host: warning: bot sample-bot-random: {said}")), "{stderr}");
    assert_eq!(stderr.matches(&said).count(), 1, "said once for the one program: {stderr}");
}

/// Item 15: one game and one ply are singular (before: `of 1 games`, `after 1 plies`).
#[test]
fn one_game_and_one_ply_are_singular() {
    let run = host(
        &["match", "sample-bot --strategy random", "sample-bot", "--games", "1", "--max-plies", "1"]
            .into_iter()
            .chain(["--report-every", "1", "--seed", "5"])
            .collect::<Vec<_>>(),
    );
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("1/2-1/2 ply_limit after 1 ply, "), "{stderr}");
    assert!(stdout.contains("score after 1 of 1 game: "), "{stdout}");
    assert!(!stdout.contains("1 games") && !stderr.contains("1 plies"), "{stdout}\n{stderr}");
}

/// Item 15: `--setups-start` past the book's end is an error naming the book's size (before:
/// it wrapped round silently and played entry 10 of 20).
#[test]
fn setups_start_past_the_book_is_an_error_naming_its_size() {
    let book = stratego_tests::remote::book();
    let run = host(
        &["match", "sample-bot", "sample-bot", "--games", "2", "--setups", &book]
            .into_iter()
            .chain(["--setups-order", "sequential", "--setups-start", "30"])
            .collect::<Vec<_>>(),
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("--setups-start 30: the book {book} holds 20 setups")), "{stderr}");
    // Its last entry is still a start.
    let run = host(
        &["match", "sample-bot", "sample-bot", "--games", "2", "--max-plies", "2", "--setups", &book]
            .into_iter()
            .chain(["--setups-order", "sequential", "--setups-start", "20"])
            .collect::<Vec<_>>(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

/// Item 15: an event's name and its page's title are joined by a dash, not a second colon
/// (before: `Winter Cup 2025: Tournament: 2 bots, …`).
#[test]
fn the_event_name_and_the_title_are_not_two_colons() {
    let tmp = TempDir::new("organiser-title");
    let out = tmp.join("out");
    let run = host(
        &["tournament", "--bot", "sample-bot --strategy random", "--bot", "sample-bot", "--max-plies", "2"]
            .into_iter()
            .chain(["--event", "Winter Cup 2025", "--out", out.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<title>Winter Cup 2025 — Tournament: 2 bots"), "{}", &index[..index.len().min(600)]);
    assert!(!index.contains("Winter Cup 2025: Tournament"));
}

/// Item 15: a warning is a plain `stratego-host: warning:` line like the others, not a
/// tracing line (`WARN stratego_host::cli: …`).
#[test]
fn warnings_are_plain_lines() {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let j = (cores + 1).to_string();
    let run =
        host(&["match", "sample-bot --strategy random", "sample-bot", "--games", "2", "--max-plies", "2", "-j", &j]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("stratego-host: warning: --concurrency {j} is more than the {cores} CPU cores")),
        "{stderr}"
    );
    assert!(!stderr.contains(" WARN ") && !stderr.contains("stratego_host::"), "{stderr}");
}

/// Item 15: an SPRT's bar counts its games without a length or an ETA: `--max-games` is a
/// limit, not how long the test runs (before: `3/10000 games … (ETA 2h)`). Run on a real
/// terminal, as `script` (util-linux) gives the host one.
#[test]
fn the_sprt_bar_has_no_eta_against_max_games() {
    let dir = TempDir::new("organiser-sprt-bar");
    let log: PathBuf = dir.join("terminal.log");
    let command = format!(
        "{} sprt 'sample-bot --strategy random' sample-bot --max-games 4 --max-plies 2 --elo0 0 --elo1 10 --seed 4 --move-time 60",
        host_bin().display()
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command])
        .arg(&log)
        .env("COLUMNS", "200")
        .output()
        .expect("run script (util-linux)");
    let raw = text(&std::fs::read(&log).expect("the terminal log"));
    assert_eq!(out.status.code(), Some(11), "inconclusive at --max-games: {raw}");
    assert!(raw.contains(" games, "), "the bar was drawn: {raw}");
    assert!(!raw.contains("ETA") && !raw.contains("/4 games"), "{raw}");
}

/// Item 11: `--draw-after-no-capture N` ends a game without a capture in its last N plies as
/// a draw, recorded as `adjudicated_no_capture` with a message naming the rule and N
/// (before: an unknown flag, exit 2).
#[test]
fn no_capture_for_n_plies_is_an_adjudicated_draw() {
    let tmp = TempDir::new("organiser-no-capture");
    let out = tmp.join("out");
    let run = host(
        &["match", "sample-bot --strategy random", "sample-bot --strategy random", "--games", "2"]
            .into_iter()
            .chain(["--draw-after-no-capture", "3", "--seed", "3", "--no-html", "--out", out.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        let plies = r["plies"].as_array().unwrap();
        if r["result"]["reason"] != "adjudicated_no_capture" {
            // Ended by the rules first: only with a capture in each 3 plies.
            continue;
        }
        assert_eq!(r["result"]["winner"], serde_json::Value::Null, "{r}");
        let message = r["result"]["message"].as_str().unwrap();
        assert!(message.contains("--draw-after-no-capture 3") && message.contains("last 3 plies"), "{message}");
        // The last 3 plies had no fight; the game went on as long as there was one.
        assert!(plies.len() >= 3 && plies[plies.len() - 3..].iter().all(|p| p.get("combat").is_none()), "{r}");
    }
    assert!(recs.iter().any(|r| r["result"]["reason"] == "adjudicated_no_capture"), "{recs:?}");
    assert!(text(&run.stdout).contains("adjudicated_no_capture"), "the endings name it");
}

/// Item 11: `adjudicate_material = N` in the tournament file (as `--adjudicate-material N`)
/// gives the game to the side whose lead in movable pieces held N plies, recorded as
/// `adjudicated_material`; the value is part of the plan: a rerun with another is refused
/// naming it (before: `unknown key "adjudicate_material"`, exit 2).
#[test]
fn a_material_lead_held_n_plies_is_an_adjudicated_win_and_part_of_the_plan() {
    let tmp = TempDir::new("organiser-material");
    let file = tmp.join("t.toml");
    let body = |n: u32| {
        format!(
            "seed = 3\nmove_time = 60\nadjudicate_material = {n}\nno_html = true\nout = \"out\"\n\n\
             [[bot]]\ncommand = \"sample-bot\"\n\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n"
        )
    };
    std::fs::write(&file, body(10)).unwrap();
    let run = Command::new(host_bin()).args(["tournament", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = tmp.join("out");
    let recs = records(&out);
    let adjudged: Vec<_> = recs.iter().filter(|r| r["result"]["reason"] == "adjudicated_material").collect();
    assert!(!adjudged.is_empty(), "{recs:?}");
    for r in adjudged {
        assert!(r["result"]["winner"].is_string(), "a win: {r}");
        let message = r["result"]["message"].as_str().unwrap();
        assert!(
            message.contains("(--adjudicate-material 10)") && message.contains("for 10 plies in a row"),
            "{message}"
        );
        assert!(r["plies"].as_array().unwrap().len() >= 10, "{r}");
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["plan"]["adjudication"]["material_plies"], 10, "{manifest}");
    // Another value on the same directory is another plan.
    std::fs::write(&file, body(12)).unwrap();
    let rerun = Command::new(host_bin()).args(["tournament", file.to_str().unwrap()]).output().unwrap();
    let stderr = text(&rerun.stderr);
    assert_eq!(rerun.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("adjudication.material_plies: 10 in the directory, 12 in this command"), "{stderr}");
}
