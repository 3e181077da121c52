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
    // Two viewer pages and the viewer's script beside them.
    assert!(std::fs::read_dir(site.join("games")).unwrap().count() == 3);
    assert!(site.join("games/viewer.js").is_file());
    // Someone else's file beside it, in games/ (a viewer page's name, then the viewer's
    // script's): refused without --force, replaced with.
    let a_page = std::fs::read_dir(site.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "html"))
        .expect("a viewer page");
    for theirs in [a_page, site.join("games/viewer.js")] {
        std::fs::write(&theirs, "not ours").unwrap();
        let out = table(&page, false);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(s(&theirs)), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "not ours");
        let out = table(&page, true);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_ne!(std::fs::read_to_string(&theirs).unwrap(), "not ours");
    }
}

/// Setups on Gravon's free board (`classicfree`: anywhere, any subset with a Flag), in the
/// pairs form, that end a game in a chosen way when each side plays its first legal move.
mod boards {
    /// Red's Flag walled in by its Bombs: Red has no move.
    pub const RED_SEALED: &str = "a1=F a2=B b1=B";
    /// Blue's the same.
    pub const BLUE_SEALED: &str = "j10=F j9=B i10=B";
    /// Red's Marshal next to Blue's Flag, its only move the capture.
    pub const RED_CAPTURES: &str = "a1=F a2=B b1=B j8=B i9=B j9=X";
    /// Blue's Flag in the open, and a free Scout.
    pub const BLUE_OPEN: &str = "j10=F e8=2";
    /// Blue with a free Scout.
    pub const BLUE_FREE: &str = "j10=F j9=B i10=B e8=2";
    /// Each side's Bombs close the gaps between the lakes on its own side: two Scouts run
    /// about apart until the ply limit.
    pub const RED_WALLED: &str = "a1=F a5=B b5=B e5=B f5=B i5=B j5=B b2=2";
    /// Blue's wall.
    pub const BLUE_WALLED: &str = "j10=F a6=B b6=B e6=B f6=B i6=B j6=B i9=2";
}

