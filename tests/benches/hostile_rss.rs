//! The host's peak RSS under each hostile bot, with one game at a time (issue #41, item 7:
//! the goal is at most 32 MB whatever a bot writes).
//!
//! `cargo bench -p stratego-tests --bench hostile_rss [-- HOST]`
//!
//! Two games of each hostile bot (the misbehaving bot's kinds that write, allocate or hang,
//! and `flood-bot`'s 64 MiB floods of `info` lines) against `sample-bot`, `-j 1`, with the
//! release host (or the host binary given); one line a bot: the host's own `host_peak_rss_kib`
//! (its `getrusage` peak, in its summary) and how the bot's games ended. A baseline row
//! plays two sample bots.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let host = std::env::args().skip(1).find(|a| !a.starts_with('-')).map(PathBuf::from);
    let host = host.unwrap_or_else(stratego_tests::release_host);
    let misbehaving = stratego_tests::bin("misbehaving-bot");
    let flood = stratego_tests::bin("flood-bot");
    let tmp = std::env::temp_dir().join(format!("stratego-bench-hostile-rss-{}", std::process::id()));
    let mut bots: Vec<(String, String, Vec<&str>)> =
        vec![("baseline (two sample bots)".into(), "sample-bot".into(), vec![])];
    for (kind, extra) in [
        ("huge-line", vec![]),
        ("endless-line", vec![]),
        ("garbage", vec![]),
        ("flood", vec![]),
        ("stderr-flood", vec![]),
        ("alloc", vec!["--bot-memory", "256M"]),
        ("close-stdout", vec!["--grace-ms", "100"]),
        ("ignore-sigterm", vec!["--grace-ms", "100"]),
    ] {
        bots.push((kind.into(), format!("{} --misbehave {kind} --at 2", misbehaving.display()), extra));
    }
    for when in ["between", "turn"] {
        bots.push((format!("flood-bot --when {when}"), format!("{} --when {when}", flood.display()), vec![]));
    }
    println!("| hostile bot | host peak RSS | its games ended |");
    println!("|---|---|---|");
    for (label, bot, extra) in bots {
        let _ = std::fs::remove_dir_all(&tmp);
        let out = Command::new(&host)
            .args(["match", &bot, "sample-bot", "--games", "2", "-j", "1", "--seed", "3", "--json", "-q"])
            .args(["--move-time", "60", "--out"])
            .arg(&tmp)
            .args(&extra)
            .output()
            .expect("run the host");
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let rss = summary["host_peak_rss_kib"].as_u64().unwrap_or(0);
        let reasons: Vec<String> = std::fs::read_to_string(tmp.join("games.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|r| r["result"]["reason"].as_str().unwrap_or("?").to_owned())
            .collect();
        println!("| {label} | {:.1} MiB | {} |", rss as f64 / 1024.0, reasons.join(", "));
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
