//! A bot named by its own `ready.name` (issue #44, item 14): a new event asks each bot whose
//! name was not given, at its one start before the first game, and takes the answer when it
//! is valid and free; the name goes into the plan, the manifest, the records and the
//! reports, and a rerun on the directory takes it from the manifest instead of asking again.
//! `--names-from-commands` (`names_from_commands = true`) keeps the names of the commands.
//!
//! Real host binary, real bot processes (the Python and JavaScript examples, a Python bot
//! written here that answers the name it is given), real files; a real `kill -9`. Clocks
//! are calm ([`CALM_CLOCK`], and start-up and setup limits of a minute).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use stratego_tests::{CALM_CLOCK, CALM_MOVE_TIME, TempDir, host_bin, names_in, records, wait_for};

/// A bot that answers `name=NAME` (default `named-bot`) as its `ready.name`; with
/// `count=1`, `gen-N` at its N-th start (counted in `DIR/starts`, `dir=DIR`); with
/// `hostile=ctrl`, a name with terminal controls, with `hostile=long`, 10 KB. It plays the
/// first legal move; in game 3 it waits at its turn while `DIR/block` exists (and leaves
/// when its host is gone).
const NAME_BOT: &str = r#"import sys, json, os, time
args = dict(a.split("=", 1) for a in sys.argv[1:])
d = args.get("dir", "")
def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()
name = args.get("name", "named-bot")
if args.get("count") == "1":
    p = os.path.join(d, "starts")
    n = int(open(p).read()) + 1 if os.path.exists(p) else 1
    open(p, "w").write(str(n))
    name = "gen-%d" % n
if args.get("hostile") == "ctrl":
    name = "\x1b]0;pwned\x07evil\x1b[2J"
if args.get("hostile") == "long":
    name = "A" * 10240
parent, game = os.getppid(), ""
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        game = m["game_id"]
        send({"type": "ready", "name": name})
    elif t == "setup_request":
        army = [r for r, k in m["pieces"].items() for _ in range(k)]
        send({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))})
    elif t == "turn":
        while d and game.endswith("-3") and os.path.exists(os.path.join(d, "block")):
            if os.getppid() != parent:
                sys.exit(0)
            time.sleep(0.05)
        send({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]})
    elif t == "quit":
        break
"#;

/// [`NAME_BOT`] written into `dir`, as a command line with `args`.
fn name_bot(dir: &TempDir, args: &[&str]) -> String {
    let path = dir.join("name_bot.py");
    if !path.exists() {
        std::fs::write(&path, NAME_BOT).unwrap();
    }
    let mut command = format!("python3 {}", path.display());
    for a in args {
        command.push_str(&format!(" '{a}'"));
    }
    command
}

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(path).display().to_string()
}

const CALM_START: [&str; 4] = ["--startup-time", CALM_MOVE_TIME, "--setup-time", CALM_MOVE_TIME];

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).args(CALM_CLOCK).args(CALM_START).output().expect("run stratego-host")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The names of the plan in `dir/manifest.json`, by id.
fn manifest_names(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("a manifest");
    let m: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    m["plan"]["bots"].as_array().expect("bots").iter().map(|b| b["name"].as_str().unwrap().to_owned()).collect()
}

fn out_arg(dir: &Path) -> String {
    dir.display().to_string()
}

