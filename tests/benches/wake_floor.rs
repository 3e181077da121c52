//! The machine's floor for a host's CPU a ply with bots that think: what the smallest
//! possible host pays on this machine, measured side by side with the real host.
//!
//! `cargo bench -p stratego-tests --bench wake_floor [-- TURNS [THINK_MS] [floor-only]]`
//!
//! A "floor host" (a thread of this benchmark, blocking pipe I/O, nothing else) plays the
//! host's conversation with two child processes (this benchmark re-run as a bot): each ply
//! it writes a full-size turn (4,700 bytes) to the mover, waits for its one-line answer, and
//! writes a short `ply` line to both. The bot busy-waits THINK_MS (default 18) from the
//! read of its turn, then answers. The floor host's CPU per ply (its own thread's clock)
//! and its context switches a ply are what any host must pay on this machine for the
//! pipes and the wake-ups alone. Variants:
//!
//! - `floor`: as above, nobody pinned;
//! - `floor, one CPU`: the floor host and both bots on one CPU (what the real host does
//!   with single-threaded bots: auto-pin);
//! - `floor, tokio, one CPU`: the floor host as a current-thread tokio runtime (async
//!   pipes, a deadline timer a turn), on one CPU with its bots: what the event loop adds;
//! - `floor + 4 ms ticks`: and a real-time thread on that CPU that wakes every 4 ms while
//!   a bot thinks and reads its CPU clock (what the real host's checkpoints do on a
//!   virtual machine).
//!
//! Then the real host: `stratego-host match "misbehaving-bot --think-ms THINK_MS"` twice,
//! `--move-time 0.02`, one game slot, as many plies, its `host_cpu_us_per_ply` (the whole
//! process, all its threads). Rows are interleaved over three rounds: on a shared machine
//! only figures measured side by side compare.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

const TURN_BYTES: usize = 4_700;

/// The line the floor host writes to both bots after each ply.
const PLY: &[u8] = b"{\"type\":\"ply\",\"ply\":1,\"from\":\"b4\",\"to\":\"b5\"}\n";

/// A turn: `TURN_BYTES` of `T` and a newline (the bot thinks at a line that starts with `T`).
fn turn_line() -> Vec<u8> {
    let mut turn = vec![b'T'; TURN_BYTES];
    turn.push(b'\n');
    turn
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bot") {
        let ms: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(18.0);
        bot(Duration::from_secs_f64(ms / 1000.0));
        return;
    }
    let nums: Vec<f64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let turns = nums.first().map_or(600, |&n| n as u32);
    let think = nums.get(1).copied().unwrap_or(18.0);
    let floor_only = args.iter().any(|a| a == "floor-only");
    let host = (!floor_only).then(stratego_tests::release_host);
    println!("{turns} plies a row, bots think {think} ms a move, 3 rounds interleaved");
    println!("{:<28} {:>14} {:>16}", "configuration", "host µs/ply", "switches/ply");
    for round in 1..=3 {
        println!("round {round}");
        for variant in [Variant::Floor, Variant::OneCpu, Variant::Tokio, Variant::Ticks] {
            let (us, switches) =
                if variant == Variant::Tokio { tokio_floor(turns, think) } else { floor(variant, turns, think) };
            println!("{:<28} {us:>14.1} {switches:>16.2}", variant.label());
        }
        if let Some(host) = &host {
            let us = real_host(host, turns, think);
            println!("{:<28} {us:>14.1} {:>16}", "stratego-host match", "-");
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Floor,
    OneCpu,
    Tokio,
    Ticks,
}

impl Variant {
    fn label(self) -> &'static str {
        match self {
            Variant::Floor => "floor",
            Variant::OneCpu => "floor, one CPU",
            Variant::Tokio => "floor, tokio, one CPU",
            Variant::Ticks => "floor + 4 ms ticks, one CPU",
        }
    }
}

/// The bot: reads lines; at a turn (`T…`), busy-waits `think` and answers.
fn bot(think: Duration) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line.starts_with('T') {
            let start = Instant::now();
            while start.elapsed() < think {
                std::hint::spin_loop();
            }
            out.write_all(b"{\"type\":\"move\",\"from\":\"b4\",\"to\":\"b5\"}\n").unwrap();
            out.flush().unwrap();
        }
    }
}

fn spawn_bot(think: f64, cpu: Option<usize>) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--bot", &think.to_string()]).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(cpu) = cpu {
        pin(child.id() as libc::pid_t, cpu);
    }
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

