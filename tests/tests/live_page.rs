//! The live page (`--serve ADDR`) of a running event, over real TCP on 127.0.0.1 and in
//! headless Chromium.
//!
//! The events are held open by the scripted test bot: it waits at a given turn until a file
//! exists (`hold=N:PATH`), so each test decides when its event may go on, and no wait here is
//! about how fast anything runs.
//!
//! HTTP: bad paths, other methods, a too-large request head and garbage get clear errors and
//! nothing else is served; past [`MAX_CONNECTIONS`] (from several addresses) a connection gets 503; a client that
//! does not finish its request, or stops reading its response, is dropped.
//!
//! Browser (`tests/viewer/live.mjs`, needs Debian's chromium and Node, which `.ci/run`
//! installs): while a tournament runs, the standings change, a live board advances and
//! shows, for the ply it says, the public position of that game's record by the rules crate
//! (every piece's side, and only the ranks revealed by then), computed in the page by the
//! WebAssembly module from the plies it was sent; a finished game opens in the viewer in all
//! three views; with `--serve-delay` every board shows its game that many plies behind. A
//! raw `/events` stream read all along the same run holds no rank that was not public at the
//! ply it shows. A match with a remote bot (through `connect`) shows it in the page's remote
//! bots' table.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use stratego_host::display::web::live_page::{MAX_CONNECTIONS, MAX_PER_ADDRESS};
use stratego_protocol::record::GameRecord;
use stratego_rules::Color;
use stratego_tests::read_records;
use stratego_tests::{CALM_CLOCK, TempDir, connect_from, expected_board, host_bin, scripted_bot, sse_events, wait_for};

const MISSING: &str = "this test needs Debian's chromium (tests/run.sh, the README's test command, installs it)";
/// The longest any wait here may take before the test fails.
const LIMIT: Duration = Duration::from_secs(60);

