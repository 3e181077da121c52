//! Issue #41, items 3, 4 and 8, through the real binary, real bot processes and real
//! files: a rerun of a finished or decided run is a report that plays nothing (run →
//! rerun → rerun, for `sprt`, `match` and `tournament`); a bot's new version counts only
//! once a game was played with it (so `merge` accepts a directory whose bot changed
//! without playing); and `--recover` does what running-matches.md says for every game, in
//! a fresh run and after a resume.

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, SCRIPTED_BOT, TempDir, flaky_start_bot, host_bin, records, start_counting_bot};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("games.jsonl")).map(|t| t.lines().count()).unwrap_or(0)
}

/// The `--json` report without what differs between two runs of the same games (the run's
/// wall time, the host's own CPU and memory).
fn report(out: &Output) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)));
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                for key in ["wall_s", "host_cpu_us_per_ply", "host_peak_rss_kib", "host_cpu_us"] {
                    o.remove(key);
                }
                o.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// A shell script that appends a line to `count` each time it is started, then runs the
/// built-in sample bot with its arguments: how often a run started a bot.
fn counting_sample_bot(dir: &Path, name: &str) -> (String, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join(name);
    let count = dir.join(format!("{name}.starts"));
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho start >> '{}'\nexec '{}' sample-bot \"$@\"\n", count.display(), host_bin().display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script.display().to_string(), count)
}

fn starts(count: &Path) -> usize {
    std::fs::read_to_string(count).map(|t| t.lines().count()).unwrap_or(0)
}

/// The directory's records and manifest, byte for byte.
fn files(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    (std::fs::read(dir.join("games.jsonl")).unwrap(), std::fs::read(dir.join("manifest.json")).unwrap())
}

/// Runs `args` with `--out dir` three times (run, rerun, rerun): every time the same exit
/// code and report, and the reruns play nothing (no bot started; the records and the
/// manifest unchanged byte for byte).
fn run_rerun_rerun(args: &[&str], dir: &Path, count: &Path, expected_code: i32) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(CALM_CLOCK);
    all.extend(["-q", "--json", "--out", dir.to_str().unwrap()]);
    let first = host(&all);
    assert_eq!(first.status.code(), Some(expected_code), "{}", stderr(&first));
    let (games, started, report_first) = (lines(dir), starts(count), report(&first));
    assert!(games > 0 && started > 0, "{games} games, {started} starts");
    let saved = files(dir);
    for rerun in 1..=2 {
        let again = host(&all);
        let err = stderr(&again);
        assert_eq!(again.status.code(), Some(expected_code), "rerun {rerun}: {err}");
        assert_eq!(lines(dir), games, "rerun {rerun} of {args:?} played games: {err}");
        assert!(files(dir) == saved, "rerun {rerun} of {args:?} changed the records or the manifest: {err}");
        assert_eq!(starts(count), started, "rerun {rerun} of {args:?} started a bot: {err}");
        assert_eq!(report(&again), report_first, "rerun {rerun} of {args:?}: the same report");
    }
    // Without -q, a rerun says why it plays nothing.
    let mut loud: Vec<&str> = all.iter().copied().filter(|a| *a != "-q").collect();
    loud.retain(|a| *a != "--json");
    let again = host(&loud);
    assert_eq!(again.status.code(), Some(expected_code), "{}", stderr(&again));
    assert!(stderr(&again).contains("nothing more is played") || stderr(&again).contains("nothing is played"));
    assert_eq!(lines(dir), games);
}

