//! One file holds the event (issue #44, items 1–3): every flag of a tournament can be a key
//! of its TOML file (a flag on the command line overrides it); the event's name is kept with
//! the plan across reruns and carried by `merge`; `merge` reports a lost shard of a large
//! event in counts, refuses a directory given twice and an `--out` inside a shard.
//!
//! Real host binary, real `sample-bot --strategy random` processes, real files; clocks are
//! calm (`move_time = 60`).

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{TempDir, flaky_start_bot, host_bin};

/// Two random sample bots, calm clocks, a fixed seed, games of a few plies.
const BOTS: &str = "seed = 7\nmove_time = 60\n\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n\n\
                    [[bot]]\ncommand = \"sample-bot --strategy random\"\n";

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

/// Writes `body` (then [`BOTS`]) as `NAME.toml` in `tmp`.
fn config(tmp: &TempDir, name: &str, body: &str) -> String {
    let path = tmp.join(&format!("{name}.toml"));
    std::fs::write(&path, format!("{body}\n{BOTS}")).unwrap();
    path.display().to_string()
}

/// Item 1: `event`, `max_plies`, `no_html`, `compress` and `report_every` in the file act as
/// their flags do (before: `line 1: unknown key "event"`, exit 2).
#[test]
fn the_file_holds_event_max_plies_no_html_compress_and_report_every() {
    let tmp = TempDir::new("eventfile-keys");
    let out = tmp.join("out");
    let file = config(
        &tmp,
        "t",
        "event = \"Winter Cup\"\nmax_plies = 4\nno_html = true\ncompress = true\nreport_every = 1\nout = \"out\"\n",
    );
    let run = host(&["tournament", &file]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let m = manifest(&out);
    assert_eq!(m["event"], "Winter Cup", "{m}");
    assert_eq!(m["plan"]["rules"]["ply_limit"], 4, "max_plies is the plan's ply limit");
    assert!(stderr.contains("ply_limit after 4 plies"), "{stderr}");
    assert!(out.join("games.jsonl.zst").is_file() && !out.join("games.jsonl").exists(), "compress");
    assert!(!out.join("index.html").exists() && !out.join("games").exists(), "no_html");
    // report_every = 1: standings after each game, before the final table.
    assert!(stdout.contains("standings after 1 of 2 games:"), "{stdout}");
    assert!(stdout.contains("standings after 2 of 2 games:"), "{stdout}");
}

/// Item 1: `recover = true` in the file keeps the event going when a bot fails to start for
/// a game (it loses that game); without it the event stops (exit 3).
#[test]
fn the_file_holds_recover() {
    let tmp = TempDir::new("eventfile-recover");
    // The start-up check is the bot's first start; the first game's is its second.
    let flaky = flaky_start_bot(&tmp.0, 2);
    let body = |recover: &str| {
        format!(
            "{recover}max_plies = 4\nseed = 7\nmove_time = 60\n[[bot]]\nname = \"flaky\"\ncommand = {flaky:?}\n\n\
             [[bot]]\ncommand = \"sample-bot --strategy random\"\n"
        )
    };
    std::fs::write(tmp.join("with.toml"), body("recover = true\n")).unwrap();
    let run = host(&["tournament", tmp.join("with.toml").to_str().unwrap(), "--json"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(json["games"], 2, "both games played: {json}");

    std::fs::remove_file(tmp.join("starts")).unwrap();
    std::fs::write(tmp.join("without.toml"), body("")).unwrap();
    let run = host(&["tournament", tmp.join("without.toml").to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(3), "without recover the event stops: {}", text(&run.stderr));
}

/// Item 1: a flag given on the command line overrides the file; an unknown key is still an
/// error naming its line.
#[test]
fn a_flag_overrides_the_file_and_unknown_keys_are_refused() {
    let tmp = TempDir::new("eventfile-override");
    let out = tmp.join("out");
    let file = config(&tmp, "t", "event = \"File Name\"\nmax_plies = 4\nout = \"out\"\n");
    let run = host(&["tournament", &file, "--event", "Flag Name", "--max-plies", "6", "-q"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let m = manifest(&out);
    assert_eq!((m["event"].clone(), m["plan"]["rules"]["ply_limit"].clone()), ("Flag Name".into(), 6.into()));

    let bad = config(&tmp, "bad", "evnt = \"x\"");
    let run = host(&["tournament", &bad]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("bad.toml: line 1: unknown key \"evnt\" (did you mean \"event\"?)"),
        "{}",
        text(&run.stderr)
    );
}

/// Item 2: the event's name is kept with the plan: a rerun without `--event` keeps it (in
/// the manifest and the page's title; before, both lost it), a rerun with another name is
/// refused (before, it renamed the event), and `merge` carries the shards' name into its
/// JSON and its pages (before, neither had it).
#[test]
fn the_event_name_is_kept_with_the_plan_and_merged() {
    let tmp = TempDir::new("eventfile-name");
    let file = config(&tmp, "t", "games = 4\nmax_plies = 4\n");
    let out = tmp.join("out");
    let out_s = out.to_str().unwrap();
    let run = host(&["tournament", &file, "--out", out_s, "--event", "Spring Cup", "-q"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let rerun = host(&["tournament", &file, "--out", out_s, "-q"]);
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun.stderr));
    assert_eq!(manifest(&out)["event"], "Spring Cup");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<title>Spring Cup — "), "{}", &index[..index.len().min(600)]);
    let other = host(&["tournament", &file, "--out", out_s, "--event", "Autumn Cup", "-q"]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        text(&other.stderr)
            .contains("the directory holds the event \"Spring Cup\", this command names it \"Autumn Cup\""),
        "{}",
        text(&other.stderr)
    );
    assert_eq!(manifest(&out)["event"], "Spring Cup", "the refused rerun changed nothing");

    // Shards named alike merge under their name.
    let (s1, s2, merged) = (tmp.join("s1"), tmp.join("s2"), tmp.join("merged"));
    for (i, dir) in [("1/2", &s1), ("2/2", &s2)] {
        let run =
            host(&["tournament", &file, "--out", dir.to_str().unwrap(), "--shard", i, "--event", "Spring Cup", "-q"]);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    }
    let (s1, s2) = (s1.to_str().unwrap(), s2.to_str().unwrap());
    let m = host(&["merge", s1, s2, "--json", "--out", merged.to_str().unwrap()]);
    assert_eq!(m.status.code(), Some(0), "{}", text(&m.stderr));
    let json: serde_json::Value = serde_json::from_slice(&m.stdout).unwrap();
    assert_eq!(json["event"], "Spring Cup", "{json}");
    let index = std::fs::read_to_string(merged.join("index.html")).unwrap();
    assert!(index.contains("<title>Spring Cup — "), "{}", &index[..index.len().min(600)]);
}

/// Item 3: `merge` of a sharded event with a shard lost names the lost shard and counts
/// its games, shows a few ids (before: every id on one line), and writes them all to
/// `--missing-list FILE`; a directory given twice is refused as such (before: its games
/// were "recorded more than once"); `--out` inside a merged directory is refused (before:
/// the merged pages were written into the shard).
#[test]
fn merge_names_a_lost_shard_in_counts_and_refuses_a_directory_twice_and_out_in_a_shard() {
    let tmp = TempDir::new("eventfile-merge");
    let file = config(&tmp, "t", "games = 24\nmax_plies = 4\n");
    let s1 = tmp.join("s1");
    let s1_s = s1.to_str().unwrap();
    let run = host(&["tournament", &file, "--out", s1_s, "--shard", "1/2", "-q"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));

    let list = tmp.join("missing.txt");
    let m = host(&["merge", s1_s, "--missing-list", list.to_str().unwrap()]);
    let stderr = text(&m.stderr);
    assert_eq!(m.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("shard 2/2 is missing (no directory given for it): 12 games"), "{stderr}");
    let line = stderr.lines().find(|l| l.contains("12 games missing: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.ends_with(", … and 2 more"), "{line}");
    assert_eq!(line.matches("0000000000000007-").count(), 10, "{line}");
    let ids: Vec<String> = std::fs::read_to_string(&list).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(ids.len(), 12, "{ids:?}");
    assert!(ids.iter().all(|id| id.starts_with("0000000000000007-")), "{ids:?}");

    let twice = host(&["merge", s1_s, s1_s]);
    let stderr = text(&twice.stderr);
    assert_eq!(twice.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is given twice"), "{stderr}");
    assert!(!stderr.contains("recorded more than once"), "{stderr}");

    let index_before = std::fs::read(s1.join("index.html")).unwrap();
    for out in [s1_s.to_owned(), s1.join("merged").display().to_string()] {
        let m = host(&["merge", s1_s, "--out", &out]);
        let stderr = text(&m.stderr);
        assert_eq!(m.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("one of the directories merged: give a directory of its own"), "{stderr}");
    }
    assert_eq!(std::fs::read(s1.join("index.html")).unwrap(), index_before, "the shard's page is untouched");
    assert!(!s1.join("merged").exists());
}
