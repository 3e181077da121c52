//! The live page (`--serve`) under attack, and the reports of an overloaded machine, run for
//! real: the host binary, scripted bots, HTTP over 127.0.0.x sockets, records files.
//!
//! - Issue #42, item 12: a finished game's viewer page and its fault message show setups; with
//!   a setup book smaller than the pairs, other pairs play the same entries. Both are held
//!   back while any running game plays one of the finished game's book entries.
//! - Issue #42, item 13: one address opening every connection locked every other spectator
//!   out; each address now has its own limit, under the total.
//! - Review F2: `--serve-per-address N` for a reverse proxy, whose spectators share its
//!   address.
//! - Issue #41, item 11(a): stall credit past the threshold in a directory's records makes the
//!   summary, `--json`, `--report-every`, the index page and the live page say the machine
//!   was overloaded, for whom and how often. The stall figures are written into the records
//!   by the test (a real machine's stalls are not deterministic): the tally is what is tested.
//!
//! The events are held open by the scripted bot's `hold` (it waits at a turn until a file
//! exists): no wait here is about how fast anything runs.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stratego_host::display::web::live_page::{MAX_CONNECTIONS, MAX_PER_ADDRESS};
use stratego_tests::{CALM_CLOCK, TempDir, collect_pipe, connect_from, host_bin, scripted_bot, sse_events, wait_for};

/// The longest any wait here may take before the test fails.
const LIMIT: Duration = Duration::from_secs(90);
const LOCAL: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);

