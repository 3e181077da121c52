//! One port for the live page and the remote bots (issue #45, item 4): `--serve` and
//! `--listen` on the same address, over real sockets on 127.0.0.1 with the real host, the
//! real `connect` and the sample bot behind it. The bots' WebSocket upgrades and the page's
//! requests share the listener and keep their own limits: a flood of page clients (more
//! event streams than the page serves) does not keep the bot from connecting and playing,
//! a flood of would-be bots (connections that never finish a handshake, refused tokens)
//! does not keep a spectator from the page, and bad input on the shared port (garbage,
//! oversize heads, a head never finished) is refused without harming either.
//!
//! Floods come from other loopback addresses (127.0.3.x, 127.0.4.x) than the bot's and the
//! spectator's, as they would from elsewhere: the limits are per address.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::time::{Duration, Instant};

use stratego_tests::remote::{Client, remote_match, remote_spec, token};
use stratego_tests::{TempDir, connect_from, records, scripted_bot, wait_for};

const LIMIT: Duration = Duration::from_secs(60);

/// Sends `raw` from `from` and reads the answer's status (0: closed without one).
fn exchange_from(from: Ipv4Addr, addr: &str, raw: &[u8]) -> (u16, String) {
    let mut s = connect_from(from, addr, LIMIT);
    s.set_read_timeout(Some(LIMIT)).unwrap();
    let _ = s.write_all(raw);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    (text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0), text)
}

/// Opens `/events` from `from`: the stream, the status, and what was read (the head, and
/// any of the body that came with it).
fn open_stream(from: Ipv4Addr, addr: &str) -> (TcpStream, u16, String) {
    let mut s = connect_from(from, addr, LIMIT);
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (s, status, text)
}

/// Reads from an open event stream until `needle` came (or the limit).
fn stream_until(s: &mut TcpStream, needle: &str) -> bool {
    let started = Instant::now();
    let mut got = String::new();
    let mut buf = [0u8; 65536];
    while started.elapsed() < LIMIT {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => got.push_str(&String::from_utf8_lossy(&buf[..n])),
        }
        if got.contains(needle) {
            return true;
        }
    }
    false
}