/// A host process with `--serve`, its address read from stderr.
struct Host {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Host {
    fn start(command: &str, args: &[String]) -> Host {
        let mut child = Command::new(host_bin())
            .arg(command)
            .args(args)
            .args(CALM_CLOCK)
            .args(["--serve", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the host");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let copy = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                copy.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut addr = None;
        let found = wait_for(LIMIT, || {
            let text = stderr.lock().unwrap().clone();
            // Whole lines only: the pipe may have given part of one.
            let whole = text.rfind('\n').map_or("", |end| &text[..end]);
            addr = whole
                .lines()
                .find_map(|l| l.strip_prefix("stratego-host: live page: http://"))
                // `ADDR/`, or `ADDR/ (the --listen port)` when it shares that one.
                .map(|a| a.split('/').next().unwrap_or_default().to_owned());
            addr.is_some() || child.try_wait().unwrap().is_some()
        });
        let text = stderr.lock().unwrap().clone();
        assert!(found, "the host did not say where the live page is:\n{text}");
        let addr = addr.unwrap_or_else(|| panic!("the host ended without serving:\n{text}"));
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        Host { child, addr, stderr }
    }

    /// Waits for the host to end; its exit code and stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        let mut status = None;
        let ended = wait_for(LIMIT, || {
            status = self.child.try_wait().unwrap();
            status.is_some()
        });
        let text = self.stderr.lock().unwrap().clone();
        assert!(ended, "the host did not end:\n{text}");
        (status.and_then(|s| s.code()), text)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect to the live page");
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.set_write_timeout(Some(LIMIT)).unwrap();
    s
}

/// Sends `raw` on a new connection and reads the answer to its end: the status, the head
/// and the body.
fn exchange(addr: &str, raw: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = connect(addr);
    // The server may answer and close before a long request is all sent.
    let _ = s.write_all(raw);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    parse(&answer)
}

fn parse(answer: &[u8]) -> (u16, String, Vec<u8>) {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head, answer[end..].to_vec())
}

fn get(addr: &str, path: &str) -> (u16, String, Vec<u8>) {
    exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
}

/// Opens the event stream and reads until its first snapshot has come.
fn open_stream(addr: &str) -> TcpStream {
    let mut s = connect(addr);
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("event: snapshot") {
        let n = s.read(&mut buf).expect("read the event stream");
        assert!(n > 0, "the stream ended before its snapshot: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"), "{}", String::from_utf8_lossy(&got));
    s
}

/// A tournament held open: two sample bots, and a scripted bot that waits at its second turn
/// until `gate` exists; the first pair's games (the two sample bots) finish while the others
/// wait.
fn held_tournament(dir: &TempDir, gate: &Path, extra: &[&str]) -> Host {
    let held = scripted_bot(dir, &[&format!("hold=2:{}", gate.display())]);
    let mut args: Vec<String> = [
        "--bot",
        "sample-bot",
        "--bot",
        "sample-bot --strategy random",
        "--bot",
        &held,
        "--games",
        "2",
        "-j",
        "2",
        "--seed",
        "7",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    Host::start("tournament", &args)
}

#[test]
fn bad_requests_get_clear_errors_and_nothing_else_is_served() {
    let dir = TempDir::new("live-bad-requests");
    let gate = dir.join("gate");
    let host = held_tournament(&dir, &gate, &["--max-plies", "40"]);
    let addr = host.addr.clone();

    let (status, head, body) = get(&addr, "/");
    assert_eq!(status, 200, "{head}");
    assert!(head.to_lowercase().contains("content-type: text/html"), "{head}");
    assert!(head.to_lowercase().contains("content-security-policy: default-src 'none'"), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("new EventSource('/events')"));
    drop(open_stream(&addr));

    // The rules module: the page names it with its version; it is kept by the browser, and
    // asked again with its tag it is not sent again.
    let page = String::from_utf8_lossy(&body).into_owned();
    let url = page.split("fetch('").nth(1).and_then(|r| r.split('\'').next()).expect("the page fetches the module");
    assert!(url.starts_with("/viewer.wasm?v="), "{url}");
    let (status, head, wasm) = get(&addr, url);
    assert_eq!(status, 200, "{head}");
    let lower = head.to_lowercase();
    assert!(lower.contains("content-type: application/wasm"), "{head}");
    assert!(lower.contains("cache-control: public, max-age="), "{head}");
    assert!(wasm.starts_with(b"\0asm") && wasm.len() > 10_000, "a WebAssembly module: {} bytes", wasm.len());
    let etag = head.lines().find_map(|l| l.strip_prefix("etag: ")).expect("an etag").trim().to_owned();
    assert_eq!(format!("\"{}\"", &url["/viewer.wasm?v=".len()..]), etag, "the URL names the module's version");
    let again = format!("GET /viewer.wasm HTTP/1.1\r\nHost: {addr}\r\nIf-None-Match: {etag}\r\n\r\n");
    let (status, head, body) = exchange(&addr, again.as_bytes());
    assert_eq!((status, body.len()), (304, 0), "{head}");
    let stale = format!("GET /viewer.wasm HTTP/1.1\r\nHost: {addr}\r\nIf-None-Match: \"0\"\r\n\r\n");
    assert_eq!(exchange(&addr, stale.as_bytes()).2, wasm, "another version's tag gets the module");

    for path in [
        "/nope",
        "/index.htm",
        "/games/",
        "/games/0.html",
        "/games/01.html",
        "/games/99.html",
        "/games/1.html/../../../etc/passwd",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/games/..%2f..%2fmanifest.json",
        "/events/../games.jsonl",
    ] {
        let (status, head, body) = get(&addr, path);
        assert_eq!(status, 404, "GET {path}: {head}");
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("not found") || body.contains("no such finished game"), "GET {path}: {body}");
    }
    // The first pair's games finish; the first one's viewer page is served.
    assert!(wait_for(LIMIT, || get(&addr, "/games/1.html").0 == 200), "no finished game's page");
    let (_, head, body) = get(&addr, "/games/1.html");
    assert!(head.to_lowercase().contains("content-type: text/html"), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("id=\"view-red\""), "the viewer page, with its views");

    for method in ["POST", "PUT", "DELETE", "HEAD", "OPTIONS"] {
        let (status, head, _) =
            exchange(&addr, format!("{method} / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n").as_bytes());
        assert_eq!(status, 405, "{method}: {head}");
        assert!(head.to_lowercase().contains("allow: get"), "{method}: {head}");
    }
    // A request head past the limit is refused before it is read to its end.
    let big = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Filler: {}\r\n\r\n", "a".repeat(64 * 1024));
    let (status, head, _) = exchange(&addr, big.as_bytes());
    assert_eq!(status, 431, "{head}");
    let (status, head, _) = exchange(&addr, b"HELLO THERE\r\n\r\n");
    assert_eq!(status, 400, "{head}");

    // The server still serves after all that, and the event ends as usual.
    assert_eq!(get(&addr, "/").0, 200);
    std::fs::write(&gate, "go").unwrap();
    let (code, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// A finished game's page shows both setups, every rank: it is held back (403, naming the
/// game it waits for) while the other game of its pair runs, which plays the same setups
/// with a setup book.
#[test]
fn a_finished_games_page_is_held_back_while_the_other_game_of_its_pair_runs() {
    let dir = TempDir::new("live-held-page");
    let gate = dir.join("gate");
    // Game 1: the holder plays Red and waits at its first turn for the gate. Game 2: it plays
    // Blue, and the resigner (Red) resigns at once: game 2 is the first to finish.
    let holder = scripted_bot(&dir, &[&format!("hold_red=1:{}", gate.display())]);
    let resigner = scripted_bot(&dir, &["resign=1"]);
    let args: Vec<String> =
        [&holder, &resigner, "--games", "2", "-j", "2", "--seed", "3"].iter().map(|s| s.to_string()).collect();
    let host = Host::start("match", &args);
    let addr = host.addr.clone();
    // The first finished game (game 2) is kept; its page is held while game 1 runs.
    let mut answer = (0, String::new(), Vec::new());
    assert!(
        wait_for(LIMIT, || {
            answer = get(&addr, "/games/1.html");
            answer.0 != 404
        }),
        "no finished game"
    );
    let (status, head, body) = answer;
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 403, "{head}\n{body}");
    assert!(body.contains("held back while game") && body.contains("-1 is running"), "{body}");
    assert!(!body.contains("view-red"), "no viewer page: {body}");
    // Still held while the game runs (the holder waits for the gate, not for time).
    assert_eq!(get(&addr, "/games/1.html").0, 403);
    std::fs::write(&gate, "go").unwrap();
    let (code, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// Reads an open event stream `s` until `done(finished, standings)` holds or [`LIMIT`]
/// passes: the `done` count of the last `finished` message and of the last `standings`
/// message with its HTML, from whole messages only; whether it held, and what was read.
fn read_until(mut s: TcpStream, done: impl Fn(u64, Option<(u64, &str)>) -> bool) -> (bool, String) {
    s.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let start = std::time::Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    while start.elapsed() < LIMIT {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) => panic!("read the event stream: {e}"),
        }
        let text = String::from_utf8_lossy(&got);
        let whole = text.rfind("\n\n").map_or("", |end| &text[..end]);
        let (mut finished, mut standings) = (0, None);
        for (name, v) in sse_events(whole) {
            match name.as_str() {
                "finished" => finished = v["done"].as_u64().unwrap(),
                "standings" => standings = Some((v["done"].as_u64().unwrap(), v["html"].as_str().unwrap().to_owned())),
                _ => {}
            }
        }
        if done(finished, standings.as_ref().map(|(n, h)| (*n, h.as_str()))) {
            return (true, text.into_owned());
        }
    }
    (false, String::from_utf8_lossy(&got).into_owned())
}

/// Games that finish close together while the other games then wait: the page's standings
/// count every finished game within a second or so, not at the next move of a game still
/// running, which may be minutes away (they did not: the standings are computed at most
/// once a second, and those held back waited for the next happening, so the page showed
/// them without the last games for as long as the bots waited).
#[test]
fn the_standings_count_every_finished_game_while_the_running_games_wait() {
    let dir = TempDir::new("live-standings-wait");
    let (start, gate) = (dir.join("start"), dir.join("gate"));
    // Two bots that wait at their first turn for `start`, then resign as Red, and one that
    // waits at its first turn for `gate`: once `start` exists, the games the last one plays
    // as Red wait (both slots of -j 2, in the end), and every other game ends in its first
    // ply. `start` comes once the stream is open, so every game's end is sent on it.
    let quick = scripted_bot(&dir, &["resign=1", &format!("hold=1:{}", start.display())]);
    let holder = scripted_bot(&dir, &[&format!("hold=1:{}", gate.display())]);
    let args: Vec<String> = ["--bot", &quick, "--bot", &quick, "--bot", &holder, "--games", "2", "-j", "2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let host = Host::start("tournament", &args);
    let stream = open_stream(&host.addr);
    std::fs::write(&start, "go").unwrap();
    // Of its 6 games the 2 with the holder as Red wait: 4 finish.
    let (counted, text) = read_until(stream, |finished, standings| {
        finished == 4 && standings.is_some_and(|(done, html)| done == 4 && html.contains("games"))
    });
    std::fs::write(&gate, "go").unwrap();
    let (code, stderr) = host.finish();
    assert!(counted, "the standings never counted the 4 finished games while 2 waited:\n{text}\n{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn too_many_connections_are_refused_and_slow_clients_are_dropped() {
    let dir = TempDir::new("live-limits");
    let gate = dir.join("gate");
    let host = held_tournament(&dir, &gate, &["--max-plies", "600"]);
    let addr = host.addr.clone();

    // Every connection the server allows, each on the event stream, from as many addresses
    // as that takes (one address may hold MAX_PER_ADDRESS: chaos_live.rs).
    let streams: Vec<TcpStream> = (0..MAX_CONNECTIONS).map(|i| open_stream_from(source(i), &addr)).collect();
    let outside = std::net::Ipv4Addr::new(127, 0, 0, 200);
    let mut refused = connect_from(outside, &addr, LIMIT);
    let _ = refused.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
    let mut answer = Vec::new();
    let _ = refused.read_to_end(&mut answer);
    let (status, head, body) = parse(&answer);
    assert_eq!(status, 503, "connection {} of {MAX_CONNECTIONS}: {head}", MAX_CONNECTIONS + 1);
    assert!(String::from_utf8_lossy(&body).contains("too many connections"), "{}", String::from_utf8_lossy(&body));
    // One goes away: a new client is served again.
    drop(streams);
    assert!(wait_for(LIMIT, || get(&addr, "/").0 == 200), "the closed connections were not given back");

    // A client that never finishes its request head is closed (and given no page).
    let mut slow = connect(&addr);
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut answer = Vec::new();
    let read = slow.read_to_end(&mut answer);
    assert!(
        read.is_ok() || read.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "the server did not close a client that never finished its request: {read:?}"
    );
    assert!(!String::from_utf8_lossy(&answer).contains(" 200 "), "{}", String::from_utf8_lossy(&answer));

    // Clients that stop reading a large page: they hold every connection until the server
    // drops them; then it serves again, and each got only part of the page.
    assert!(wait_for(LIMIT, || get(&addr, "/games/1.html").0 == 200), "no finished game's page");
    let (_, _, page) = get(&addr, "/games/1.html");
    assert!(page.len() > 200_000, "the page is too small to fill the buffers: {} bytes", page.len());
    let stalled: Vec<TcpStream> = (0..MAX_CONNECTIONS)
        .map(|i| {
            let mut s = small_window(source(i), &addr);
            s.write_all(format!("GET /games/1.html HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
            s
        })
        .collect();
    assert!(wait_for(LIMIT, || get(&addr, "/").0 == 200), "clients that stopped reading were never dropped");
    let mut got = Vec::new();
    let mut first = stalled.into_iter().next().unwrap();
    let _ = first.read_to_end(&mut got);
    let (status, head, body) = parse(&got);
    assert_eq!(status, 200, "{head}");
    assert!(body.len() < page.len(), "a client that stopped reading got the whole page ({} bytes)", body.len());

    std::fs::write(&gate, "go").unwrap();
    let (code, stderr) = host.finish();
    assert_eq!(code, Some(0), "{stderr}");
}

/// The source address of the `i`-th of [`MAX_CONNECTIONS`] connections: 127.0.0.1 for the
/// first [`MAX_PER_ADDRESS`], 127.0.0.2 for the next, and so on.
fn source(i: usize) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::new(127, 0, 0, 1 + (i / MAX_PER_ADDRESS) as u8)
}

/// [`open_stream`] from the local address `from`.
fn open_stream_from(from: std::net::Ipv4Addr, addr: &str) -> TcpStream {
    let mut s = connect_from(from, addr, LIMIT);
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("event: snapshot") {
        let n = s.read(&mut buf).expect("read the event stream");
        assert!(n > 0, "the stream from {from} ended before its snapshot: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"), "{}", String::from_utf8_lossy(&got));
    s
}

/// A connection from `from` whose receive buffer is as small as the kernel allows, so that
/// a client that does not read stops the server's writes soon.
fn small_window(from: std::net::Ipv4Addr, addr: &str) -> TcpStream {
    use std::os::fd::FromRawFd as _;
    let target: std::net::SocketAddrV4 = addr.parse().unwrap();
    // SAFETY: plain socket calls on a descriptor this function owns until it is handed to
    // the TcpStream; the pointers point to values of the sizes given.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let size: libc::c_int = 1024;
        let r = libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&raw const size).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "SO_RCVBUF: {}", std::io::Error::last_os_error());
        let sin = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: target.port().to_be(),
            sin_addr: libc::in_addr { s_addr: u32::from(*target.ip()).to_be() },
            sin_zero: [0; 8],
        };
        let local = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: 0,
            sin_addr: libc::in_addr { s_addr: u32::from(from).to_be() },
            sin_zero: [0; 8],
        };
        let r = libc::bind(fd, (&raw const local).cast(), std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t);
        assert_eq!(r, 0, "bind {from}: {}", std::io::Error::last_os_error());
        let r = libc::connect(fd, (&raw const sin).cast(), std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t);
        assert_eq!(r, 0, "connect: {}", std::io::Error::last_os_error());
        let s = TcpStream::from_raw_fd(fd);
        s.set_read_timeout(Some(LIMIT)).unwrap();
        s
    }
}

// ---- in the browser -----------------------------------------------------------------------

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into())
}

