//! Remote bots end to end, on 127.0.0.1: the real host listening (`--listen`), the real
//! `connect` client running real bots, and raw WebSocket clients for bad input.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use stratego_tests::remote::{Client, Host, book, raw_reply, remote_match, remote_spec, sample_bot, token, token_text};
use stratego_tests::{CALM_CLOCK, TempDir, bin, host_bin, records, wait_for};

/// The misbehaving test bot's command line with `args`.
fn misbehaving_bot(args: &[&str]) -> Vec<String> {
    std::iter::once(bin("misbehaving-bot").display().to_string()).chain(args.iter().map(|a| a.to_string())).collect()
}

/// The side the bot named `name` played in record `r`.
fn side_of(r: &serde_json::Value, name: &str) -> &'static str {
    if r["bots"]["red"]["name"] == name { "red" } else { "blue" }
}

#[test]
fn the_token_command_writes_once_with_mode_0600_and_never_overwrites() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("remote-token");
    let (path, sha) = token(&dir, "a");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("stt_") && text.trim().len() == 68, "{text}");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(sha, stratego_host::remote::token::hex(&stratego_host::remote::token::hash(text.trim())));
    let again = Command::new(host_bin()).args(["token", "--out", path.to_str().unwrap()]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("never replaced"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the token file is untouched");
    // Printed once, with its hash.
    let shown = Command::new(host_bin()).arg("token").output().unwrap();
    let out = String::from_utf8(shown.stdout).unwrap();
    assert!(out.contains("token = \"stt_") && out.contains("token_sha256 = \""), "{out}");
}

#[test]
fn a_match_between_a_local_and_a_remote_bot_is_recorded_like_a_local_one_and_sends_the_same_lines() {
    let dir = TempDir::new("remote-match");
    let page_addr = format!("127.0.0.1:{}", free_port());
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let remote_logs = format!("{}/", dir.join("remote-logs").display());
    let remote_args = ["--seed", "3", "--log-protocol", &remote_logs, "--connect-timeout", "60", "--serve", &page_addr];
    let host = remote_match(&remote_spec("far", &sha), 2, &out, &remote_args);
    // --serve at another address than --listen: two listeners, each serving its own (the
    // host waits for the remote bot, so both are up).
    let (status, _, body) = http_get(&page_addr, "/");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("<html"), "the live page");
    let (status, _, _) = http_get(&format!("127.0.0.1:{}", host.port), "/");
    assert_ne!(status, 200, "the bots' listener serves no page of its own");
    // Not the opponent's command line: the two bots are not the same program, so that the
    // local match below deals them the same seeds (it would not for one program).
    let far_bot = [&sample_bot()[..], &["--strategy".to_owned(), "heuristic".to_owned()]].concat();
    let client = Client::start(&host.url(), &tf, &far_bot);
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("far"), "{stdout}");
    let (ccode, cerr) = client.finish(Duration::from_secs(20));
    assert_eq!(ccode, 0, "connect exits when the event is over: {cerr}");
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert!(!r["result"]["reason"].as_str().unwrap().contains("timeout"), "{}", r["result"]);
        let far = side_of(r, "far");
        assert_eq!(r["bots"][far]["command"][0], "remote:far");
        assert_eq!(r["bots"][far]["reported_name"], "sample-bot-heuristic", "the bot behind connect answered");
        assert!(r["bots"][far]["process_note"].as_str().unwrap().contains("remote, connected from 127.0.0.1"));
        for p in r["plies"].as_array().unwrap() {
            let remote_move = p["color"] == far;
            assert_eq!(p.get("lag_us").is_some(), remote_move, "lag_us on remote moves only: {p}");
            assert!(p["lag_credit_us"].as_u64().unwrap_or(0) <= 50_000, "{p}");
        }
    }
    // The same match with `far` a local bot: the host sends it the same lines, byte for byte
    // (the same deterministic bot, seeds and clocks; a move limit only, so no bank in
    // `clock`). A local process plays both games and is told `quit` once at the end; a
    // remote bot is told at the end of each game (one game a connection lease): the `quit`
    // lines are left out, as is the local bot's start-up check before the games.
    let local_logs = format!("{}/", dir.join("local-logs").display());
    let local = serde_json::json!({"name": "far", "command": far_bot}).to_string();
    stratego_tests::ok(&stratego_tests::run_match(&[
        "sample-bot",
        &local,
        "--games",
        "2",
        "--seed",
        "3",
        "--log-protocol",
        &local_logs,
    ]));
    let sent_to_far = |logs: &str| -> Vec<String> {
        let text = std::fs::read_to_string(Path::new(logs).join("far.log")).expect("far's protocol log");
        text.lines()
            .filter_map(|l| l.split_once(' ').map(|(_time, rest)| rest.to_owned()))
            // Only the games' lines: not the local bot's start-up check (game `preflight`).
            .filter(|l| l.contains(" > ") && !l.starts_with("far preflight "))
            .filter(|l| !l.ends_with(r#" > {"type":"quit"}"#))
            .collect()
    };
    let (remote_lines, local_lines) = (sent_to_far(&remote_logs), sent_to_far(&local_logs));
    assert!(remote_lines.iter().filter(|l| l.contains(r#" > {"type":"turn""#)).count() >= 10, "{remote_lines:?}");
    assert_eq!(remote_lines.iter().filter(|l| l.contains(r#" > {"type":"game_over""#)).count(), 2);
    for (i, (r, l)) in remote_lines.iter().zip(&local_lines).enumerate() {
        assert_eq!(r, l, "line {i} sent to far: remote (left) and local (right)");
    }
    assert_eq!(remote_lines.len(), local_lines.len(), "as many lines sent to far");
}

#[test]
fn a_remote_bot_that_never_connects_forfeits_with_a_reason_that_says_so() {
    let dir = TempDir::new("remote-absent");
    let (_, sha) = token(&dir, "ghost");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("ghost", &sha), 1, &out, &["--connect-timeout", "0.5"]);
    let (code, _, stderr) = host.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("waiting for remote bot ghost to connect"), "{stderr}");
    let recs = records(&out);
    assert_eq!(recs[0]["result"]["reason"], "not_connected", "{}", recs[0]["result"]);
    assert!(recs[0]["result"]["message"].as_str().unwrap().contains("did not connect within"));
}

#[test]
fn remote_bots_need_listen_and_a_token_and_no_command() {
    let dir = TempDir::new("remote-usage");
    let (_, sha) = token(&dir, "x");
    let run = |args: &[&str]| Command::new(host_bin()).args(args).output().unwrap();
    let out = run(&["match", "sample-bot", &remote_spec("x", &sha)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --listen"), "{out:?}");
    let out = run(&["match", "sample-bot", r#"{"name":"x","remote":true}"#, "--listen", "127.0.0.1:0"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("token_sha256"), "{out:?}");
    let out = run(&["match", "sample-bot", r#"{"name":"x","remote":true,"token_sha256":"abc"}"#]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 hex digits"), "{out:?}");
}

/// A runtime for raw WebSocket clients.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Runs a raw client on a thread and a runtime of its own; its result comes on the channel.
fn raw_client<T: Send + 'static>(
    client: impl std::future::Future<Output = T> + Send + 'static,
) -> std::sync::mpsc::Receiver<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(runtime().block_on(client));
    });
    rx
}

/// The HTTP status and body of a refused handshake with `token` (None: no header).
async fn refused(url: &str, token: Option<&str>) -> (u16, String) {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    if let Some(t) = token {
        req.headers_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    }
    match tokio_tungstenite::connect_async(req).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            let body = resp.body().as_ref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            (resp.status().as_u16(), body)
        }
        Err(e) => panic!("not an HTTP refusal: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn wrong_and_missing_tokens_and_a_second_client_are_refused_with_clear_reasons() {
    let dir = TempDir::new("remote-tokens");
    let (tf, sha) = token(&dir, "far");
    let (wrong, _) = token(&dir, "stranger");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &[]);
    let url = host.url();
    let rt = runtime();
    let (status, body) = rt.block_on(refused(&url, None));
    assert_eq!(status, 401);
    assert!(body.contains("no token"), "{body}");
    let (status, body) = rt.block_on(refused(&url, Some("stt_0000")));
    assert_eq!(status, 401);
    assert!(body.contains("invalid token"), "{body}");
    // The real client with a wrong token stops at once and says why.
    let (code, err) = Client::start(&url, &wrong, &sample_bot()).finish(Duration::from_secs(20));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid token"), "{err}");
    // The right one plays; a second client with the same token is refused while it is on.
    let client = Client::start(&url, &tf, &sample_bot());
    assert!(wait_for(Duration::from_secs(30), || host.stderr().contains("remote bot far connected")));
    let (status, body) = rt.block_on(refused(&url, Some(&token_text(&tf))));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("connected already"), "{body}");
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("refused (401 Unauthorized): invalid token"), "logged: {stderr}");
    assert!(stderr.contains("refused (409 Conflict)"), "logged: {stderr}");
    drop(client);
    assert_eq!(records(&out).len(), 1);
}

#[test]
fn idle_and_slow_loris_connections_are_capped_and_timed_out_and_the_bot_still_plays() {
    let dir = TempDir::new("remote-loris");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let host = remote_match(
        &remote_spec("far", &sha),
        1,
        &out,
        &["--handshake-timeout-ms", "800", "--max-unauthenticated", "8"],
    );
    let addr = format!("127.0.0.1:{}", host.port);
    // 500 idle connections: all but the first 8 are closed at once.
    let mut idle: Vec<TcpStream> = (0..500).map(|_| TcpStream::connect(&addr).unwrap()).collect();
    let is_closed = |s: &mut TcpStream, wait: Duration| -> bool {
        s.set_read_timeout(Some(wait)).unwrap();
        let mut b = [0u8; 16];
        match s.read(&mut b) {
            Ok(0) => true,
            Ok(_) => true,
            Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
        }
    };
    // The last ones were refused (the first 8 may hold their places for 800 ms).
    let refused_fast = idle[400..].iter_mut().map(|s| is_closed(s, Duration::from_millis(2000))).filter(|&c| c).count();
    assert_eq!(refused_fast, 100, "connections past the cap are closed");
    // A slow loris: a header a byte at a time, never finished.
    let mut loris = TcpStream::connect(&addr).unwrap();
    let started = Instant::now();
    let mut closed_after = None;
    for b in b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
        if loris.write_all(&[*b]).is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let closed_after =
        closed_after.or_else(|| is_closed(&mut loris, Duration::from_secs(5)).then(|| started.elapsed()));
    assert!(closed_after.is_some_and(|t| t < Duration::from_secs(5)), "the slow handshake was cut: {closed_after:?}");
    // Every idle one is gone after the handshake limit.
    assert!(idle[..8].iter_mut().all(|s| is_closed(s, Duration::from_secs(5))));
    drop(idle);
    let client = Client::start(&host.url(), &tf, &sample_bot());
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("no handshake within 800 ms"), "{stderr}");
    assert!(stderr.contains("in their handshake"), "{stderr}");
    drop(client);
    let recs = records(&out);
    assert_eq!(recs.len(), 1);
    assert!(!recs[0]["result"]["reason"].as_str().unwrap().contains("connect"), "{}", recs[0]["result"]);
}

type RawWs = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A raw WebSocket connection to the host with `token` (the client side of a bot that
/// speaks WebSocket itself).
async fn raw_connect(url: &str, token: &str) -> RawWs {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    req.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    tokio_tungstenite::connect_async(req).await.expect("connected").0
}

/// A raw remote bot: says ready to hello, then sends `bad` (a frame) at its setup request.
async fn raw_bot(url: &str, token: &str, bad: tokio_tungstenite::tungstenite::Message) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let mut ws = raw_connect(url, token).await;
    let mut bad = Some(bad);
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Text(t) = msg else { continue };
        if t.contains(r#""type":"hello""#) {
            ws.send(Message::text(r#"{"type":"ready","name":"raw"}"#)).await.unwrap();
        } else if t.contains(r#""type":"setup_request""#) {
            if let Some(b) = bad.take() {
                let _ = ws.send(b).await;
            }
        }
    }
}

fn bad_frame_forfeits(name: &str, bad: tokio_tungstenite::tungstenite::Message, reason: &str, words: &str) {
    let dir = TempDir::new(name);
    let (tf, sha) = token(&dir, "raw");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("raw", &sha), 1, &out, &["--max-line", "4096"]);
    let (url, tok) = (host.url(), token_text(&tf));
    let done = raw_client(async move { raw_bot(&url, &tok, bad).await });
    let (code, _, stderr) = host.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{stderr}");
    let _ = done.recv_timeout(Duration::from_secs(30));
    let recs = records(&out);
    assert_eq!(recs[0]["result"]["reason"], reason, "{}", recs[0]["result"]);
    assert!(recs[0]["result"]["message"].as_str().unwrap().contains(words), "{}", recs[0]["result"]);
}

#[test]
fn an_oversize_frame_forfeits_with_line_too_long() {
    let big = tokio_tungstenite::tungstenite::Message::text("x".repeat(10_000));
    bad_frame_forfeits("remote-oversize", big, "line_too_long", "longer than the limit of 4096 bytes");
}

#[test]
fn garbage_frames_forfeit_with_precise_reasons() {
    let binary = tokio_tungstenite::tungstenite::Message::binary(vec![0xffu8, 0, 1, 2]);
    bad_frame_forfeits("remote-binary", binary, "malformed_json", "binary frame");
    let text = tokio_tungstenite::tungstenite::Message::text("{not json");
    bad_frame_forfeits("remote-garbage", text, "malformed_json", "not JSON");
}

#[test]
fn a_client_that_vanishes_mid_move_and_comes_back_resumes_and_one_that_does_not_forfeits() {
    let book = book();
    let dir = TempDir::new("remote-vanish");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    // The first client's bot never answers its first turn and logs every line it gets: once
    // the log holds a turn, the client is surely killed mid-move (no sleep guesses when).
    let hung = |log: &Path| {
        misbehaving_bot(&["--misbehave", "move-timeout", "--at", "1", "--view-moves", "--log", log.to_str().unwrap()])
    };
    let mid_move = |log: &Path| std::fs::read_to_string(log).is_ok_and(|l| l.contains(r#""type":"turn""#));
    let host = remote_match(
        &remote_spec("far", &sha),
        2,
        &out,
        &["--max-plies", "6", "--setups", &book, "--reconnect-s", "30"],
    );
    let log1 = dir.join("first.log");
    let first = Client::start(&host.url(), &tf, &hung(&log1));
    assert!(wait_for(Duration::from_secs(30), || mid_move(&log1)), "{}", host.stderr());
    drop(first); // SIGKILL: the connection ends mid-move (its bot process with it)
    assert!(wait_for(Duration::from_secs(30), || host.stderr().contains("lost its connection")), "{}", host.stderr());
    // The second client's bot keeps its own board (`--view-moves`: it exits, a crash, when
    // the board it was told of does not fit its legal moves) and plays one game a process
    // (`--one-game`: it exits after game_over, and at a second hello).
    let own_board = misbehaving_bot(&["--view-moves", "--one-game"]);
    let second = Client::start(&host.url(), &tf, &own_board);
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    drop(second);
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    let r = &recs[0];
    // The fresh process behind the second client was greeted, given its own setup (fixed)
    // and every ply so far, and the opponent's setup squares: its board fits.
    assert_eq!(r["result"]["reason"], "ply_limit", "the game went on to its end: {}", r["result"]);
    let far = side_of(r, "far");
    let note = r["bots"][far]["process_note"].as_str().unwrap();
    assert!(note.contains("connection lost") && note.contains("sent again"), "{note}");
    // The second game: `connect` started a fresh process for it (the first one exited after
    // game_over); a reused one would have exited at the second hello.
    assert_eq!(recs[1]["result"]["reason"], "ply_limit", "{}", recs[1]["result"]);

    // Gone past the window: forfeit, reason disconnected.
    let out2 = dir.join("out2");
    let host = remote_match(&remote_spec("far", &sha), 1, &out2, &["--setups", &book, "--reconnect-s", "1"]);
    let log2 = dir.join("second.log");
    let first = Client::start(&host.url(), &tf, &hung(&log2));
    assert!(wait_for(Duration::from_secs(30), || mid_move(&log2)), "{}", host.stderr());
    drop(first);
    let (code, _, stderr) = host.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{stderr}");
    let recs = records(&out2);
    assert_eq!(recs[0]["result"]["reason"], "disconnected", "{}", recs[0]["result"]);
    assert!(recs[0]["result"]["message"].as_str().unwrap().contains("did not come back"), "{}", recs[0]["result"]);
}

#[test]
fn a_tournament_of_two_local_and_two_remote_bots_gives_the_same_tables_and_records() {
    let python = Command::new("python3").arg("--version").output();
    if python.is_err() {
        return stratego_tests::skip("remote tournament", "no python3 for the Python example");
    }
    let dir = TempDir::new("remote-tournament");
    let (tf_sample, sha_sample) = token(&dir, "far-sample");
    let (tf_python, sha_python) = token(&dir, "far-python");
    // One by its hash in the file, one by a file of hashes next to it.
    std::fs::write(dir.join("python.sha256"), format!("# far-python\n{sha_python}\n")).unwrap();
    let out = dir.join("out");
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        format!(
            r#"format = "round-robin"
games = 2
seed = 7
move_time = {move_time}

[[bot]]
command = "sample-bot --strategy random"

[[bot]]
command = "sample-bot"

[[bot]]
name = "far-sample"
remote = true
token_sha256 = "{sha_sample}"

[[bot]]
name = "far-python"
remote = true
token_file = "python.sha256"
"#,
            move_time = stratego_tests::CALM_MOVE_TIME
        ),
    )
    .unwrap();
    let host =
        Host::start(&["tournament", config.to_str().unwrap(), "--max-plies", "60", "--out", out.to_str().unwrap()]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let py = root.join("examples/python/bot.py").display().to_string();
    let a = Client::start(&host.url(), &tf_sample, &sample_bot());
    let b = Client::start(&host.url(), &tf_python, &["python3", py.as_str()]);
    let (code, stdout, stderr) = host.finish(Duration::from_secs(180));
    assert_eq!(code, 0, "{stderr}");
    for name in ["sample-bot-random", "sample-bot-heuristic", "far-sample", "far-python"] {
        assert!(stdout.contains(name), "{name} in the tables: {stdout}");
    }
    assert!(stdout.contains("remote bots' network: far-"), "lag per remote bot: {stdout}");
    assert_eq!(a.finish(Duration::from_secs(20)).0, 0);
    assert_eq!(b.finish(Duration::from_secs(20)).0, 0);
    let recs = records(&out);
    assert_eq!(recs.len(), 12, "6 pairings, 2 games each");
    for r in &recs {
        let reason = r["result"]["reason"].as_str().unwrap();
        assert!(["ply_limit", "flag_captured", "no_legal_moves"].contains(&reason), "{}", r["result"]);
        for color in ["red", "blue"] {
            let remote = r["bots"][color]["name"].as_str().unwrap().starts_with("far-");
            assert_eq!(r["bots"][color]["command"][0].as_str().unwrap().starts_with("remote:"), remote);
        }
    }
    assert!(out.join("index.html").is_file(), "the same pages as an all-local run");
}

#[test]
fn a_remote_bot_connects_over_tls_with_the_organisers_certificate() {
    let dir = TempDir::new("remote-tls");
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert_pem, key_pem) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_pem, cert.cert.pem()).unwrap();
    std::fs::write(&key_pem, cert.signing_key.serialize_pem()).unwrap();
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let tls = ["--max-plies", "40", "--tls-cert", cert_pem.to_str().unwrap(), "--tls-key", key_pem.to_str().unwrap()];
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &tls);
    assert!(host.tls, "the host listens on wss://");
    let url = format!("wss://localhost:{}", host.port);
    // Without the certificate, the client does not trust the host (and keeps trying).
    let untrusting = Client::start_with(&url, &tf, &["--retry-s", "0"], &sample_bot());
    let (code, err) = untrusting.finish(Duration::from_secs(60));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("TLS") && err.to_lowercase().contains("certificate"), "{err}");
    let client = Client::start_with(&url, &tf, &["--retry-s", "30", "--ca", cert_pem.to_str().unwrap()], &sample_bot());
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "the match ends: {stderr}");
    drop(client);
    let recs = records(&out);
    assert_eq!(recs[0]["result"]["reason"], "ply_limit", "{}", recs[0]["result"]);
}