#[test]
fn one_port_serves_a_remote_bot_and_the_page_and_floods_or_bad_input_of_either_kind_harm_neither() {
    let dir = TempDir::new("one-port");
    let (tf, sha) = token(&dir, "far");
    let out = dir.join("out");
    // --serve and --listen (added by Host::start) both at 127.0.0.1:0: one listener.
    let extra = [
        "--max-plies",
        "30",
        "--serve",
        "127.0.0.1:0",
        "--handshake-timeout-ms",
        "1500",
        "--max-connections",
        "16",
        "--max-unauthenticated",
        "4",
    ];
    let host = remote_match(&remote_spec("far", &sha), 1, &out, &extra);
    let addr = format!("127.0.0.1:{}", host.port);
    assert!(
        wait_for(LIMIT, || host.stderr().contains(&format!("live page: http://{addr}/ (the --listen port)"))),
        "{}",
        host.stderr()
    );

    // Bad input on the shared port, each from an address of its own.
    let bad = |n: u8| Ipv4Addr::new(127, 0, 5, n);
    let (status, _) = exchange_from(bad(1), &addr, b"\x16\x03\x01garbage that is no request\r\n\r\n");
    assert_eq!(status, 400, "garbage with a head's end: the page's 400");
    let started = Instant::now();
    let (status, text) = exchange_from(bad(2), &addr, b"\x00\x01\x02 no end of head");
    assert_eq!((status, text.as_str()), (0, ""), "garbage without a head's end: closed, no answer");
    assert!(started.elapsed() < Duration::from_secs(15), "closed at the handshake limit");
    let long = format!("GET / HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\n\r\n", "a".repeat(20_000));
    assert_eq!(exchange_from(bad(3), &addr, long.as_bytes()).0, 431, "an oversize page request head");
    let long_upgrade = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Long: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    assert_eq!(exchange_from(bad(4), &addr, long_upgrade.as_bytes()).0, 431, "an oversize upgrade head");
    let mut slow = connect_from(bad(5), &addr, LIMIT);
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let started = Instant::now();
    let mut b = [0u8; 64];
    assert!(matches!(slow.read(&mut b), Ok(0) | Err(_)), "a head never finished is cut");
    assert!(started.elapsed() < Duration::from_secs(15), "at the handshake limit, not left open");
    let bad_token = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer nope\r\n\r\n";
    assert_eq!(exchange_from(bad(6), &addr, bad_token.as_bytes()).0, 401, "a refused token");

    // A flood of page clients: 40 event streams from 10 addresses, more than the page's 32.
    let mut streams = Vec::new();
    let mut refused = 0;
    for i in 0..40u8 {
        let (s, status, text) = open_stream(Ipv4Addr::new(127, 0, 3, i % 10 + 1), &addr);
        match status {
            200 => streams.push(s),
            503 => {
                assert!(text.contains("too many connections"), "{text}");
                refused += 1;
            }
            other => panic!("a page client got {other}: {text}"),
        }
    }
    assert_eq!((streams.len(), refused), (32, 8), "the page's own limit of 32 connections");

    // The bot (a scripted bot that holds at its 3rd turn until `first` exists, then at its
    // 5th until `second` does), through the real `connect`, connects and plays while the
    // page is full.
    let (first, second) = (dir.join("first"), dir.join("second"));
    let bot = scripted_bot(&dir, &[&format!("hold=3:{},5:{}", first.display(), second.display())]);
    let words: Vec<&str> = bot.split(' ').map(|w| w.trim_matches('\'')).collect();
    let client = Client::start(&host.url(), &tf, &words);
    assert!(
        wait_for(LIMIT, || host.stderr().contains("remote bot far connected")),
        "the bot connects while the page's connections are all taken: {}",
        host.stderr()
    );
    assert!(stream_until(&mut streams[0], "event: boards"), "a page client sees the bot's game move");
    drop(streams);
    // The page gives a closed stream's place back once it sees it closed (at its next push):
    // it serves again before the next flood, which must not take its places.
    let page_again = || {
        let get = format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        exchange_from(Ipv4Addr::new(127, 0, 7, 3), &addr, get.as_bytes()).0 == 200
    };
    assert!(wait_for(LIMIT, page_again), "the page serves again once its 32 clients left");
    std::fs::write(&first, "").unwrap();

    // A flood of would-be bots: half-open connections that never send a head, from 8
    // addresses, 4 each (the per-address handshake limit) and more, and refused tokens.
    let mut half_open = Vec::new();
    for i in 0..40u8 {
        let s = connect_from(Ipv4Addr::new(127, 0, 4, i % 8 + 1), &addr, LIMIT);
        half_open.push(s);
    }
    for i in 0..10u8 {
        assert_eq!(exchange_from(Ipv4Addr::new(127, 0, 6, i + 1), &addr, bad_token.as_bytes()).0, 401);
    }
    // A spectator still gets the page and its event stream.
    let spectator = Ipv4Addr::new(127, 0, 7, 1);
    let (status, text) = exchange_from(spectator, &addr, format!("GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
    assert_eq!(status, 200, "the page during a flood of half-open connections: {text}");
    let (mut s, status, text) = open_stream(Ipv4Addr::new(127, 0, 7, 2), &addr);
    assert_eq!(status, 200, "{text}");
    // (The snapshot may have come with the response's head.)
    assert!(text.contains("event: snapshot") || stream_until(&mut s, "event: snapshot"), "the spectator's snapshot");
    drop(half_open);
    std::fs::write(&second, "").unwrap();

    // The bot played its game to its end, never cut off.
    let (code, _, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{stderr}");
    drop(client);
    let games = records(&out);
    assert_eq!(games.len(), 1, "{stderr}");
    for r in &games {
        assert_eq!(r["result"]["reason"], "ply_limit", "{}", r["result"]);
    }
}
