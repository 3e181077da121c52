//! Remote bots on loopback against local ones, whole processes.
//!
//! `cargo bench -p stratego-tests --bench remote [-- quick]`
//!
//! A `stratego-host match` of two `sample-bot --strategy random` (the bots answer in
//! microseconds, so this measures the host and the transport), once with both bots local
//! (pipes) and once with the second one remote: `stratego-host connect` on 127.0.0.1
//! running the same bot (WebSocket frames through the `connect` relay, the hub's task and
//! the session's channels). Interleaved rounds; plies per second of wall time (start-up
//! and waiting for the connection included), the host's CPU per ply (its own summary's
//! figure: the `connect` relay's CPU is the entrant's and not counted), and the
//! distribution of the credited lag over the remote bot's moves (`lag_us`,
//! `lag_credit_us` in the records).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn percentiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9), *v.last().unwrap())
}

/// One match: (plies/s of wall time, host CPU µs/ply, lag µs and credit µs per remote move).
fn run(host: &Path, tmp: &Path, games: u32, remote: bool) -> (f64, f64, Vec<f64>, Vec<f64>) {
    let out = tmp.join(if remote { "remote" } else { "local" });
    let _ = std::fs::remove_dir_all(&out);
    let bot = "sample-bot --strategy random";
    let token = tmp.join("far.token");
    let _ = std::fs::remove_file(&token);
    let t = Command::new(host).args(["token", "--out", token.to_str().unwrap()]).output().unwrap();
    let sha = String::from_utf8(t.stdout).unwrap().split('"').nth(1).unwrap().to_owned();
    let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#);
    let second = if remote { spec.as_str() } else { bot };
    let started = Instant::now();
    let mut child = Command::new(host)
        .args(["match", bot, second, "--games", &games.to_string(), "--seed", "1", "--json", "-q"])
        .args(["--out", out.to_str().unwrap()])
        .args(if remote { vec!["--listen", "127.0.0.1:0"] } else { vec![] })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut client = None;
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    if remote {
        let port = loop {
            let line = lines.next().expect("the listening line").unwrap();
            if let Some(p) = line.split("on ws://127.0.0.1:").nth(1) {
                break p.trim().to_owned();
            }
        };
        client = Some(
            Command::new(host)
                .args(["connect", &format!("ws://127.0.0.1:{port}"), "--token-file", token.to_str().unwrap(), "--"])
                .arg(host)
                .args(["sample-bot", "--strategy", "random"])
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
    }
    std::thread::spawn(move || lines.for_each(drop));
    let output = child.wait_with_output().unwrap();
    let wall = started.elapsed().as_secs_f64();
    if let Some(mut c) = client {
        let _ = c.wait();
    }
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("--json summary");
    let plies = summary["plies"].as_f64().unwrap();
    let cpu = summary["host_cpu_us_per_ply"].as_f64().unwrap();
    let mut lags = Vec::new();
    let mut credits = Vec::new();
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    for line in text.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        for p in r["plies"].as_array().unwrap() {
            if let Some(l) = p["lag_us"].as_f64() {
                lags.push(l);
                credits.push(p["lag_credit_us"].as_f64().unwrap_or(0.0));
            }
        }
    }
    (plies / wall, cpu, lags, credits)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    // STRATEGO_BENCH_HOST: a host binary already built (e.g. the test profile's, opt-level 3).
    let host = std::env::var_os("STRATEGO_BENCH_HOST")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(stratego_tests::release_host);
    let tmp = std::env::temp_dir().join(format!("stratego-bench-remote-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (rounds, games) = if quick { (1, 4) } else { (3, 20) };
    let (mut local, mut remote) = (Vec::new(), Vec::new());
    let (mut lags, mut credits) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        local.push(run(&host, &tmp, games, false));
        let r = run(&host, &tmp, games, true);
        lags.extend(r.2.iter().copied());
        credits.extend(r.3.iter().copied());
        remote.push(r);
    }
    let median = |v: Vec<f64>| percentiles(v).0;
    println!("{games} games a match, {rounds} rounds interleaved; medians over rounds");
    println!("| bots | match ply/s | host CPU µs/ply |");
    println!("|---|---|---|");
    println!(
        "| local vs local | {:.0} | {:.1} |",
        median(local.iter().map(|r| r.0).collect()),
        median(local.iter().map(|r| r.1).collect())
    );
    println!(
        "| local vs remote (loopback, `connect`) | {:.0} | {:.1} |",
        median(remote.iter().map(|r| r.0).collect()),
        median(remote.iter().map(|r| r.1).collect())
    );
    let (l50, l90, lmax) = percentiles(lags.clone());
    let (c50, c90, cmax) = percentiles(credits.clone());
    let credited = credits.iter().filter(|&&c| c > 0.0).count();
    println!("remote moves: {}; credited: {credited}", lags.len());
    println!("| per remote move | p50 | p90 | max |");
    println!("|---|---|---|---|");
    println!("| measured one-way lag (`lag_us`) | {l50:.0} µs | {l90:.0} µs | {lmax:.0} µs |");
    println!("| credit (`lag_credit_us`) | {c50:.0} µs | {c90:.0} µs | {cmax:.0} µs |");
    let _ = std::fs::remove_dir_all(&tmp);
}
