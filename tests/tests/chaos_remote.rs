//! Chaos for remote bots, for real on 127.0.0.1: the real host listening (`--listen`), the
//! real `connect` client and bots, and in between what a hostile network or entrant does: a
//! proxy that holds an answer back past its game's end, floods of half-open connections
//! from many addresses, refusal floods, revoked tokens, delayed pongs, a `connect` killed
//! with SIGKILL.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stratego_tests::remote::{Client, book, frame, raw_reply, remote_match, remote_spec, sample_bot, token};
use stratego_tests::{TempDir, records};

/// Where a [`LateAnswerProxy`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Passing everything, waiting for the bot's first `move`.
    Watching,
    /// Holding the bot's text frames (the first `move` and all after it, in order).
    Holding,
    /// The host said `game_over`: still holding, until the next game's `hello`.
    Over,
    /// Released: passing everything.
    Done,
}

/// A TCP proxy on 127.0.0.1 in front of the host's port `to` that reads the WebSocket
/// frames going through it and holds the bot's first `move` back (with every text frame
/// after it, in order; control frames pass, so the connection stays alive) until the host
/// has ended that game (`game_over`) and sent the next game's `hello`: the move reaches the
/// host while it waits for that `hello`'s answer. Returns its port.
fn late_answer_proxy(to: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let phase = Arc::new(Mutex::new((Phase::Watching, Vec::<u8>::new())));
    std::thread::spawn(move || {
        for inbound in listener.incoming() {
            let Ok(inbound) = inbound else { continue };
            let Ok(outbound) = TcpStream::connect(("127.0.0.1", to)) else { continue };
            let _ = inbound.set_nodelay(true);
            let _ = outbound.set_nodelay(true);
            // Bot to host: frame by frame, holding text frames while asked to.
            {
                let (mut from, mut into, phase) =
                    (inbound.try_clone().unwrap(), outbound.try_clone().unwrap(), phase.clone());
                std::thread::spawn(move || {
                    let mut buf = Vec::new();
                    let mut chunk = vec![0u8; 64 * 1024];
                    // Until the WebSocket handshake's head is through, bytes pass as they come.
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
                            let mut p = phase.lock().unwrap();
                            let text = opcode == 1;
                            if text && p.0 == Phase::Watching && payload.windows(13).any(|w| w == br#""type":"move""#) {
                                p.0 = Phase::Holding;
                            }
                            if text && matches!(p.0, Phase::Holding | Phase::Over) {
                                p.1.extend_from_slice(&bytes);
                            } else if into.write_all(&bytes).is_err() {
                                return;
                            }
                        }
                    }
                    let _ = into.shutdown(std::net::Shutdown::Write);
                });
            }
            // Host to bot: everything passes; `game_over` then `hello` release what is held.
            {
                let mut host_side = outbound.try_clone().unwrap();
                let (mut from, mut into, phase) = (outbound, inbound, phase.clone());
                std::thread::spawn(move || {
                    let mut buf = Vec::new();
                    let mut chunk = vec![0u8; 64 * 1024];
                    let mut in_head = true;
                    while let Ok(n) = from.read(&mut chunk) {
                        if n == 0 || into.write_all(&chunk[..n]).is_err() {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if in_head {
                            let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                            buf.drain(..end + 4);
                            in_head = false;
                        }
                        while let Some((len, opcode, payload)) = frame(&buf) {
                            buf.drain(..len);
                            if opcode != 1 {
                                continue;
                            }
                            let mut p = phase.lock().unwrap();
                            if p.0 == Phase::Holding && payload.starts_with(br#"{"type":"game_over""#) {
                                p.0 = Phase::Over;
                            } else if p.0 == Phase::Over && payload.starts_with(br#"{"type":"hello""#) {
                                // The host waits for this hello's `ready`: the old move goes first.
                                let held = std::mem::take(&mut p.1);
                                let _ = host_side.write_all(&held);
                                p.0 = Phase::Done;
                            }
                        }
                    }
                    let _ = into.shutdown(std::net::Shutdown::Write);
                });
            }
        }
    });
    port
}

