//! Remote entrants first-class (issue 45), for real on 127.0.0.1: the real host listening
//! (`--listen`), real `connect` clients and bots, and in between a proxy that cuts the
//! connection, or a `connect` killed with SIGKILL and started again.
//!
//! - a lost connection comes back within the bot's time away in every time control (per
//!   move and bank), its clock paused while it is away, the time away recorded and bounded
//!   per game and per event;
//! - `connect` says a line per game, a summary, keeps a protocol log and the bot's stderr,
//!   shares its stderr tail only when told to, and exits with a code that says how the
//!   event went for the bot;
//! - a `multi_game` bot keeps its process across remote games, and a `"view": "moves"`
//!   bot whose process outlived a cut connection keeps its board (nothing sent twice).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stratego_tests::remote::{Client, book, frame, remote_match, sample_bot, token};
use stratego_tests::{TempDir, bin, records, wait_for};

/// What a [`cutting_proxy`] does.
#[derive(Debug)]
struct Cut {
    /// The host's `turn` frames seen so far.
    turns: u32,
    /// Cut at these turns (the turn is not passed on: the bot never gets it).
    at: Vec<u32>,
    /// After a cut, new connections are closed at once for this long.
    down_for: Duration,
    down_until: Option<Instant>,
    /// Cuts made.
    cuts: u32,
    /// Pass the turn on before cutting (the bot has it), rather than drop it.
    deliver: bool,
}

impl Cut {
    /// Cut at turn `at`, down for `down_for`; the turn delivered or not.
    fn at(at: u32, down_for: Duration, deliver: bool) -> Arc<Mutex<Cut>> {
        Arc::new(Mutex::new(Cut { turns: 0, at: vec![at], down_for, down_until: None, cuts: 0, deliver }))
    }
}

/// A TCP proxy on 127.0.0.1 in front of the host's port `to` that reads the host's
/// WebSocket frames and, at the turns in `cut.at`, drops that turn and cuts the connection
/// (both TCP connections shut down, as a network that fails does), then closes every new
/// connection at once for `cut.down_for`: the `connect` client behind it (its bot process
/// still running) keeps trying until it is through again. Returns its port.
fn cutting_proxy(to: u16, cut: Arc<Mutex<Cut>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for inbound in listener.incoming() {
            let Ok(inbound) = inbound else { continue };
            if cut.lock().unwrap().down_until.is_some_and(|t| Instant::now() < t) {
                drop(inbound);
                continue;
            }
            let Ok(outbound) = TcpStream::connect(("127.0.0.1", to)) else { continue };
            let _ = inbound.set_nodelay(true);
            let _ = outbound.set_nodelay(true);
            // Set before a turn is delivered and the connection cut: nothing of the bot's
            // passes from then on, however the threads are scheduled.
            let dead = Arc::new(std::sync::atomic::AtomicBool::new(false));
            // Bot to host: bytes as they come.
            {
                let (mut from, mut into) = (inbound.try_clone().unwrap(), outbound.try_clone().unwrap());
                let dead = dead.clone();
                std::thread::spawn(move || {
                    let mut chunk = vec![0u8; 64 * 1024];
                    while let Ok(n) = from.read(&mut chunk) {
                        if n == 0
                            || dead.load(std::sync::atomic::Ordering::SeqCst)
                            || into.write_all(&chunk[..n]).is_err()
                        {
                            break;
                        }
                    }
                    let _ = into.shutdown(Shutdown::Write);
                });
            }
            // Host to bot: frame by frame, cutting at a turn asked for.
            let cut = cut.clone();
            std::thread::spawn(move || {
                let (mut from, mut into) = (outbound, inbound);
                let mut buf = Vec::new();
                let mut chunk = vec![0u8; 64 * 1024];
                let mut in_head = true;
                while let Ok(n) = from.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if in_head {
                        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                        if into.write_all(&buf[..end + 4]).is_err() {
                            return;
                        }
                        buf.drain(..end + 4);
                        in_head = false;
                    }
                    while let Some((len, opcode, payload)) = frame(&buf) {
                        let bytes: Vec<u8> = buf.drain(..len).collect();
                        if opcode == 1 && payload.starts_with(br#"{"type":"turn""#) {
                            let mut c = cut.lock().unwrap();
                            c.turns += 1;
                            if c.at.contains(&c.turns) {
                                c.cuts += 1;
                                dead.store(true, std::sync::atomic::Ordering::SeqCst);
                                if c.deliver {
                                    let _ = into.write_all(&bytes);
                                }
                                c.down_until = Some(Instant::now() + c.down_for);
                                let _ = into.shutdown(Shutdown::Both);
                                let _ = from.shutdown(Shutdown::Both);
                                return;
                            }
                        }
                        if into.write_all(&bytes).is_err() {
                            return;
                        }
                    }
                }
                let _ = into.shutdown(Shutdown::Write);
            });
        }
    });
    port
}