/// The Python and JavaScript examples and a bot answering `Named Bot` play under the names
/// they answer, in the records, the manifest and `--json`, and stderr says where each name
/// came from (before: `bot`, `bot-javascript` and `name_bot`, from their commands).
#[test]
fn the_examples_and_a_named_bot_go_by_their_ready_names() {
    let tmp = TempDir::new("naming-ready");
    let out = tmp.join("out");
    let named = name_bot(&tmp, &["name=Named Bot"]);
    let (python, javascript) =
        (format!("python3 {}", example("python/bot.py")), format!("node {}", example("javascript/bot.js")));
    let run = host(&[
        "tournament",
        "--bot",
        &python,
        "--bot",
        &javascript,
        "--bot",
        &named,
        "--games",
        "2",
        "--max-plies",
        "2",
        "--seed",
        "5",
        "--no-html",
        "--json",
        "--out",
        &out_arg(&out),
    ]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let expected = ["python-example", "javascript-example", "Named Bot"];
    assert_eq!(manifest_names(&out), expected, "{stderr}");
    let mut sorted = expected.map(String::from).to_vec();
    sorted.sort();
    assert_eq!(names_in(&out), sorted);
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("--json prints JSON");
    for name in expected {
        assert!(json.to_string().contains(&format!("\"{name}\"")), "{name} in --json: {stdout}");
    }
    assert!(!json.to_string().contains("\"bot-javascript\""), "{stdout}");
    assert!(
        stderr.contains("stratego-host: bot 1: \"python-example\" (its ready.name; its command names it bot)"),
        "{stderr}"
    );
    assert!(stderr.contains("bot 3: \"Named Bot\" (its ready.name; its command names it name_bot)"), "{stderr}");
}

/// Two bots answering the same name both keep the names of their commands, and stderr says
/// why (before: no word of it).
#[test]
fn two_bots_answering_one_name_keep_their_command_names() {
    let tmp = TempDir::new("naming-twins");
    let out = tmp.join("out");
    let (a, b) = (name_bot(&tmp, &["name=twin", "x=1"]), name_bot(&tmp, &["name=twin", "x=2"]));
    let run = host(&["match", &a, &b, "--games", "2", "--max-plies", "2", "--no-html", "--out", &out_arg(&out)]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let names = manifest_names(&out);
    assert!(!names.iter().any(|n| n == "twin"), "{names:?}");
    assert_eq!(names[0], "name_bot", "{names:?}");
    assert!(names[1].starts_with("name_bot-"), "{names:?}");
    assert_eq!(stderr.matches("its ready.name \"twin\" is another bot's answer too").count(), 2, "{stderr}");
}

/// A name with terminal controls and a name of 10 KB are refused (the bots keep the names of
/// their commands), and neither reaches stderr raw (before: no word, and no check).
#[test]
fn hostile_names_are_refused_and_shown_escaped() {
    let tmp = TempDir::new("naming-hostile");
    let out = tmp.join("out");
    let (ctrl, long) = (name_bot(&tmp, &["hostile=ctrl"]), name_bot(&tmp, &["hostile=long"]));
    let run = host(&["match", &ctrl, &long, "--games", "2", "--max-plies", "2", "--no-html", "--out", &out_arg(&out)]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let names = manifest_names(&out);
    assert_eq!(names[0], "name_bot", "{names:?}");
    assert!(names[1].starts_with("name_bot-") && names[1].len() < 40, "{names:?}");
    assert!(stderr.contains("is refused: it holds control or bidirectional characters"), "{stderr}");
    assert!(stderr.contains("is refused: 10240 characters, more than 40"), "{stderr}");
    assert!(stderr.contains("\\x1b]0;pwned\\x07evil"), "shown escaped: {stderr}");
    assert!(!stderr.contains('\u{1b}') && !stderr.contains('\u{7}'), "no raw control reaches stderr: {stderr:?}");
    assert!(stderr.len() < 4000, "the 10 KB name is clipped: {} bytes", stderr.len());
}

/// A bot that answers another name at each start (`gen-N`) keeps the one it gave when the
/// event began: the host is killed (`kill -9`) in game 3, and the rerun of the same command
/// takes the name from the manifest without asking again (before: `name_bot`).
#[test]
fn a_resume_after_kill_9_does_not_ask_again() {
    let tmp = TempDir::new("naming-resume");
    let out = tmp.join("out");
    std::fs::write(tmp.join("block"), "").unwrap();
    let dir_arg = format!("dir={}", tmp.0.display());
    let counting = name_bot(&tmp, &["count=1", &dir_arg]);
    let args = [
        "match",
        &counting,
        "sample-bot",
        "--games",
        "4",
        "--max-plies",
        "4",
        "--seed",
        "9",
        "--no-html",
        "--out",
        &out_arg(&out),
    ];
    let mut first = Command::new(host_bin())
        .args(args)
        .args(CALM_CLOCK)
        .args(CALM_START)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let games = out.join("games.jsonl");
    let two = || std::fs::read_to_string(&games).is_ok_and(|t| t.lines().count() >= 2);
    assert!(wait_for(Duration::from_secs(120), two), "two games recorded");
    first.kill().unwrap(); // SIGKILL
    let _ = first.wait();
    let mut stderr = String::new();
    std::io::Read::read_to_string(first.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("bot 1: \"gen-1\" (its ready.name"), "{stderr}");
    std::fs::remove_file(tmp.join("block")).unwrap();
    let again = host(&args);
    let stderr = text(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    assert!(stderr.contains("bot 1: \"gen-1\" (kept from"), "{stderr}");
    assert!(!stderr.contains("its ready.name"), "not asked again: {stderr}");
    assert_eq!(manifest_names(&out)[0], "gen-1");
    assert_eq!(names_in(&out), ["gen-1", "sample-bot-heuristic"]);
    assert_eq!(records(&out).len(), 4);
}

/// `--names-from-commands`, and `names_from_commands = true` in a tournament file, keep the
/// names of the commands, and ask nothing (before: an unknown flag and an unknown key).
#[test]
fn names_from_commands_keeps_the_command_names() {
    let tmp = TempDir::new("naming-commands");
    let (python, javascript) =
        (format!("python3 {}", example("python/bot.py")), format!("node {}", example("javascript/bot.js")));
    let out = tmp.join("flag");
    let run = host(&[
        "match",
        &python,
        &javascript,
        "--games",
        "2",
        "--max-plies",
        "2",
        "--no-html",
        "--names-from-commands",
        "--out",
        &out_arg(&out),
    ]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(manifest_names(&out), ["bot", "bot-javascript"]);
    assert!(!stderr.contains("ready.name"), "{stderr}");
    let file: PathBuf = tmp.join("event.toml");
    let out = tmp.join("file");
    std::fs::write(
        &file,
        format!(
            "names_from_commands = true\nmax_plies = 2\nno_html = true\nout = {:?}\n\n[[bot]]\ncommand = {python:?}\n\n[[bot]]\ncommand = {javascript:?}\n",
            out.display()
        ),
    )
    .unwrap();
    let run = host(&["tournament", file.to_str().unwrap()]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert_eq!(manifest_names(&out), ["bot", "bot-javascript"]);
    assert!(!stderr.contains("ready.name"), "{stderr}");
}