#[test]
fn a_move_held_back_past_its_games_end_loses_only_that_game_and_is_recorded_as_unrequested() {
    let dir = TempDir::new("chaos-late-answer");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    // The remote bot's own move limit: its held move times out whatever the machine's
    // load (the proxy holds it until the game is over); its other moves are the sample
    // bot's, answered in milliseconds, far inside 5 s.
    let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}","move_time":5}}"#);
    let book = book();
    let host = remote_match(&spec, 3, &out, &["--max-plies", "20", "--setups", &book, "-j", "1"]);
    let proxy = late_answer_proxy(host.port);
    let client = Client::start(&format!("ws://127.0.0.1:{proxy}"), &tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(180));
    assert_eq!(code, 0, "{stdout}{stderr}");
    drop(client);
    let mut recs = records(&out);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs.len(), 3, "{stderr}");
    let far = |r: &serde_json::Value| if r["bots"]["red"]["name"] == "far" { "red" } else { "blue" };
    // The game whose move was held: lost on time, by the remote bot.
    let late = &recs[0];
    assert_eq!(late["result"]["reason"], "move_timeout", "{}", late["result"]);
    assert_eq!(late["result"]["faulty"], far(late), "{}", late["result"]);
    // Every later game: played to its end by the rules, nothing lost.
    for r in &recs[1..] {
        assert_eq!(r["result"]["reason"], "ply_limit", "game {}: {}\n{stderr}", r["game_id"], r["result"]);
    }
    // The held move reached the host in the second game, while it waited for `ready`: it
    // was dropped as the late answer to the first game's turn, and recorded so.
    let noted = recs[1]["bots"][far(&recs[1])]["unrequested"].to_string();
    let first_game = late["game_id"].as_str().unwrap();
    assert!(noted.contains("late: the answer to the turn at ply") && noted.contains(first_game), "{noted}");
}

/// Keeps `per_address` connections open from each of `addresses` (bound as the source
/// address) to `port`, each with a request head half sent and never finished, opening a
/// new one as soon as the host closes one, until `stop` is set. Returns the thread.
fn half_open_flood(
    port: u16,
    addresses: Vec<std::net::Ipv4Addr>,
    per_address: usize,
    stop: Arc<std::sync::atomic::AtomicBool>,
    open: Arc<std::sync::atomic::AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let mut tasks = Vec::new();
            for ip in addresses {
                for _ in 0..per_address {
                    let (stop, open) = (stop.clone(), open.clone());
                    tasks.push(tokio::spawn(async move {
                        use tokio::io::{AsyncReadExt, AsyncWriteExt};
                        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                            let socket = tokio::net::TcpSocket::new_v4().unwrap();
                            socket.bind((ip, 0).into()).unwrap();
                            let Ok(mut s) = socket.connect(([127, 0, 0, 1], port).into()).await else {
                                tokio::time::sleep(Duration::from_millis(5)).await;
                                continue;
                            };
                            let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n").await;
                            open.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            let mut b = [0u8; 64];
                            // Held open until the host closes it (or the test ends).
                            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                                if let Ok(Ok(0) | Err(_)) =
                                    tokio::time::timeout(Duration::from_millis(100), s.read(&mut b)).await
                                {
                                    break;
                                }
                            }
                            open.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }));
                }
            }
            for t in tasks {
                let _ = t.await;
            }
        });
    })
}

