//! Review F4: a host killed with SIGKILL at any moment (in the middle of a game, as it
//! appends a record, between a record's append and the manifest's update) never loses or
//! doubles a game on resume, and the manifest's account of a bot's versions agrees with
//! the records. Real host runs, real bot processes, real files.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stratego_tests::{CALM_CLOCK, SCRIPTED_BOT, TempDir, host_bin, records};

const GAMES: u32 = 10;
const SEED: u64 = 7;

/// Writes the scripted bot (see `SCRIPTED_BOT`) to `dir/bot.py`, saying `version` in its
/// `ready` (so each record tells which version played it; another version is another
/// program, another content hash), and returns its command: it waits `delay_ms` before
/// each move.
fn write_bot(dir: &Path, version: &str) -> String {
    let ready = r#""name": "scripted""#;
    assert!(SCRIPTED_BOT.contains(ready));
    let script = SCRIPTED_BOT.replace(ready, &format!(r#""name": "scripted", "version": "{version}""#));
    let path = dir.join("bot.py");
    std::fs::write(&path, script).unwrap();
    format!("python3 {} delay_ms=15", path.display())
}

/// The match: the scripted bot against the sample bot, `games` short games two at a time
/// (one at a time with `one_at_a_time`), calm clocks.
fn args(bot: &str, dir: &Path, games: u32, one_at_a_time: bool) -> Vec<String> {
    let jobs = if one_at_a_time { "1" } else { "2" };
    let mut a: Vec<String> =
        ["match", bot, "sample-bot", "--games", &games.to_string(), "-j", jobs].iter().map(|s| s.to_string()).collect();
    a.extend(
        ["--seed", &SEED.to_string(), "--max-plies", "30", "-q", "--out", dir.to_str().unwrap()].map(String::from),
    );
    a.extend(CALM_CLOCK.map(String::from));
    a
}

fn lines(dir: &Path) -> usize {
    std::fs::read(dir.join("games.jsonl")).map(|t| t.iter().filter(|&&b| b == b'\n').count()).unwrap_or(0)
}

/// Starts the host; kills it with SIGKILL once `kill_when` holds (polled every 2 ms), or
/// lets it finish. Whether it finished by itself (exit 0).
fn run_until(args: &[String], limit: Duration, mut kill_when: impl FnMut() -> bool) -> bool {
    let mut child = Command::new(host_bin()).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(0), "the host failed by itself: {args:?}");
            return true;
        }
        if kill_when() {
            child.kill().unwrap();
            child.wait().unwrap();
            return false;
        }
        assert!(start.elapsed() < limit, "the host did not finish within {limit:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The checks after the last resume: every game of the plan recorded exactly once, every
/// line a whole record of its game, `merge` finding nothing missing or doubled, and the
/// manifest's `changed` entry counting exactly the games the old version played (`v1` in
/// the records), when both versions played.
fn assert_consistent(dir: &Path, games: u32) {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let recs = records(dir); // every line parses: no torn line left in the file
    let mut ids: Vec<String> = recs.iter().map(|r| r["game_id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    let mut expected: Vec<String> = (1..=games).map(|n| format!("{SEED:016x}-{n}")).collect();
    expected.sort();
    assert_eq!(ids, expected, "every game exactly once:\n{text}");
    for r in &recs {
        let n = r["game_id"].as_str().unwrap().rsplit('-').next().unwrap().parse::<u64>().unwrap();
        assert_eq!(r["index"].as_u64(), Some(n - 1), "{}", r["game_id"]);
        assert!(r["result"].get("faulty").is_none(), "a game the kills did not disturb: {}", r["result"]);
    }
    let version = |r: &serde_json::Value| {
        let side = if r["bots"]["red"]["name"] == "sample-bot-heuristic" { "blue" } else { "red" };
        r["bots"][side]["version"].as_str().unwrap().to_owned()
    };
    let v1 = recs.iter().filter(|r| version(r) == "v1").count();
    let v2 = recs.iter().filter(|r| version(r) == "v2").count();
    assert_eq!(v1 + v2, games as usize);
    // merge refuses a directory whose bot changed (one report would mix two versions)
    // unless told --mixed-versions; with it, it finds nothing missing or doubled.
    let mut merge = Command::new(host_bin());
    merge.arg("merge").arg(dir);
    if v1 > 0 && v2 > 0 {
        merge.arg("--mixed-versions");
    }
    let merged = merge.output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "merge: {}", String::from_utf8_lossy(&merged.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    if v1 > 0 && v2 > 0 {
        let changed = manifest["changed"].as_array().unwrap_or_else(|| panic!("no change recorded: {manifest}"));
        assert_eq!(changed.len(), 1, "{manifest}");
        let after = format!("after {v1} game{}", if v1 == 1 { "" } else { "s" });
        assert!(
            changed[0].as_str().unwrap().ends_with(&after),
            "the change is recorded {after} ({v1} games of v1, {v2} of v2 in the records): {}",
            changed[0]
        );
    } else {
        assert!(manifest.get("changed").is_none(), "{manifest}");
    }
}

#[test]
fn a_host_killed_at_random_moments_loses_and_doubles_no_game_on_resume() {
    let tmp = TempDir::new("chaos-kill9-random");
    let dir = tmp.join("run");
    let bot = write_bot(&tmp.0, "v1");
    let mut shipped = false;
    // Kill moments drawn by a fixed generator, 50 ms to 1.3 s after the start: some before
    // any game, most in games or as games end (a record appended, the manifest written).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut kills = 0;
    let mut finished = false;
    for _ in 0..40 {
        // The bot's author ships v2 once the directory holds 3 games of v1.
        if !shipped && lines(&dir) >= 3 {
            write_bot(&tmp.0, "v2");
            shipped = true;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let after = Duration::from_millis(50 + state % 1250);
        let start = Instant::now();
        if run_until(&args(&bot, &dir, GAMES, false), Duration::from_secs(300), || start.elapsed() >= after) {
            finished = true;
            break;
        }
        kills += 1;
    }
    if !finished {
        assert!(run_until(&args(&bot, &dir, GAMES, false), Duration::from_secs(300), || false));
    }
    assert!(kills >= 5, "only {kills} kills: the games ended before the host could be killed");
    assert_consistent(&dir, GAMES);
}

/// The manifest names a bot's new version before the record of its first game is saved: a
/// host killed between the two leaves the change counted right (v1's games) and that game
/// unsaved, which the resume plays again with v2. (Before, the record came first: a kill in
/// between left v2's saved game with a manifest naming v1 only, and the resume counted that
/// game as v1's: `after 3 games` where v1 played 2.)
#[test]
fn a_host_killed_between_a_new_versions_manifest_entry_and_its_first_record_counts_the_change_right() {
    let tmp = TempDir::new("chaos-kill9-window");
    let dir = tmp.join("run");
    // v1 plays games 1 and 2 (one at a time); the host is killed in game 3.
    let bot = write_bot(&tmp.0, "v1");
    let limit = Duration::from_secs(300);
    assert!(!run_until(&args(&bot, &dir, 4, true), limit, || lines(&dir) >= 2), "killed in game 3");
    // v2 resumes; the host is killed in game 4, after game 3 (v2's first) was saved and the
    // manifest updated.
    write_bot(&tmp.0, "v2");
    let saved_at = std::cell::Cell::new(None::<Instant>);
    let killed = !run_until(&args(&bot, &dir, 4, true), limit, || {
        if lines(&dir) >= 3 && saved_at.get().is_none() {
            saved_at.set(Some(Instant::now()));
        }
        saved_at.get().is_some_and(|t| t.elapsed() > Duration::from_millis(200))
    });
    assert!(killed && lines(&dir) == 3, "killed in game 4");
    let updated = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    assert!(updated.contains("after 2 games"), "{updated}");
    // What a kill between the manifest's update and game 3's append leaves: the updated
    // manifest, and the records without game 3's.
    let records = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let kept: Vec<&str> = records.lines().take(2).collect();
    std::fs::write(dir.join("games.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    assert!(run_until(&args(&bot, &dir, 4, true), limit, || false));
    assert_consistent(&dir, 4);
}
