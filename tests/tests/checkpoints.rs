//! The checkpoints of a CPU's watchdog (see `StallWatch::checkpoints` in
//! `host/src/stall_watch.rs`), which find run time the kernel counted for a bot while its
//! virtual CPU was paused. In a test binary of its own: its watchdogs (real-time, one per
//! CPU) and its spinning process on CPU 0 must not share a process or a CPU with another
//! test's stalled matches. Needs the right to use real-time priorities (root or
//! `CAP_SYS_NICE`), as the host's watchdogs do.

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
fn the_watchdog_of_a_cpu_takes_checkpoints_of_a_bot_on_it() {
    // The checkpoints that find run time the kernel counted for a bot while a virtual CPU
    // was paused (see `StallWatch::checkpoints`). A pause cannot be made on purpose, so
    // the second claim is opened with a CPU time 50 ms short of the bot's: its first
    // checkpoint finds 50 ms more run than the time since could hold. The first claim,
    // with the true figure, finds (almost) nothing: the bot only ran.
    let watch =
        stratego_host::stall_watch::start().expect("this test needs real-time priorities (root or CAP_SYS_NICE)");
    watch.pause();
    let bot = Hog(std::process::Command::new("taskset")
        .args(["-c", "0", "sh", "-c", "while :; do :; done"])
        .spawn()
        .expect("taskset (util-linux) runs a spinning shell on CPU 0"));
    let pid = bot.0.id();
    std::thread::sleep(Duration::from_millis(50));
    let opened = Instant::now();
    let cpu = stratego_host::os::process_cpu_time(pid).unwrap();
    let honest = watch.checkpoints(0, pid, opened, cpu).unwrap();
    let short = watch.checkpoints(0, pid, opened, cpu.saturating_sub(Duration::from_millis(50))).unwrap();
    // And a process asleep: never found running, so never preempted.
    let mut sleeper = std::process::Command::new("sleep").arg("5").spawn().unwrap();
    let asleep = watch.checkpoints(0, sleeper.id(), Instant::now(), Duration::ZERO).unwrap();
    std::thread::sleep(Duration::from_millis(400));
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
    // Less whatever else ran on CPU 0 in the first 4 ms (the bot did not run all of it).
    let found = short.phantom().saturating_sub(honest.phantom());
    assert!(found > Duration::from_millis(40) && found < Duration::from_millis(52), "{:?}", short.phantom());
    // One claim dropped, the other's checkpoints go on.
    drop(short);
    let n = honest.taken();
    std::thread::sleep(Duration::from_millis(50));
    assert!(honest.taken() > n);
}