#[test]
fn a_decided_sprt_rerun_gives_its_verdict_again_and_plays_nothing() {
    let tmp = TempDir::new("chaos-rerun-sprt");
    let (strong, count) = counting_sample_bot(&tmp.0, "strong");
    let random = format!("{strong} --strategy random");
    // H1 (exit 0), H0 (exit 10), and the game limit (inconclusive, exit 11); with two games
    // at once, so that a decided run can hold a game whose partner was not played.
    let cases: [(&str, [&str; 2], &[&str], i32); 3] = [
        ("h1", [&strong, &random], &["--elo0", "0", "--elo1", "100"], 0),
        ("h0", [&random, &strong], &["--elo0", "0", "--elo1", "100"], 10),
        ("limit", [&strong, &random], &["--elo0", "0", "--elo1", "5", "--max-games", "4"], 11),
    ];
    for (name, [new, base], test, code) in cases {
        let dir = tmp.join(name);
        let mut args = vec!["sprt", new, base, "-j", "2", "--seed", "3", "--max-plies", "400"];
        args.extend(test);
        run_rerun_rerun(&args, &dir, &count, code);
        let recs = records(&dir);
        let verdict: serde_json::Value = report(&host(
            &[args.clone(), CALM_CLOCK.to_vec(), vec!["-q", "--json", "--out", dir.to_str().unwrap()]].concat(),
        ));
        assert_eq!(verdict["games"], recs.len(), "{name}: the report counts the directory's games: {verdict}");
        let expected = match code {
            0 => "H1",
            10 => "H0",
            _ => "inconclusive",
        };
        assert_eq!(verdict["verdict"], expected, "{name}: {verdict}");
        // Without --json, the rerun prints the verdict in words.
        let text = host(&[args.clone(), CALM_CLOCK.to_vec(), vec!["-q", "--out", dir.to_str().unwrap()]].concat());
        assert_eq!(text.status.code(), Some(code), "{name}: {}", stderr(&text));
        let words = match code {
            0 => "H1 accepted: ".to_owned(),
            10 => "H0 accepted: ".to_owned(),
            _ => format!("inconclusive after {} games (the --max-games limit)", recs.len()),
        };
        assert!(String::from_utf8_lossy(&text.stdout).contains(&words), "{name}: {words:?} not in the report");
        // A rerun with a changed bound (or game limit) is another test: refused as another
        // plan (resume-shards.md), naming what differs, with nothing played or written.
        let saved = (files(&dir), starts(&count));
        let changed_flag = if name == "limit" { "--max-games" } else { "--elo1" };
        let mut changed_args: Vec<&str> = args
            .iter()
            .enumerate()
            .map(|(i, a)| if i > 0 && args[i - 1] == changed_flag { "50" } else { *a })
            .collect();
        changed_args.extend(CALM_CLOCK);
        changed_args.extend(["-q", "--out", dir.to_str().unwrap()]);
        let refused = host(&changed_args);
        let err = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{name}: {err}");
        let differs = if name == "limit" {
            "sprt[1]: 4 in the directory, 50 in this command"
        } else {
            "sprt[0].elo1: 100.0 in the directory, 50.0 in this command"
        };
        assert!(err.contains("the directory holds another plan") && err.contains(differs), "{name}: {err}");
        assert!((files(&dir), starts(&count)) == saved, "{name}: the refused rerun played or wrote: {err}");
    }
}

#[test]
fn a_finished_match_or_tournament_rerun_is_a_report_and_plays_nothing() {
    let tmp = TempDir::new("chaos-rerun-fixed");
    let (a, count) = counting_sample_bot(&tmp.0, "a");
    let random = format!("{a} --strategy random");
    let search = format!("{a} --strategy search --worlds 2");
    run_rerun_rerun(&["match", &a, &random, "--games", "4", "-j", "2", "--seed", "4"], &tmp.join("match"), &count, 0);
    run_rerun_rerun(
        &["tournament", "--bot", &a, "--bot", &random, "--bot", &search, "--games", "2", "-j", "2", "--seed", "4"],
        &tmp.join("tournament"),
        &count,
        0,
    );
}

// ---- Item 4: a version counts only once a game was played with it ----