fn as_board(v: &Value) -> std::collections::BTreeMap<String, String> {
    v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect()
}

/// Every square of `record`'s board after `ply` plies as any spectator may see it, by the
/// rules crate: each piece's side, and its rank only when the rules crate says it is
/// revealed to both players (`red:?` otherwise; "" for an empty square).
fn public_board(record: &GameRecord, ply: usize) -> std::collections::BTreeMap<String, String> {
    let (game, mut board) = stratego_tests::replayed(record, ply);
    // Red's view has every rank; `revealed` says which are public.
    for p in game.view_pieces(Color::Red) {
        let rank = if p.revealed { p.rank.unwrap().code() } else { '?' };
        board.insert(p.square.to_string(), format!("{}:{rank}", p.color.name()));
    }
    board
}

/// Reads an event stream to its end (the event's `over`) on a thread of its own.
fn read_stream(addr: &str) -> std::thread::JoinHandle<String> {
    let mut s = connect(addr);
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got);
        String::from_utf8_lossy(&got).into_owned()
    })
}

/// Checks everything a raw event stream was sent against the records: every board of a
/// running game (in a snapshot or a `game` message) is the public position at the ply it
/// says, and every ply of a `boards` message is the record's move with, for a fight, the
/// fight's two ranks. So no rank that was not public is ever sent while a game runs.
fn check_stream(stream: &str, records: &[GameRecord], squares: &[String]) {
    assert!(stream.starts_with("HTTP/1.1 200"), "{}", &stream[..stream.len().min(200)]);
    assert!(stream.contains("event: over\n"), "the stream went on to the end of the event");
    let record = |id: &str| records.iter().find(|r| r.game_id == id).unwrap_or_else(|| panic!("no record of {id}"));
    let board_of = |g: &Value| -> std::collections::BTreeMap<String, String> {
        let cells = g["board"].as_array().unwrap();
        assert_eq!(cells.len(), squares.len());
        squares.iter().cloned().zip(cells.iter().map(|c| c.as_str().unwrap().to_owned())).collect()
    };
    let (mut boards, mut plies, mut fights, mut public_ranks) = (0, 0, 0, 0);
    for block in stream.split("\n\n") {
        let Some(name) = block.lines().find_map(|l| l.strip_prefix("event: ")) else { continue };
        let data: Value = serde_json::from_str(block.lines().find_map(|l| l.strip_prefix("data: ")).unwrap()).unwrap();
        let games: Vec<&Value> = match name {
            "snapshot" => data["games"].as_array().unwrap().iter().collect(),
            "game" => vec![&data],
            "boards" => {
                for g in data["games"].as_array().unwrap() {
                    let r = record(g["id"].as_str().unwrap());
                    let (shown, sent) = (g["shown"].as_u64().unwrap() as usize, g["plies"].as_array().unwrap());
                    for (k, p) in sent.iter().enumerate() {
                        let ply = &r.plies[shown - sent.len() + k].ply;
                        let mut expected = serde_json::json!({ "move": ply.mv.to_string() });
                        if let Some(c) = ply.combat {
                            expected["fight"] = format!("{}{}", c.attacker.code(), c.defender.code()).into();
                            fights += 1;
                        }
                        assert_eq!(p, &expected, "game {}: ply {}", r.game_id, shown - sent.len() + k + 1);
                        plies += 1;
                    }
                }
                continue;
            }
            _ => continue,
        };
        for g in games {
            if g["board"].is_null() {
                continue;
            }
            let r = record(g["id"].as_str().unwrap());
            let shown = g["shown"].as_u64().unwrap() as usize;
            let board = board_of(g);
            assert_eq!(board, public_board(r, shown), "game {}: the board sent at ply {shown}", r.game_id);
            public_ranks += board.values().filter(|c| c.contains(':') && !c.ends_with('?')).count();
            boards += 1;
        }
    }
    assert!(
        boards > 0 && plies > 0 && fights > 0,
        "boards {boards}, plies {plies}, fights {fights}: too little to judge"
    );
    eprintln!("raw stream: {boards} boards ({public_ranks} public ranks), {plies} plies ({fights} fights)");
}

