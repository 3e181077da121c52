//! The checkpoints of a CPU's watchdog (see `StallWatch::checkpoints` in
//! `host/src/supervise/stall_watch.rs`), which find run time the kernel counted for a bot while its
//! virtual CPU was paused. In a test binary of its own: its watchdogs (real-time, one per
//! CPU) and its spinning process on CPU 0 must not share a process or a CPU with another
//! test's stalled matches. Needs the right to use real-time priorities (root or
//! `CAP_SYS_NICE`), as the host's watchdogs do: without it the test says `skipped: …` and
//! passes.
//!
//! A timing test: ignored by `cargo test --workspace` (a checkpoint every 4 ms, which other
//! load on the machine delays), run by `.ci/timing.sh`.

use std::time::{Duration, Instant};

/// A process of normal priority that spins on CPU 0 until dropped.
struct Hog(std::process::Child);

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "timing: a real-time watchdog's checkpoints every 4 ms, counted over 400 ms"]
fn the_watchdog_of_a_cpu_takes_checkpoints_of_a_bot_on_it() {
    if !stratego_tests::realtime_or_skip("the_watchdog_of_a_cpu_takes_checkpoints_of_a_bot_on_it") {
        return;
    }
    // Judged over 10 trials of about half a second, of which one may fail: one that a long
    // pause of this virtual machine's CPUs or a busy machine hits (`0 of 101` checkpoints
    // preempting the bot was seen once).
    stratego_tests::judge_over_trials("the watchdog's checkpoints", 10, 1, |_| checkpoints_trial());
}

/// One trial of [`the_watchdog_of_a_cpu_takes_checkpoints_of_a_bot_on_it`].
fn checkpoints_trial() {
    // The checkpoints that find run time the kernel counted for a bot while a virtual CPU
    // was paused (see `StallWatch::checkpoints`). A pause cannot be made on purpose, so
    // the second claim is opened with a CPU time 50 ms short of the bot's: its first
    // checkpoint finds 50 ms more run than the time since could hold. The first claim,
    // with the true figure, finds (almost) nothing: the bot only ran.
    let watch = stratego_host::supervise::stall_watch::start()
        .expect("this test needs real-time priorities (root or CAP_SYS_NICE)");
    watch.pause();
    let bot = Hog(std::process::Command::new("taskset")
        .args(["-c", "0", "sh", "-c", "while :; do :; done"])
        .spawn()
        .expect("taskset (util-linux) runs a spinning shell on CPU 0"));
    let pid = bot.0.id();
    std::thread::sleep(Duration::from_millis(50));
    // The bot's CPU time read from its own CPU, as the host reads it for a bot that shares
    // its CPU: read from the other CPU while the bot ran, it was up to 11 ms ahead of what
    // the watchdog read 4 ms later (a steal of CPU 0 still going on counts as run until the
    // hypervisor reports it).
    let here = stratego_host::supervise::os::allowed_cpus().unwrap();
    stratego_host::supervise::os::pin_current(0).unwrap();
    let opened = Instant::now();
    let cpu = stratego_host::supervise::os::process_cpu_time(pid).unwrap();
    let honest = watch.checkpoints(0, pid, opened, cpu).unwrap();
    let short = watch.checkpoints(0, pid, opened, cpu.saturating_sub(Duration::from_millis(50))).unwrap();
    stratego_host::supervise::os::unpin_current(&here);
    // When the first checkpoint came: the bot's run until then may fall short of the time
    // since the opening (the machine's steal, other threads on CPU 0), by at most that much.
    let first = loop {
        if short.taken() > 0 {
            break opened.elapsed();
        }
        assert!(opened.elapsed() < Duration::from_secs(2), "no checkpoint within 2 s");
        std::thread::sleep(Duration::from_micros(200));
    };
    // And a process asleep: never found running, so never preempted.
    let mut sleeper = std::process::Command::new("sleep").arg("5").spawn().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let slept = stratego_host::supervise::os::process_cpu_time(sleeper.id()).unwrap();
    let asleep = watch.checkpoints(0, sleeper.id(), Instant::now(), slept).unwrap();
    std::thread::sleep(Duration::from_millis(380));
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    // Every 4 ms (a few missed on a busy machine).
    assert!(
        honest.taken() >= 50 && short.taken() >= 50,
        "{} and {} checkpoints in 400 ms",
        honest.taken(),
        short.taken()
    );
    // Each took the CPU from the spinning bot (but those a stall or a pause spoilt).
    assert!(honest.preempted() >= honest.taken() / 2, "{} of {}", honest.preempted(), honest.taken());
    assert!(asleep.taken() >= 50 && asleep.preempted() == 0, "{} of {}", asleep.preempted(), asleep.taken());
    // Pauses of this virtual machine's CPUs are real and credited too (2–17 ms were seen);
    // the bot's own run would be hundreds of ms.
    assert!(honest.phantom() < Duration::from_millis(25), "{:?}", honest.phantom());
    // Less what the bot did not run before the first checkpoint.
    let found = short.phantom().saturating_sub(honest.phantom());
    assert!(
        found + first + Duration::from_millis(1) >= Duration::from_millis(50) && found <= Duration::from_millis(52),
        "{:?} found, the first checkpoint {first:?} after the opening",
        short.phantom()
    );
    // One claim dropped, the other's checkpoints go on.
    drop(short);
    let n = honest.taken();
    std::thread::sleep(Duration::from_millis(50));
    assert!(honest.taken() > n);
}