#[test]
fn half_open_connections_from_eight_addresses_do_not_keep_a_bot_with_its_token_out() {
    let dir = TempDir::new("chaos-slot-exhaustion");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let book = book();
    // The defaults: 64 connections at once, 8 per address in their handshake (5 s each).
    let host = remote_match(
        &remote_spec("far", &sha),
        2,
        &out,
        &["--max-plies", "10", "--setups", &book, "--connect-timeout", "20"],
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let addresses: Vec<std::net::Ipv4Addr> = (2..=9).map(|i| std::net::Ipv4Addr::new(127, 0, 0, i)).collect();
    let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let flood = half_open_flood(host.port, addresses, 8, stop.clone(), open.clone());
    // Every place taken by the flood before the bot comes.
    let full = || open.load(std::sync::atomic::Ordering::SeqCst) == 64;
    assert!(stratego_tests::wait_for(Duration::from_secs(30), full), "{}", host.stderr());
    let client = Client::start(&host.url(), &tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    flood.join().unwrap();
    drop(client);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
    }
    assert!(stderr.contains("its place went to a newer connection"), "{stderr}");
}

#[test]
fn an_engine_a_launcher_script_started_dies_with_a_connect_killed_with_sigkill() {
    let dir = TempDir::new("chaos-launcher");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &[]);
    // A launcher: the "engine" (a sleep) in the background, then the bot in the foreground.
    let engine_pid = dir.join("engine.pid");
    let launcher = format!("sleep 1000 & echo $! > {}; exec \"$0\" sample-bot --strategy random", engine_pid.display());
    let bot = vec!["sh".to_owned(), "-c".to_owned(), launcher, stratego_tests::host_bin().display().to_string()];
    let client = Client::start(&host.url(), &tf, &bot);
    let started = || std::fs::read_to_string(&engine_pid).is_ok_and(|s| s.ends_with('\n'));
    assert!(stratego_tests::wait_for(Duration::from_secs(60), started), "{}", host.stderr());
    let pid = stratego_tests::read_pids(&engine_pid)[0];
    assert!(stratego_tests::process_alive(pid), "the engine runs while connect does");
    drop(client); // SIGKILL: connect has no say
    assert!(
        stratego_tests::wait_for(Duration::from_secs(10), || !stratego_tests::process_alive(pid)),
        "the engine (pid {pid}) outlived its connect"
    );
}

#[test]
fn a_token_revoked_in_the_token_file_is_refused_at_once_and_one_added_is_admitted() {
    let dir = TempDir::new("chaos-revoke");
    let (old_tf, old_sha) = token(&dir, "old");
    let (new_tf, new_sha) = token(&dir, "new");
    let hashes = dir.join("far.sha256");
    std::fs::write(&hashes, format!("# far\n{old_sha}\n")).unwrap();
    let spec = format!(r#"{{"name":"far","remote":true,"token_file":"{}"}}"#, hashes.display());
    let out = dir.join("out");
    let book = book();
    let host = remote_match(&spec, 1, &out, &["--max-plies", "10", "--setups", &book, "--connect-timeout", "60"]);
    // The organiser revokes the old token and gives a new one, while the event runs.
    std::fs::write(&hashes, format!("# far, reissued\n{new_sha}\n")).unwrap();
    let (code, err) = Client::start(&host.url(), &old_tf, &sample_bot()).finish(Duration::from_secs(30));
    assert_eq!(code, 2, "the revoked token is refused: {err}");
    assert!(err.contains("401") && err.contains("invalid token"), "{err}");
    let client = Client::start(&host.url(), &new_tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(client.finish(Duration::from_secs(20)).0, 0);
    let recs = records(&out);
    assert_eq!(recs[0]["result"]["reason"], "ply_limit", "{}", recs[0]["result"]);
}

/// A bot that speaks WebSocket itself and plays whole games (the first legal move, its
/// turn's `ply` echoed); with `pong_delay`, after each move it reads nothing (so answers no
/// ping) for that long: the host's ping sent right after the move comes back that late.
async fn raw_player(url: String, token: String, pong_delay: Duration) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url.as_str().into_client_request().unwrap();
    request.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let mut rules = stratego_rules::Ruleset::classic();
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Text(t) = msg else { continue };
        let m: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
        if let Some(reply) = raw_reply(&mut rules, &m) {
            ws.send(Message::text(reply)).await.unwrap();
            continue;
        }
        if m["type"] == "turn" {
            let line = serde_json::json!({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]});
            ws.send(Message::text(line.to_string())).await.unwrap();
            tokio::time::sleep(pong_delay).await;
        }
    }
}