#[test]
fn a_bot_whose_start_up_check_failed_is_not_changed_when_it_then_plays() {
    let tmp = TempDir::new("chaos-version-first");
    let dir = tmp.join("run");
    let script = tmp.join("bot.py");
    let bot = format!("python3 {} resign=3", script.display());
    let args = [
        "match",
        &bot,
        "sample-bot",
        "--games",
        "2",
        "--seed",
        "6",
        "-q",
        "--move-time",
        "60",
        "--out",
        dir.to_str().unwrap(),
    ];
    // The script is not there yet: the start-up check fails, no game is played.
    let failed = host(&args);
    assert_eq!(failed.status.code(), Some(3), "{}", stderr(&failed));
    assert_eq!(lines(&dir), 0);
    // Now it is: the run plays with it, and this is the bot's only version.
    std::fs::write(&script, SCRIPTED_BOT).unwrap();
    let played = host(&args);
    let err = stderr(&played);
    assert_eq!(played.status.code(), Some(0), "{err}");
    assert!(!err.contains("changed since"), "{err}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest.get("changed").is_none(), "no change after 0 games: {manifest}");
    assert!(manifest["executables"][0][0].as_str().unwrap().ends_with("/bot.py"), "the script's hash: {manifest}");
    let merged = host(&["merge", dir.to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(0), "merge accepts the directory: {}", stderr(&merged));
}

#[test]
fn a_rerun_of_a_finished_directory_with_a_sample_bot_wrapper_on_path_records_no_change() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("chaos-version-wrapper");
    let dir = tmp.join("run");
    let args = [
        "match",
        "sample-bot",
        "sample-bot --strategy random",
        "--games",
        "2",
        "--seed",
        "6",
        "-q",
        "--move-time",
        "60",
        "--out",
        dir.to_str().unwrap(),
    ];
    let first = host(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let before = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    // A `sample-bot` wrapper appears on PATH (an organiser's own install): the same plan,
    // another program; but the directory is finished, and no game is played with it.
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("sample-bot");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' sample-bot \"$@\"\n", host_bin().display())).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let rerun = Command::new(host_bin()).args(args).env("PATH", &path).output().unwrap();
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert_eq!(lines(&dir), 2, "the rerun played nothing");
    let after = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    assert!(!after.contains("\"changed\""), "no change after 0 games: {after}");
    assert_eq!(after, before, "the manifest names the version that played the games");
    let merged = host(&["merge", dir.to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(0), "merge accepts the directory: {}", stderr(&merged));
}

// ---- Item 8: --recover as running-matches.md says, for every game ----

const SEED: &str = "5";

fn game_id(n: u32) -> String {
    format!("{:016x}-{n}", 5)
}

/// A match of four games, one at a time (game order fixed), of `bot` (bot A: Blue in the
/// even-numbered games) against the sample bot.
fn flaky_match(bot: &str, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "match",
        bot,
        "sample-bot",
        "--games",
        "4",
        "-j",
        "1",
        "--seed",
        SEED,
        "--max-plies",
        "20",
        "--move-time",
        "60",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend(extra);
    host(&args)
}

#[test]
fn a_bot_that_cannot_start_for_a_later_game_stops_the_event_without_recover() {
    // Starts: 1 the start-up check, 2 game 1, 3 game 2 (fails).
    let tmp = TempDir::new("chaos-recover-off");
    let dir = tmp.join("run");
    let bot = flaky_start_bot(&tmp.0, 3);
    let out = flaky_match(&bot, &dir, &["-q"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(lines(&dir), 1, "game 1 is kept, game 2 is not a game: {err}");
    assert!(
        err.contains(&format!(
            "bot flaky cannot start: it had played before, but game {} ended before it was ready",
            game_id(2)
        )),
        "{err}"
    );
    assert!(err.contains("license server unreachable") && err.contains("--recover"), "{err}");

    // Resumed, it fails again at game 2: the guard holds after a resume too.
    std::fs::write(tmp.join("starts"), "1").unwrap();
    let out = flaky_match(&bot, &dir, &["-q"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(lines(&dir), 1, "{err}");
    assert!(err.contains(&format!("but game {} ended before it was ready", game_id(2))), "{err}");

    // Resumed with --recover: game 2 is lost, saying why in plain words even with -q, and
    // the bot is started again and plays games 3 and 4.
    std::fs::write(tmp.join("starts"), "1").unwrap();
    let out = flaky_match(&bot, &dir, &["-q", "--recover"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    check_recovered(&dir, &err);
}

#[test]
fn recover_loses_a_later_game_a_bot_cannot_start_says_why_even_with_q_and_goes_on() {
    let tmp = TempDir::new("chaos-recover-on");
    let dir = tmp.join("run");
    let bot = flaky_start_bot(&tmp.0, 3);
    let out = flaky_match(&bot, &dir, &["-q", "--recover"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    check_recovered(&dir, &err);
}

/// Game 2 of the directory is lost by `flaky` (Blue there) because it could not start, the
/// host's stderr said so in plain words, and games 1, 3 and 4 were played.
fn check_recovered(dir: &Path, err: &str) {
    let mut recs = records(dir);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs.len(), 4, "{err}");
    let lost = &recs[1];
    assert_eq!(lost["game_id"], game_id(2).as_str());
    assert_eq!(lost["result"]["faulty"], "blue", "{}", lost["result"]);
    let reason = lost["result"]["reason"].as_str().unwrap_or_default();
    assert!(["crash", "closed_output"].contains(&reason), "it exited before its ready: {}", lost["result"]);
    assert!(lost["bots"]["blue"]["stderr_tail"].as_str().unwrap().contains("license server unreachable"));
    for r in [&recs[0], &recs[2], &recs[3]] {
        assert!(r["result"].get("faulty").is_none(), "the bot played: {}", r["result"]);
    }
    let line = err
        .lines()
        .position(|l| l.starts_with("stratego-host: warning: bot flaky cannot start: it had played before, but game "))
        .unwrap_or_else(|| panic!("no warning naming the game: {err}"));
    let said = err.lines().skip(line).take(6).collect::<Vec<_>>().join("\n");
    assert!(said.contains(&game_id(2)) && said.contains("license server unreachable"), "{said}");
    assert!(
        said.contains(&format!(
            "--recover: game {} is lost by flaky, who is started again for its next game",
            game_id(2)
        )),
        "{said}"
    );
}

// ---- A version counts only once a game was played with it (review F5, F4) ----

/// A Python bot that plays (the first legal move) on its starts listed in `plays` (by
/// number, counted in `DIR/starts`; the start-up check is the first) and fails to start on
/// the others, after `slow` seconds from its third start on; `tag` only makes another
/// program of it (another content hash).
fn versioned_bot(dir: &Path, plays: &str, slow: u32, tag: &str) -> String {
    start_counting_bot(
        dir,
        "bot.py",
        &format!("n not in {plays}"),
        &format!("{slow} if n >= 3 else 0"),
        "module not found",
        tag,
    )
}

fn manifest_of(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_bot_that_only_lost_games_before_ready_under_recover_is_not_changed_when_fixed() {
    let tmp = TempDir::new("chaos-version-recover");
    let dir = tmp.join("run");
    // The start-up check passes (start 1); game 1 is lost before ready (start 2, at once);
    // game 2's start fails only after 30 s: the run is interrupted while it waits.
    let bot = versioned_bot(&tmp.0, "[1]", 30, "broken");
    let mut args = flaky_args(&bot, &dir);
    args.push("--recover");
    let child = Command::new(host_bin())
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while lines(&dir) < 1 {
        assert!(std::time::Instant::now() < deadline, "game 1 was never recorded");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stopped = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(stopped.success());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(lines(&dir), 1, "only game 1, lost before ready: {err}");
    let recs = records(&dir);
    assert_eq!(recs[0]["result"]["faulty"], "red", "{}", recs[0]["result"]);
    // The bot is fixed (another program) and the run resumed: the old version played no
    // game, so nothing mixes: no warning, no change in the manifest, and merge accepts.
    std::fs::write(tmp.join("starts"), "0").unwrap();
    let fixed = versioned_bot(&tmp.0, "range(1, 100)", 0, "fixed");
    assert_eq!(fixed, bot);
    let out = host(&flaky_args(&bot, &dir));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(lines(&dir), 4, "{err}");
    assert!(!err.contains("changed since"), "{err}");
    let manifest = manifest_of(&dir);
    assert!(manifest.get("changed").is_none(), "no change after 0 games played: {manifest}");
    let merged = host(&["merge", dir.to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(0), "merge accepts the directory: {}", stderr(&merged));
}

/// A match of four games, one at a time, of `bot` (Red in game 1) against the sample bot.
fn flaky_args<'a>(bot: &'a str, dir: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["match", bot, "sample-bot", "--games", "4", "-j", "1", "--seed", "6", "--max-plies", "20"];
    args.extend(CALM_CLOCK);
    args.extend(["-q", "--out", dir.to_str().unwrap()]);
    args
}

#[test]
fn a_host_killed_as_it_saves_the_first_game_of_a_new_version_has_the_change_counted_and_plays_that_game_again() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = TempDir::new("chaos-version-kill");
    let dir = tmp.join("run");
    // Version 1 plays games 1 and 2 (starts 2, 3) and cannot start for game 3: the event
    // stops (exit 3) with two games recorded.
    let bot = versioned_bot(&tmp.0, "[1, 2, 3]", 0, "v1");
    let out = host(&flaky_args(&bot, &dir));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(lines(&dir), 2, "{}", stderr(&out));
    let before = manifest_of(&dir);
    // Version 2 resumes the run under a file-size limit at the records file's size: the
    // kernel kills the host (SIGXFSZ) as it appends game 3, the first of version 2.
    std::fs::write(tmp.join("starts"), "0").unwrap();
    versioned_bot(&tmp.0, "range(1, 100)", 0, "v2");
    let size = std::fs::metadata(dir.join("games.jsonl")).unwrap().len();
    assert!(size > 2048, "the records are larger than the manifest: {size} bytes");
    let mut script = format!("ulimit -f {} && exec '{}'", size.div_ceil(512), host_bin().display());
    for a in flaky_args(&bot, &dir) {
        script.push_str(&format!(" '{a}'"));
    }
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.signal(), Some(libc_sigxfsz()), "killed as it wrote game 3: {:?} {err}", out.status);
    let whole = std::fs::read(dir.join("games.jsonl")).unwrap().iter().filter(|&&b| b == b'\n').count();
    assert_eq!(whole, 2, "game 3 was not saved (at most a torn line of it): {err}");
    // The manifest names version 2 before game 3's record is appended: the change is
    // counted right (version 1 played 2 games) although game 3 was not saved.
    let after = manifest_of(&dir);
    assert!(after["changed"][0].as_str().unwrap().ends_with("after 2 games"), "{after}");
    assert_ne!(after["executables"], before["executables"], "{after}");
    // Resumed with no limit, version 2 plays games 3 (again) and 4, and the change stays
    // recorded once.
    let out = host(&flaky_args(&bot, &dir));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(lines(&dir), 4);
    let done = manifest_of(&dir);
    assert_eq!(done["changed"].as_array().map(Vec::len), Some(1), "{done}");
    assert!(done["changed"][0].as_str().unwrap().ends_with("after 2 games"), "{done}");
}

/// SIGXFSZ on Linux.
fn libc_sigxfsz() -> i32 {
    25
}

#[test]
fn a_bot_ready_before_that_times_out_starting_a_later_game_forfeits_it_and_the_event_goes_on() {
    let tmp = TempDir::new("chaos-startup-slow");
    let dir = tmp.join("run");
    // Start 3 (game 2) stays silent for 30 s, past --startup-time 3: a start-up timeout of
    // a bot that was ready in game 1. No --recover.
    let bot = versioned_bot(&tmp.0, "[1, 2, 4, 5, 6]", 30, "slow");
    let mut args = flaky_args(&bot, &dir);
    args.extend(["--startup-time", "3"]);
    let out = host(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "the event goes on: {err}");
    assert_eq!(lines(&dir), 4, "{err}");
    let mut recs = records(&dir);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs[1]["result"]["reason"], "startup_timeout", "{}", recs[1]["result"]);
    assert_eq!(recs[1]["result"]["faulty"], "blue", "{}", recs[1]["result"]);
    let id = format!("{:016x}-2", 6);
    assert!(err.contains(&format!("game {id} is lost by")) && err.contains("a start-up timeout is a forfeit"), "{err}");
}