/// A host process, its stdout and stderr read as they come, and its live page's address
/// (with `--serve 127.0.0.1:0`).
struct Host {
    child: Child,
    addr: Option<String>,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Host {
    fn start(args: &[String], serve: bool) -> Host {
        let mut command = Command::new(host_bin());
        command.args(args).args(CALM_CLOCK).stdout(Stdio::piped()).stderr(Stdio::piped());
        if serve {
            command.args(["--serve", "127.0.0.1:0"]);
        }
        let mut child = command.spawn().expect("start the host");
        let stdout = collect_pipe(child.stdout.take().unwrap());
        let stderr = collect_pipe(child.stderr.take().unwrap());
        let mut host = Host { child, addr: None, stdout, stderr };
        if serve {
            let mut addr = None;
            let found = wait_for(LIMIT, || {
                let text = host.stderr.lock().unwrap().clone();
                let whole = text.rfind('\n').map_or("", |end| &text[..end]);
                addr = whole
                    .lines()
                    .find_map(|l| l.strip_prefix("stratego-host: live page: http://"))
                    .map(|a| a.split('/').next().unwrap_or_default().to_owned());
                addr.is_some() || host.child.try_wait().unwrap().is_some()
            });
            let text = host.stderr.lock().unwrap().clone();
            assert!(found && addr.is_some(), "the host did not say where the live page is:\n{text}");
            host.addr = addr;
        }
        host
    }

    fn addr(&self) -> &str {
        self.addr.as_deref().expect("a live page")
    }

    /// Waits for the host to end: its exit code, stdout and stderr.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let mut status = None;
        let ended = wait_for(LIMIT, || {
            status = self.child.try_wait().unwrap();
            status.is_some()
        });
        // The pipes' last bytes.
        std::thread::sleep(Duration::from_millis(200));
        let (out, err) = (self.stdout.lock().unwrap().clone(), self.stderr.lock().unwrap().clone());
        assert!(ended, "the host did not end:\n{err}");
        (status.and_then(|s| s.code()), out, err)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse(answer: &[u8]) -> (u16, String, String) {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head, String::from_utf8_lossy(&answer[end..]).into_owned())
}

/// `GET path` from `from`: the status, head and body.
fn get_from(from: Ipv4Addr, addr: &str, path: &str) -> (u16, String, String) {
    let mut s = connect_from(from, addr, LIMIT);
    let _ = s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    parse(&answer)
}

fn get(addr: &str, path: &str) -> (u16, String, String) {
    get_from(LOCAL, addr, path)
}

/// Opens the event stream from `from`: the open connection once its snapshot has begun to
/// come, with what was read of it, or the whole answer when it was refused.
fn try_stream(from: Ipv4Addr, addr: &str) -> Result<(TcpStream, Vec<u8>), String> {
    let mut s = connect_from(from, addr, LIMIT);
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&got).into_owned();
        if text.contains("event: snapshot") {
            assert!(text.starts_with("HTTP/1.1 200"), "{text}");
            return Ok((s, got));
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return Err(text),
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// The snapshot a new client of the event stream gets. Each from another address: the
/// server finds a closed stream only when it next writes to it (at the latest a keep-alive
/// 15 s later), and counts it until then.
fn snapshot(addr: &str) -> Value {
    static NEXT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let from = Ipv4Addr::new(127, 0, 1, n % 250 + 1);
    let (mut s, mut got) = try_stream(from, addr).expect("an event stream");
    let mut buf = [0u8; 65536];
    // The snapshot is one event: up to its blank line.
    loop {
        let text = String::from_utf8_lossy(&got).into_owned();
        if let Some((data, _)) = text.split("event: snapshot\ndata: ").nth(1).and_then(|d| d.split_once("\n\n")) {
            return serde_json::from_str(data).expect("the snapshot is JSON");
        }
        let n = s.read(&mut buf).expect("read the snapshot");
        assert!(n > 0, "the stream ended in its snapshot");
        got.extend_from_slice(&buf[..n]);
    }
}

/// The first snapshot that `done` accepts, taken once a second (at most 15 streams
/// counted at once, see [`snapshot`]).
fn snapshot_when(addr: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = std::time::Instant::now();
    loop {
        let snap = snapshot(addr);
        if done(&snap) {
            return snap;
        }
        assert!(start.elapsed() < LIMIT, "no snapshot as awaited: {snap}");
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Reads the event stream from its start to its end (the event's end), in a thread.
fn read_stream(addr: &str) -> std::thread::JoinHandle<String> {
    let (mut s, mut got) = try_stream(LOCAL, addr).expect("an event stream");
    std::thread::spawn(move || {
        let _ = s.read_to_end(&mut got);
        String::from_utf8_lossy(&got).into_owned()
    })
}

/// The records of `dir`, by game id.
fn records(dir: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["game_id"].as_str().unwrap().to_owned(), v)
        })
        .collect()
}

/// A record's pair and the book entries it played.
fn setups_of(record: &Value) -> (u64, BTreeSet<u64>) {
    let entries = ["red", "blue"].iter().filter_map(|c| record["book_setups"][c].as_u64()).collect();
    (record["pair"].as_u64().unwrap(), entries)
}

/// Whether game `a` (pair, entries) plays a setup of game `b`'s.
fn shares(a: &(u64, BTreeSet<u64>), b: &(u64, BTreeSet<u64>)) -> bool {
    a.0 == b.0 || !a.1.is_disjoint(&b.1)
}

/// The sample setup book's first `n` entries, as a book file in `dir`.
fn small_book(dir: &TempDir, n: usize) -> String {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/data/setups-sample.txt");
    let text = std::fs::read_to_string(sample).unwrap();
    let entries: Vec<&str> =
        text.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()).take(n).collect();
    assert_eq!(entries.len(), n);
    let path = dir.join("book.txt");
    std::fs::write(&path, entries.join("\n") + "\n").unwrap();
    path.display().to_string()
}

/// Issue #42, item 12. A round-robin of three bots, two games a pairing, with a book of 4
/// entries in sequential order: pair p plays entries 2p and 2p+1 (mod 4), so pairs 0 and 2
/// play the same two setups, pair 1 two others. The faulter moves illegally at its first
/// turn (its games end at once, with a fault message); the holder waits at its second turn
/// until the gate exists. So pairs 0 (faulter against plain) and 1 (faulter against holder)
/// finish, and pair 2 (plain against holder) runs until the gate is opened. Meanwhile: the
/// pages of pair 0's games are held back (403, naming a game of pair 2), pair 1's are served;
/// the fault messages of pair 0's games are held back in the snapshot, pair 1's are shown;
/// and along a whole event stream, no fault message is sent while a game that plays one of
/// its game's setups runs.
#[test]
fn pages_and_fault_messages_are_held_while_any_running_game_plays_their_book_entries() {
    let dir = TempDir::new("chaos-live-book");
    let gate = dir.join("gate");
    let out = dir.join("out");
    let book = small_book(&dir, 4);
    let faulter = scripted_bot(&dir, &["illegal=1"]);
    let plain = scripted_bot(&dir, &[]);
    let holder = scripted_bot(&dir, &[&format!("hold=2:{}", gate.display())]);
    let args: Vec<String> = [
        "tournament",
        "--bot",
        &faulter,
        "--bot",
        &plain,
        "--bot",
        &holder,
        "--games",
        "2",
        "-j",
        "2",
        "--seed",
        "5",
        "--setups",
        &book,
        "--setups-order",
        "sequential",
        "--max-plies",
        "30",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let host = Host::start(&args, true);
    let addr = host.addr().to_owned();
    let whole = read_stream(&addr);

    // Pairs 0 and 1 finished, pair 2 held at the gate.
    assert!(wait_for(LIMIT, || get(&addr, "/games/4.html").0 != 404), "4 games did not finish");
    let snap = snapshot_when(&addr, |s| s["done"] == 4 && s["games"].as_array().is_some_and(|g| g.len() == 2));
    let running: Vec<String> =
        snap["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_owned()).collect();
    // The records are appended by a writer thread of low priority, which may come after
    // the page has counted the game on a busy machine.
    assert!(wait_for(LIMIT, || records(&out).len() == 4), "{:?}", records(&out).keys());
    // Each finished game's page and the snapshot's fault rows, while pair 2 runs.
    let mut pages = BTreeMap::new();
    for row in snap["finished"].as_array().unwrap() {
        let n = row["n"].as_u64().unwrap();
        let (status, head, body) = get(&addr, &format!("/games/{n}.html"));
        pages.insert(row["id"].as_str().unwrap().to_owned(), (status, head, body));
    }
    let faults = snap["faults"].as_array().unwrap().clone();
    std::fs::write(&gate, "go").unwrap();
    let (code, _, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let stream = whole.join().unwrap();

    // The premise, from the records: the running games played the setups of pair 0's games
    // and not those of pair 1's.
    let all = records(&out);
    assert_eq!(all.len(), 6);
    let games: BTreeMap<&str, (u64, BTreeSet<u64>)> = all.iter().map(|(id, r)| (id.as_str(), setups_of(r))).collect();
    let in_use = |id: &str| running.iter().find(|r| shares(&games[r.as_str()], &games[id])).cloned();
    let (mut held_pages, mut served_pages) = (0, 0);
    for (id, (status, head, body)) in &pages {
        match in_use(id) {
            Some(_) => {
                held_pages += 1;
                assert_eq!(*status, 403, "game {id} {:?} was served while {running:?} ran: {head}", games[id.as_str()]);
                assert!(
                    running.iter().any(|r| body.contains(&format!("held back while game {r} is running"))),
                    "{body}"
                );
                assert!(!body.contains("view-red"), "no viewer page: {body}");
            }
            None => {
                served_pages += 1;
                assert_eq!(*status, 200, "game {id}: {head}\n{body}");
            }
        }
    }
    assert_eq!((held_pages, served_pages), (2, 2), "{games:?}, running {running:?}");

    // The faults: the faulter lost each of its four games by a fault.
    assert_eq!(faults.len(), 4, "{faults:?}");
    for f in &faults {
        let id = f["game"].as_str().unwrap();
        let message = f["message"].as_str().unwrap();
        let recorded = all[id]["result"]["message"].as_str().unwrap();
        match in_use(id) {
            Some(r) => {
                assert_eq!(f["held"], true, "{f}");
                assert!(message.contains(&format!("held back while game {r} is running")), "{f}");
                assert!(!message.contains(recorded), "{f}");
            }
            None => assert_eq!(message, recorded, "{f}"),
        }
    }

    // Along the whole stream: a fault's message is sent only while no game that plays its
    // game's setups runs.
    let mut now: BTreeSet<String> = BTreeSet::new();
    let mut sent = 0;
    for (name, data) in sse_events(&stream) {
        match name.as_str() {
            "snapshot" => {
                now = data["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_owned()).collect();
            }
            "game" => {
                now.insert(data["id"].as_str().unwrap().to_owned());
            }
            "finished" => {
                now.remove(data["row"]["id"].as_str().unwrap());
            }
            "fault" => {
                sent += 1;
                let id = data["game"].as_str().unwrap();
                let clash: Vec<&String> =
                    now.iter().filter(|r| r.as_str() != id && shares(&games[r.as_str()], &games[id])).collect();
                assert!(clash.is_empty(), "fault of {id} sent while {clash:?} ran: {data}");
            }
            _ => {}
        }
    }
    assert_eq!(sent, 4, "every fault was sent once released: {stream}");
}

/// Issue #42, item 13. One client (127.0.0.1) opens as many event streams as the server
/// allows in all: it gets [`MAX_PER_ADDRESS`], the others are refused with a 503 that says
/// why; another address (127.0.0.2) is still served, the page and a stream. The total limit
/// still holds: once [`MAX_CONNECTIONS`] are open from several addresses, one more address
/// is refused with the total's message.
#[test]
fn one_address_cannot_lock_the_other_spectators_out() {
    let dir = TempDir::new("chaos-live-addresses");
    let gate = dir.join("gate");
    let holder = scripted_bot(&dir, &[&format!("hold=2:{}", gate.display())]);
    let plain = scripted_bot(&dir, &[]);
    let args: Vec<String> =
        ["match", &holder, &plain, "--games", "2", "--max-plies", "20", "-q"].iter().map(|s| s.to_string()).collect();
    let host = Host::start(&args, true);
    let addr = host.addr().to_owned();

    let mut open = Vec::new();
    let mut refusals = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        match try_stream(LOCAL, &addr) {
            Ok((s, _)) => open.push(s),
            Err(answer) => refusals.push(answer),
        }
    }
    assert_eq!(open.len(), MAX_PER_ADDRESS, "streams one address holds at once");
    assert_eq!(refusals.len(), MAX_CONNECTIONS - MAX_PER_ADDRESS);
    for r in &refusals {
        let (status, head, body) = parse(r.as_bytes());
        assert_eq!(status, 503, "{head}");
        assert!(
            body.contains(&format!("too many connections from your address (at most {MAX_PER_ADDRESS})")),
            "{body}"
        );
    }
    // Another spectator is served.
    let other = Ipv4Addr::new(127, 0, 0, 2);
    let (status, head, _) = get_from(other, &addr, "/");
    assert_eq!(status, 200, "{head}");
    open.push(try_stream(other, &addr).expect("another address gets the event stream").0);

    // The total: filled from more addresses, then one more is refused for it.
    let mut source = 3;
    while open.len() < MAX_CONNECTIONS {
        let from = Ipv4Addr::new(127, 0, 0, source);
        for _ in 0..MAX_PER_ADDRESS.min(MAX_CONNECTIONS - open.len()) {
            open.push(try_stream(from, &addr).unwrap_or_else(|e| panic!("stream from {from}: {e}")).0);
        }
        source += 1;
    }
    let (status, head, body) = get_from(Ipv4Addr::new(127, 0, 0, 100), &addr, "/");
    assert_eq!(status, 503, "{head}");
    assert!(body.contains(&format!("too many connections (at most {MAX_CONNECTIONS})")), "{body}");
    // Connections closed are given back, to their address too.
    drop(open);
    assert!(wait_for(LIMIT, || try_stream(LOCAL, &addr).is_ok()), "the closed connections were not given back");

    std::fs::write(&gate, "go").unwrap();
    let (code, _, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// Review F2: behind a reverse proxy every spectator has the proxy's address, so the
/// default per-address limit let a ninth spectator have a 503. `--serve-per-address N`
/// raises it: 20 event streams from one address (the proxy) are all served, the 21st is
/// refused naming the limit set.
#[test]
fn a_reverse_proxys_spectators_are_served_with_a_raised_per_address_limit() {
    let dir = TempDir::new("chaos-live-proxy");
    let gate = dir.join("gate");
    let holder = scripted_bot(&dir, &[&format!("hold=2:{}", gate.display())]);
    let plain = scripted_bot(&dir, &[]);
    let args: Vec<String> =
        ["match", &holder, &plain, "--games", "2", "--max-plies", "20", "-q", "--serve-per-address", "20"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let host = Host::start(&args, true);
    let addr = host.addr().to_owned();
    const { assert!(MAX_PER_ADDRESS < 20 && 20 < MAX_CONNECTIONS) };
    let open: Vec<TcpStream> = (0..20)
        .map(|i| try_stream(LOCAL, &addr).unwrap_or_else(|e| panic!("stream {i} from the proxy's address: {e}")).0)
        .collect();
    let refused = try_stream(LOCAL, &addr).expect_err("the 21st is refused");
    let (status, head, body) = parse(refused.as_bytes());
    assert_eq!(status, 503, "{head}");
    assert!(body.contains("too many connections from your address (at most 20)"), "{body}");
    drop(open);
    std::fs::write(&gate, "go").unwrap();
    let (code, _, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// Issue #41, item 11(a). A match between a holder (it waits at its second turn as Blue
/// until the gate exists) and a plain bot, four games one at a time, into a directory:
/// the first run finishes game 1 (the holder is Red) and is interrupted at game 2. The test
/// writes 20 s of stall credit into one move of the holder's in that record (a third of its
/// calm 60 s limit, on one of its few dozen moves: past 2 %); the runs give no credit of their own
/// (`--no-stall-credit`), so that only it counts. The resumed run then says the machine was
/// overloaded for the holder, and only for it: on its live page while game 2 is held, in its
/// `--report-every` lines, in its JSON and its index page; a rerun of the finished
/// directory, in its summary.
#[test]
fn an_overloaded_machine_is_said_in_every_report() {
    let dir = TempDir::new("chaos-live-overload");
    let gate = dir.join("gate");
    let out = dir.join("out");
    let holder = scripted_bot(&dir, &[&format!("hold_blue=2:{}", gate.display())]);
    let plain = scripted_bot(&dir, &["delay_ms=1"]);
    // No credit for the machine's real stalls (this machine may be busy): only the test's.
    let base: Vec<String> =
        ["match", &holder, &plain, "--games", "4", "-j", "1", "--max-plies", "20", "--no-stall-credit", "--out"]
            .iter()
            .map(|s| s.to_string())
            .chain([out.display().to_string()])
            .collect();

    // Run 1: game 1 finishes, game 2 waits at the gate; then Ctrl-C.
    let first = Host::start(&[base.clone(), vec!["-q".into()]].concat(), false);
    assert!(wait_for(LIMIT, || records(&out).len() == 1), "game 1 did not finish");
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(first.child.id() as i32, libc::SIGINT) };
    let (code, _, stderr) = first.finish();
    assert_eq!(code, Some(130), "{stderr}");
    let saved = records(&out);
    assert_eq!(saved.len(), 1, "{stderr}");

    // 20 s of stall credit on the holder's first move (a third of the calm clock's limit).
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let mut record: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let holder_color = if record["bots"]["red"]["command"].to_string().contains("hold_blue") { "red" } else { "blue" };
    let name = record["bots"][holder_color]["name"].as_str().unwrap().to_owned();
    let other = record["bots"][if holder_color == "red" { "blue" } else { "red" }]["name"].as_str().unwrap().to_owned();
    assert_ne!(name, other);
    let ply = record["plies"].as_array_mut().unwrap().iter_mut().find(|p| p["color"] == holder_color).unwrap();
    ply["stall_us"] = 20_000_000.into();
    std::fs::write(out.join("games.jsonl"), serde_json::to_string(&record).unwrap() + "\n").unwrap();

    // Run 2: resumed, game 2 held at the gate while the live page is read.
    let resumed =
        Host::start(&[base.clone(), vec!["--json".into(), "--report-every".into(), "1".into()]].concat(), true);
    let addr = resumed.addr().to_owned();
    let snap = snapshot_when(&addr, |s| s["games"].as_array().is_some_and(|g| !g.is_empty()));
    let overload = &snap["overload"];
    assert_eq!(overload["overloaded"], true, "{snap}");
    let flagged: Vec<&str> = overload["bots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["overloaded"] == true)
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(flagged, [name.as_str()], "{overload}");
    // The page shows it (the script renders the `overload` element).
    let (status, _, page) = get(&addr, "/");
    assert_eq!(status, 200);
    assert!(page.contains("id=\"overload\"") && page.contains("renderOverload(s.overload)"));
    std::fs::write(&gate, "go").unwrap();
    let (code, stdout, stderr) = resumed.finish();
    assert_eq!(code, Some(0), "{stderr}");

    // --report-every (on stderr with --json): after each game, counting game 1.
    let lines: Vec<&str> =
        stderr.lines().filter(|l| l.contains("overloaded machine, results may be distorted")).collect();
    // Games 2, 3 and 4 (game 1 is counted, not reported again).
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(lines.iter().all(|l| l.contains(&format!("{name}: 1 of "))), "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("; 20.000 s credited over 1 move,")), "{lines:?}");
    // The JSON.
    let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let o = &json["overload"];
    assert_eq!(
        (
            o["overloaded"].clone(),
            o["stalled_moves_threshold_percent"].clone(),
            o["stalled_share_of_limit_percent"].clone()
        ),
        (Value::Bool(true), 2.into(), 25.into()),
        "{o}"
    );
    let bot = |n: &str| o["bots"].as_array().unwrap().iter().find(|b| b["name"] == n).unwrap().clone();
    assert_eq!(
        (bot(&name)["overloaded"].clone(), bot(&name)["stall_us"].clone()),
        (Value::Bool(true), 20_000_000.into())
    );
    assert_eq!(
        (bot(&name)["stall_moves"].clone(), bot(&name)["stalled_moves"].clone(), bot(&name)["capped_moves"].clone()),
        (1.into(), 1.into(), 0.into())
    );
    assert_eq!(bot(&other)["overloaded"], false, "{o}");
    assert!(json["games"] == 4, "the report's own fields are still there: {json}");
    // The index page.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<strong>The machine was overloaded</strong>"), "{index}");
    assert!(index.contains(&format!("<li data-bot=\"{name}\">")), "{index}");

    // Run 3: the finished directory again: its summary says so.
    let again = Host::start(&base, false);
    let (code, stdout, stderr) = again.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("  OVERLOADED MACHINE: the results may be distorted"), "{stdout}");
    assert!(stdout.contains(&format!("\n    {name}: 1 of ")), "{stdout}");
    assert!(!stdout.contains(&format!("\n    {other}: ")), "{stdout}");
}
