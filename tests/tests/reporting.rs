//! Reporting for bot authors and organisers (issue #32, items 10, 11, 12, 15, 16), through
//! the real host binary and real bot processes.

use std::process::{Command, Output};

use stratego_tests::{TempDir, flaky_start_bot, host_bin, misbehaving, records};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

/// The colour the misbehaving bot played in a record.
fn misbehaving_color(rec: &serde_json::Value) -> &'static str {
    if rec["bots"]["red"]["name"].as_str().unwrap().contains("misbehaving") { "red" } else { "blue" }
}

/// Plays one game of the misbehaving bot in `kind` against the sample bot; returns the
/// host's output and the record.
fn one_game(name: &str, kind: &str, extra: &[&str]) -> (Output, serde_json::Value) {
    let dir = TempDir::new(name);
    let bot = misbehaving(kind);
    let mut args = vec!["match", &bot, "sample-bot", "--games", "1", "--seed", "7", "--out", dir.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = host(&args);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records(&dir.0);
    assert_eq!(recs.len(), 1);
    (out, recs.remove(0))
}

const FLUSH_HINT: &str = "nothing at all came back: did the bot flush its output?";

/// The hint is for a process that never wrote a byte (issue #46 item 10): a bot that said
/// `ready` (or answered turns) and then buffers an answer is not asked about flushing.
#[test]
fn a_setup_time_out_after_ready_does_not_ask_whether_the_bot_flushed() {
    // It flushes `ready`, then writes its setup into a buffer it never flushes.
    let (_, rec) = one_game("flush-setup", "--misbehave buffer-after-ready", &["--setup-time", "1"]);
    assert_eq!(rec["result"]["reason"], "setup_timeout", "{}", rec["result"]);
    let message = rec["result"]["message"].as_str().unwrap();
    assert!(message.contains("no setup within 1.000 s"), "{message}");
    assert!(!message.contains(FLUSH_HINT), "{message}");
}

#[test]
fn a_move_time_out_after_answered_turns_does_not_ask_whether_the_bot_flushed() {
    // Its second turn is never answered, not even with an info line.
    let (_, rec) = one_game("flush-move", "--misbehave move-timeout --at 2", &["--move-time", "1"]);
    assert_eq!(rec["result"]["reason"], "move_timeout", "{}", rec["result"]);
    let message = rec["result"]["message"].as_str().unwrap();
    assert!(message.contains("no move within 1.000 s"), "{message}");
    assert!(!message.contains(FLUSH_HINT), "{message}");
}

#[test]
fn a_second_answer_to_a_turn_is_recorded_and_warned_about() {
    let (out, rec) = one_game("double-move", "--misbehave double-move --at 2", &["--move-time", "5"]);
    let color = misbehaving_color(&rec);
    // The game went on by the rules: the second answer was not played.
    let reason = rec["result"]["reason"].as_str().unwrap();
    assert!(
        ["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"].contains(&reason),
        "{}",
        rec["result"]
    );
    let unrequested = rec["bots"][color]["unrequested"].as_array().expect("the record lists the unrequested answer");
    assert_eq!(unrequested.len(), 1, "{unrequested:?}");
    let text = unrequested[0].as_str().unwrap();
    assert!(text.starts_with("an answer no request asked for was ignored: "), "{text}");
    assert!(text.contains(" for ply "), "{text}");
    assert!(rec["bots"][if color == "red" { "blue" } else { "red" }].get("unrequested").is_none());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("an answer no request asked for was ignored"), "a console warning: {err}");
    assert!(err.contains(rec["game_id"].as_str().unwrap()), "the warning names the game: {err}");
}