/// The remote bot's lag credit in a record: the sum over its moves, and their number.
fn lag_credit(r: &serde_json::Value, name: &str) -> (u64, u64) {
    let side = if r["bots"]["red"]["name"] == name { "red" } else { "blue" };
    let moves: Vec<&serde_json::Value> = r["plies"].as_array().unwrap().iter().filter(|p| p["color"] == side).collect();
    (moves.iter().map(|p| p["lag_credit_us"].as_u64().unwrap_or(0)).sum(), moves.len() as u64)
}

#[test]
fn a_bot_that_delays_its_pongs_gets_no_more_lag_credit_than_the_network_gives() {
    let dir = TempDir::new("chaos-pong-delay");
    let (tf, sha) = token(&dir, "raw");
    let tok = stratego_tests::remote::token_text(&tf);
    let book = book();
    let mut per_move = Vec::new();
    for (what, delay) in [("honest", Duration::ZERO), ("pong-delay", Duration::from_millis(45))] {
        let out = dir.join(what);
        let host = remote_match(&remote_spec("raw", &sha), 1, &out, &["--max-plies", "40", "--setups", &book]);
        let (url, tok) = (host.url(), tok.clone());
        let player = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(raw_player(url, tok, delay));
        });
        let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
        assert_eq!(code, 0, "{stdout}{stderr}");
        let _ = player.join();
        let r = &records(&out)[0];
        assert_eq!(r["result"]["reason"], "ply_limit", "{what}: {}", r["result"]);
        let (credit_us, moves) = lag_credit(r, "raw");
        assert_eq!(moves, 20, "{what}");
        per_move.push((what, credit_us / moves));
    }
    // Over loopback the network's one-way lag is microseconds: a bot that holds its pongs
    // back 45 ms earns no credit for it (it earned 22 ms a move when the pongs decided).
    // The bound is the kernel's smallest round trip on the connection, which no load on
    // this machine makes milliseconds long.
    for (what, us) in &per_move {
        assert!(*us < 2_000, "{what}: {us} µs of lag credit a move (all: {per_move:?})");
    }
}

#[test]
fn a_flood_of_refused_connections_costs_a_few_log_lines_and_a_summary() {
    let dir = TempDir::new("chaos-refusal-flood");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let book = book();
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &["--max-plies", "10", "--setups", &book]);
    // 5,000 connections that each close at once, or ask with a wrong token: every one is
    // refused.
    const FLOOD: usize = 5_000;
    let addr = format!("127.0.0.1:{}", host.port);
    for i in 0..FLOOD {
        let Ok(mut s) = TcpStream::connect(&addr) else { continue };
        if i % 2 == 0 {
            let _ = s.write_all(
                b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer stt_wrong\r\n\r\n",
            );
            let mut b = [0u8; 256];
            let _ = s.read(&mut b);
        }
    }
    let client = Client::start(&host.url(), &tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stdout}{stderr}");
    drop(client);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("remote bots: 127.0.0.1:")).collect();
    assert!(lines.len() <= 2 * 10, "{} refusal lines:\n{}", lines.len(), lines.join("\n"));
    // The rest is summarised: how many, of what kind, from where.
    let hidden: u64 = stderr
        .lines()
        .filter_map(|l| l.split_once("remote bots: ")?.1.split_once(" more connections refused")?.0.parse::<u64>().ok())
        .sum();
    assert!(hidden as usize + lines.len() >= FLOOD * 9 / 10, "{hidden} summarised:\n{stderr}");
    assert!(stderr.contains("from 1 address(es): 127.0.0.1"), "{stderr}");
    assert_eq!(records(&out)[0]["result"]["reason"], "ply_limit");
}
