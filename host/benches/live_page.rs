//! Whole-process cost of `--serve` (the live page) on a match's throughput: real
//! `stratego-host match` runs between two `sample-bot --strategy random` processes (moves
//! view, -j 1, seed 1), three ways, interleaved round by round: without `--serve`; with
//! `--serve 127.0.0.1:0` and nobody watching; with one client reading `/events` all along.
//!
//! `cargo bench -p stratego-host --bench live_page [-- GAMES [ROUNDS]]`
//!
//! Prints for each way the median over the rounds of: plies per second over the whole
//! match, host CPU per ply (the host's own rusage: the live page's thread included), host
//! peak RSS, and the bytes the client read.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn main() {
    let mut numbers = std::env::args().skip(1).filter_map(|a| a.parse::<u32>().ok());
    let games = numbers.next().unwrap_or(40);
    let rounds = numbers.next().unwrap_or(5);
    let exe = env!("CARGO_BIN_EXE_stratego-host");
    println!("{games} games of `sample-bot --strategy random` against itself per run, -j 1; median of {rounds} rounds");
    let ways = ["no --serve", "--serve, no client", "--serve, one client"];
    let mut rows: Vec<Vec<[f64; 4]>> = vec![Vec::new(); ways.len()];
    for _ in 0..rounds {
        for (i, row) in rows.iter_mut().enumerate() {
            row.push(run(exe, games, i));
        }
    }
    println!("{:<24} {:>12} {:>12} {:>12} {:>14}", "way", "match ply/s", "host µs/ply", "host RSS MiB", "client KB/s");
    let base = median(&rows[0], 0);
    for (way, row) in ways.iter().zip(&rows) {
        println!(
            "{way:<24} {:>12.0} {:>12.1} {:>12.1} {:>14.1}   ({:.2}x the plies/s without)",
            median(row, 0),
            median(row, 1),
            median(row, 2),
            median(row, 3),
            median(row, 0) / base
        );
    }
}

fn median(rows: &[[f64; 4]], k: usize) -> f64 {
    let mut v: Vec<f64> = rows.iter().map(|r| r[k]).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One match: ply/s, host µs/ply, host RSS MiB, client KB/s. `way`: 0 no --serve, 1 with,
/// 2 with a client.
fn run(exe: &str, games: u32, way: usize) -> [f64; 4] {
    let bot = "sample-bot --strategy random";
    let mut cmd = Command::new(exe);
    cmd.args(["match", bot, bot, "--json", "-q", "--seed", "1", "--games", &games.to_string()]);
    if way > 0 {
        cmd.args(["--serve", "127.0.0.1:0"]);
    }
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run the host");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut reader = None;
    if way > 0 {
        let mut line = String::new();
        let addr = loop {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "the host did not say where it serves");
            if let Some(a) = line.trim().strip_prefix("stratego-host: live page: http://") {
                break a.trim_end_matches('/').to_owned();
            }
        };
        if way == 2 {
            reader = Some(std::thread::spawn(move || {
                let start = std::time::Instant::now();
                let mut s = std::net::TcpStream::connect(&addr).unwrap();
                s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
                let mut buf = vec![0u8; 65536];
                let mut total = 0usize;
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    total += n;
                }
                total as f64 / 1000.0 / start.elapsed().as_secs_f64()
            }));
        }
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let out = child.wait_with_output().expect("the host ends");
    assert!(out.status.success());
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let client = reader.map_or(0.0, |r| r.join().unwrap());
    [
        s["plies"].as_f64().unwrap() / s["wall_s"].as_f64().unwrap(),
        s["host_cpu_us_per_ply"].as_f64().unwrap(),
        s["host_peak_rss_kib"].as_f64().unwrap() / 1024.0,
        client,
    ]
}
