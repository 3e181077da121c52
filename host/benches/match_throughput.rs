//! Whole-process throughput of the host: real `stratego-host match` runs between two
//! `sample-bot --strategy random` processes.
//!
//! `cargo bench -p stratego-host --bench match_throughput [-- GAMES]`
//!
//! With `STRATEGO_BENCH_BASELINE=/path/to/an/older/stratego-host`, each row is also run
//! with that binary, interleaved (baseline, then this build), and the ratio printed: on a
//! shared, noisy machine only figures measured side by side compare.
//!
//! For each configuration it prints: plies per second over the whole match (wall clock,
//! process start-ups included), plies per second within games (record durations), host CPU
//! per ply (the host's own rusage), and host peak RSS. The rows marked "fast" run with
//! `--read-grace-ms 0 --host-priority nice`: the clock starts at the write (the host is not
//! woken when a bot reads its turn: one wake-up less per ply) and the host is not real-time.

use std::process::Command;

fn main() {
    let games: u32 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(100);
    let exe = env!("CARGO_BIN_EXE_stratego-host");
    let baseline = std::env::var("STRATEGO_BENCH_BASELINE").ok();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("{games} games of `sample-bot --strategy random` against itself per row; {cores} cores");
    println!(
        "{:<44} {:>12} {:>14} {:>14} {:>12}",
        "configuration", "match ply/s", "in-game ply/s", "host µs/ply", "host RSS MiB"
    );
    for (concurrency, pin, full, watch) in [
        (1, false, false, true),
        (1, true, false, true),
        (cores, false, false, true),
        (cores, true, false, true),
        (1, false, true, true),
        (1, true, true, true),
        (1, false, false, false),
        (1, true, false, false),
        (1, false, true, false),
        (1, true, true, false),
    ] {
        let label = format!(
            "-j {concurrency}{}{}{}",
            if pin { " --pin" } else { "" },
            if full { ", full view" } else { "" },
            if watch { "" } else { ", fast" }
        );
        let mut rows = Vec::new();
        for (name, exe) in baseline.iter().map(|b| ("baseline", b.as_str())).chain([("this build", exe)]) {
            let row = run(exe, games, concurrency, pin, full, watch);
            let label = if baseline.is_some() { format!("{label} ({name})") } else { label.clone() };
            println!("{label:<44} {:>12.0} {:>14.0} {:>14.1} {:>12.1}", row[0], row[1], row[2], row[3]);
            rows.push(row);
        }
        if let [old, new] = rows.as_slice() {
            println!(
                "{:<44} {:>11.2}x {:>13.2}x {:>13.2}x",
                "  ratio this/baseline",
                new[0] / old[0],
                new[1] / old[1],
                new[2] / old[2]
            );
        }
    }
}

/// One `match` run: match ply/s, in-game ply/s, host µs/ply, host RSS MiB.
fn run(exe: &str, games: u32, concurrency: usize, pin: bool, full: bool, watch: bool) -> [f64; 4] {
    {
        // The random sample bot asks for the compact "moves" view; --full-view makes it
        // take the default, full turns (what most bots read).
        let bot = if full { "sample-bot --strategy random --full-view" } else { "sample-bot --strategy random" };
        let dir = std::env::temp_dir()
            .join(format!("stratego-bench-{}-{concurrency}-{pin}-{full}-{watch}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cmd = Command::new(exe);
        cmd.args(["match", bot, bot, "--json", "-q", "--seed", "1"]).args([
            "--games",
            &games.to_string(),
            "-j",
            &concurrency.to_string(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        if pin {
            cmd.arg("--pin");
        }
        if !watch {
            cmd.args(["--read-grace-ms", "0", "--host-priority", "nice"]);
        }
        let out = cmd.output().expect("run the host");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let plies = s["plies"].as_f64().unwrap();
        let records = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
        let (mut in_game_plies, mut in_game_ms) = (0.0, 0.0);
        for line in records.lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            in_game_plies += r["plies"].as_array().unwrap().len() as f64;
            in_game_ms += r["duration_ms"].as_f64().unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
        [
            plies / s["wall_s"].as_f64().unwrap(),
            in_game_plies / (in_game_ms / 1000.0),
            s["host_cpu_us_per_ply"].as_f64().unwrap(),
            s["host_peak_rss_kib"].as_f64().unwrap() / 1024.0,
        ]
    }
}