/// A TCP proxy on 127.0.0.1 that delays everything by `delay` each way; returns its port.
fn delaying_proxy(to: u16, delay: Duration) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for inbound in listener.incoming().take(16) {
            let Ok(inbound) = inbound else { continue };
            let Ok(outbound) = TcpStream::connect(("127.0.0.1", to)) else { continue };
            let _ = inbound.set_nodelay(true);
            let _ = outbound.set_nodelay(true);
            for (from, into) in [(inbound.try_clone().unwrap(), outbound.try_clone().unwrap()), (outbound, inbound)] {
                // A delay line: a reader stamps each chunk, a writer sends it `delay` later.
                let (tx, rx) = std::sync::mpsc::channel::<(Instant, Vec<u8>)>();
                let mut from = from;
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 64 * 1024];
                    while let Ok(n) = from.read(&mut buf) {
                        if n == 0 || tx.send((Instant::now() + delay, buf[..n].to_vec())).is_err() {
                            break;
                        }
                    }
                });
                let mut into = into;
                std::thread::spawn(move || {
                    for (at, chunk) in rx {
                        std::thread::sleep(at.saturating_duration_since(Instant::now()));
                        if into.write_all(&chunk).is_err() {
                            break;
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
#[ignore = "timing: a bot at 90 % of a 1 s move time behind a 30 ms proxy; load on the machine moves those milliseconds (.ci/timing.sh runs it)"]
fn behind_a_lagging_proxy_a_bot_at_90_percent_of_its_time_loses_nothing_and_gains_nothing_beyond_the_kernels_round_trip()
 {
    const DELAY_MS: u64 = 30;
    let dir = TempDir::new("remote-lag");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let times = dir.join("times");
    let host = remote_match(
        &remote_spec("far", &sha),
        1,
        &out,
        &["--max-plies", "24", "--move-time", "1", "--heartbeat-ms", "200", "--setups", &book()],
    );
    let proxy = delaying_proxy(host.port, Duration::from_millis(DELAY_MS));
    let bot = misbehaving_bot(&["--think-ms", "900", "--times", times.to_str().unwrap()]);
    let client = Client::start(&format!("ws://127.0.0.1:{proxy}"), &tf, &bot);
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    drop(client);
    let r = &records(&out)[0];
    assert_eq!(r["result"]["reason"], "ply_limit", "no move lost on time: {}", r["result"]);
    let far = side_of(r, "far");
    let think: Vec<u64> = std::fs::read_to_string(&times).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect();
    let moves: Vec<&serde_json::Value> = r["plies"].as_array().unwrap().iter().filter(|p| p["color"] == far).collect();
    assert_eq!(moves.len(), think.len(), "a time per move");
    let mut credited = 0;
    for (i, (p, &t)) in moves.iter().zip(&think).enumerate() {
        let lag = p["lag_us"].as_u64().expect("lag_us on a remote move");
        let credit = p["lag_credit_us"].as_u64().unwrap_or(0);
        let charged = p["time_us"].as_u64().unwrap();
        assert!(credit <= 50_000 && credit <= lag, "move {i}: credit {credit} µs, lag {lag} µs");
        // Charged at least its own think time: the credit never reaches into it (the round
        // trip, twice the one-way lag, is charged before the credit of one).
        assert!(charged >= t, "move {i}: charged {charged} µs, thought {t} µs");
        // The proxy is a program on the host's machine: the kernel's round trip to it is
        // loopback's, and a round trip counts at most the kernel's (a bot cannot raise its
        // lag by answering pings late), so the proxy's delay is charged, not credited; a
        // bot at 90 % of its time still loses nothing to it.
        assert!(lag < DELAY_MS * 1000 / 4, "move {i}: lag {lag} µs, over the kernel's loopback round trip");
        credited += u64::from(credit > 0);
    }
    eprintln!("{credited} moves of {} credited some lag", moves.len());
}

#[test]
fn a_game_whose_first_move_was_never_made_is_aborted_and_played_again_not_forfeited() {
    let book = book();
    let dir = TempDir::new("remote-replay");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let host = remote_match(
        &remote_spec("far", &sha),
        1,
        &out,
        &["--max-plies", "20", "--setups", &book, "--reconnect-s", "0.5"],
    );
    // The first client's bot never answers its setup: it is gone before any move.
    let log = dir.join("first.log");
    let hang = misbehaving_bot(&["--misbehave", "setup-timeout", "--log", log.to_str().unwrap()]);
    let first = Client::start(&host.url(), &tf, &hang);
    // Killed once its setup was asked for (its log says so), before it could answer.
    let asked = || std::fs::read_to_string(&log).is_ok_and(|l| l.contains(r#""type":"setup_request""#));
    assert!(wait_for(Duration::from_secs(30), asked), "{}", host.stderr());
    drop(first);
    assert!(
        wait_for(Duration::from_secs(30), || host.stderr().contains("aborted before its first move")),
        "{}",
        host.stderr()
    );
    let second = Client::start(&host.url(), &tf, &sample_bot());
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    drop(second);
    let recs = records(&out);
    assert_eq!(recs.len(), 1, "one record: the game played again");
    assert_eq!(recs[0]["result"]["reason"], "ply_limit", "{}", recs[0]["result"]);
}

#[test]
fn a_bot_that_crashes_behind_connect_loses_with_reason_crash_and_the_next_game_gets_a_fresh_process() {
    let book = book();
    let dir = TempDir::new("remote-crash");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("far", &sha), 2, &out, &["--setups", &book, "--reconnect-s", "30"]);
    // Exits with status 1 at its second turn, in each game.
    let crashing = misbehaving_bot(&["--misbehave", "exit-1", "--at", "2"]);
    let client = Client::start(&host.url(), &tf, &crashing);
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    // After the crash in the last game, connect reconnects for a next game: when the host
    // has ended before that reconnection, no "the event is over" can reach it and it keeps
    // trying for its --retry-s (30 s here), then gives up (exit 1); when the reconnection
    // came first, the host ends the event on it (exit 3: it forfeited games). Which one comes first is a race:
    // both are accepted, and a connect still retrying after 10 s is killed.
    let (code, err) = client.finish_or_kill(Duration::from_secs(10));
    // (Exit code 3: the event is over, and the bot forfeited games.)
    match code {
        Some(3) => assert!(err.contains("the host ended the event"), "{err}"),
        Some(1) | None => assert!(err.contains("trying again") || err.contains("giving up"), "{err}"),
        Some(c) => panic!("connect exited with {c}: {err}"),
    }
    assert!(err.contains("the bot's program ended mid-game (exit status 1)"), "{err}");
    // Not a lost connection waited for: the game is lost at once.
    assert!(!stderr.contains("waiting 30.0 s for it to come back"), "{stderr}");
    let recs = records(&out);
    assert_eq!(recs.len(), 2, "both games played: a fresh process for the second");
    for r in &recs {
        let far = side_of(r, "far");
        assert_eq!(r["result"]["reason"], "crash", "{}", r["result"]);
        assert_ne!(r["result"]["winner"], far, "{}", r["result"]);
        let message = r["result"]["message"].as_str().unwrap();
        assert!(message.contains("entrant's side") && message.contains("exit status 1"), "{message}");
    }
}

/// A port free a moment ago on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `raw` on a new connection to `addr`; the answer's status, head and body.
fn http_exchange(addr: &str, raw: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = s.write_all(raw);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head, answer[end..].to_vec())
}

fn http_get(addr: &str, path: &str) -> (u16, String, Vec<u8>) {
    http_exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
}

/// The live page's first `snapshot` from a new `/events` stream at `addr`.
fn page_snapshot(addr: &str) -> serde_json::Value {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&got);
        if let Some(data) = text.split("event: snapshot\ndata: ").nth(1).and_then(|d| d.split_once("\n\n")) {
            return serde_json::from_str(data.0).expect("the snapshot is JSON");
        }
        let n = s.read(&mut buf).expect("read the event stream");
        assert!(n > 0, "the stream ended before its snapshot: {text}");
        got.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn one_listener_serves_the_live_page_and_the_remote_bots_and_the_page_shows_their_connection_and_lag() {
    if Command::new("python3").arg("--version").output().is_err() {
        return stratego_tests::skip("one listener", "no python3 for the scripted bot");
    }
    let book = book();
    let dir = TempDir::new("remote-one-listener");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let gate = dir.join("gate");
    // --serve and --listen (added by Host::start) name the same ADDR: one listener. The
    // book's setups: the game surely reaches the bot's 4th turn and --max-plies.
    let serve = ["--max-plies", "30", "--setups", &book, "--serve", "127.0.0.1:0", "--handshake-timeout-ms", "800"];
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &serve);
    let addr = format!("127.0.0.1:{}", host.port);
    assert!(
        wait_for(Duration::from_secs(30), || host
            .stderr()
            .contains(&format!("live page: http://{addr}/ (the --listen port)"))),
        "{}",
        host.stderr()
    );
    // The page's paths on the bots' port, with the page's own errors.
    let (status, head, body) = http_get(&addr, "/");
    assert_eq!(status, 200, "{head}");
    assert!(String::from_utf8_lossy(&body).contains("Remote bots"));
    assert_eq!(http_get(&addr, "/nowhere").0, 404);
    let long = format!("GET / HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\n\r\n", "a".repeat(20_000));
    assert_eq!(http_exchange(&addr, long.as_bytes()).0, 431, "a request head too long for the page");
    // A request head never finished is cut at the handshake limit.
    let mut slow = TcpStream::connect(&addr).unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut b = [0u8; 64];
    assert!(matches!(slow.read(&mut b), Ok(0) | Err(_)));
    assert!(started.elapsed() < Duration::from_secs(10), "cut, not left open");
    let snap = page_snapshot(&addr);
    assert_eq!(snap["remote"][0]["name"], "far", "{}", snap["remote"]);
    assert_eq!(snap["remote"][0]["connected"], false, "{}", snap["remote"]);
    // The bot, through the real `connect`, on the same port; it holds at its 4th turn.
    let bot = stratego_tests::scripted_bot(&dir, &[&format!("hold=4:{}", gate.display())]);
    let words: Vec<&str> = bot.split(' ').map(|w| w.trim_matches('\'')).collect();
    let client = Client::start(&host.url(), &tf, &words);
    let mut last = serde_json::Value::Null;
    let shown = wait_for(Duration::from_secs(60), || {
        last = page_snapshot(&addr)["remote"][0].clone();
        last["connected"] == true && last["moves"].as_u64().unwrap_or(0) >= 3 && last["lag_median_us"].is_u64()
    });
    assert!(shown, "the page shows the bot connected, with the lag of its moves: {last}");
    assert!(last["lag_p90_us"].as_u64() >= last["lag_median_us"].as_u64(), "{last}");
    assert!(last["credit_us"].is_u64() && last["connections"] == 1, "{last}");
    std::fs::write(&gate, "").unwrap();
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    drop(client);
    let r = &records(&out)[0];
    assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
    // What the page showed is what the records say: the median of the moves' lag_us.
    let far = side_of(r, "far");
    assert!(r["plies"].as_array().unwrap().iter().filter(|p| p["color"] == far).all(|p| p["lag_us"].is_u64()));
}

/// A raw remote bot that plays its first turn, then at its second does `then`.
async fn first_move_then(url: &str, token: &str, then: &str) -> u64 {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let mut ws = raw_connect(url, token).await;
    let mut turns = 0;
    let mut rules = stratego_rules::Ruleset::classic();
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Text(t) = msg else { continue };
        let m: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
        if let Some(reply) = raw_reply(&mut rules, &m) {
            ws.send(Message::text(reply)).await.unwrap();
            continue;
        }
        if m["type"] != "turn" {
            continue;
        }
        turns += 1;
        if turns == 1 {
            let line = serde_json::json!({"type": "move", "move": m["legal_moves"][0], "ply": m["ply"]});
            ws.send(Message::text(line.to_string())).await.unwrap();
            continue;
        }
        if then == "silent" {
            // TCP open, nothing read or written (no pong either) for longer than
            // the test lasts.
            tokio::time::sleep(Duration::from_secs(120)).await;
            return 0;
        }
        // Frames as fast as they go, never reading: pings (each asks for a pong)
        // and info lines, until the host drops the connection.
        let mut sent = 0u64;
        let info = Message::text(format!(r#"{{"type":"info","text":"{}"}}"#, "f".repeat(1000)));
        for i in 0u64.. {
            let frame = if i % 8 == 0 { info.clone() } else { Message::Ping(vec![7u8; 125].into()) };
            let n = if i % 8 == 0 { 1030 } else { 131 };
            match tokio::time::timeout(Duration::from_secs(20), ws.feed(frame)).await {
                Ok(Ok(())) => sent += n,
                _ => return sent,
            }
            if i % 64 == 0 && !matches!(tokio::time::timeout(Duration::from_secs(20), ws.flush()).await, Ok(Ok(()))) {
                return sent;
            }
            if sent > 1 << 30 {
                return sent;
            }
        }
    }
    0
}

#[test]
fn a_silent_open_connection_is_gone_within_its_heartbeats_and_a_client_that_never_reads_is_dropped_in_bounded_memory() {
    let dir = TempDir::new("remote-silent");
    let (tf, sha) = token(&dir, "raw");
    let tok = token_text(&tf);
    for what in ["silent", "flood"] {
        let out = dir.join(what);
        let host = remote_match(&remote_spec("raw", &sha), 1, &out, &["--heartbeat-ms", "100", "--reconnect-s", "0.5"]);
        let (url, tok) = (host.url(), tok.clone());
        let rx = raw_client(async move { first_move_then(&url, &tok, what).await });
        let (code, _, stderr, peak) = host.finish_with_peak(Duration::from_secs(60));
        assert_eq!(code, 0, "{stderr}");
        let r = &records(&out)[0];
        let message = r["result"]["message"].as_str().unwrap();
        assert_eq!(r["result"]["reason"], "disconnected", "{what}: {}", r["result"]);
        // Gone by its heartbeats, not by its move's clock (60 s).
        assert!(r["duration_ms"].as_u64().unwrap() < 30_000, "{what}: {}", r["duration_ms"]);
        if what == "silent" {
            assert!(message.contains("nothing came for 0.5 s (heartbeats unanswered)"), "{message}");
        } else {
            // Dropped with a reason: its writes blocked (it reads nothing), or the host, held up
            // writing to it, heard nothing from it for its heartbeats.
            assert!(
                ["read nothing for 0.5 s", "writing to it failed", "nothing came for 0.5 s"]
                    .iter()
                    .any(|w| message.contains(w)),
                "{message}"
            );
            let sent = rx.recv_timeout(Duration::from_secs(60)).expect("the flooding client stopped");
            // What it sent did not stay in the host: its peak memory is the usual.
            assert!(sent > 1 << 20, "it sent {sent} bytes");
            assert!(
                peak < 100.0,
                "host peak resident memory {peak:.1} MiB after a client sent {sent} bytes without reading"
            );
        }
    }
}

#[test]
fn sprt_and_ladder_play_take_a_remote_bot_through_connect() {
    let book = book();
    let dir = TempDir::new("remote-sprt-ladder");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("sprt");
    // Both games reach --max-plies (the book's setups: no flag taken at the first ply).
    let played = ["--max-plies", "20", CALM_CLOCK[0], CALM_CLOCK[1], "--setups", &book];
    let spec = remote_spec("far", &sha);
    let sprt = ["sprt", &spec, "sample-bot --strategy random", "--max-games", "2", "--out", out.to_str().unwrap()];
    let host = Host::start(&[&sprt[..], &played].concat());
    let client = Client::start(&host.url(), &tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 11, "inconclusive at --max-games: {stdout}{stderr}");
    assert_eq!(client.finish(Duration::from_secs(20)).0, 0);
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
        assert!(["red", "blue"].iter().any(|c| r["bots"][c]["command"][0] == "remote:far"));
    }

    let db = dir.join("ladder.db");
    for (name, spec) in [("far", remote_spec("far", &sha)), ("random", "sample-bot --strategy random".to_owned())] {
        let out = Command::new(host_bin())
            .args(["ladder", "--db", db.to_str().unwrap(), "add", name, &spec])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let db_arg = db.to_str().unwrap().to_owned();
    let host = Host::start(&[&["ladder", "--db", &db_arg, "play", "--games", "2", "--json"][..], &played].concat());
    let client = Client::start(&host.url(), &tf, &sample_bot());
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(client.finish(Duration::from_secs(20)).0, 0);
    let printed: serde_json::Value = serde_json::from_str(&stdout).expect("play --json prints JSON");
    assert_eq!(printed["games"], 2, "{stdout}");
}

#[test]
fn a_bot_behind_a_connect_killed_with_sigkill_dies_with_it() {
    let dir = TempDir::new("remote-orphan");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &[]);
    // The bot sleeps at its setup request without reading: nothing (no end of its input)
    // would wake it but a signal.
    let (log, pidfile) = (dir.join("bot.log"), dir.join("bot.pid"));
    let hang = misbehaving_bot(&[
        "--misbehave",
        "setup-timeout",
        "--log",
        log.to_str().unwrap(),
        "--pidfile",
        pidfile.to_str().unwrap(),
    ]);
    let client = Client::start(&host.url(), &tf, &hang);
    let asked = || std::fs::read_to_string(&log).is_ok_and(|l| l.contains(r#""type":"setup_request""#));
    assert!(wait_for(Duration::from_secs(30), asked), "{}", host.stderr());
    let pids = stratego_tests::read_pids(&pidfile);
    assert_eq!(pids.len(), 1, "one bot process: {pids:?}");
    assert!(stratego_tests::process_alive(pids[0]), "the bot runs while connect does");
    drop(client); // SIGKILL: connect has no say
    assert!(
        wait_for(Duration::from_secs(10), || !stratego_tests::process_alive(pids[0])),
        "the bot (pid {}) outlived its connect",
        pids[0]
    );
}
