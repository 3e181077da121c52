//! The live page at the venue (issue #44, items 8–10; issue #43, item 7), run for real: the
//! host binary with `--serve` on 127.0.0.1, scripted bots that crash, lose on time or hold
//! at a turn until a file exists, the records and index files, and headless Chromium.
//!
//! - Item 8: the standings list every entrant from the start (before any game is finished),
//!   then, as games finish, each bot's Bradley–Terry rating with its error bar, score and
//!   faults by kind (time, crash, forfeit), as the records say; at the end they are the
//!   ranking the run reports (`--json`). An SPRT's standings hold its LLR between its bounds.
//! - Item 9: screenshots of a running event in Chromium at 1920×1080 and 1280×720, with 16
//!   and 2 games running, measured in the browser: the page does not scroll, every board is
//!   inside the games' area and they do not overlap, the boards fill a good part of it, game
//!   ids are whole, the header does not list the bots, the standings have a row per entrant
//!   and fit their column, the finished games' list fits its box.
//! - Item 10: the index page's ranking has each bot's score and faults by kind.
//! - Issue #43, item 7: the host's notices (here: a torn records line found on resume,
//!   said before the page started) are on the page.
//!
//! Every wait is for a file the test writes or a state the page reaches, with limits of tens
//! of seconds: nothing here is about how fast anything runs.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stratego_tests::{CALM_CLOCK, TempDir, collect_pipe, host_bin, scripted_bot, sse_events, wait_for};

/// The longest any wait here may take before the test fails.
const LIMIT: Duration = Duration::from_secs(150);
const MISSING: &str =
    "this test needs Debian's chromium and Node (tests/run.sh, the README's test command, installs them)";

