//! Watchdogs that see when a CPU could not run anything, so that a bot is not charged for
//! time the machine took from it.
//!
//! On a virtual machine the hypervisor takes a virtual CPU away for milliseconds at a time
//! (steal time), and a kernel built without preemption can hold a CPU in a long system
//! call; a bot that was thinking on that CPU, or the host reading its answer, loses that
//! time through no fault of its own. One watchdog thread per CPU, pinned to it at a
//! real-time priority above the host's (`SCHED_FIFO` 2), wakes every millisecond; when it
//! wakes more than half a millisecond late, nothing of normal priority could have run on
//! that CPU during the gap, and the gap is logged as a stall of that CPU.
//!
//! A watchdog ticks only while a request that has run long wants its CPU ([`StallWatch::want`]:
//! the CPUs its bot and its game's thread may run on), or all the time with
//! `--host-priority realtime`. Bots with one thread need no watchdog at all: they are
//! credited from their own scheduler account (see [`crate::supervise::stopwatch::Stopwatch::credit_stalls`]);
//! nor do bots with more threads whose main thread reads their input and thinks: they are
//! credited from that thread's account and their process's CPU time. The watchdogs are
//! for the rest (a bot that reads on another thread, or has child processes).
//!
//! A watchdog also takes the **checkpoints** of the single-threaded bots that share its CPU
//! with their game's thread on a virtual machine ([`StallWatch::checkpoints`]): while such a
//! bot thinks, it ticks every [`CHECKPOINT_EVERY`] (4 ms) if nothing else
//! wants it, and at each tick reads the bot's CPU clock, to find the run time the kernel
//! counted for the bot while a paused virtual CPU kept the watchdog from running.
//!
//! The referee asks for the stalls only when one happened during a bot's move (one atomic
//! load per move otherwise); it then credits the bot with the stalls of the CPU the bot
//! last ran on, and with a stall of the host's own CPU that made the host see the answer
//! (or the deadline) late, at most the move's limit or 250 ms (see
//! [`crate::supervise::stopwatch::Stopwatch`]). Whether the bot was running or waiting for input at
//! the time of a stall of its CPU cannot be told (`/proc/PID/schedstat` is not available
//! on every kernel), so it is credited either way. The watchdogs cost about 5 % of the host's
//! throughput with microsecond bots and nothing measurable with bots that think.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often the watchdog of the CPU that a thinking bot shares with its game's thread
/// wakes to see whether the machine took that CPU without the kernel counting it (see
/// [`StallWatch::checkpoints`]).
pub const CHECKPOINT_EVERY: Duration = Duration::from_millis(4);

/// Run beyond what the bot could have run, at a checkpoint, below which nothing is
/// credited (the watchdog's own wake-up takes some microseconds).
pub(crate) const PHANTOM_MIN: Duration = Duration::from_micros(300);

/// At a checkpoint: of the bot's run since the last one (`ran`), what was not its own, when
/// it could have run only `could` (the time from the last checkpoint to this one's due
/// time; see [`StallWatch::checkpoints`]): nothing below [`PHANTOM_MIN`].
pub(crate) fn run_not_its_own(ran: Duration, could: Duration) -> Duration {
    Some(ran.saturating_sub(could)).filter(|&b| b >= PHANTOM_MIN).unwrap_or_default()
}

/// How often a watchdog wakes.
const TICK: Duration = Duration::from_millis(1);

/// Lateness above which a wake-up counts as a stall (a real-time thread is normally woken
/// within tens of microseconds).
const THRESHOLD: Duration = Duration::from_micros(500);

/// How long stalls are remembered (longer than any move limit worth refunding).
const MEMORY: Duration = Duration::from_secs(120);

/// A stall: `[from, to)` in nanoseconds since the watch's base instant.
type Interval = (u64, u64);