fn pin(tid: libc::pid_t, cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the calls only read and write it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn thread_switches() -> i64 {
    // SAFETY: zeroed rusage is valid; getrusage writes it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    ru.ru_nvcsw + ru.ru_nivcsw
}

fn process_cpu(pid: i32) -> Duration {
    let mut clock: libc::clockid_t = 0;
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: both calls only write what we pass.
    unsafe {
        if libc::clock_getcpuclockid(pid, &mut clock) != 0 || libc::clock_gettime(clock, &mut ts) != 0 {
            return Duration::ZERO;
        }
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One floor run: the floor host's (and its ticker's) CPU µs a ply, and its switches a ply.
fn floor(variant: Variant, turns: u32, think: f64) -> (f64, f64) {
    let cpu = (variant != Variant::Floor).then_some(0);
    std::thread::scope(|scope| {
        let thinking = Arc::new(AtomicI32::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = (variant == Variant::Ticks).then(|| {
            let (thinking, stop) = (thinking.clone(), stop.clone());
            scope.spawn(move || {
                pin(0, 0);
                let param = libc::sched_param { sched_priority: 2 };
                // SAFETY: sets this thread's policy; fails harmlessly without the right.
                unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
                let start = thread_cpu();
                let mut sum = Duration::ZERO;
                while !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(4));
                    let pid = thinking.load(Ordering::Acquire);
                    if pid != 0 {
                        sum += process_cpu(pid);
                    }
                }
                std::hint::black_box(sum);
                (thread_cpu() - start, thread_switches())
            })
        });
        let host = scope.spawn(move || {
            if let Some(cpu) = cpu {
                pin(0, cpu);
            }
            let mut bots = [spawn_bot(think, cpu), spawn_bot(think, cpu)];
            let turn = turn_line();
            let mut answer = String::new();
            let (cpu0, switches0) = (thread_cpu(), thread_switches());
            for i in 0..turns {
                let mover = (i % 2) as usize;
                let (child, stdin, stdout) = &mut bots[mover];
                thinking.store(child.id() as i32, Ordering::Release);
                stdin.write_all(&turn).unwrap();
                answer.clear();
                stdout.read_line(&mut answer).unwrap();
                thinking.store(0, Ordering::Release);
                for (_, stdin, _) in bots.iter_mut() {
                    stdin.write_all(PLY).unwrap();
                }
            }
            let used = (thread_cpu() - cpu0, thread_switches() - switches0);
            for (mut child, stdin, mut stdout) in bots {
                drop(stdin);
                let _ = stdout.read_to_end(&mut Vec::new());
                let _ = child.wait();
            }
            used
        });
        let (mut used, switches) = host.join().unwrap();
        stop.store(true, Ordering::Release);
        if let Some(t) = ticker {
            used += t.join().unwrap().0;
        }
        (used.as_secs_f64() * 1e6 / f64::from(turns), switches as f64 / f64::from(turns))
    })
}

/// The floor host as a current-thread tokio runtime on CPU 0 with its bots: async pipes
/// and a deadline a turn, as an event-loop host has.
fn tokio_floor(turns: u32, think: f64) -> (f64, f64) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                pin(0, 0);
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                rt.block_on(async move {
                    let mut bots = Vec::new();
                    for _ in 0..2 {
                        let mut child = tokio::process::Command::new(std::env::current_exe().unwrap())
                            .args(["--bot", &think.to_string()])
                            .stdin(Stdio::piped())
                            .stdout(Stdio::piped())
                            .spawn()
                            .unwrap();
                        pin(child.id().unwrap() as libc::pid_t, 0);
                        let stdin = child.stdin.take().unwrap();
                        let stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
                        bots.push((child, stdin, stdout));
                    }
                    let turn = turn_line();
                    let mut answer = String::new();
                    let (cpu0, switches0) = (thread_cpu(), thread_switches());
                    for i in 0..turns {
                        let (_, stdin, stdout) = &mut bots[(i % 2) as usize];
                        stdin.write_all(&turn).await.unwrap();
                        answer.clear();
                        let deadline = Duration::from_secs_f64(think / 1000.0 + 0.5);
                        tokio::time::timeout(deadline, stdout.read_line(&mut answer)).await.unwrap().unwrap();
                        for (_, stdin, _) in bots.iter_mut() {
                            stdin.write_all(PLY).await.unwrap();
                        }
                    }
                    let used = (thread_cpu() - cpu0, thread_switches() - switches0);
                    for (mut child, stdin, _) in bots {
                        drop(stdin);
                        let _ = child.wait().await;
                    }
                    (used.0.as_secs_f64() * 1e6 / f64::from(turns), used.1 as f64 / f64::from(turns))
                })
            })
            .join()
            .unwrap()
    })
}

/// The real host's CPU µs a ply over games of about `turns` plies in all.
fn real_host(host: &PathBuf, turns: u32, think: f64) -> f64 {
    let bot = format!("{} --think-ms {think}", env!("CARGO_BIN_EXE_misbehaving-bot"));
    let mut cpu = 0.0;
    let mut plies = 0.0;
    let mut seed = 1;
    while plies < f64::from(turns) {
        let out = Command::new(host)
            .args(["match", &bot, &bot, "--games", "1", "--move-time", "0.02", "-q", "--json"])
            .args(["--seed", &seed.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let p = v["plies"].as_f64().unwrap_or(0.0);
        cpu += v["host_cpu_us_per_ply"].as_f64().unwrap_or(0.0) * p;
        plies += p;
        seed += 1;
    }
    cpu / plies
}
