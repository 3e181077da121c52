//! What a bot author trips over (issue #46, items 8–15), through the real host binary with
//! real bot processes (Python bots written to a temporary directory) and the repository's
//! documents as a reader sees them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin, records};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

/// Writes a Python bot to `dir/name` and returns its command line.
fn python_bot(dir: &TempDir, name: &str, source: &str) -> String {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, source).unwrap();
    format!("python3 {}", path.display())
}

/// A Python bot's loop: `ready` as `NAME` (with `multi_game` MULTI), the squares in order for
/// its setup, the last legal move. `{hello}` and `{game_over}` are Python statements run at
/// those messages (`m` is the message, `line` the raw line), indented by 8 spaces.
fn loop_bot(name: &str, multi: bool, hello: &str, game_over: &str) -> String {
    let multi = if multi { "True" } else { "False" };
    format!(
        r#"import json, re, sys, time
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
{hello}
        print(json.dumps({{"type": "ready", "name": "{name}", "multi_game": {multi}}}), flush=True)
    elif t == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        print(json.dumps({{"type": "setup", "deployment": " ".join(f"{{s}}={{r}}" for s, r in zip(m["squares"], army))}}), flush=True)
    elif t == "turn":
        print(json.dumps({{"type": "move", "move": m["legal_moves"][-1]}}), flush=True)
    elif t == "game_over":
{game_over}
        pass
    elif t == "quit":
        break
"#
    )
}

