//! A test bot that plays random legal moves and misbehaves on purpose.
//!
//! `misbehaving-bot [--misbehave KIND] [--at N] [--log FILE] [--pidfile FILE]`
//!
//! KIND (at its N-th turn, default 3, unless the kind is about startup or setup):
//! none, startup-timeout, setup-timeout, move-timeout, illegal-move, unparsable-move,
//! invalid-setup, malformed-json, malformed-message, line-too-long, invalid-utf8,
//! unexpected-message, unknown-type, exit-1, sigsegv, close-stdout, resign, grandchild.
//!
//! `--log FILE` appends every line received; `--pidfile FILE` appends its pid (and the
//! grandchild's) one per line. `--think-ms X` busy-waits X ms (fractions allowed) from the
//! moment a turn's line has been read to the write of its move, and `--times FILE` appends
//! that measured time in microseconds, one line per move (for the clock benchmarks).

use std::io::{BufRead, Write};

use stratego_protocol::{HostMessage, Rng};
use stratego_rules::{Deployment, Ruleset};

fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let kind = opt("--misbehave").unwrap_or_else(|| "none".into());
    let at: u32 = opt("--at").and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut log =
        opt("--log").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("log file"));
    if let Some(p) = opt("--pidfile") {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(p).expect("pid file");
        writeln!(f, "{}", std::process::id()).unwrap();
    }
    let mut rng = Rng::new(0);
    let mut rules = Ruleset::classic();
    let mut color = stratego_rules::Color::Red;
    let mut turns = 0u32;
    let think =
        opt("--think-ms").and_then(|s| s.parse::<f64>().ok()).map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
    let mut times =
        opt("--times").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("times file"));
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let read_at = std::time::Instant::now();
        if let Some(f) = log.as_mut() {
            writeln!(f, "{line}").unwrap();
        }
        let msg: HostMessage = serde_json::from_str(&line).expect("the host sends valid messages");
        match msg {
            HostMessage::Hello(h) => {
                if kind == "startup-timeout" {
                    hang();
                }
                rng = Rng::new(h.seed);
                rules = Ruleset::try_from(h.ruleset).unwrap();
                color = h.color;
                send(r#"{"type":"ready","name":"misbehaving-bot","future_field":{"x":1}}"#);
            }
            HostMessage::SetupRequest(_) => match kind.as_str() {
                "setup-timeout" => hang(),
                "invalid-setup" => {
                    send(r#"{"type":"setup","deployment":"BBBBBBBBB2/2222222333/3344445555/666677789X"}"#)
                }
                _ => {
                    let d = Deployment::random(&rules, color, &mut || rng.next_u64());
                    send(&format!(r#"{{"type":"setup","deployment":"{}"}}"#, d.to_rows(&rules)));
                }
            },
            HostMessage::Turn(t) => {
                turns += 1;
                if turns == at {
                    match kind.as_str() {
                        "move-timeout" => hang(),
                        "illegal-move" => {
                            // Move a piece of the opponent's: always illegal.
                            let p = t.pieces.iter().find(|p| p.color != t.color).unwrap();
                            send(&format!(r#"{{"type":"move","move":"{}-{}"}}"#, p.square, p.square));
                            hang();
                        }
                        "unparsable-move" => send(r#"{"type":"move","move":"e4e5"}"#),
                        "malformed-json" => send("{\"type\": \"move\", oops"),
                        "malformed-message" => send(r#"{"type":"move","mv":"e4-e5"}"#),
                        "line-too-long" => send(&format!(r#"{{"type":"info","text":"{}"}}"#, "x".repeat(2 << 20))),
                        "invalid-utf8" => {
                            let mut out = std::io::stdout().lock();
                            let _ = out.write_all(b"{\"type\":\"move\",\"move\":\"\xff\xfe\"}\n");
                            let _ = out.flush();
                        }
                        "unexpected-message" => send(r#"{"type":"ready","name":"again"}"#),
                        "unknown-type" => send(r#"{"type":"think","text":"hmm"}"#),
                        "exit-1" => std::process::exit(1),
                        // SAFETY: resetting the handler (Rust installs one) and raising in our own process.
                        "sigsegv" => unsafe {
                            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                            libc::raise(libc::SIGSEGV);
                        },
                        "close-stdout" => {
                            // SAFETY: closing our own stdout descriptor.
                            unsafe {
                                libc::close(1);
                            }
                            hang();
                        }
                        "resign" => send(r#"{"type":"resign"}"#),
                        "grandchild" => {
                            // Deliberately never waited for: it must outlive this bot unless the host kills its group.
                            #[allow(clippy::zombie_processes)]
                            let child = std::process::Command::new("sleep").arg("1000").spawn().expect("sleep");
                            if let Some(p) = opt("--pidfile") {
                                let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
                                writeln!(f, "{}", child.id()).unwrap();
                            }
                            send(r#"{"type":"move","move":"a1-a1"}"#);
                            hang();
                        }
                        _ => {}
                    }
                    if matches!(
                        kind.as_str(),
                        "unparsable-move"
                            | "malformed-json"
                            | "malformed-message"
                            | "line-too-long"
                            | "invalid-utf8"
                            | "unexpected-message"
                            | "unknown-type"
                            | "resign"
                    ) {
                        continue;
                    }
                }
                let m = t.legal_moves[rng.below(t.legal_moves.len())];
                if let Some(think) = think {
                    // Busy-wait: a sleep could oversleep and blur the measurement.
                    while read_at.elapsed() < think {
                        std::hint::spin_loop();
                    }
                    let answer = format!("{{\"type\":\"move\",\"move\":\"{m}\"}}\n");
                    let took = read_at.elapsed();
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(answer.as_bytes());
                    let _ = out.flush();
                    if let Some(f) = times.as_mut() {
                        writeln!(f, "{}", took.as_micros()).unwrap();
                    }
                    continue;
                }
                send(r#"{"type":"info","text":"thinking"}"#);
                send(&format!(r#"{{"type":"move","move":"{m}","extra":[1,2,3]}}"#));
            }
            HostMessage::Quit(_) => return,
            HostMessage::GameOver(_) | HostMessage::Ply(_) => {}
        }
    }
}