/// Plays one game of `classicfree` between scripted bots (Red: `red_args`, Blue:
/// `blue_args`) into `dir`, and returns its record.
fn one_game(tmp: &TempDir, rules: &Path, dir: &Path, red_args: &[&str], blue_args: &[&str]) -> serde_json::Value {
    let red = stratego_tests::scripted_bot(tmp, red_args);
    let blue = stratego_tests::scripted_bot(tmp, blue_args);
    let out = run_match(&[
        &red,
        &blue,
        "--games",
        "1",
        "--rules",
        s(rules),
        "--move-time",
        "0.5",
        "--grace-ms",
        "200",
        "--out",
        s(dir),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut recs = stratego_tests::records(dir);
    assert_eq!(recs.len(), 1);
    recs.remove(0)
}

#[test]
fn every_ending_the_host_writes_converts_to_gravon_and_back() {
    use boards::*;
    let tmp = TempDir::new("nl-gravon");
    let rules = tmp.join("classicfree.json");
    let spec = stratego_rules::gravon::ruleset_for_type("classicfree").unwrap();
    std::fs::write(&rules, serde_json::to_string(spec.spec()).unwrap()).unwrap();
    let red = |setup: &str| format!("red={setup}");
    let blue = |setup: &str| format!("blue={setup}");
    // (name, Red's arguments, Blue's arguments, the reason, the winner, the reason read back)
    type Case = (&'static str, Vec<String>, Vec<String>, &'static str, &'static str, &'static str);
    let cases: Vec<Case> = vec![
        ("flag", vec![red(RED_CAPTURES)], vec![blue(BLUE_OPEN)], "flag_captured", "red", "flag_captured"),
        ("no-moves", vec![red(RED_SEALED)], vec![blue(BLUE_FREE)], "no_legal_moves", "blue", "no_legal_moves"),
        ("neither", vec![red(RED_SEALED)], vec![blue(BLUE_SEALED)], "neither_can_move", "null", "neither_can_move"),
        ("ply-limit", vec![red(RED_WALLED)], vec![blue(BLUE_WALLED)], "ply_limit", "null", "ply_limit"),
        (
            "resign",
            vec![red(RED_WALLED), "resign=3".into()],
            vec![blue(BLUE_WALLED)],
            "resignation",
            "blue",
            "resignation",
        ),
        (
            "illegal",
            vec![red(RED_WALLED)],
            vec![blue(BLUE_WALLED), "illegal=2".into()],
            "illegal_move",
            "red",
            "resignation",
        ),
        ("crash", vec![red(RED_WALLED), "crash=2".into()], vec![blue(BLUE_WALLED)], "crash", "blue", "resignation"),
        (
            "timeout",
            vec![red(RED_WALLED), "sleep=2".into()],
            vec![blue(BLUE_WALLED)],
            "move_timeout",
            "blue",
            "resignation",
        ),
    ];
    let mut all = String::new();
    for (name, r, b, reason, winner, _) in &cases {
        let r: Vec<&str> = r.iter().map(String::as_str).collect();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        let dir = tmp.join(name);
        let rec = one_game(&tmp, &rules, &dir, &r, &b);
        assert_eq!(rec["result"]["reason"], *reason, "{name}: {}", rec["result"]);
        assert_eq!(rec["result"]["winner"].to_string().trim_matches('"'), *winner, "{name}: {}", rec["result"]);
        let mut line = rec.clone();
        line["game_id"] = serde_json::Value::String(format!("{name}-{}", rec["game_id"].as_str().unwrap()));
        all.push_str(&serde_json::to_string(&line).unwrap());
        all.push('\n');
    }
    let records = tmp.join("all.jsonl");
    std::fs::write(&records, &all).unwrap();
    let zip = tmp.join("g.zip");
    let to_gravon = host(&["convert", s(&records), s(&zip), "--json"]);
    assert_eq!(to_gravon.status.code(), Some(0), "{}", stderr(&to_gravon));
    let written: serde_json::Value = serde_json::from_slice(&to_gravon.stdout).unwrap();
    let back = tmp.join("back.jsonl");
    let out = host(&["convert", s(&zip), s(&back), "--json"]);
    assert_eq!(out.status.code(), Some(0), "the writer's XML reads back: {}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((summary["converted"].as_u64(), summary["errors"].as_u64()), (Some(cases.len() as u64), Some(0)));
    let text = std::fs::read_to_string(&back).unwrap();
    let again: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let originals: Vec<serde_json::Value> = all.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (name, _, _, _, winner, read_back) in &cases {
        let id_prefix = format!("{name}-");
        let a = originals.iter().find(|r| r["game_id"].as_str().unwrap().starts_with(&id_prefix)).unwrap();
        let b = again.iter().find(|r| r["game_id"].as_str().unwrap().starts_with(&id_prefix)).unwrap();
        assert_eq!(b["result"]["reason"], *read_back, "{name}: {}", b["result"]);
        assert_eq!(b["result"]["winner"].to_string().trim_matches('"'), *winner, "{name}");
        assert_eq!(b["plies"].as_array().unwrap().len(), a["plies"].as_array().unwrap().len(), "{name}");
        assert_eq!(b["deployments"], a["deployments"], "{name}");
    }
    assert_eq!(written["converted"], cases.len(), "{written}");
    // The writer says which endings Gravon cannot hold and what it wrote instead.
    assert_eq!(written["approximated"]["crash as type 3 (resignation)"], 1, "{written}");
    assert_eq!(written["approximated"]["illegal_move as type 3 (resignation)"], 1, "{written}");
    assert_eq!(written["approximated"]["move_timeout as type 3 (resignation)"], 1, "{written}");
    assert_eq!(written["approximated"].as_object().unwrap().len(), 3, "{written}");
    assert!(
        stderr(&to_gravon).contains("Gravon has no result type for crash: written crash as type 3"),
        "{}",
        stderr(&to_gravon)
    );
}

#[test]
fn a_shard_without_a_fixed_seed_is_refused_before_any_game() {
    let tmp = TempDir::new("nl-shard-seed");
    let dir = tmp.join("shard-1");
    let out =
        run_match(&["sample-bot", "sample-bot --strategy random", "--games", "4", "--shard", "1/2", "--out", s(&dir)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--shard 1/2: needs a fixed seed"), "{}", stderr(&out));
    assert!(!dir.exists(), "nothing was played or written");
    // A tournament's config file may fix it.
    let config = tmp.join("t.toml");
    std::fs::write(&config, "seed = 11\ngames = 2\nrules = \"barrage\"\n[[bot]]\nname = \"a\"\ncommand = \"sample-bot\"\n[[bot]]\nname = \"b\"\ncommand = \"sample-bot --strategy random\"\n").unwrap();
    let out = host(&["tournament", s(&config), "--shard", "1/1", "--out", s(&dir), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stratego_tests::records(&dir).len(), 2);
}

/// A Python bot for any ruleset (its setup from the request, the first legal move). With
/// `once FILE` it starts only once: it creates FILE, and exits if it is there already.
/// With `write-here` it writes a file in its working directory at start.
const PLAIN_BOT: &str = r#"import json, os, sys
if "once" in sys.argv:
    marker = sys.argv[sys.argv.index("once") + 1]
    if os.path.exists(marker):
        sys.exit("started twice: " + marker)
    open(marker, "w").close()
if "write-here" in sys.argv:
    open("state.txt", "w").write("x")
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "plain"}), flush=True)
    elif m["type"] == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        pairs = " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))
        print(json.dumps({"type": "setup", "deployment": pairs}), flush=True)
    elif m["type"] == "turn":
        print(json.dumps({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]}), flush=True)
    elif m["type"] == "quit":
        break
"#;

fn tournament(args: &[&str]) -> Output {
    Command::new(host_bin()).arg("tournament").args(args).output().expect("run stratego-host")
}

#[test]
fn a_bot_that_cannot_start_is_caught_before_the_first_game_and_leaves_no_game() {
    let tmp = TempDir::new("nl-preflight");
    let dir = tmp.join("run");
    let later = tmp.join("later.py");
    let bot = format!("python3 {}", later.display());
    // Three bots; the first games are the two sample bots', the missing script plays later.
    let args = [
        "--bot",
        "sample-bot",
        "--bot",
        "sample-bot --strategy random",
        "--bot",
        &bot,
        "--rules",
        "barrage",
        "--seed",
        "3",
        "--out",
        s(&dir),
        "-q",
    ];
    for attempt in 0..2 {
        let out = tournament(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "attempt {attempt}: {err}");
        assert!(err.contains("bot later cannot start (started once before the first game"), "{err}");
        assert!(err.contains("can't open file"), "its stderr is shown: {err}");
        assert!(stratego_tests::records(&dir).is_empty(), "attempt {attempt}: no game was played or recorded");
    }
    // Once the script is there, the same command plays every game, and none is a forfeit.
    std::fs::write(&later, PLAIN_BOT).unwrap();
    let out = tournament(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = stratego_tests::records(&dir);
    assert_eq!(recs.len(), 6, "three pairings of two games");
    assert!(recs.iter().all(|r| r["result"]["faulty"].is_null()), "no forfeit: {recs:?}");
}

#[test]
fn a_bot_that_dies_before_ready_in_its_first_game_leaves_no_record() {
    // It passes the pre-flight, then cannot start again: its first game is not a game.
    let tmp = TempDir::new("nl-first-game");
    let dir = tmp.join("run");
    let script = tmp.join("once.py");
    std::fs::write(&script, PLAIN_BOT).unwrap();
    let bot = format!("python3 {} once {}", script.display(), tmp.join("started").display());
    let out = run_match(&[&bot, "sample-bot", "--rules", "barrage", "--games", "4", "--out", s(&dir)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot start: its first game ended before it was ready"), "{err}");
    assert!(err.contains("started twice"), "{err}");
    assert!(stratego_tests::records(&dir).is_empty(), "the failed start is not recorded as a game");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("1 games"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_preflight_starts_the_bot_as_games_do_in_the_sandbox() {
    // Writing into its own directory works outside the sandbox, which makes it read-only.
    let tmp = TempDir::new("nl-preflight-sandbox");
    let botdir = tmp.join("bot");
    std::fs::create_dir_all(&botdir).unwrap();
    std::fs::write(botdir.join("bot.py"), PLAIN_BOT).unwrap();
    let spec =
        serde_json::json!({"name": "writer", "command": ["/usr/bin/python3", "bot.py", "write-here"], "dir": botdir})
            .to_string();
    let out = run_match(&[&spec, "sample-bot", "--rules", "barrage", "--games", "2", "-q"]);
    assert_eq!(out.status.code(), Some(0), "outside the sandbox it plays: {}", stderr(&out));
    let dir = tmp.join("run");
    let out = run_match(&[&spec, "sample-bot", "--rules", "barrage", "--games", "2", "--sandbox", "--out", s(&dir)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("bot writer cannot start (started once before the first game"), "{err}");
    assert!(err.contains("Read-only file system"), "{err}");
    assert!(stratego_tests::records(&dir).is_empty());
}

#[test]
fn what_a_kept_process_writes_after_game_over_is_recorded_with_that_game() {
    let tmp = TempDir::new("nl-post-game");
    let dir = tmp.join("run");
    let bot = stratego_tests::scripted_bot(&tmp, &["multi=1", "post=1", "exit_note=1"]);
    let out = run_match(&[&bot, "sample-bot", "--rules", "barrage", "--games", "3", "--seed", "8", "--out", s(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut recs = stratego_tests::records(&dir);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs.len(), 3);
    let ids: Vec<String> = recs.iter().map(|r| r["game_id"].as_str().unwrap().to_owned()).collect();
    for (i, r) in recs.iter().enumerate() {
        let me =
            if r["bots"]["blue"]["name"] == "sample-bot-heuristic" { &r["bots"]["red"] } else { &r["bots"]["blue"] };
        let info: Vec<&str> =
            me["info"].as_array().map(|a| a.iter().map(|v| v.as_str().unwrap()).collect()).unwrap_or_default();
        let tail = me["stderr_tail"].as_str().unwrap();
        // Its own post-game lines, and no other game's.
        assert_eq!(info, vec![format!("after {}", ids[i])], "game {i}: {}", me);
        for (j, id) in ids.iter().enumerate() {
            assert_eq!(tail.contains(&format!("stderr after {id}")), i == j, "game {i}, game {j}'s line: {tail:?}");
        }
        // One process played the three games: the last records its exit and last words.
        if i == 2 {
            assert!(me["exit"].as_str().is_some_and(|e| e.contains("exited")), "{me}");
            assert!(tail.contains("bye"), "{tail:?}");
        } else {
            assert!(me["exit"].is_null(), "game {i}: the process went on: {me}");
            assert!(!me["process_note"].as_str().unwrap_or("").contains("fresh process"), "game {i}: {me}");
        }
    }
}

/// Runs the host under bash with a file size limit of `kib` KiB (its writes past it fail
/// with EFBIG, SIGXFSZ ignored: as on a full disk).
fn host_with_file_limit(kib: u32, args: &[&str]) -> Output {
    let mut script = format!("ulimit -f {kib}; trap '' XFSZ; exec '{}'", host_bin().display());
    for a in args {
        script.push_str(&format!(" '{a}'"));
    }
    Command::new("bash").args(["-c", &script]).output().expect("run bash")
}

#[test]
fn after_a_failed_record_write_the_summary_counts_what_was_saved_and_no_line_is_torn() {
    let tmp = TempDir::new("nl-disk-full");
    let dir = tmp.join("run");
    let args = ["match", "sample-bot", "sample-bot --strategy random", "--rules", "barrage", "--games", "12"];
    let mut limited: Vec<&str> = args.to_vec();
    limited.extend(["--seed", "9", "--out", s(&dir), "--json", "-q"]);
    let out = host_with_file_limit(48, &limited);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write a game record"), "{err}");
    // Every line of the file is a whole record; the summary counts exactly those.
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line: {text:.200}");
    let saved = stratego_tests::records(&dir).len();
    assert!((1..12).contains(&saved), "{saved} saved: pick a limit that cuts the run");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the summary");
    let counted = summary["bots"][0]["wins"].as_u64().unwrap()
        + summary["bots"][0]["draws"].as_u64().unwrap()
        + summary["bots"][0]["losses"].as_u64().unwrap();
    assert_eq!(counted as usize, saved, "the summary counts the saved games: {summary}");
    assert!(err.contains(&format!("holds {saved} finished games of this event")), "{err}");
    // The same command, with room, finishes the match without a word about a torn line.
    let out = host(&limited);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("torn"), "{}", stderr(&out));
    assert_eq!(stratego_tests::records(&dir).len(), 12);
}

#[test]
fn an_interrupted_run_without_out_does_not_claim_records() {
    let tmp = TempDir::new("nl-ctrl-c");
    let pidfile = tmp.join("pids");
    let bot = stratego_tests::misbehaving(&format!("--misbehave move-timeout --at 1 --pidfile {}", pidfile.display()));
    let child = Command::new(host_bin())
        .args(["match", &bot, &bot, "--games", "2", "--move-time", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The pre-flight's process, then the game's two.
    for _ in 0..200 {
        if stratego_tests::read_pids(&pidfile).len() >= 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: sending SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("no --out: no records were saved"), "{err}");
    assert!(!err.contains("the records"), "{err}");
}
