//! What `--sandbox` costs, with real processes.
//!
//! `cargo bench -p stratego-tests --bench sandbox [-- quick]`
//!
//! 1. Start-up: the time from the host's spawn of a bot (in the sandbox: bwrap's command
//!    line, the bot's cgroups, bwrap's namespaces and mounts) to its `ready`, through the
//!    host's own `Process` (the code every game uses), for the built-in sample bot (a
//!    native program) and the Python example bot (through pyenv's shims where python3 is
//!    one), each without and with the sandbox, interleaved. p50 / p90 / max.
//! 2. Throughput: a whole `stratego-host match` of random sample bots (microseconds a move:
//!    the worst case for any per-move cost), without and with `--sandbox`, interleaved;
//!    plies per second of wall time over the whole run, start-up included.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use stratego_host::supervise::bot_spec::BotSpec;
use stratego_host::supervise::process::Process;
use stratego_host::supervise::supervisor::Supervisor;

fn percentiles(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9), *v.last().unwrap())
}

/// A real `hello`, as the host sends it: the first line of a protocol log.
fn hello_line(host: &Path, tmp: &Path) -> Vec<u8> {
    let log = tmp.join("protocol.log");
    let out = Command::new(host)
        .args(["match", "sample-bot --strategy random", "sample-bot --strategy random", "--games", "1", "-q"])
        .arg("--log-protocol")
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text.lines().find(|l| l.contains(r#"{"type":"hello""#)).unwrap();
    let json = &line[line.find('{').unwrap()..];
    format!("{json}\n").into_bytes()
}

/// Spawn-to-`ready` times of `spec`, in milliseconds.
fn startups(rt: &tokio::runtime::Runtime, spec: &BotSpec, hello: &[u8], n: usize) -> Vec<f64> {
    let sup = Supervisor::plain();
    let mut out = Vec::new();
    for _ in 0..n {
        let (ms, quit) = rt.block_on(async {
            let t0 = Instant::now();
            let mut p = Process::spawn(spec, 1 << 20, None, true, &sup).expect("spawn");
            let deadline = Instant::now() + Duration::from_secs(20);
            p.write(hello, deadline).await.map_err(|e| format!("{e:?}")).expect("hello");
            let mut watch = p.stopwatch(Instant::now(), Duration::from_secs(20), Duration::from_millis(10), false);
            let (line, at) = p.read_line(&mut watch).await.map_err(|e| format!("{e:?}")).expect("ready");
            assert!(line.contains("\"ready\""), "{line}");
            let ms = (at - t0).as_secs_f64() * 1000.0;
            (ms, p.shutdown(Duration::from_millis(500), Some(b"{\"type\":\"quit\"}\n")).await)
        });
        assert!(quit.contains("status 0"), "{quit}");
        out.push(ms);
    }
    out
}

/// CPU time (user + system) of this process's waited-for descendants, in seconds.
fn children_cpu() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// Plies per second of a whole match, its wall time, and the CPU time of the host and its
/// bots per 1,000 plies (which the machine's other load does not change).
fn throughput(host: &Path, tmp: &Path, games: u32, sandbox: bool, run: usize) -> (f64, f64, f64) {
    let out_dir = tmp.join(format!("tp-{sandbox}-{run}"));
    let random = format!("{} sample-bot --strategy random", host.display());
    let mut cmd = Command::new(host);
    cmd.args(["match", &random, &random, "--games", &games.to_string(), "--seed", "1", "-q", "--out"]).arg(&out_dir);
    if sandbox {
        cmd.arg("--sandbox");
    }
    let cpu0 = children_cpu();
    let t0 = Instant::now();
    let out = cmd.output().unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plies: usize = std::fs::read_to_string(out_dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["plies"].as_array().unwrap().len())
        .sum();
    (plies as f64 / wall, wall, cpu * 1000.0 / plies as f64)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let host = stratego_tests::release_host();
    let tmp = std::env::temp_dir().join(format!("stratego-sandbox-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let hello = hello_line(&host, &tmp);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();

    // 1. Start-up.
    let n = if quick { 5 } else { 30 };
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/python/bot.py").canonicalize().unwrap();
    let bots = [
        ("sample bot (native)", format!("{} sample-bot --strategy random", host.display())),
        ("python3 example bot", format!("python3 {}", python.display())),
    ];
    println!("start-up, spawn to `ready`, {n} each (ms): p50 / p90 / max");
    for (label, command) in &bots {
        let plain = BotSpec::parse(command).unwrap();
        let mut boxed = plain.clone();
        boxed.limits.sandbox = Some(true);
        // Warm up both (page cache, the sandbox's one-time checks).
        startups(&rt, &plain, &hello, 1);
        startups(&rt, &boxed, &hello, 1);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..n {
            a.extend(startups(&rt, &plain, &hello, 1));
            b.extend(startups(&rt, &boxed, &hello, 1));
        }
        let (a50, a90, amax) = percentiles(a);
        let (b50, b90, bmax) = percentiles(b);
        println!("  {label:<22} plain   {a50:8.1} / {a90:8.1} / {amax:8.1}");
        println!("  {label:<22} sandbox {b50:8.1} / {b90:8.1} / {bmax:8.1}   (+{:.1} ms at p50)", b50 - a50);
    }

    // 2. Throughput.
    let games = if quick { 10 } else { 40 };
    let runs = if quick { 1 } else { 5 };
    println!(
        "throughput, match of {games} games, random vs random, -j 1 (plies/s of wall time; wall s; CPU s of host and bots per 1,000 plies)"
    );
    let (mut plain, mut boxed) = (Vec::new(), Vec::new());
    for run in 0..runs {
        plain.push(throughput(&host, &tmp, games, false, run));
        boxed.push(throughput(&host, &tmp, games, true, run));
    }
    for (label, v) in [("plain", &plain), ("sandbox", &boxed)] {
        let rates: Vec<String> = v.iter().map(|(r, w, c)| format!("{r:.0} ({w:.2} s; {c:.3})")).collect();
        println!("  {label:<8} {}", rates.join(", "));
    }
    let median = |v: &[(f64, f64, f64)], f: fn(&(f64, f64, f64)) -> f64| percentiles(v.iter().map(f).collect()).0;
    println!(
        "  sandbox / plain, medians: plies/s {:.3}, CPU per ply {:.3}",
        median(&boxed, |t| t.0) / median(&plain, |t| t.0),
        median(&boxed, |t| t.2) / median(&plain, |t| t.2)
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