#[derive(Debug)]
struct CpuWatch {
    cpu: usize,
    /// The last time the watchdog ran, in ns since the base.
    last_tick: AtomicU64,
    stalls: Mutex<VecDeque<Interval>>,
    /// Requests that want this CPU watched now ([`StallWatch::want`]).
    demand: AtomicU32,
    /// Where the watchdog sleeps while it is not wanted.
    wake: (Mutex<()>, Condvar),
    /// Bots it takes checkpoints of ([`StallWatch::checkpoints`]), and how many.
    subjects: Mutex<Vec<Arc<Subject>>>,
    subject_count: AtomicU32,
    /// The watchdog's period now, in ns: [`TICK`] while some [`Demand`] wants its CPU (or
    /// the watch is not paused), [`CHECKPOINT_EVERY`] when only checkpoints do.
    period: AtomicU64,
}

/// A bot whose CPU clock a watchdog checks at each tick (see [`StallWatch::checkpoints`]).
#[derive(Debug)]
struct Subject {
    pid: u32,
    /// The last checkpoint: ns since the watch's base, and the bot's CPU time then.
    last: Mutex<(u64, Duration)>,
    /// Run the kernel counted for the bot while the watchdog was due (ns).
    phantom: AtomicU64,
    /// Checkpoints taken, and those that found the bot running all the time since the last
    /// one (the watchdog then took the CPU from it).
    taken: AtomicU32,
    preempted: AtomicU32,
}

/// A claim on a watchdog's checkpoints of one bot ([`StallWatch::checkpoints`]): they go on
/// until it is dropped.
pub struct Checkpoints {
    watch: Arc<StallWatch>,
    /// The index of the CPU's watch.
    index: usize,
    subject: Arc<Subject>,
}

impl Checkpoints {
    /// Run the kernel counted for the bot at the checkpoints so far that was not its own.
    pub fn phantom(&self) -> Duration {
        Duration::from_nanos(self.subject.phantom.load(Ordering::Acquire))
    }

    /// How many checkpoints were taken so far.
    pub fn taken(&self) -> u32 {
        self.subject.taken.load(Ordering::Acquire)
    }

    /// How many checkpoints so far found the bot running all the time since the last one
    /// (give or take 300 µs): each took the CPU from it for a moment, so it was given a CPU
    /// once more without having slept.
    pub fn preempted(&self) -> u32 {
        self.subject.preempted.load(Ordering::Acquire)
    }
}

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoints").field("pid", &self.subject.pid).field("phantom", &self.phantom()).finish()
    }
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        let c = &self.watch.cpus[self.index];
        let mut list = c.subjects.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|s| !Arc::ptr_eq(s, &self.subject));
        c.subject_count.store(list.len() as u32, Ordering::Release);
    }
}

/// The watchdogs of every CPU the host may use.
#[derive(Debug)]
pub struct StallWatch {
    base: Instant,
    cpus: Vec<CpuWatch>,
    /// End of the latest stall seen on any CPU, ns since the base (0: none yet).
    latest_end: AtomicU64,
    /// Set when the watchdogs must stop (one could not start, or the watch was dropped).
    stop: AtomicBool,
    /// Set when the watchdogs tick only for the requests that want their CPU (the adaptive
    /// host of [`crate::supervise::tempo`]); clear, every watchdog ticks all the time.
    paused: AtomicBool,
}

/// A request's claim on the watchdogs of some CPUs; they tick until every claim on them is
/// dropped.
#[derive(Debug)]
pub struct Demand {
    watch: Arc<StallWatch>,
    cpus: Vec<usize>,
}