/// A host process, its stdout and stderr read as they come, and its live page's address.
struct Host {
    child: Child,
    addr: String,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Host {
    /// Starts the host with `args` and the calm clock, serving on a free port.
    fn start(args: &[String]) -> Host {
        let mut child = Command::new(host_bin())
            .args(args)
            .args(CALM_CLOCK)
            .args(["--serve", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the host");
        let stdout = collect_pipe(child.stdout.take().unwrap());
        let stderr = collect_pipe(child.stderr.take().unwrap());
        let mut addr = None;
        let found = wait_for(LIMIT, || {
            let text = stderr.lock().unwrap().clone();
            let whole = text.rfind('\n').map_or("", |end| &text[..end]);
            addr = whole
                .lines()
                .find_map(|l| l.strip_prefix("stratego-host: live page: http://"))
                .map(|a| a.split('/').next().unwrap_or_default().to_owned());
            addr.is_some() || child.try_wait().unwrap().is_some()
        });
        let text = stderr.lock().unwrap().clone();
        assert!(found && addr.is_some(), "the host did not say where the live page is:\n{text}");
        Host { child, addr: addr.unwrap(), stdout, stderr }
    }

    /// Waits for the host to end: its exit code, stdout and stderr.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let mut status = None;
        let ended = wait_for(LIMIT, || {
            status = self.child.try_wait().unwrap();
            status.is_some()
        });
        std::thread::sleep(Duration::from_millis(200));
        let (out, err) = (self.stdout.lock().unwrap().clone(), self.stderr.lock().unwrap().clone());
        assert!(ended, "the host did not end:\n{err}");
        (status.and_then(|s| s.code()), out, err)
    }

    /// Interrupts the host (SIGINT: it stops every bot) and waits for it to end.
    fn interrupt(self) -> (Option<i32>, String, String) {
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        self.finish()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The snapshot a new client of the event stream gets. Each from another address: the
/// server finds a closed stream only when it next writes to it, and counts it against its
/// address's limit until then.
fn snapshot(addr: &str) -> Value {
    static NEXT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut s = stratego_tests::connect_from(std::net::Ipv4Addr::new(127, 0, 2, n % 250 + 1), addr, LIMIT);
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let text = String::from_utf8_lossy(&got).into_owned();
        if let Some((data, _)) = text.split("event: snapshot\ndata: ").nth(1).and_then(|d| d.split_once("\n\n")) {
            return serde_json::from_str(data).expect("the snapshot is JSON");
        }
        let n = s.read(&mut buf).expect("read the snapshot");
        assert!(n > 0, "the stream ended in its snapshot: {text}");
        got.extend_from_slice(&buf[..n]);
    }
}

/// The first snapshot that `done` accepts, taken once a second (at most 16 closed streams
/// are counted at once: the server finds one closed at its next keep-alive, 15 s later).
/// The host must still run meanwhile.
fn snapshot_when(host: &mut Host, done: impl Fn(&Value) -> bool) -> Value {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = host.child.try_wait().unwrap() {
            std::thread::sleep(Duration::from_millis(200));
            panic!("the host ended ({status}):\n{}", host.stderr.lock().unwrap());
        }
        let snap = snapshot(&host.addr);
        if done(&snap) {
            return snap;
        }
        assert!(start.elapsed() < LIMIT, "no snapshot as awaited: {snap}");
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Reads the event stream to its end (the event's end), in a thread.
fn read_stream(addr: &str) -> std::thread::JoinHandle<String> {
    let mut s = TcpStream::connect(addr).expect("connect to the live page");
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got);
        String::from_utf8_lossy(&got).into_owned()
    })
}

/// The standings' HTML of the last `standings` event of a stream read to its end (or of its
/// snapshot, when none came after it).
fn last_standings(stream: &str) -> String {
    let mut last = None;
    for (name, data) in sse_events(stream) {
        match name.as_str() {
            "snapshot" => last = data["standings"].as_str().map(str::to_owned),
            "standings" => last = data["html"].as_str().map(str::to_owned),
            _ => {}
        }
    }
    last.expect("standings in the stream")
}

/// One row of a ranking table (`<tr data-bot="NAME">`): its bot and its cells' text, the
/// Elo (`data-elo`), error bar (`data-err`) and fault counts (`data-fault="KIND"`) by name.
#[derive(Debug)]
struct Row {
    bot: String,
    cells: Vec<String>,
    marked: BTreeMap<String, String>,
}

/// The rows of the `<table id="ranking">` in `html`, in order.
fn ranking_rows(html: &str) -> Vec<Row> {
    let table = &html[html.find("<table id=\"ranking\">").unwrap_or_else(|| panic!("a ranking table: {html}"))..];
    let table = &table[..table.find("</table>").unwrap()];
    table
        .split("<tr data-bot=\"")
        .skip(1)
        .map(|row| {
            let bot = row[..row.find('"').unwrap()].to_owned();
            let row = &row[..row.find("</tr>").unwrap()];
            let mut cells = Vec::new();
            let mut marked = BTreeMap::new();
            for cell in row.split("<td").skip(1) {
                let (attrs, rest) = cell.split_once('>').unwrap();
                let text = rest[..rest.find("</td>").unwrap()].to_owned();
                if attrs.contains("data-elo") {
                    marked.insert("elo".to_owned(), text.clone());
                }
                if attrs.contains("data-err") {
                    marked.insert("err".to_owned(), text.clone());
                }
                if let Some(kind) = attrs.split("data-fault=\"").nth(1) {
                    marked.insert(kind[..kind.find('"').unwrap()].to_owned(), text.clone());
                }
                cells.push(text);
            }
            Row { bot, cells, marked }
        })
        .collect()
}

/// Each bot's faults by kind (time, crash, forfeit), counted from records.
fn faults_of(records: &[Value]) -> BTreeMap<String, BTreeMap<&'static str, u64>> {
    let mut out: BTreeMap<String, BTreeMap<&'static str, u64>> = BTreeMap::new();
    for r in records {
        let res = &r["result"];
        let Some(side) = res["faulty"].as_str() else { continue };
        if res["winner"].is_null() {
            continue;
        }
        let kind = match res["reason"].as_str().unwrap() {
            "startup_timeout" | "setup_timeout" | "move_timeout" => "time",
            "crash" | "closed_output" | "memory_limit" | "cpu_limit" | "output_limit" | "disconnected"
            | "not_connected" => "crash",
            _ => "forfeit",
        };
        let name = r["bots"][side]["name"].as_str().unwrap().to_owned();
        *out.entry(name).or_default().entry(kind).or_default() += 1;
    }
    out
}

fn read_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A bot spec named `name` running the scripted bot with `args` (and `extra` JSON fields),
/// with two minutes to start and to set up: sixteen games of Python bots starting at once on
/// a loaded two-core machine took more than the 10 s default.
fn named(dir: &TempDir, name: &str, args: &[&str], extra: &str) -> String {
    let command = scripted_bot(dir, args);
    format!(
        "{{\"name\": {}, \"command\": {}, \"startup_time\": 120, \"setup_time\": 120{extra}}}",
        serde_json::json!(name),
        serde_json::json!(command)
    )
}

#[test]
fn the_standings_list_every_entrant_from_the_start_then_ratings_error_bars_and_faults() {
    let dir = TempDir::new("page-standings");
    let (start, mid, rest) = (dir.join("start"), dir.join("mid"), dir.join("rest"));
    let out = dir.join("out");
    let first = format!("hold=1:{}", start.display());
    let good = format!("hold=1:{},3:{},6:{}", start.display(), mid.display(), rest.display());
    // Two bots that play on, one that crashes at its first turn, one that loses on time
    // (it does not answer; its own limit is 0.3 s). With -j 3 the first three games (able
    // and baker's two, able and the crasher's first) run first, and every bot but the
    // sleeper waits at its first turn until `start` exists: no game ends before the page is
    // read. Able and baker then wait at their third turn until `mid` exists: their two
    // games run while the ten others finish in the third slot. Then they move three times
    // each, 0.4 s apart, and wait at their sixth turn until `rest` exists: the page sends
    // the standings at most once a second, at an event (here, those moves).
    let bots = [
        named(&dir, "able", &[&good, "back=1", "delay_ms=400"], ""),
        named(&dir, "baker", &[&good, "back=1", "delay_ms=400"], ""),
        named(&dir, "crasher", &[&first, "crash=1"], ""),
        named(&dir, "sleeper", &["sleep=1"], ", \"move_time\": 0.3"),
    ];
    let mut args: Vec<String> = vec!["tournament".into()];
    for b in &bots {
        args.extend(["--bot".into(), b.clone()]);
    }
    args.extend(
        ["--games", "2", "-j", "3", "--seed", "5", "--max-plies", "40", "--json", "--out", out.to_str().unwrap()]
            .map(String::from),
    );
    let mut host = Host::start(&args);
    let stream = read_stream(&host.addr);

    // Before any game is finished: a row per entrant, no rating yet (the page's first
    // standings, before the run's table reaches its server thread, are a table of every
    // entrant's score of its own).
    let snap =
        snapshot_when(&mut host, |s| s["standings"].as_str().is_some_and(|h| h.contains("<table id=\"ranking\">")));
    assert_eq!(snap["done"], 0, "{snap}");
    let rows = ranking_rows(snap["standings"].as_str().unwrap());
    let mut names: Vec<&str> = rows.iter().map(|r| r.bot.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["able", "baker", "crasher", "sleeper"], "every entrant from the start: {rows:?}");
    assert!(rows.iter().all(|r| r.marked["elo"] == "—" && r.marked["err"] == "—"), "{rows:?}");
    let head = snap["standings"].as_str().unwrap();
    for column in ["Elo", "±95%", "score", ">time<", ">crash<", ">forfeit<"] {
        assert!(head.contains(column), "the table has {column}: {head}");
    }

    // The ten games with the crasher or the sleeper finish; able and baker's two wait.
    std::fs::write(&start, "go").unwrap();
    snapshot_when(&mut host, |s| s["done"] == 10);
    std::fs::write(&mid, "go").unwrap();
    let snap = snapshot_when(&mut host, |s| {
        s["done"] == 10
            && ranking_rows(s["standings"].as_str().unwrap())
                .iter()
                .map(|r| r.cells[4].parse::<u32>().unwrap_or(0))
                .sum::<u32>()
                == 20
    });
    // The records are appended by a writer thread of low priority, which may come after
    // the page has counted the game on a busy machine.
    assert!(wait_for(LIMIT, || read_records(&out.join("games.jsonl")).len() == 10), "10 records");
    let records = read_records(&out.join("games.jsonl"));
    let expected = faults_of(&records);
    let rows = ranking_rows(snap["standings"].as_str().unwrap());
    assert_eq!(rows.len(), 4);
    for row in &rows {
        for kind in ["time", "crash", "forfeit"] {
            let want = expected.get(&row.bot).and_then(|k| k.get(kind)).copied().unwrap_or(0);
            assert_eq!(row.marked[kind], want.to_string(), "{}'s {kind} faults: {row:?}", row.bot);
        }
        // A rating with its error bar, once a bot has games.
        assert!(row.marked["elo"].parse::<f64>().is_ok(), "{row:?}");
        assert!(row.marked["err"].parse::<f64>().is_ok_and(|e| e > 0.0), "{row:?}");
        assert!(row.cells[6].ends_with(" %"), "the score: {row:?}");
    }
    assert!(expected["crasher"]["crash"] >= 4 && expected["sleeper"]["time"] >= 4, "{expected:?}");

    std::fs::write(&rest, "go").unwrap();
    let (code, stdout, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    // At the end the page's table is the run's ranking: the same order, ratings and bars.
    let rows = ranking_rows(&last_standings(&stream.join().unwrap()));
    let ranking = report["ranking"].as_array().unwrap();
    assert_eq!(rows.len(), ranking.len());
    for (row, bot) in rows.iter().zip(ranking) {
        assert_eq!(row.bot, bot["name"].as_str().unwrap());
        let elo = bot["elo"].as_f64().unwrap();
        let shown: f64 = row.marked["elo"].parse().unwrap();
        assert!((shown - elo).abs() <= 0.5 + 1e-9, "{} Elo {shown} vs {elo}", row.bot);
        let err = bot["elo_err95"].as_f64().unwrap();
        assert_eq!(row.marked["err"], format!("{err:.0}"), "{}", row.bot);
    }

    // Item 10: the index page's ranking has the score and the faults.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let rows = ranking_rows(&index);
    let records = read_records(&out.join("games.jsonl"));
    let expected = faults_of(&records);
    for (row, bot) in rows.iter().zip(ranking) {
        assert_eq!(row.bot, bot["name"].as_str().unwrap());
        for kind in ["time", "crash", "forfeit"] {
            let want = expected.get(&row.bot).and_then(|k| k.get(kind)).copied().unwrap_or(0);
            assert_eq!(row.marked[kind], want.to_string(), "index: {}'s {kind} faults", row.bot);
        }
        let (points, games) = (bot["points"].as_f64().unwrap(), bot["games"].as_f64().unwrap());
        let score = format!("{:.1} %", 100.0 * points / games);
        assert!(row.cells.contains(&score), "index: {}'s score {score}: {row:?}", row.bot);
    }
}

#[test]
fn an_sprt_shows_its_llr_between_its_bounds_while_it_runs() {
    let dir = TempDir::new("page-sprt");
    let gate = dir.join("gate");
    let new = named(&dir, "newbot", &[&format!("hold=1:{}", gate.display()), "back=1"], "");
    let args: Vec<String> = [
        "sprt",
        &new,
        "sample-bot",
        "--elo0",
        "0",
        "--elo1",
        "200",
        "--max-games",
        "4",
        "-j",
        "2",
        "--max-plies",
        "40",
        "--json",
    ]
    .map(String::from)
    .to_vec();
    let mut host = Host::start(&args);
    let snap = snapshot_when(&mut host, |s| s["standings"].as_str().is_some_and(|h| h.contains("id=\"sprt\"")));
    let html = snap["standings"].as_str().unwrap().to_owned();
    std::fs::write(&gate, "go").unwrap();
    let (code, stdout, stderr) = host.finish();
    assert!(matches!(code, Some(0 | 10 | 11)), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let attr = |name: &str| -> f64 {
        let at = html.find(&format!("{name}=\"")).unwrap_or_else(|| panic!("no {name}: {html}")) + name.len() + 2;
        html[at..at + html[at..].find('"').unwrap()].parse().unwrap()
    };
    let bounds = report["bounds"].as_array().unwrap();
    assert!((attr("data-lower") - bounds[0].as_f64().unwrap()).abs() < 1e-3, "{html}");
    assert!((attr("data-upper") - bounds[1].as_f64().unwrap()).abs() < 1e-3, "{html}");
    assert_eq!(attr("data-llr"), 0.0, "no pair finished yet: {html}");
    assert!(html.contains("<div class=\"llr-bar\">"), "{html}");
    let rows = ranking_rows(&html);
    let base = report["base"].as_str().unwrap();
    assert_eq!(rows.iter().map(|r| r.bot.as_str()).collect::<Vec<_>>(), ["newbot", base], "{html}");
}

#[test]
fn the_hosts_notices_are_on_the_page_even_those_said_before_it_started() {
    let dir = TempDir::new("page-notices");
    let gate = dir.join("gate");
    let out = dir.join("out");
    let holder = scripted_bot(&dir, &[&format!("hold_blue=2:{}", gate.display())]);
    let plain = scripted_bot(&dir, &["delay_ms=1"]);
    let base: Vec<String> = ["match", &holder, &plain, "--games", "3", "-j", "1", "--max-plies", "20", "--out"]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect();
    // Run 1, without the page: game 1 finishes, game 2 waits at the gate; then Ctrl-C.
    let mut first = Command::new(host_bin())
        .args(&base)
        .args(CALM_CLOCK)
        .arg("-q")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_for(LIMIT, || read_records(&out.join("games.jsonl")).len() == 1), "game 1 did not finish");
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    assert_eq!(first.wait().unwrap().code(), Some(130));
    // A torn last line, as a host stopped while writing it leaves.
    let mut f = std::fs::OpenOptions::new().append(true).open(out.join("games.jsonl")).unwrap();
    f.write_all(b"{\"game_id\":\"torn").unwrap();
    drop(f);

    // Run 2 resumes with the page; the torn line is said before the page starts.
    let mut host = Host::start(&base);
    let snap = snapshot_when(&mut host, |s| s["games"].as_array().is_some_and(|g| !g.is_empty()));
    let notices: Vec<&str> = snap["notices"]
        .as_array()
        .expect("the snapshot has the notices")
        .iter()
        .map(|n| n["text"].as_str().unwrap())
        .collect();
    assert!(
        notices.iter().any(|t| t.starts_with("warning: ")
            && t.contains("games.jsonl: line 2 is torn")
            && t.contains("bytes dropped")),
        "{notices:?}"
    );
    assert!(!notices.iter().any(|t| t.starts_with("live page: ")), "not the page's own address: {notices:?}");
    let (status, page) = get_page(&host.addr);
    assert_eq!(status, 200);
    assert!(page.contains("id=\"notices\""), "the page has a notices box");
    std::fs::write(&gate, "go").unwrap();
    let (code, _, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("is torn"), "the terminal says it too: {stderr}");
}

fn get_page(addr: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

// ---- the screen ---------------------------------------------------------------------------

/// The eight entrants of the screen tests: one that crashes (first: its 14 games are the
/// schedule's first, and finish), five that play on and wait at their fourth turn until
/// `gate` exists (every game of two of them stays running), one that makes an illegal move
/// and one that loses on time (their games finish).
fn entrants(dir: &TempDir, gate: &Path) -> Vec<String> {
    let hold = format!("hold=4:{}", gate.display());
    let mut bots = vec![named(dir, "foxtrot-crashes", &["crash=1"], "")];
    bots.extend(
        ["alpha-heuristic-v2", "bravo-search-depth-3", "charlie", "delta-montecarlo", "echo"]
            .iter()
            .map(|n| named(dir, n, &[&hold, "back=1", "delay_ms=20"], "")),
    );
    bots.push(named(dir, "golf-illegal", &["illegal=2"], ""));
    bots.push(named(dir, "hotel-slow", &["sleep=1"], ", \"move_time\": 0.3"));
    bots
}

/// Runs the eight entrants' tournament with `-j jobs` and `--serve`, measures the page in
/// Chromium at each size once `jobs` boards run, and interrupts the event: the driver's JSON.
fn measure_screens(name: &str, jobs: usize, sizes: &str, shots: &Path) -> Value {
    let found = Command::new(std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into())).arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    let dir = TempDir::new(name);
    let gate = dir.join("gate");
    let mut args: Vec<String> = vec!["tournament".into()];
    for b in entrants(&dir, &gate) {
        args.extend(["--bot".into(), b]);
    }
    let out = dir.join("out");
    args.extend(
        [
            "--games",
            "2",
            "-j",
            &jobs.to_string(),
            "--seed",
            "3",
            "--max-plies",
            "60",
            "--event",
            "Winter Cup 2026",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from),
    );
    let host = Host::start(&args);
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/screen.mjs");
    let run = Command::new("node")
        .arg(&driver)
        .args(["--url", &format!("http://{}/", host.addr), "--sizes", sizes, "--boards", &jobs.to_string()])
        .args(["--name", &format!("live-j{jobs}")])
        .arg("--out")
        .arg(shots)
        .output()
        .expect(MISSING);
    let driver_err = String::from_utf8_lossy(&run.stderr).into_owned();
    // Whatever the driver did, the event may end (the held bots go on), then is stopped.
    std::fs::write(&gate, "go").unwrap();
    let (code, _, stderr) = host.interrupt();
    assert_ne!(run.status.code(), Some(3), "{MISSING}\n{driver_err}");
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{driver_err}\nhost:\n{stderr}");
    assert!(matches!(code, Some(0 | 130)), "{stderr}");
    serde_json::from_slice(&run.stdout).expect("the driver prints JSON")
}

/// Where the screenshots are kept: `STRATEGO_SCREENS` when set (the guide's images were
/// made so), else a temporary directory.
fn shots_dir(tmp: &TempDir) -> PathBuf {
    match std::env::var_os("STRATEGO_SCREENS") {
        Some(dir) => {
            std::fs::create_dir_all(&dir).unwrap();
            PathBuf::from(dir)
        }
        None => tmp.0.clone(),
    }
}

/// The measured page at one size: everything item 9 asks, with `jobs` boards running; the
/// share of the games' area the boards' boxes cover.
fn check_screen(size: &str, m: &Value, jobs: usize) -> f64 {
    let f = |v: &Value| v.as_f64().unwrap();
    let problems = &m["problems"];
    assert_eq!(problems["exceptions"], serde_json::json!([]), "{size}: {problems}");
    assert_eq!(problems["console_errors"], serde_json::json!([]), "{size}: {problems}");
    assert_eq!(problems["dialogs"], serde_json::json!([]), "{size}: {problems}");
    let (ww, wh) = (f(&m["window"]["w"]), f(&m["window"]["h"]));
    // The page fills the window and does not scroll.
    assert!(
        f(&m["document"]["w"]) <= ww && f(&m["document"]["h"]) <= wh,
        "{size}: the page scrolls: {}",
        m["document"]
    );
    let area = &m["area"];
    let (ax, ay, aw, ah) = (f(&area["x"]), f(&area["y"]), f(&area["w"]), f(&area["h"]));
    let games = m["games"].as_array().unwrap();
    assert_eq!(games.len(), jobs, "{size}: a board per running game");
    let mut covered = 0.0;
    let mut boxes = Vec::new();
    for g in games {
        let b = &g["box"];
        let (x, y, w, h) = (f(&b["x"]), f(&b["y"]), f(&b["w"]), f(&b["h"]));
        let id = g["id"].as_str().unwrap();
        assert!(
            x >= ax - 0.5 && y >= ay - 0.5 && x + w <= ax + aw + 0.5 && y + h <= ay + ah + 0.5 && y + h <= wh,
            "{size}: game {id}'s board is outside the games' area {area}: {b}"
        );
        let board = &g["board"];
        assert!(
            f(&board["x"]) >= x
                && f(&board["x"]) + f(&board["w"]) <= x + w + 0.5
                && f(&board["y"]) + f(&board["h"]) <= y + h + 0.5,
            "{size}: game {id}'s squares overflow its box: {board} in {b}"
        );
        // The id is whole, on one line, inside its box.
        assert_eq!(g["id_text"], id, "{size}");
        assert_eq!(g["id_clipped"], false, "{size}: game {id}'s id is clipped");
        assert_eq!(g["head_clipped"], false, "{size}: game {id}'s head is clipped");
        assert_eq!(g["id_lines"], 1, "{size}: game {id}'s id is on one line");
        let r = &g["id_rect"];
        assert!(f(&r["x"]) >= x && f(&r["x"]) + f(&r["w"]) <= x + w + 0.5, "{size}: game {id}'s id leaves its box");
        covered += w * h;
        boxes.push((x, y, w, h));
    }
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let apart =
                a.0 + a.2 <= b.0 + 0.5 || b.0 + b.2 <= a.0 + 0.5 || a.1 + a.3 <= b.1 + 0.5 || b.1 + b.3 <= a.1 + 0.5;
            assert!(apart, "{size}: boards overlap: {a:?} {b:?}");
        }
    }
    // The header names the event, not every bot, on one line.
    let title = m["title"]["text"].as_str().unwrap();
    assert_eq!(title, "Winter Cup 2026 — tournament of 8 bots", "{size}");
    assert!(f(&m["title"]["rect"]["h"]) < 40.0, "{size}: the title takes one line: {}", m["title"]);
    // Standings: a row per entrant, fitting their column.
    let rows: Vec<&str> = m["standings"].as_array().unwrap().iter().map(|r| r["bot"].as_str().unwrap()).collect();
    assert_eq!(rows.len(), 8, "{size}: {rows:?}");
    assert!(
        f(&m["standings_table_w"]) <= f(&m["standings_rect"]["w"]) + 1.0,
        "{size}: the standings are wider than their column: {} > {}",
        m["standings_table_w"],
        m["standings_rect"]["w"]
    );
    // The finished games: listed, in a readable size, fitting their box.
    let finished = m["finished"].as_array().unwrap();
    assert!(!finished.is_empty(), "{size}: finished games are listed");
    assert!(finished.iter().all(|r| f(&r["font_px"]) >= 11.0), "{size}: {finished:?}");
    assert!(
        f(&m["finished_table_w"]) <= f(&m["finished_rect"]["w"]) + 1.0,
        "{size}: the finished games are wider than their box"
    );
    let png = std::fs::metadata(m["screenshot"].as_str().unwrap()).unwrap().len();
    assert!(png < 300 * 1024, "{size}: the screenshot is {png} bytes");
    covered / (aw * ah)
}

#[test]
fn the_page_fills_a_screen_with_16_or_2_games_at_1920x1080_and_1280x720() {
    let tmp = TempDir::new("page-screens");
    let shots = shots_dir(&tmp);
    let sizes = "1920x1080,1280x720";
    for jobs in [16, 2] {
        let result = measure_screens(&format!("page-screens-j{jobs}"), jobs, sizes, &shots);
        for size in sizes.split(',') {
            let m = &result["sizes"][size];
            let share = check_screen(size, m, jobs);
            let cell = m["cell"].as_u64().unwrap();
            eprintln!(
                "-j {jobs} at {size}: squares of {cell} px, {} columns, boards cover {:.0} % of their area",
                m["columns"],
                share * 100.0
            );
            // The boards fill their area: a third of it or more (before, 30 px squares
            // whatever the number of games: 16 overflowed, 2 covered a fifth).
            assert!(share >= 0.33, "-j {jobs} at {size}: the boards cover {:.0} % of their area", share * 100.0);
        }
    }
}