#[test]
fn check_logs_the_protocol_to_a_file() {
    let dir = TempDir::new("check-log");
    let log = dir.join("check.log");
    let out = host(&["check", "sample-bot", "--rules", "barrage", "--log-protocol", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let text = std::fs::read_to_string(&log).expect("the protocol log was written");
    for part in
        [r#""type":"hello""#, r#""type":"ready""#, r#""type":"setup_request""#, r#""type":"turn""#, r#""type":"quit""#]
    {
        assert!(text.contains(part), "{part} in the log: {}", &text[..text.len().min(2000)]);
    }
}

#[test]
fn check_counts_stderr_until_the_process_has_exited() {
    // A multi-game bot that writes 2 MiB to stderr when told to quit.
    let bot = misbehaving("--misbehave quit-stderr-flood");
    let out = host(&["check", &bot, "--rules", "barrage", "--json"]);
    let results: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let stderr: Vec<&serde_json::Value> =
        results.iter().filter(|r| r["name"].as_str().unwrap().contains("stderr within")).collect();
    assert_eq!(stderr.len(), 2, "{results:?}");
    for r in stderr {
        assert_eq!(r["status"], "fail", "{r}");
        assert!(r["detail"].as_str().unwrap().contains("until its process ended"), "{r}");
    }
    assert_eq!(out.status.code(), Some(4));
}

// ---- Item 12: naming, length, setup order and pages of an event ----

fn dir_str(d: &TempDir) -> &str {
    d.0.to_str().unwrap()
}

#[test]
fn event_names_the_pages_the_json_summary_and_the_manifest() {
    let dir = TempDir::new("event-name");
    let out = host(&[
        "match",
        "sample-bot",
        "sample-bot --strategy random",
        "--games",
        "2",
        "--seed",
        "3",
        "--max-plies",
        "40",
        "--event",
        "Spring Cup 2026",
        "--json",
        "--out",
        dir_str(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON summary");
    assert_eq!(summary["event"], "Spring Cup 2026", "{summary}");
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(index.contains("<title>Spring Cup 2026"), "{}", &index[..index.len().min(600)]);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["event"], "Spring Cup 2026");
}

#[test]
fn max_plies_caps_every_game_and_zero_is_refused() {
    let dir = TempDir::new("max-plies");
    let out = host(&["match", "sample-bot", "sample-bot", "--games", "2", "--max-plies", "12", "--out", dir_str(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for r in records(&dir.0) {
        assert_eq!(r["ruleset"]["ply_limit"], 12, "the record carries the limit played");
        assert!(r["plies"].as_array().unwrap().len() <= 12, "{}", r["result"]);
    }
    let refused = host(&["match", "sample-bot", "sample-bot", "--max-plies", "0"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--max-plies: must be at least 1"));
}

#[test]
fn no_html_writes_records_and_manifest_only() {
    let dir = TempDir::new("no-html");
    let out = host(&[
        "match",
        "sample-bot",
        "sample-bot",
        "--games",
        "2",
        "--max-plies",
        "20",
        "--no-html",
        "--out",
        dir_str(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(records(&dir.0).len(), 2);
    assert!(dir.join("manifest.json").exists());
    assert!(!dir.join("index.html").exists(), "no index page");
    assert!(!dir.join("games").exists(), "no viewer pages");
}

/// Six different classic setups, as a plain setup book writes them (Red's rows form).
fn six_setups() -> Vec<String> {
    let base: Vec<char> = "B32222222S6655554444BX98877766FB3B333B2B".chars().collect();
    (0..6)
        .map(|k| {
            let mut s = base.clone();
            s.rotate_left(k);
            s.chunks(10).map(|r| r.iter().collect::<String>()).collect::<Vec<_>>().join("/")
        })
        .collect()
}

#[test]
fn sequential_setups_take_book_entries_in_order_from_the_start_given() {
    let dir = TempDir::new("setups-order");
    let book = dir.join("book.txt");
    let setups = six_setups();
    std::fs::write(&book, setups.join("\n") + "\n").unwrap();
    let out_dir = dir.join("out");
    let out = host(&[
        "match",
        "sample-bot",
        "sample-bot",
        "--games",
        "4",
        "--seed",
        "5",
        "--max-plies",
        "20",
        "--setups",
        book.to_str().unwrap(),
        "--setups-order",
        "sequential",
        "--setups-start",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records(&out_dir);
    recs.sort_by_key(|r| r["index"].as_u64());
    // Pair p plays entries start+2p (Red's, in both games of the pair) and start+2p+1:
    // from entry 2 (1-based), that is entries 1 and 3 (0-based) for Red.
    let red: Vec<&str> = recs.iter().map(|r| r["deployments"]["red"].as_str().unwrap()).collect();
    assert_eq!(red, [&setups[1], &setups[1], &setups[3], &setups[3]].map(String::as_str));
    // A start without the sequential order, or a 0, is refused.
    for extra in [&["--setups-start", "2"][..], &["--setups-order", "sequential", "--setups-start", "0"][..]] {
        let mut args = vec!["match", "sample-bot", "sample-bot", "--setups", book.to_str().unwrap()];
        args.extend_from_slice(extra);
        let refused = host(&args);
        assert_eq!(refused.status.code(), Some(2), "{extra:?}: {}", String::from_utf8_lossy(&refused.stderr));
        assert!(String::from_utf8_lossy(&refused.stderr).contains("--setups-start"), "{extra:?}");
    }
}

#[test]
fn merge_writes_the_merged_pages_and_takes_an_anchor() {
    let shards: Vec<TempDir> = (1..=2).map(|i| TempDir::new(&format!("merge-out-{i}"))).collect();
    for (i, d) in shards.iter().enumerate() {
        let out = host(&[
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
            "9",
            "--max-plies",
            "30",
            "-q",
            "--shard",
            &format!("{}/2", i + 1),
            "--out",
            dir_str(d),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let merged = TempDir::new("merge-out-merged");
    let pages = merged.join("pages");
    let out = Command::new(host_bin())
        .args(["merge", dir_str(&shards[0]), dir_str(&shards[1]), "--json", "--out", pages.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let index = std::fs::read_to_string(pages.join("index.html")).expect("the merged index page");
    assert!(index.contains("Tournament: 3 bots"), "{}", &index[..index.len().min(600)]);
    let pages_written = std::fs::read_dir(pages.join("games"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".html"))
        .count();
    assert_eq!(pages_written, 6, "a viewer page per game of both shards");
    assert!(pages.join("games/viewer.js").is_file(), "and their script beside them");
    // The anchor fixes that bot's rating.
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let standings = report["ranking"].as_array().expect("ranking");
    let random = standings.iter().find(|s| s["name"].as_str().unwrap().contains("random")).unwrap()["name"]
        .as_str()
        .unwrap()
        .to_owned();
    let anchored = Command::new(host_bin())
        .args(["merge", dir_str(&shards[0]), dir_str(&shards[1]), "--json", "--anchor", &format!("{random}=1500")])
        .output()
        .unwrap();
    assert_eq!(anchored.status.code(), Some(0), "{}", String::from_utf8_lossy(&anchored.stderr));
    let report: serde_json::Value = serde_json::from_slice(&anchored.stdout).unwrap();
    let elo = report["ranking"].as_array().unwrap().iter().find(|s| s["name"] == random.as_str()).unwrap()["elo"]
        .as_f64()
        .unwrap();
    assert!((elo - 1500.0).abs() < 1e-9, "{elo}");
    let refused = Command::new(host_bin())
        .args(["merge", dir_str(&shards[0]), dir_str(&shards[1]), "--anchor", "nobody"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

// ---- Item 16: protocol.md says what the host does ----

fn protocol_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol.md")).unwrap()
}

#[test]
fn the_turn_example_counts_the_pieces_it_lists() {
    let md = protocol_md();
    let line = md.lines().find(|l| l.starts_with(r#"{"type":"turn","game_id":"000000000000002a-3","ply":4"#)).unwrap();
    let turn: serde_json::Value = serde_json::from_str(line).unwrap();
    let unmoved =
        turn["pieces"].as_array().unwrap().iter().filter(|p| p["color"] == "blue" && p.get("moved").is_none()).count();
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let said = words
        .iter()
        .position(|w| md.contains(&format!("Blue's other {w} pieces have not moved")))
        .expect("the text counts Blue's unmoved pieces");
    assert_eq!(said, unmoved, "the text says {} and the example lists {unmoved}", words[said]);
}

#[test]
fn a_strike_is_numbered_as_protocol_md_says_the_turns_ply_plus_one() {
    let md = protocol_md();
    assert!(md.contains("the move you answer becomes ply `ply + 1`"), "turn.ply's note");
    let records_md = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../RECORDS.md")).unwrap();
    assert!(records_md.contains("1-based as in `plies`: the turn's `ply` + 1"), "strikes[].ply's note");
    // The bot logs every line it reads; its 2nd turn is never answered, forgiven once.
    let dir = TempDir::new("strike-ply");
    let log = dir.join("bot.log");
    // Only the misbehaving bot plays at 1 s a move: a sample bot that missed its own
    // 1 s on a loaded machine ended the game before the strike (seen once in a loaded run).
    let bot = serde_json::json!({
        "command": misbehaving(&format!("--misbehave move-timeout --at 2 --log {}", log.display())),
        "move_time": 1,
    })
    .to_string();
    let out_dir = dir.join("out");
    let out = host(&[
        "match",
        &bot,
        "sample-bot",
        "--games",
        "1",
        "--seed",
        "7",
        "--move-time",
        "60",
        "--strikes",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rec = &records(&out_dir)[0];
    let color = misbehaving_color(rec);
    let strikes = rec["bots"][color]["strikes"].as_array().unwrap_or_else(|| panic!("one strike: {}", rec["result"]));
    let turns: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|m| m["type"] == "turn")
        .collect();
    let second_turn_ply = turns[1]["ply"].as_u64().unwrap();
    assert_eq!(strikes[0]["ply"].as_u64().unwrap(), second_turn_ply + 1, "{}", strikes[0]);
    // The ply played for it is that number in the record's 1-based plies.
    let played = &rec["plies"][second_turn_ply as usize];
    assert_eq!(played["color"], color);
    assert_eq!(played["move"], strikes[0]["replaced_by"]);
}

// ---- Item 11: interim reports and game ids in the log lines ----

#[test]
fn report_every_prints_the_score_and_game_lines_name_the_game_id() {
    let dir = TempDir::new("report-every-match");
    let out = host(&[
        "match",
        "sample-bot",
        "sample-bot --strategy random",
        "--games",
        "4",
        "--seed",
        "11",
        "--max-plies",
        "30",
        "--report-every",
        "2",
        "--out",
        dir_str(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<&str> = stdout.lines().filter(|l| l.starts_with("score after ")).collect();
    assert_eq!(reports.len(), 2, "{stdout}");
    assert!(reports[0].starts_with("score after 2 of 4 games: sample-bot-heuristic +"), "{}", reports[0]);
    assert!(reports[1].starts_with("score after 4 of 4 games: "), "{}", reports[1]);
    // Each game line names the game's id, which replay takes.
    let ids: Vec<String> = records(&dir.0).iter().map(|r| r["game_id"].as_str().unwrap().to_owned()).collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    for line in lines {
        let id = line.split_once('[').and_then(|(_, rest)| rest.split_once(']')).map(|(id, _)| id).expect(line);
        assert!(ids.iter().any(|i| i == id), "{id} is a game of the records: {line}");
        let replay = host(&["replay", dir_str(&dir), "--game", id, "--ply", "3"]);
        assert_eq!(replay.status.code(), Some(0), "replay --game {id}: {}", String::from_utf8_lossy(&replay.stderr));
    }
}

#[test]
fn report_every_prints_the_standings_of_a_tournament_and_the_llr_of_an_sprt() {
    let out = host(&[
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
        "4",
        "--max-plies",
        "30",
        "-q",
        "--report-every",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for n in [3, 6] {
        let head = format!("standings after {n} of 6 games:");
        let at = stdout.find(&head).unwrap_or_else(|| panic!("{head} in {stdout}"));
        let rows: Vec<&str> = stdout[at..].lines().skip(1).take_while(|l| l.starts_with("    ")).collect();
        assert!(!rows.is_empty() && rows.len() <= 3, "{rows:?}");
        assert!(rows[0].trim_start().starts_with("1  "), "{rows:?}");
    }
    let out = host(&[
        "sprt",
        "sample-bot",
        "sample-bot --strategy random",
        "--elo0",
        "0",
        "--elo1",
        "10",
        "--max-games",
        "4",
        "--seed",
        "4",
        "--max-plies",
        "30",
        "-q",
        "--report-every",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<&str> = stdout.lines().filter(|l| l.starts_with("after ")).collect();
    assert!(!reports.is_empty(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        reports[0].starts_with("after 2 games: ") && reports[0].contains(" LLR ") && reports[0].contains('['),
        "{}",
        reports[0]
    );
}

// ---- Item 12: --recover ----

#[test]
fn recover_goes_on_after_a_bot_fails_to_start_mid_event() {
    // Without --recover the event stops at the first game the bot cannot start (exit 3).
    let dir = TempDir::new("recover-off");
    let bot = flaky_start_bot(&dir.0, 2);
    let out = host(&["match", &bot, "sample-bot", "--games", "3", "--max-plies", "20", "--out", dir_str(&dir)]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    // With it, that game is lost, saying why, and the bot plays its next games.
    let dir = TempDir::new("recover-on");
    let bot = flaky_start_bot(&dir.0, 2);
    let out_dir = dir.join("out");
    let out = host(&[
        "match",
        &bot,
        "sample-bot",
        "--games",
        "3",
        "--max-plies",
        "20",
        "--recover",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("--recover: game "), "{stderr}");
    let mut recs = records(&out_dir);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["result"]["faulty"], "red", "{}", recs[0]["result"]);
    assert!(recs[0]["bots"]["red"]["stderr_tail"].as_str().unwrap().contains("license server unreachable"));
    for r in &recs[1..] {
        assert!(r["result"].get("faulty").is_none(), "the bot played on: {}", r["result"]);
    }
}

// ---- Item 10: a progress bar that lives (on a real terminal, under tmux) ----

/// A tmux server of its own, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(test: &str) -> Tmux {
        match Command::new("tmux").arg("-V").output() {
            Ok(o) if o.status.success() => {}
            _ => panic!("this test needs tmux (tests/run.sh, the README's test command, installs it)"),
        }
        Tmux { socket: format!("stratego-reporting-{test}-{}", std::process::id()) }
    }

    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).env_remove("TMUX").output().expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "main"]).stdout).into_owned()
    }

    /// Waits up to `secs` for a screen for which `found` gives a value.
    fn wait<T>(&self, secs: u64, what: &str, found: impl Fn(&str) -> Option<T>) -> T {
        let start = std::time::Instant::now();
        loop {
            let screen = self.screen();
            if let Some(v) = found(&screen) {
                return v;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(secs),
                "the screen never showed {what}:\n{screen}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// The elapsed seconds the bar shows after `games, `.
fn elapsed_secs(screen: &str) -> Option<u64> {
    let rest = &screen[screen.find(" games, ")? + " games, ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[digits.len()..].starts_with('s').then(|| digits.parse().ok()).flatten()
}

#[test]
fn the_progress_bar_is_drawn_at_once_ticks_and_shows_the_running_games_plies() {
    let dir = TempDir::new("live-bar");
    let pids = dir.join("pids");
    // Plays 19 turns, then never answers its 20th (as Red: after 38 plies) within 20 s.
    let bot = misbehaving(&format!("--misbehave move-timeout --at 20 --pidfile {}", pids.display()));
    let tmux = Tmux::new("bar");
    let command = format!(
        "{} match '{bot}' sample-bot --games 1 --move-time 20 --seed 2; sleep 30",
        stratego_tests::host_bin().display()
    );
    let out = tmux.cmd(&["new-session", "-d", "-x", "160", "-y", "20", "-s", "main", &command]);
    assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
    // No game has ended, yet the bar is there, with the running game's plies.
    tmux.wait(15, "the bar with the running game at 38 plies", |s| {
        (s.contains("0/1 games") && s.contains("running: #1 38 plies")).then_some(())
    });
    // Nothing happens in the game now (the bot is silent): the bar still ticks.
    let first = tmux.wait(5, "the elapsed time", elapsed_secs);
    tmux.wait(10, "a later elapsed time", |s| elapsed_secs(s).filter(|&t| t >= first + 2));
    let screen = tmux.screen();
    assert!(screen.contains("0/1 games"), "still no game ended: {screen}");
    drop(tmux);
    for pid in stratego_tests::read_pids(&pids) {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains("misbehaving-bot") {
            // SAFETY: a signal to a process this test started (the bot that never answers).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}