impl Drop for Demand {
    fn drop(&mut self) {
        for &i in &self.cpus {
            self.watch.cpus[i].demand.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Starts one watchdog on each CPU the host may run on, and returns the watch (owned by
/// the [`crate::supervise::supervisor::Supervisor`], which hands it to each game's stopwatches). Needs
/// the right to use real-time priorities (`CAP_SYS_NICE` or root): without it a watchdog
/// would be delayed by normal processes and see stalls that are not. A watch whose
/// watchdogs did not all start is never returned: a silent watchdog would look like a CPU
/// stalled for ever.
///
/// # Errors
/// What failed (the CPU set could not be read, or a watchdog could not be made real-time).
pub fn start() -> Result<Arc<StallWatch>, String> {
    let cpus = crate::supervise::os::allowed_cpus().map_err(|e| format!("cannot read the CPU set: {e}"))?;
    if cpus.is_empty() {
        return Err("no CPU in the host's CPU set".into());
    }
    let watch = Arc::new(StallWatch {
        base: Instant::now(),
        cpus: cpus
            .iter()
            .map(|&cpu| CpuWatch {
                cpu,
                last_tick: AtomicU64::new(0),
                stalls: Mutex::new(VecDeque::new()),
                demand: AtomicU32::new(0),
                wake: (Mutex::new(()), Condvar::new()),
                subjects: Mutex::new(Vec::new()),
                subject_count: AtomicU32::new(0),
                period: AtomicU64::new(TICK.as_nanos() as u64),
            })
            .collect(),
        latest_end: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        paused: AtomicBool::new(false),
    });
    let started = (0..watch.cpus.len()).try_for_each(|i| {
        let (tx, rx) = std::sync::mpsc::channel();
        let w = watch.clone();
        std::thread::Builder::new()
            .name(format!("stall-watch-{}", watch.cpus[i].cpu))
            .spawn(move || w.run(i, tx))
            .map_err(|e| format!("cannot start a watchdog: {e}"))?;
        rx.recv().map_err(|_| "a watchdog died at start".to_owned())?
    });
    match started {
        Ok(()) => Ok(watch),
        Err(e) => {
            watch.stop.store(true, Ordering::Release);
            Err(e)
        }
    }
}

impl StallWatch {
    fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.base).as_nanos() as u64
    }

    fn run(&self, i: usize, ready: std::sync::mpsc::Sender<Result<(), String>>) {
        let me = &self.cpus[i];
        if let Err(e) = crate::supervise::os::pin_current(me.cpu) {
            let _ = ready.send(Err(format!("cannot pin a watchdog to CPU {}: {e}", me.cpu)));
            return;
        }
        if let Err(e) = crate::supervise::os::make_current_thread_realtime(2) {
            let _ = ready.send(Err(format!("cannot make a watchdog real-time: {e}")));
            return;
        }
        // A watchdog that has not ticked yet must not look stalled.
        let mut next = Instant::now();
        me.last_tick.store(self.ns(next), Ordering::Release);
        let _ = ready.send(Ok(()));
        while !self.stop.load(Ordering::Acquire) {
            if !self.ticking(me) {
                let (lock, cvar) = &me.wake;
                let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
                while !self.ticking(me) && !self.stop.load(Ordering::Acquire) {
                    guard = cvar.wait(guard).unwrap_or_else(|e| e.into_inner());
                }
                drop(guard);
                // Whoever woke it marked the tick; a sleep is not a stall.
                next = Instant::now();
                me.last_tick.fetch_max(self.ns(next), Ordering::AcqRel);
            }
            let period = if self.paused.load(Ordering::Acquire) && me.demand.load(Ordering::Acquire) == 0 {
                CHECKPOINT_EVERY
            } else {
                TICK
            };
            me.period.store(period.as_nanos() as u64, Ordering::Release);
            next += period;
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
            let now = Instant::now();
            me.last_tick.store(self.ns(now), Ordering::Release);
            // Checkpoints first: nothing before them may block (see StallWatch::checkpoint).
            if me.subject_count.load(Ordering::Acquire) > 0 {
                self.checkpoint(me, self.ns(next), self.ns(now));
            }
            let late = now.saturating_duration_since(next);
            if late > THRESHOLD {
                self.log(i, self.ns(next), self.ns(now));
            }
            if late > period {
                next = now;
            }
        }
    }

    /// A checkpoint of the bots on `c`: the watchdog, due at `due` (ns since the base), ran
    /// at `now`. From `due` until it ran no bot could run on its CPU (it preempts them at
    /// once), yet a virtual machine's CPU can be taken from the guest without the guest
    /// counting it as steal: the kernel then counts that time as run by the task that had the
    /// CPU (pauses of milliseconds in which a spinning thread's CPU clock runs on with the
    /// wall clock; BENCHMARKS.md). So a bot's run since its last checkpoint beyond the time from then
    /// to `due` was not its own. A pause that ends before `due` is not seen: at most a
    /// period of one is missed. That holds only while the watchdog does not block between
    /// its wake-up and its reading of the bot's clock: were it to wait for a lock that the
    /// game's thread holds (registering or dropping a claim) while that thread, of normal
    /// priority, lets the bot run, the bot's run meanwhile would count as not its own (a
    /// priority inversion). So a list held elsewhere is left for the next tick, which covers
    /// the time since the last checkpoint.
    fn checkpoint(&self, c: &CpuWatch, due: u64, now: u64) {
        let list = match c.subjects.try_lock() {
            Ok(list) => list,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        for s in list.iter() {
            // Only the watchdog takes this lock.
            let mut last = s.last.lock().unwrap_or_else(|e| e.into_inner());
            // Due before the bot's account opened: nothing to tell.
            if due <= last.0 {
                continue;
            }
            let Some(cpu) = crate::supervise::os::process_cpu_time(s.pid) else { continue };
            let ran = cpu.saturating_sub(last.1);
            let could = Duration::from_nanos(due - last.0);
            let beyond = run_not_its_own(ran, could);
            if !ran.is_zero() && ran + PHANTOM_MIN >= could {
                s.preempted.fetch_add(1, Ordering::AcqRel);
            }
            if !beyond.is_zero() {
                s.phantom.fetch_add(beyond.as_nanos() as u64, Ordering::AcqRel);
                tracing::trace!(?beyond, late = ?Duration::from_nanos(now.saturating_sub(due)), ?ran, "checkpoint: run not the bot's");
            }
            *last = (now, cpu);
            s.taken.fetch_add(1, Ordering::AcqRel);
        }
    }

    fn log(&self, i: usize, from: u64, to: u64) {
        let mut log = self.cpus[i].stalls.lock().unwrap_or_else(|e| e.into_inner());
        let keep = to.saturating_sub(MEMORY.as_nanos() as u64);
        while log.front().is_some_and(|&(_, end)| end < keep) {
            log.pop_front();
        }
        log.push_back((from, to));
        drop(log);
        self.latest_end.fetch_max(to, Ordering::AcqRel);
    }

    /// A game's event loop, woken at `due` to wake the watchdogs, ran only at `now`: when
    /// that is later than a watchdog would tolerate, the CPU it runs on is logged as stalled
    /// meanwhile (the watchdogs were asleep and could not see it).
    pub fn woken_late(&self, due: Instant, now: Instant) {
        if now.saturating_duration_since(due) <= THRESHOLD {
            return;
        }
        let cpu = crate::supervise::os::current_cpu();
        if let Some(i) = self.cpus.iter().position(|c| Some(c.cpu) == cpu) {
            self.log(i, self.ns(due), self.ns(now));
        }
    }

    /// Whether the watchdog of `c` ticks now.
    fn ticking(&self, c: &CpuWatch) -> bool {
        !self.paused.load(Ordering::Acquire)
            || c.demand.load(Ordering::Acquire) > 0
            || c.subject_count.load(Ordering::Acquire) > 0
    }

    /// Whether CPU `cpu` is watched now.
    pub fn watching(&self, cpu: Option<usize>) -> bool {
        self.cpus.iter().find(|c| Some(c.cpu) == cpu).is_some_and(|c| self.ticking(c))
    }

    /// From now on each watchdog ticks only while some [`Demand`] wants its CPU (each goes to
    /// sleep at its next tick).
    pub fn pause(&self) {
        self.paused.store(true, Ordering::Release);
    }

    /// Has the watchdogs of `cpus` (those watched) tick until the returned claim is dropped;
    /// a watchdog that was asleep counts as having ticked now, so the time asleep is not
    /// taken for a stall.
    pub fn want(self: &Arc<Self>, cpus: &[usize]) -> Demand {
        let now = self.ns(Instant::now());
        let mut claimed = Vec::with_capacity(cpus.len());
        for (i, c) in self.cpus.iter().enumerate().filter(|(_, c)| cpus.contains(&c.cpu)) {
            claimed.push(i);
            // Already ticking for another claim: join it.
            if c.demand.fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| (d > 0).then_some(d + 1)).is_ok() {
                continue;
            }
            self.claim(c, now, || {
                c.demand.fetch_add(1, Ordering::AcqRel);
            });
        }
        Demand { watch: self.clone(), cpus: claimed }
    }

    /// Makes a claim on the watchdog of `c` (`add` makes [`StallWatch::ticking`] true), and
    /// wakes it if it was not ticking; a watchdog that was asleep counts as having ticked at
    /// `now`, so the time asleep is not taken for a stall. Under the lock the watchdog checks
    /// before it waits, so it cannot miss the wake-up between its check and its wait.
    fn claim(&self, c: &CpuWatch, now: u64, add: impl FnOnce()) {
        let (lock, cvar) = &c.wake;
        let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        let was_ticking = self.ticking(c);
        if !was_ticking {
            c.last_tick.fetch_max(now, Ordering::AcqRel);
        }
        add();
        drop(guard);
        if !was_ticking {
            cvar.notify_one();
        }
    }

    /// Has the watchdog of `cpu` take checkpoints of bot `pid` (see [`StallWatch::checkpoint`])
    /// from `opened` (when its CPU time was `cpu_then`) until the returned claim is dropped,
    /// ticking every [`CHECKPOINT_EVERY`] (or every [`TICK`] while it is wanted
    /// anyway). `None` when `cpu` has no watchdog.
    pub fn checkpoints(
        self: &Arc<Self>,
        cpu: usize,
        pid: u32,
        opened: Instant,
        cpu_then: Duration,
    ) -> Option<Checkpoints> {
        let i = self.cpus.iter().position(|c| c.cpu == cpu)?;
        let c = &self.cpus[i];
        let subject = Arc::new(Subject {
            pid,
            last: Mutex::new((self.ns(opened), cpu_then)),
            phantom: AtomicU64::new(0),
            taken: AtomicU32::new(0),
            preempted: AtomicU32::new(0),
        });
        self.claim(c, self.ns(Instant::now()), || {
            let mut list = c.subjects.lock().unwrap_or_else(|e| e.into_inner());
            list.push(subject.clone());
            c.subject_count.store(list.len() as u32, Ordering::Release);
        });
        Some(Checkpoints { watch: self.clone(), index: i, subject })
    }

    /// Whether any CPU stalled after `since` (one atomic load).
    pub fn stalled_since(&self, since: Instant) -> bool {
        self.latest_end.load(Ordering::Acquire) > self.ns(since)
    }

    /// Stall time owed to a bot for `[from, to]`: the stalls of the CPU it ran on
    /// (`bot_cpu`) within the window, including one still going on at `to` (its watchdog
    /// has not run for over a tick), and the stall of the host's CPU (`host_cpu`) that ended
    /// just before `to`, when the host noticed the answer or the deadline late because of
    /// it. Overlaps count once; CPUs without a watchdog are ignored.
    pub fn stalled(&self, bot_cpu: Option<usize>, host_cpu: Option<usize>, from: Instant, to: Instant) -> Duration {
        let (from, to) = (self.ns(from), self.ns(to));
        let mut spans = Vec::new();
        if let Some(c) = self.cpus.iter().find(|c| Some(c.cpu) == bot_cpu) {
            spans.extend(c.stalls.lock().unwrap_or_else(|e| e.into_inner()).iter().copied());
            let due = c.last_tick.load(Ordering::Acquire) + c.period.load(Ordering::Acquire);
            // A sleeping watchdog has not ticked for a while without any stall.
            if self.ticking(c) && to > due + THRESHOLD.as_nanos() as u64 {
                spans.push((due, to));
            }
        }
        if let Some(c) = self.cpus.iter().find(|c| Some(c.cpu) == host_cpu) {
            let recent = to.saturating_sub(TICK.as_nanos() as u64);
            let log = c.stalls.lock().unwrap_or_else(|e| e.into_inner());
            spans.extend(log.iter().rev().take_while(|&&(_, end)| end >= recent).copied());
        }
        Duration::from_nanos(covered(&mut spans, from, to))
    }

    /// What the watchdog of `cpu` knows, relative to `from` (for the debug log of a move
    /// judged late): whether it ticks, its claims, its last tick and period, and its last
    /// stalls.
    pub fn describe(&self, cpu: Option<usize>, from: Instant) -> String {
        let Some(c) = self.cpus.iter().find(|c| Some(c.cpu) == cpu) else { return "not watched".into() };
        let from = self.ns(from) as i64;
        let ms = |t: u64| (t as i64 - from) as f64 / 1e6;
        let stalls: Vec<String> = c
            .stalls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .rev()
            .take(3)
            .map(|&(a, b)| format!("{:.1}..{:.1}", ms(a), ms(b)))
            .collect();
        format!(
            "cpu {} ticking {} demand {} subjects {} last tick {:.1} ms period {} µs, last stalls (ms from the start) {stalls:?}",
            c.cpu,
            self.ticking(c),
            c.demand.load(Ordering::Acquire),
            c.subject_count.load(Ordering::Acquire),
            ms(c.last_tick.load(Ordering::Acquire)),
            c.period.load(Ordering::Acquire) / 1000
        )
    }

    /// The CPUs watched.
    pub fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
        self.cpus.iter().map(|c| c.cpu)
    }
}

/// Length of the part of `[from, to]` covered by the union of `spans` (sorted in place).
pub fn covered(spans: &mut [Interval], from: u64, to: u64) -> u64 {
    spans.sort_unstable();
    let mut total = 0;
    let mut reached = from;
    for &(a, b) in spans.iter() {
        let (a, b) = (a.max(reached), b.min(to));
        if b > a {
            total += b - a;
            reached = b;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{PHANTOM_MIN, covered, run_not_its_own};

    #[test]
    fn a_checkpoint_credits_only_run_beyond_what_the_bot_could_have_run() {
        let ms = Duration::from_millis;
        let us = Duration::from_micros;
        // A bot that ran all the 3 ms it could, and a little into the game thread's wake-up.
        assert_eq!(run_not_its_own(ms(3) + us(60), ms(3)), Duration::ZERO);
        // One that slept or waited part of the time.
        assert_eq!(run_not_its_own(ms(1), ms(3)), Duration::ZERO);
        // A 6 ms pause counted as its run while the game's thread was due: 6 ms not its own.
        assert_eq!(run_not_its_own(ms(9), ms(3)), ms(6));
        assert_eq!(run_not_its_own(ms(3) + PHANTOM_MIN, ms(3)), PHANTOM_MIN);
    }

    #[test]
    fn overlapping_stalls_count_once_and_only_inside_the_window() {
        // Window 100..200.
        assert_eq!(covered(&mut [], 100, 200), 0);
        assert_eq!(covered(&mut [(0, 50), (250, 300)], 100, 200), 0);
        assert_eq!(covered(&mut [(90, 110)], 100, 200), 10);
        assert_eq!(covered(&mut [(190, 260)], 100, 200), 10);
        assert_eq!(covered(&mut [(120, 130), (125, 140), (150, 160)], 100, 200), 30);
        // The same stall seen by two CPUs, listed out of order.
        assert_eq!(covered(&mut [(150, 170), (120, 130), (150, 170)], 100, 200), 30);
        assert_eq!(covered(&mut [(0, 1000)], 100, 200), 100);
        assert_eq!(covered(&mut [(110, 190), (120, 130)], 100, 200), 80);
    }
}