/// Plays a tournament with `--serve` (and `extra` flags), watched by `live.mjs` and read
/// raw on `/events`; the driver's JSON and the records (the raw stream checked).
fn watch_tournament(
    name: &str,
    extra: &[&str],
    screenshot: Option<&Path>,
) -> (Value, Vec<stratego_protocol::record::GameRecord>) {
    let found = Command::new(chromium()).arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    assert!(
        Command::new("node").arg("--version").output().is_ok(),
        "this test needs Node (tests/run.sh, the README's test command, installs nodejs)"
    );

    let dir = TempDir::new(name);
    let (first, last) = (dir.join("open-first"), dir.join("open-last"));
    // Every bot but sample-bot waits at its first turn for the page to be watched (so no game
    // passes its second ply before), with its Flag on its back rank (so games last); the
    // third bot also waits at its twelfth turn until the driver is done (so the event cannot
    // end before).
    let a = scripted_bot(&dir, &["back=1", "delay_ms=15", &format!("hold=1:{}", first.display())]);
    let b =
        scripted_bot(&dir, &["back=1", "delay_ms=15", &format!("hold=1:{},12:{}", first.display(), last.display())]);
    let out = dir.join("out");
    let mut args: Vec<String> = ["--bot", "sample-bot", "--bot", &a, "--bot", &b, "--games", "2", "-j", "2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(["--seed", "11", "--max-plies", "80", "--out", out.to_str().unwrap()].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    let host = Host::start("tournament", &args);
    let raw = read_stream(&host.addr);

    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/live.mjs");
    let mut command = Command::new("node");
    command.arg(&driver).args(["--url", &format!("http://{}/", host.addr)]);
    command.args(["--open-first", first.to_str().unwrap(), "--open-last", last.to_str().unwrap()]);
    if let Some(delay) = extra.iter().position(|a| *a == "--serve-delay").map(|i| extra[i + 1]) {
        command.args(["--delay", delay]);
    }
    if let Some(png) = screenshot {
        command.args(["--screenshot", png.to_str().unwrap()]);
    }
    let run = command.output().expect("run node");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(3), "{MISSING}\n{stderr}");
    // Whatever the driver did, the event may end.
    std::fs::write(&first, "go").unwrap();
    std::fs::write(&last, "go").unwrap();
    let (code, host_err) = host.finish();
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{stderr}\nhost:\n{host_err}");
    assert_eq!(code, Some(0), "{host_err}");
    let result: Value = serde_json::from_slice(&run.stdout).expect("the driver prints JSON");
    eprintln!(
        "browser run: {} ms, {} board samples",
        result["elapsed_ms"],
        result["samples"].as_array().unwrap().len()
    );
    let problems = &result["problems"];
    for kind in ["exceptions", "console_errors", "dialogs"] {
        assert_eq!(problems[kind], serde_json::json!([]), "{kind}: {problems}");
    }
    let records = read_records(&out.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 6, "every game of the tournament was played");
    assert_eq!((result["engine"].as_str(), result["resyncs"].as_str()), (Some("wasm"), Some("0")), "{result}");
    let stream = raw.join().unwrap();
    let squares: Vec<String> = {
        let first = stream.split("\n\n").next().unwrap();
        let snapshot = first.lines().find_map(|l| l.strip_prefix("data: ")).expect("a snapshot first");
        serde_json::from_str::<Value>(snapshot).unwrap()["squares"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    check_stream(&stream, &records, &squares);
    (result, records)
}

/// Checks every board sample against its game's record: the board the page computed is the
/// public position at the ply it says; a board advanced, and one showed a public rank.
fn check_samples(result: &Value, records: &[GameRecord], delay: u64) {
    let samples = result["samples"].as_array().unwrap();
    assert!(!samples.is_empty());
    let mut plies: std::collections::BTreeMap<String, std::collections::BTreeSet<u64>> = Default::default();
    for s in samples {
        let id = s["id"].as_str().unwrap();
        let record = records.iter().find(|r| r.game_id == id).unwrap_or_else(|| panic!("no record of game {id}"));
        let shown = s["shown"].as_u64().unwrap();
        let played = s["played"].as_u64().unwrap();
        assert_eq!(shown, played.saturating_sub(delay), "game {id}: shows ply {shown} of {played} played");
        assert!(s["ply_text"].as_str().unwrap().starts_with(&format!("Ply {shown}")), "{}", s["ply_text"]);
        assert_eq!(
            as_board(&s["board"]),
            public_board(record, shown as usize),
            "game {id}: the board at ply {shown} is the rules crate's public position"
        );
        plies.entry(id.to_owned()).or_default().insert(shown);
    }
    assert!(plies.values().any(|p| p.len() >= 2), "no live board advanced: {plies:?}");
    let ranked = samples
        .iter()
        .filter(|s| {
            s["board"]
                .as_object()
                .unwrap()
                .values()
                .any(|c| c.as_str().is_some_and(|c| c.contains(':') && !c.ends_with('?')))
        })
        .count();
    eprintln!("{} board samples, {ranked} with a public rank", samples.len());
    if delay > 0 {
        assert!(
            samples.iter().any(|s| s["played"].as_u64().unwrap() >= delay),
            "no board was seen {delay} plies behind"
        );
    }
}

#[test]
fn the_live_page_shows_a_running_tournament_in_a_browser() {
    let shot_dir = TempDir::new("live-page-shot");
    let shot = shot_dir.join("live.png");
    let (result, records) = watch_tournament("live-browser", &[], Some(&shot));

    // The standings changed while the page was open: a game finished.
    assert_eq!(result["first_finished"], 0, "no game finished before the page was watched");
    assert_ne!(result["first_standings"], result["last_standings"], "the standings changed");
    check_samples(&result, &records, 0);
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a screenshot of the live page");

    // A finished game opened in the viewer, in each view.
    let viewer = &result["viewer"];
    let id = viewer["id"].as_str().unwrap();
    assert!(viewer["href"].as_str().unwrap().contains("/games/"), "{viewer}");
    let record = records.iter().find(|r| r.game_id == id).unwrap();
    let ply = viewer["ply"].as_u64().unwrap() as usize;
    assert_eq!(ply, 6.min(record.plies.len()));
    for (view, side) in [("spectator", None), ("red", Some(Color::Red)), ("blue", Some(Color::Blue))] {
        assert_eq!(as_board(&viewer["boards"][view]), expected_board(record, ply, side), "{view}'s view at ply {ply}");
    }
}

#[test]
fn with_serve_delay_the_live_boards_lag_by_that_many_plies() {
    let (result, records) = watch_tournament("live-delay", &["--serve-delay", "5"], None);
    check_samples(&result, &records, 5);
}

#[test]
fn the_live_page_shows_a_remote_bot_in_its_table_in_a_browser() {
    let found = Command::new(chromium()).arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    let dir = TempDir::new("live-remote");
    let token = dir.join("far.token");
    let made = Command::new(host_bin()).args(["token", "--out", token.to_str().unwrap()]).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let stdout = String::from_utf8(made.stdout).unwrap();
    let sha = stdout.trim().strip_prefix("token_sha256 = \"").and_then(|s| s.strip_suffix('"')).expect(&stdout);
    let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#);
    let host = Host::start(
        "match",
        &["sample-bot", &spec, "--games", "2", "--seed", "5", "--max-plies", "30", "--listen", "127.0.0.1:0"]
            .map(String::from),
    );
    let mut port = None;
    assert!(
        wait_for(LIMIT, || {
            let text = host.stderr.lock().unwrap().clone();
            port = text.lines().find_map(|l| l.split("on ws://").nth(1)).map(|a| a.trim().to_owned());
            port.is_some()
        }),
        "the host did not say where it listens: {}",
        host.stderr.lock().unwrap()
    );
    // `--serve` and `--listen` both at 127.0.0.1:0: one port serves the page and the bots.
    assert_eq!(port.as_deref(), Some(host.addr.as_str()), "{}", host.stderr.lock().unwrap());
    // The remote bot waits at its third turn until the page has shown it connected and moving.
    let gate = dir.join("gate");
    let bot = scripted_bot(&dir, &[]);
    let script = bot.split_whitespace().nth(1).unwrap().to_owned();
    let hold = format!("hold=3:{}", gate.display());
    let mut client = Command::new(host_bin())
        .args([
            "connect",
            &format!("ws://{}", port.unwrap()),
            "--token-file",
            token.to_str().unwrap(),
            "--retry-s",
            "30",
        ])
        .args(["--", "python3", &script, &hold])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/live.mjs");
    let run = Command::new("node")
        .arg(&driver)
        .args(["--url", &format!("http://{}/", host.addr), "--remote-gate", gate.to_str().unwrap()])
        .output()
        .expect("run node");
    std::fs::write(&gate, "go").unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(3), "{MISSING}\n{stderr}");
    let (code, host_err) = host.finish();
    let ended = wait_for(LIMIT, || client.try_wait().unwrap().is_some());
    if !ended {
        let _ = client.kill();
    }
    let _ = client.wait();
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{stderr}\nhost:\n{host_err}");
    assert_eq!(code, Some(0), "{host_err}");
    let result: Value = serde_json::from_slice(&run.stdout).expect("the driver prints JSON");
    for kind in ["exceptions", "console_errors", "dialogs"] {
        assert_eq!(result["problems"][kind], serde_json::json!([]), "{kind}: {result}");
    }
    let headers: Vec<&str> = result["headers"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert_eq!(headers, ["Bot", "Connection", "Lag now", "Median lag", "90% lag", "Moves", "Credit given"]);
    let rows = result["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one remote bot, the local one not listed: {rows:?}");
    let cells: Vec<&str> = rows[0]["cells"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!((rows[0]["bot"].as_str(), cells[0], cells[1]), (Some("far"), "far", "connected"), "{cells:?}");
    assert!(cells[5].parse::<u64>().unwrap() >= 1, "its moves: {cells:?}");
    for lag in &cells[3..5] {
        assert!(lag.ends_with("µs") || lag.ends_with("ms") || lag.ends_with(" s"), "a lag figure: {cells:?}");
    }
}

#[test]
fn serve_delay_needs_serve_and_a_bad_address_is_a_usage_error() {
    let out = Command::new(host_bin()).args(["match", "--serve-delay", "3"]).args(CALM_CLOCK).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--serve-delay: only with --serve"));
    let out = Command::new(host_bin()).args(["match", "--serve", "not-an-address"]).args(CALM_CLOCK).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--serve not-an-address"));
}