/// The misbehaving test bot's command line with `args`.
fn misbehaving_bot(args: &[&str]) -> Vec<String> {
    std::iter::once(bin("misbehaving-bot").display().to_string()).chain(args.iter().map(|a| a.to_string())).collect()
}

/// The side the bot named `name` played in record `r`.
fn side_of(r: &serde_json::Value, name: &str) -> &'static str {
    if r["bots"]["red"]["name"] == name { "red" } else { "blue" }
}

/// How a remote bot is taken away from its game.
#[derive(Clone, Copy, Debug)]
enum Away {
    /// A proxy cuts its connection at its third turn (its bot process keeps running behind
    /// its `connect`), and lets nobody through for 10 s.
    Cut,
    /// Its `connect` (with a bot that never answers its third turn) is killed with SIGKILL
    /// at that turn; a new `connect`, with the sample bot, starts 10 s later.
    Kill9,
}

/// How long a bot is kept away: longer than any move limit of these tests (8 s), so that a
/// host that waits only for the rest of the move loses the game.
const DOWN: Duration = Duration::from_secs(10);

/// A game of 40 plies between the sample bot and remote bot `far` (its clock `clock`, a
/// spec's keys), taken away as `away` says: the record, and the host's stderr.
fn away_and_back(dir: &TempDir, what: &str, clock: &str, away: Away, extra: &[&str]) -> (serde_json::Value, String) {
    let (tf, sha) = token(dir, what);
    let out = dir.join(what);
    let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}",{clock}}}"#);
    let book = book();
    let mut args = vec!["--max-plies", "40", "--setups", &book, "-j", "1"];
    args.extend(extra);
    let host = remote_match(&spec, 1, &out, &args);
    match away {
        Away::Cut => {
            let cut = Cut::at(3, DOWN, false);
            let proxy = cutting_proxy(host.port, cut.clone());
            let client =
                Client::start_with(&format!("ws://127.0.0.1:{proxy}"), &tf, &["--retry-s", "60"], &sample_bot());
            let (code, stdout, stderr) = host.finish(Duration::from_secs(180));
            assert_eq!(code, 0, "{what}: {stdout}{stderr}");
            drop(client);
            assert_eq!(cut.lock().unwrap().cuts, 1, "{what}: the proxy cut once");
            (records(&out).remove(0), stderr)
        }
        Away::Kill9 => {
            let log = dir.join(&format!("{what}.log"));
            let hung = misbehaving_bot(&["--misbehave", "move-timeout", "--at", "3", "--log", log.to_str().unwrap()]);
            let first = Client::start(&host.url(), &tf, &hung);
            let third_turn = || std::fs::read_to_string(&log).is_ok_and(|l| l.matches(r#""type":"turn""#).count() == 3);
            assert!(wait_for(Duration::from_secs(60), third_turn), "{what}: {}", host.stderr());
            drop(first); // SIGKILL, mid-move
            assert!(
                wait_for(Duration::from_secs(30), || host.stderr().contains("lost its connection")),
                "{what}: {}",
                host.stderr()
            );
            std::thread::sleep(DOWN);
            let second = Client::start(&host.url(), &tf, &sample_bot());
            let (code, stdout, stderr) = host.finish(Duration::from_secs(180));
            assert_eq!(code, 0, "{what}: {stdout}{stderr}");
            drop(second);
            (records(&out).remove(0), stderr)
        }
    }
}

/// The game went on to its end, the bot away about [`DOWN`] (recorded as `away_us`), and
/// none of that time charged to any of its moves (each well under `charged_below`).
fn assert_came_back(what: &str, r: &serde_json::Value, charged_below: Duration) {
    assert_eq!(r["result"]["reason"], "ply_limit", "{what}: the game went on: {}", r["result"]);
    let far = side_of(r, "far");
    let away = r["bots"][far]["away_us"].as_u64().unwrap_or(0);
    for p in r["plies"].as_array().unwrap().iter().filter(|p| p["color"] == far) {
        let t = p["time_us"].as_u64().unwrap();
        assert!(t < charged_below.as_micros() as u64, "{what}: ply {} charged {t} µs (away {away} µs)", p["ply"]);
    }
    assert!(away >= (DOWN.as_micros() as u64) * 9 / 10, "{what}: away {away} µs, down {DOWN:?}");
    let note = r["bots"][far]["process_note"].as_str().unwrap_or_default();
    // Behind the proxy its process ran on (resumed); after kill -9 a fresh one was greeted.
    let how = if what == "cut" { "its process kept: resumed" } else { "not on its clock" };
    assert!(note.contains("connection lost") && note.contains(how), "{what}: {note}");
}

#[test]
fn with_a_per_move_clock_a_bot_cut_off_or_killed_mid_move_comes_back_and_its_clock_paused_meanwhile() {
    let dir = TempDir::new("remote2-per-move");
    // 8 s a move: what a host that waited only for the rest of the move gave it, less than
    // the 10 s it is away; the sample bot's moves take milliseconds.
    let clock = r#""move_time":8"#;
    let runs: Vec<_> = [("cut", Away::Cut), ("kill9", Away::Kill9)]
        .into_iter()
        .map(|(what, away)| {
            let dir = TempDir(dir.join(what));
            std::fs::create_dir_all(&dir.0).unwrap();
            std::thread::spawn(move || {
                let (r, stderr) = away_and_back(&dir, what, clock, away, &["--reconnect-s", "40"]);
                std::mem::forget(dir);
                (what, r, stderr)
            })
        })
        .collect();
    for run in runs {
        let (what, r, stderr) = run.join().unwrap();
        assert_came_back(what, &r, Duration::from_secs(8));
        assert!(stderr.contains("waiting") && stderr.contains("for it to come back"), "{what}: {stderr}");
    }
}

#[test]
fn with_a_bank_clock_the_time_away_is_not_charged_to_the_bank() {
    let dir = TempDir::new("remote2-bank");
    // 30 s of bank and 0.1 s a move: the 10 s away fit in the bank, and a host that ran
    // the clock while the bot was away charged them to the move it was asked for.
    let clock = r#""tc":"30+0.1""#;
    let runs: Vec<_> = [("cut", Away::Cut), ("kill9", Away::Kill9)]
        .into_iter()
        .map(|(what, away)| {
            let dir = TempDir(dir.join(what));
            std::fs::create_dir_all(&dir.0).unwrap();
            std::thread::spawn(move || {
                let (r, _) = away_and_back(&dir, what, clock, away, &["--reconnect-s", "40"]);
                std::mem::forget(dir);
                (what, r)
            })
        })
        .collect();
    for run in runs {
        let (what, r) = run.join().unwrap();
        // Charged well under the time away: none of it fell on the move.
        assert_came_back(what, &r, DOWN / 2);
        let far = side_of(&r, "far");
        let bank_ms = r["bots"][far]["clock_ms"].as_u64().unwrap();
        assert!(bank_ms > 25_000, "{what}: {bank_ms} ms of bank left");
    }
}

#[test]
fn the_time_away_is_bounded_per_game_and_per_event() {
    let dir = TempDir::new("remote2-budget");
    let clock = r#""move_time":8"#;
    // 10 s away: past a game's 3 s, and past an event's 3 s when the game's is larger.
    for (what, flags, names) in [
        ("game", ["--reconnect-s", "3", "--reconnect-event-s", "60"], "--reconnect-s 3.0 s"),
        ("event", ["--reconnect-s", "40", "--reconnect-event-s", "3"], "--reconnect-event-s 3.0 s"),
    ] {
        let (r, _) = away_and_back(&dir, what, clock, Away::Cut, &flags);
        let far = side_of(&r, "far");
        assert_eq!(r["result"]["reason"], "disconnected", "{what}: {}", r["result"]);
        assert_ne!(r["result"]["winner"], far, "{what}");
        let message = r["result"]["message"].as_str().unwrap();
        assert!(message.contains("did not come back") && message.contains(names), "{what}: {message}");
        // What it was away is recorded: about the budget, not the whole 10 s.
        let away = r["bots"][far]["away_us"].as_u64().unwrap_or(0);
        assert!((2_900_000..8_000_000).contains(&away), "{what}: away {away} µs");
    }
}

/// Lines of `log` (a bot's log of what it read) of message type `t`.
fn count(log: &std::path::Path, t: &str) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().matches(&format!(r#""type":"{t}""#)).count()
}

#[test]
fn a_moves_view_bot_whose_process_outlived_a_cut_connection_keeps_its_board_and_is_greeted_once() {
    let dir = TempDir::new("remote2-keep-board");
    let book = book();
    // Dropped: the turn never reached it (its clock paused while away). Delivered: it had
    // the turn and answered into the dead connection (its clock ran while away: no free
    // thinking time), and its answer is the one taken.
    for (what, deliver, clock) in [("dropped", false, r#""move_time":60"#), ("delivered", true, r#""tc":"60+0.1""#)] {
        let (tf, sha) = token(&dir, what);
        let out = dir.join(what);
        let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}",{clock}}}"#);
        let host = remote_match(&spec, 1, &out, &["--max-plies", "40", "--setups", &book, "--reconnect-s", "40"]);
        let cut = Cut::at(3, Duration::from_secs(3), deliver);
        let proxy = cutting_proxy(host.port, cut.clone());
        // It keeps its own board and exits (a crash) when what it is told does not fit it;
        // it logs every line it reads.
        let log = dir.join(&format!("{what}.log"));
        let bot = misbehaving_bot(&["--view-moves", "--log", log.to_str().unwrap()]);
        let client = Client::start_with(&format!("ws://127.0.0.1:{proxy}"), &tf, &["--retry-s", "60"], &bot);
        let (code, stdout, stderr) = host.finish(Duration::from_secs(180));
        assert_eq!(code, 0, "{what}: {stdout}{stderr}");
        drop(client);
        assert_eq!(cut.lock().unwrap().cuts, 1, "{what}");
        let r = &records(&out)[0];
        assert_eq!(r["result"]["reason"], "ply_limit", "{what}: {}\n{stderr}", r["result"]);
        // One process, greeted once, its setup asked once: nothing sent twice, nothing
        // rebuilt, and its board fitted every turn to the end.
        assert_eq!(count(&log, "hello"), 1, "{what}");
        assert_eq!(count(&log, "setup_request"), 1, "{what}");
        assert_eq!(count(&log, "turn"), 20, "{what}: each of its turns read once");
        let far = side_of(r, "far");
        let note = r["bots"][far]["process_note"].as_str().unwrap_or_default();
        assert!(note.contains("its process kept: resumed"), "{what}: {note}");
        let away = r["bots"][far]["away_us"].as_u64().unwrap_or(0);
        assert!(away >= 2_700_000, "{what}: away {away} µs");
        if deliver {
            // The move it was thinking on when the connection went was charged the time away.
            let moves: Vec<u64> = r["plies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["color"] == far)
                .map(|p| p["time_us"].as_u64().unwrap())
                .collect();
            assert!(moves[2] >= 2_700_000, "{what}: its third move charged {} µs", moves[2]);
        }
    }
}

/// `connect URL --token-file F OPTIONS -- BOT` with its stdout and stderr kept: its exit
/// code, stdout and stderr once it exits (at most `limit`).
fn connect_output(
    url: &str,
    tf: &std::path::Path,
    options: &[&str],
    bot: &[String],
    limit: Duration,
) -> (i32, String, String) {
    let mut child = std::process::Command::new(stratego_tests::host_bin())
        .args(["connect", url, "--token-file", tf.to_str().unwrap()])
        .args(options)
        .arg("--")
        .args(bot)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("connect did not exit within {limit:?}: {}", e.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), o.join().unwrap(), e.join().unwrap())
}

#[test]
fn a_multi_game_bot_keeps_one_process_across_its_remote_games() {
    let dir = TempDir::new("remote2-multi");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let pids = dir.join("pids");
    // The Python example says multi_game; its wrapper notes each process started.
    let bot_py = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/bot.py");
    let script = format!("echo $$ >> {}; exec python3 {}", pids.display(), bot_py.display());
    let bot = vec!["sh".to_owned(), "-c".to_owned(), script];
    let book = book();
    let host = remote_match(
        &format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#),
        3,
        &out,
        &["--max-plies", "20", "--setups", &book, "-j", "1"],
    );
    let url = host.url();
    let connect =
        std::thread::spawn(move || connect_output(&url, &tf, &["--retry-s", "30"], &bot, Duration::from_secs(240)));
    let (code, stdout, stderr) = host.finish(Duration::from_secs(240));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (ccode, cout, cerr) = connect.join().unwrap();
    let recs = records(&out);
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
        let far = side_of(r, "far");
        assert!(r["bots"][far]["exit"].as_str().unwrap().contains("kept for its next game"), "{}", r["bots"][far]);
    }
    assert_eq!(stratego_tests::read_pids(&pids).len(), 1, "one process for three games: {cerr}");
    // It was told the event is over (`quit`) and ended by itself: connect's exit is clean.
    assert_eq!(ccode, 0, "{cout}{cerr}");
    assert!(cout.starts_with("3 games: 0 won, 3 drawn, 0 lost"), "{cout}");
}

#[test]
fn connect_says_each_game_keeps_logs_shares_the_stderr_tail_only_when_told_and_exits_saying_how_it_went() {
    let dir = TempDir::new("remote2-connect-output");
    let book = book();
    // Its first process dies at its second turn, after a last word on stderr; every later
    // one is the sample bot.
    let first = dir.join("first-done");
    let crash = misbehaving_bot(&["--misbehave", "exit-1", "--at", "2", "--stderr-at", "last words from the bot"]);
    let script = format!(
        "if [ -e {f} ]; then exec \"$0\" sample-bot; fi; touch {f}; exec {}",
        crash.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(" "),
        f = first.display()
    );
    let bot = vec!["sh".to_owned(), "-c".to_owned(), script, stratego_tests::host_bin().display().to_string()];
    for share in [true, false] {
        let _ = std::fs::remove_file(&first);
        let what = if share { "shared" } else { "kept" };
        let (tf, sha) = token(&dir, what);
        let out = dir.join(what);
        let (plog, errlog) = (dir.join(&format!("{what}.protocol")), dir.join(&format!("{what}.stderr")));
        let host = remote_match(
            &format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#),
            2,
            &out,
            &["--max-plies", "20", "--setups", &book, "-j", "1"],
        );
        let mut options =
            vec!["--retry-s", "30", "--log-protocol", plog.to_str().unwrap(), "--bot-stderr", errlog.to_str().unwrap()];
        if share {
            options.push("--share-stderr-tail");
        }
        let (url, bot, options): (String, Vec<String>, Vec<String>) =
            (host.url(), bot.clone(), options.iter().map(|s| s.to_string()).collect());
        let connect = std::thread::spawn(move || {
            let options: Vec<&str> = options.iter().map(String::as_str).collect();
            connect_output(&url, &tf, &options, &bot, Duration::from_secs(240))
        });
        let (code, stdout, stderr) = host.finish(Duration::from_secs(240));
        assert_eq!(code, 0, "{what}: {stdout}{stderr}");
        let (ccode, cout, cerr) = connect.join().unwrap();
        let mut recs = records(&out);
        recs.sort_by_key(|r| r["index"].as_u64());
        assert_eq!(recs[0]["result"]["reason"], "crash", "{what}: {}", recs[0]["result"]);
        assert_eq!(recs[1]["result"]["reason"], "ply_limit", "{what}: {}", recs[1]["result"]);
        // A line per game as it ended, with its opponent, colour and result.
        let g = |i: usize| recs[i]["game_id"].as_str().unwrap().to_owned();
        let colour = |i: usize| side_of(&recs[i], "far");
        let crash_line = format!(
            "game {} vs sample-bot-heuristic as {}: lost on this side (the bot's program ended mid-game (exit status 1))",
            g(0),
            colour(0)
        );
        assert!(cerr.contains(&crash_line), "{what}: {crash_line:?} in\n{cerr}");
        let draw_line = format!("game {} vs sample-bot-heuristic as {}: draw (ply_limit)", g(1), colour(1));
        assert!(cerr.contains(&draw_line), "{what}: {draw_line:?} in\n{cerr}");
        // The summary, and an exit code that says the bot forfeited a game.
        assert!(
            cout.starts_with("2 games: 0 won, 1 drawn, 1 lost (1 by a fault of the bot), 0 without a result seen"),
            "{what}: {cout}"
        );
        assert_eq!(ccode, 3, "{what}: {cout}{cerr}");
        // The protocol log: both ways, every game.
        let p = std::fs::read_to_string(&plog).unwrap();
        assert_eq!(p.matches(r#" host>bot {"type":"hello""#).count(), 2, "{what}: {p}");
        assert_eq!(p.matches(r#" bot>host {"type":"ready""#).count(), 2, "{what}: {p}");
        // Its stderr: in the local file always; in the organiser's record only when shared.
        assert!(std::fs::read_to_string(&errlog).unwrap().contains("last words from the bot"), "{what}");
        assert!(!cerr.contains("last words from the bot"), "{what}: its stderr went to the file, not connect's");
        let far = side_of(&recs[0], "far");
        let tail = recs[0]["bots"][far]["stderr_tail"].as_str().unwrap();
        assert_eq!(tail.contains("last words from the bot"), share, "{what}: {tail:?}");
    }
}

#[test]
fn connect_learns_how_a_game_it_was_away_from_ended() {
    let dir = TempDir::new("remote2-missed");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let book = book();
    // Cut at its third turn, for 5 s: past its 2 s of time away, the first game is lost
    // while it is away; the second is played.
    let host = remote_match(
        &format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#),
        2,
        &out,
        &["--max-plies", "20", "--setups", &book, "-j", "1", "--reconnect-s", "2"],
    );
    let cut = Cut::at(3, Duration::from_secs(5), false);
    let proxy = cutting_proxy(host.port, cut.clone());
    let url = format!("ws://127.0.0.1:{proxy}");
    let connect = std::thread::spawn(move || {
        connect_output(&url, &tf, &["--retry-s", "60"], &sample_bot(), Duration::from_secs(240))
    });
    let (code, stdout, stderr) = host.finish(Duration::from_secs(240));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (ccode, cout, cerr) = connect.join().unwrap();
    let mut recs = records(&out);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs[0]["result"]["reason"], "disconnected", "{}", recs[0]["result"]);
    let line = format!(
        "game {} vs sample-bot-heuristic as {}: lost (disconnected: ",
        recs[0]["game_id"].as_str().unwrap(),
        side_of(&recs[0], "far")
    );
    assert!(cerr.contains(&line), "{line:?} in\n{cerr}");
    assert!(
        cout.starts_with("2 games: 0 won, 1 drawn, 1 lost (1 by a fault of the bot), 0 without a result seen"),
        "{cout}"
    );
    assert_eq!(ccode, 3, "{cout}{cerr}");
}