/// The `hello.seed` of every `hello` line the log shows sent to bot `name`, in order.
fn hello_seeds(log: &Path, name: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(log).expect("the protocol log");
    text.lines()
        .filter(|l| l.split_whitespace().nth(1) == Some(name) && l.contains(r#" > {"type":"hello""#))
        .map(|l| {
            let json = &l[l.find('{').unwrap()..];
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            v["seed"].as_u64().expect("an unsigned seed")
        })
        .collect()
}

// Item 8: `check` always plays a seed of 2^63 or above, and names the check that failed.

#[test]
fn check_gives_a_seed_of_2_63_or_above_whatever_the_seed_option_and_names_the_hello_that_failed() {
    let dir = TempDir::new("author-seed");
    // Reads its seed as a signed 64-bit integer would: dies on half of all seeds. With
    // `--seed 4` the bot's seeds of both barrage games were below 2^63 (it passed).
    let hello = r#"        seed = int(re.search(r'"seed":(\d+)', line).group(1))
        if seed >= 2**63:
            print(f"seed {seed} is out of range for a signed 64-bit integer", file=sys.stderr, flush=True)
            sys.exit(1)"#;
    let bot = python_bot(&dir, "signed.py", &loop_bot("signed", false, hello, ""));
    let log = dir.join("check.log");
    let out = host(&[
        "check",
        &bot,
        "--rules",
        "barrage",
        "--seed",
        "4",
        "--move-time",
        "60",
        "--log-protocol",
        log.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "a failed check (it did start): {text}");
    let seeds = hello_seeds(&log, "signed");
    assert!(seeds.len() >= 2, "{seeds:?}");
    assert!(seeds[0] <= 1 << 53, "the first game's seed is one every language reads: {seeds:?}");
    assert!(seeds[1] >= 1 << 63, "the second game's seed is 2^63 or above: {seeds:?}");
    assert!(text.contains("  PASS  starts and answers hello with ready and a name: "), "{text}");
    // The check that failed is the hello of the game it died in, with the seed it got.
    let expected = format!("  FAIL  barrage: starts and answers hello as Blue: sent: hello (its seed {})", seeds[1]);
    assert!(text.contains(&expected), "{text}");
    assert!(text.contains(&format!("    | seed {} is out of range", seeds[1])), "its stderr: {text}");
    assert!(
        text.contains(
            "  NOT RUN  barrage: a valid setup as Blue: depends on \"barrage: starts and answers hello as Blue\""
        ),
        "{text}"
    );
    assert!(!text.contains("FAIL  barrage: a valid setup"), "not a setup failure: {text}");
}

// Item 12: a bot that cannot start: `check` exits 3; `match` prints no empty table.

#[test]
fn check_exits_3_for_a_script_that_does_not_exist() {
    let dir = TempDir::new("author-missing-check");
    let missing = dir.join("missing.py");
    let out = host(&["check", &format!("python3 {}", missing.display()), "--rules", "barrage"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "3: the bot cannot be started, as check --help says: {text}");
    assert!(text.contains("  FAIL  starts and answers hello with ready and a name: sent: hello"), "{text}");
    assert!(text.contains("No such file or directory"), "python's words, from its stderr: {text}");
}

#[test]
fn match_with_a_bot_that_cannot_start_prints_the_error_and_no_empty_summary() {
    let dir = TempDir::new("author-missing-match");
    let missing = dir.join("missing.py");
    let mut args = vec!["match".to_owned(), format!("python3 {}", missing.display()), "sample-bot".into()];
    args.extend(["--games", "2"].map(String::from));
    args.extend(CALM_CLOCK.map(String::from));
    let out = Command::new(host_bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("bot missing cannot start"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "no summary of zero games on stdout");
}

// Item 10: the flush hint is only for a process that never wrote anything.

#[test]
fn the_flush_hint_is_for_a_bot_that_never_answered_not_for_a_slow_one() {
    let dir = TempDir::new("author-flush");
    // Says `ready` and sets up, then never answers a turn: it flushes, it is only slow. (It
    // stops at its first turn: a later one let the opponent's Scout take a front-row Flag
    // first in some games.)
    let slow = python_bot(
        &dir,
        "slow.py",
        &loop_bot("slow", false, "        pass", "").replace(
            r#"    elif t == "turn":
"#,
            r#"    elif t == "turn":
        if m["ply"] >= 0:
            time.sleep(3600)
"#,
        ),
    );
    // Never flushes: its `ready` stays in its buffer.
    let silent = python_bot(
        &dir,
        "silent.py",
        "import json, sys, time\nsys.stdin.readline()\nsys.stdout.write(json.dumps({\"type\": \"ready\", \"name\": \"silent\"}) + \"\\n\")\ntime.sleep(3600)\n",
    );
    for (bot, limit, expected, hint) in [
        (&slow, "move_time", "no move within 0.500 s (+0.003 s margin)", false),
        (&silent, "startup_time", "no ready within 0.500 s (+0.003 s margin)", true),
    ] {
        let spec = serde_json::json!({"command": bot, limit: 0.5}).to_string();
        let out_dir = dir.join(limit);
        let mut args = vec!["match".to_owned(), spec, "sample-bot".into()];
        args.extend(["--games", "1", "--seed", "3", "--recover", "--out", out_dir.to_str().unwrap()].map(String::from));
        args.extend(CALM_CLOCK.map(String::from));
        // Python flushes every write when PYTHONUNBUFFERED is set (some shells and CI images
        // set it): the silent bot must keep its `ready` in its buffer.
        let out = Command::new(host_bin()).args(&args).env_remove("PYTHONUNBUFFERED").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let recs = records(&out_dir);
        // The silent bot never says `ready`: it fails the start-up check `--recover` makes
        // before the first game (exit 3, no game), and the host says why on stderr.
        let message = if hint {
            assert_eq!(out.status.code(), Some(3), "{err}");
            assert!(recs.is_empty(), "{err}");
            err.lines().find(|l| l.contains("cannot start")).unwrap_or_else(|| panic!("{err}")).to_owned()
        } else {
            assert_eq!(recs.len(), 1, "{err}");
            recs[0]["result"]["message"].as_str().unwrap().to_owned()
        };
        assert!(message.contains(expected), "{message}");
        let said = message.contains("did the bot flush its output?");
        assert_eq!(said, hint, "the flush hint only for a process that never wrote a byte: {message}");
    }
}

// Item 13: a multi-game process that exits after a game: its exit is in that game's record,
// and the next game's note says each thing once.

#[test]
fn a_multi_game_process_that_exits_after_its_game_has_its_exit_in_that_game_and_a_note_said_once() {
    let dir = TempDir::new("author-exit");
    // Says multi_game, but exits a moment after each game_over: the host has sent the next
    // hello by then.
    let bot = python_bot(
        &dir,
        "leaver.py",
        &loop_bot("leaver", true, "        pass", "        time.sleep(0.3)\n        sys.exit(0)"),
    );
    let out_dir = dir.join("out");
    let mut args = vec!["match".to_owned(), bot, "sample-bot --strategy random".into()];
    args.extend(["--games", "3", "--rules", "barrage", "--out", out_dir.to_str().unwrap()].map(String::from));
    args.extend(CALM_CLOCK.map(String::from));
    let out = Command::new(host_bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let mut recs = records(&out_dir);
    recs.sort_by_key(|r| r["game_id"].as_str().unwrap().to_owned());
    assert_eq!(recs.len(), 3, "{err}");
    for (i, r) in recs.iter().enumerate() {
        let color = if r["bots"]["red"]["name"] == "leaver" { "red" } else { "blue" };
        let me = &r["bots"][color];
        assert!(!r["result"]["reason"].as_str().unwrap().contains("timeout"), "game {i}: {r}");
        assert_eq!(
            me["exit"].as_str(),
            Some("the process exited with status 0"),
            "game {i}: its process exited after it, and its record says so: {me}"
        );
        if i > 0 {
            let note = me["process_note"].as_str().unwrap_or_default();
            assert!(note.starts_with("a fresh process: "), "game {i}: {note}");
            assert_eq!(note.matches("exited with status 0").count(), 1, "game {i}: said once: {note}");
            assert_eq!(note.matches("previous").count(), 1, "game {i}: said once: {note}");
        }
    }
}

// Item 14: rerunning a finished directory after editing a bot says so, and how to play again.

#[test]
fn rerunning_a_finished_directory_after_editing_the_bot_says_the_games_are_the_old_versions() {
    let dir = TempDir::new("author-rerun");
    let bot = python_bot(&dir, "edited.py", &loop_bot("edited", true, "        pass", ""));
    let out_dir = dir.join("out");
    let mut args = vec!["match".to_owned(), bot, "sample-bot --strategy random".into()];
    args.extend(["--games", "2", "--rules", "barrage", "--out", out_dir.to_str().unwrap()].map(String::from));
    args.extend(CALM_CLOCK.map(String::from));
    let first = Command::new(host_bin()).args(&args).output().unwrap();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let unedited = Command::new(host_bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&unedited.stderr);
    assert!(unedited.status.success(), "{err}");
    assert!(!err.contains("changed since"), "nothing was edited: {err}");
    // The author improves the bot and runs the same command again.
    let path = dir.join("edited.py");
    let source = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("# a better version\n{source}")).unwrap();
    let again = Command::new(host_bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("edited.py changed since its 2 games in "), "{err}");
    assert!(err.contains("the report is of the old version's games"), "{err}");
    assert!(err.contains("to play the new version, give another --out directory"), "{err}");
    assert_eq!(records(&out_dir).len(), 2, "nothing more was played");
}

// Items 9 and 15: the documents, as a reader of the repository sees them.

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The relative link targets (without `#anchor`) of a Markdown text outside code blocks
/// and code spans.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans blanked out.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = rest[..end].trim();
            let file = target.split('#').next().unwrap_or_default();
            if !file.is_empty() && !file.contains("://") && !file.starts_with("mailto:") {
                out.push(file.to_owned());
            }
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_protocol_readmes_and_guide_stubs_resolves_to_a_file() {
    let root = repo();
    let mut documents: Vec<PathBuf> =
        ["protocol.md", "README.md", "examples/README.md", "RECORDS.md"].iter().map(|p| root.join(p)).collect();
    let reference = root.join("docs/src/reference");
    let mut stubs: Vec<PathBuf> = std::fs::read_dir(&reference)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    stubs.sort();
    assert!(stubs.len() >= 6, "{stubs:?}");
    documents.extend(stubs.iter().cloned());
    let mut broken = Vec::new();
    for doc in &documents {
        let text = std::fs::read_to_string(doc).unwrap();
        for link in relative_links(&text) {
            let target = doc.parent().unwrap().join(&link);
            if !target.exists() {
                broken.push(format!("{}: {link}", doc.strip_prefix(&root).unwrap_or(doc).display()));
            }
        }
    }
    assert!(broken.is_empty(), "links that lead nowhere on a code host: {broken:#?}");
    // A guide page that only includes a document (which a code host does not expand) links
    // to that document, so that a reader following the guide's links there reaches it.
    for stub in &stubs {
        let text = std::fs::read_to_string(stub).unwrap();
        let included = text
            .split("{{#include ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{} includes nothing", stub.display()))
            .to_owned();
        assert!(
            relative_links(&text).contains(&included),
            "{}: no link a code host shows to {included}: {text}",
            stub.display()
        );
    }
}

#[test]
fn the_protocols_seed_recipe_for_doubles_gives_the_seeds_64_bits() {
    // The two-halves fold of protocol.md (`hello`), in doubles as Lua 5.1, PHP or Perl
    // compute it, against the seed read as an unsigned 64-bit integer.
    let protocol = std::fs::read_to_string(repo().join("protocol.md")).unwrap();
    let recipe = "`lo = lo * 10 + d; hi = (hi * 10 + floor(lo / 2^32)) % 2^32; lo = lo % 2^32`";
    assert!(protocol.contains(recipe), "protocol.md gives the recipe tested here");
    assert!(protocol.contains("`s = s * 10 + d`, modulo 2^64"));
    let mut rng = stratego_protocol::Rng::new(46);
    let mut seeds: Vec<u64> = (0..2000).map(|_| rng.next_u64()).collect();
    seeds.extend([0, 1, (1 << 53) + 1, (1 << 63) - 1, 1 << 63, u64::MAX]);
    let two32 = 4_294_967_296.0_f64;
    for seed in seeds {
        let (mut hi, mut lo) = (0.0_f64, 0.0_f64);
        let mut wrapped = 0u64;
        for d in seed.to_string().bytes().map(|b| f64::from(b - b'0')) {
            lo = lo * 10.0 + d;
            hi = (hi * 10.0 + (lo / two32).floor()) % two32;
            lo %= two32;
            wrapped = wrapped.wrapping_mul(10).wrapping_add(d as u64);
        }
        assert_eq!((hi as u64) << 32 | lo as u64, seed, "the halves of {seed}");
        assert_eq!(wrapped, seed, "the wrapping fold of {seed}");
    }
}

#[test]
fn the_starter_bots_are_the_files_with_a_where_to_add_mark_and_the_examples_are_told_apart() {
    let root = repo();
    let readme = std::fs::read_to_string(root.join("examples/README.md")).unwrap();
    let starters = readme.split("## Starter bots").nth(1).unwrap().split("\n## ").next().unwrap();
    let mut listed = 0;
    for row in starters.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| language")) {
        let file = row.split('`').nth(1).unwrap();
        let path = root.join("examples").join(file);
        let text = if path.is_dir() {
            std::fs::read_to_string(path.join("src/main.rs")).unwrap()
        } else {
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"))
        };
        assert!(text.contains("WHERE TO ADD YOUR STRATEGY"), "{file} is listed as a starter but has no mark");
        listed += 1;
    }
    assert_eq!(listed, 5, "{starters}");
    for policy in ["examples/python/bot.py", "examples/javascript/bot.js"] {
        let text = std::fs::read_to_string(root.join(policy)).unwrap();
        assert!(!text.contains("WHERE TO ADD"), "{policy}");
    }
    let guide = std::fs::read_to_string(root.join("docs/src/writing-a-bot.md")).unwrap();
    let starter = guide.lines().find(|l| l.contains("**A starter bot in your language**")).unwrap();
    assert!(!starter.contains("Python") && !starter.contains("JavaScript"), "{starter}");
}

// Item 11: `info` lines: the first and the last ones, each with its ply, the count dropped;
// the viewer gets their plies; the bot's stderr stands in the protocol log.

#[test]
fn info_lines_keep_the_last_ones_with_their_plies_and_stderr_is_in_the_protocol_log() {
    let dir = TempDir::new("author-info");
    // Ten info lines a turn, and a line of stderr, then it crashes at its turn of ply 60 or
    // later: its last words are what an author needs.
    let bot = python_bot(
        &dir,
        "chatty.py",
        r#"import json, sys
n = 0
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        print(json.dumps({"type": "ready", "name": "chatty"}), flush=True)
    elif t == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        print(json.dumps({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))}), flush=True)
    elif t == "turn":
        if m["ply"] >= 20:
            print(f"giving up at ply {m['ply']}", file=sys.stderr, flush=True)
            sys.exit(7)
        for k in range(25):
            print(json.dumps({"type": "info", "text": f"line {n} at ply {m['ply']}"}), flush=True)
            n += 1
        print(f"stderr at ply {m['ply']}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]}), flush=True)
"#,
    );
    let out_dir = dir.join("out");
    let log = dir.join("protocol.log");
    let mut args = vec!["match".to_owned(), bot, "sample-bot --strategy random".into()];
    args.extend(
        [
            "--games",
            "1",
            "--rules",
            "classic",
            "--seed",
            "3",
            "--out",
            out_dir.to_str().unwrap(),
            "--log-protocol",
            log.to_str().unwrap(),
        ]
        .map(String::from),
    );
    args.extend(CALM_CLOCK.map(String::from));
    let out = Command::new(host_bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let recs = records(&out_dir);
    let r = &recs[0];
    let color = if r["bots"]["red"]["name"] == "chatty" { "red" } else { "blue" };
    let me = &r["bots"][color];
    assert_eq!(r["result"]["reason"], "crash", "{r}");
    let info: Vec<&str> = me["info"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let plies: Vec<u64> =
        me["info_plies"].as_array().expect("info_plies").iter().map(|p| p.as_u64().unwrap()).collect();
    let turns = r["plies"].as_array().unwrap().len() as u64;
    // Its turns before ply 20: 10 of them, 25 lines each. (It gives up before ply 22, where
    // the random bot's Scout found its Flag in the run that moved this from ply 60.)
    let sent = 25 * 10;
    assert_eq!(info.len(), 200, "{info:?}");
    assert_eq!(plies.len(), info.len());
    assert_eq!(me["info_dropped"].as_u64(), Some(sent - 200), "{me}");
    assert_eq!(info[0], "line 0 at ply 0");
    assert_eq!(info[99], format!("line 99 at ply {}", 2 * (99 / 25) + u64::from(color == "blue")));
    // It crashed at its turn of ply `turns`: its last answered turn was two plies before.
    assert_eq!(info[199], format!("line {} at ply {}", sent - 1, turns - 2), "the last line before the crash");
    for (text, ply) in info.iter().zip(&plies) {
        assert!(text.ends_with(&format!(" at ply {ply}")), "{text} recorded at ply {ply}");
    }
    // The bot's stderr, in the protocol log between the turn it was written at and its move.
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.split_whitespace().nth(1) == Some("chatty")).collect();
    // Its stderr and stdout are two pipes: the line stands after the turn it was written at
    // and before the bot's next turn (the host waits for the opponent in between).
    let p = if color == "red" { 10 } else { 11 };
    let turn = |ply: u32| {
        lines
            .iter()
            .position(|l| l.contains(r#" > {"type":"turn""#) && l.contains(&format!(r#""ply":{ply},"#)))
            .unwrap_or_else(|| panic!("the turn of ply {ply}"))
    };
    let at = lines.iter().position(|l| l.ends_with(&format!(" ! stderr at ply {p}"))).expect("the stderr line");
    assert!(turn(p) < at && at < turn(p + 2), "{:#?}", &lines[turn(p)..=turn(p + 2)]);
    assert!(lines.iter().any(|l| l.contains(" ! giving up at ply ")), "its last words");
    // The viewer page carries each line's ply (it shows a move's lines beside the move).
    let html = dir.join("game.html");
    let export = host(&["export", out_dir.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    // Its first turn's 25 lines, then its second turn's.
    let first = u64::from(color == "blue");
    let data = format!(r#""info_plies":[{},{}"#, vec![first.to_string(); 25].join(","), first + 2);
    assert!(page.contains(&data), "the viewer's data has {data}");
    assert!(page.contains(&format!(r#""info_dropped":{}"#, sent - 200)));
}
