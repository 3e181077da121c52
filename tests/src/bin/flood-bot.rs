//! A test bot that plays its first move, then floods the host with valid `info` lines and
//! never moves again (issue #41, item 7: the host's memory must not follow a bot's output).
//!
//! `flood-bot [--when turn|between] [--text-bytes N] [--pidfile FILE]`
//!
//! `--when between` (the default) starts the flood right after its first move, while its
//! opponent thinks, so that the lines wait in the pipe for the host's next turn;
//! `--when turn` reads its second turn first and floods as the answer to it. Each line is
//! `{"type":"info","text":"…"}` with N bytes of text (default 16), written in 64 KiB
//! chunks, as fast as the pipe takes them, until the host stops it.

use std::io::{BufRead, Write};

use stratego_protocol::{HostMessage, Rng};
use stratego_rules::{Deployment, Ruleset};

fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Valid `info` lines, forever (until a write fails: the host closed the pipe).
fn flood(text_bytes: usize) -> ! {
    let mut out = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let text = "x".repeat(text_bytes);
    let mut i = 0u64;
    loop {
        if writeln!(out, r#"{{"type":"info","text":"{i} {text}"}}"#).is_err() {
            std::process::exit(0);
        }
        i += 1;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let when = opt("--when").unwrap_or_else(|| "between".into());
    let text_bytes: usize = opt("--text-bytes").and_then(|s| s.parse().ok()).unwrap_or(16);
    if let Some(p) = opt("--pidfile") {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(p).expect("pid file");
        f.write_all(format!("{}\n", std::process::id()).as_bytes()).expect("append the pid");
    }
    let mut rng = Rng::new(0);
    let mut rules = Ruleset::classic();
    let mut color = stratego_rules::Color::Red;
    let mut turns = 0u32;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let msg: HostMessage = serde_json::from_str(&line).expect("the host sends valid messages");
        match msg {
            HostMessage::Hello(h) => {
                rng = Rng::new(h.seed);
                rules = Ruleset::try_from(h.ruleset).unwrap();
                color = h.color;
                send(r#"{"type":"ready","name":"flood-bot"}"#);
            }
            HostMessage::SetupRequest(r) => {
                let d = match &r.fixed {
                    Some(rows) => Deployment::parse(&rules, color, rows).expect("a valid fixed setup"),
                    None => Deployment::random(&rules, color, &mut || rng.next_u64()),
                };
                send(&format!(r#"{{"type":"setup","deployment":"{}"}}"#, d.to_rows(&rules)));
            }
            HostMessage::Turn(t) => {
                turns += 1;
                if turns >= 2 {
                    flood(text_bytes);
                }
                let m = t.legal_moves[rng.below(t.legal_moves.len())];
                send(&format!(r#"{{"type":"move","move":"{m}"}}"#));
                if when == "between" {
                    flood(text_bytes);
                }
            }
            HostMessage::Quit(_) => return,
            _ => {}
        }
    }
}
