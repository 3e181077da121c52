//! The stopwatch of one request: when a bot's time starts (at its read of the request, within
//! the read grace), when the host stops waiting, and how much of the wall time was the
//! machine's rather than the bot's (CPU accounting of the bot's own threads, checkpoints by
//! the stall watch). The game clock it feeds is [`crate::game::clock`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::supervise::account_looks::{MainThread, Own, PROBE, SleepCheck};
use crate::supervise::stall_watch::{Demand, StallWatch};
use crate::supervise::tempo::{ESCALATE_AFTER, Tempo};

/// When a bot's clock runs for one request. Watching reads (a stdin pipe sized to the
/// request and a read grace above zero), it starts when the host sees that the bot has
/// begun reading the request from its stdin (the pipe holds fewer bytes than were written),
/// but no later than the read grace after the host began writing it, and never before the
/// whole request is in the pipe; when the answer comes before the read is seen, at the end
/// of the write. Otherwise it starts at the end of the write.
#[derive(Clone, Debug)]
pub struct Stopwatch {
    /// When the host began writing the request.
    begun: Instant,
    written: Instant,
    latest_start: Instant,
    read: Option<Instant>,
    watch: bool,
    limit: Duration,
    /// Stall time credited so far (see [`crate::supervise::stall_watch`]).
    credit: Duration,
    pid: Option<u32>,
    stalls: Option<Arc<StallWatch>>,
    /// The adaptive tempo this request reports to (see [`crate::supervise::tempo`]).
    tempo: Option<Arc<Tempo>>,
    /// Reads are to be watched once the request goes long (the host was calm when it
    /// started).
    deferred_watch: bool,
    /// The host was calm when the request started (an adaptive tempo).
    calm_start: bool,
    /// The bot's own account is to open when its read is seen.
    open_at_read: bool,
    /// The account of a multi-threaded bot's main thread is to open when its read is seen
    /// (the request went long before the bot had read it, see [`Stopwatch::went_long`]).
    main_at_read: bool,
    /// Held from the moment the request ran long until its stopwatch is gone.
    long: Option<Arc<LongRequest>>,
    /// A single-threaded bot's scheduler account at the last look (see
    /// [`Stopwatch::credit_stalls`]), from the moment the request ran long.
    own: Option<Own>,
    /// An own account was wanted, but the bot had more than one thread or a real-time
    /// policy (or was gone).
    not_single: bool,
    /// The bot's output, which a look checks for an answer that the host has not read yet
    /// (see [`Stopwatch::with_output`]).
    output: Option<std::os::fd::RawFd>,
    /// The bot shares the CPU of the game's thread (see [`StallWatch::checkpoints`]).
    shares_cpu: bool,
    /// The bot's account before the write, when its own account is to open at its read
    /// (see [`Stopwatch::open_own_account_late`]).
    at_write: Option<crate::supervise::os::OwnAccount>,
}

/// The least the stall credit of a request may reach, whatever its limit: a virtual
/// machine's stalls can last 100 ms (BENCHMARKS.md), longer than a 20 ms move's limit.
pub const CREDIT_CAP_FLOOR: Duration = Duration::from_millis(250);

/// The most a request due within `limit` (with the margin) is credited for machine stalls:
/// the limit, or [`CREDIT_CAP_FLOOR`] if that is more.
pub fn credit_cap(limit: Duration) -> Duration {
    limit.max(CREDIT_CAP_FLOOR)
}

/// A request that has run past [`crate::supervise::tempo::ESCALATE_AFTER`]; tells the tempo when it
/// is over, and keeps the watchdogs of its CPUs ticking until then.
#[derive(Debug)]
struct LongRequest {
    tempo: Arc<Tempo>,
    /// Held for its drop: the watchdogs stop when the request is over.
    _watch: Option<Demand>,
}

impl Drop for LongRequest {
    fn drop(&mut self) {
        self.tempo.long_request_ended(Instant::now());
    }
}

impl Stopwatch {
    /// The stopwatch for a request the host starts writing at `begun`, to be answered within
    /// `limit` of the moment the bot has read it (when `watch_reads`), which counts as
    /// `read_grace` after `begun` at the latest. `pid` is the bot's process, whose CPU the
    /// stall credit looks up in `stalls`.
    pub fn new(
        begun: Instant,
        limit: Duration,
        read_grace: Duration,
        watch_reads: bool,
        pid: Option<u32>,
        stalls: Option<Arc<StallWatch>>,
    ) -> Stopwatch {
        Stopwatch {
            begun,
            written: begun,
            latest_start: begun + read_grace,
            read: None,
            watch: watch_reads,
            limit,
            credit: Duration::ZERO,
            pid,
            stalls,
            tempo: None,
            deferred_watch: false,
            calm_start: false,
            open_at_read: false,
            main_at_read: false,
            long: None,
            own: None,
            not_single: false,
            output: None,
            shares_cpu: false,
            at_write: None,
        }
    }

    /// Tells the stopwatch that the bot runs on the CPU of the game's thread, and nowhere
    /// else (see [`StallWatch::checkpoints`]).
    pub fn set_shares_cpu(&mut self, shares: bool) {
        self.shares_cpu = shares;
        if shares {
            self.start_checkpoints();
        } else if let Some(own) = self.own.as_mut() {
            own.checkpoints = None;
        }
    }

    /// Gives the stopwatch the bot's output (`fd`, read by the host): a look at the account
    /// of a multi-threaded bot's main thread that finds it asleep checks there whether it
    /// has answered already (back at its read) rather than slept.
    pub fn with_output(mut self, fd: std::os::fd::RawFd) -> Stopwatch {
        self.output = Some(fd);
        self
    }

    /// Sets whether the bot's read of the request is to be watched (see [`Stopwatch::new`]),
    /// after [`Stopwatch::with_tempo`]: a calm host watches it only once the request runs
    /// long.
    pub fn watch_reads(&mut self, watch: bool) {
        if self.calm_start {
            self.deferred_watch = watch;
            self.watch = false;
        } else {
            self.watch = watch;
        }
    }

    /// Makes the stopwatch follow an adaptive `tempo` (call
    /// [`Tempo::request_starts`] first): while the host is calm, the clock starts at the end
    /// of the write, and reads are watched only once the request goes long (when the bot
    /// has not read it by then). A fixed tempo changes nothing.
    pub fn with_tempo(mut self, tempo: &Arc<Tempo>) -> Stopwatch {
        if tempo.is_adaptive() {
            if !tempo.escalated() {
                self.calm_start = true;
                self.watch_reads(self.watch);
            }
            self.tempo = Some(tempo.clone());
        }
        self
    }

    /// When the request counts as long (an adaptive tempo, until it has).
    pub fn goes_long_at(&self) -> Option<Instant> {
        // A limit shorter than the escalation time: escalate well before the deadline.
        let after = ESCALATE_AFTER.min(self.limit / 2);
        self.tempo.as_ref().filter(|_| self.long.is_none()).map(|_| self.written + after)
    }

    /// The request has waited [`ESCALATE_AFTER`] for its answer (or for the end of its
    /// write): the host escalates, and when the bot has not read the request yet (`unread`),
    /// its read is watched, and the account of a multi-threaded bot's main thread opens once
    /// it is seen. Call on the thread of the request's game.
    pub fn went_long(&mut self, unread: bool) {
        let Some(tempo) = self.tempo.clone() else { return };
        let Some(due) = self.goes_long_at() else { return };
        let woken = Instant::now();
        tempo.request_went_long();
        // A single-threaded bot: its own scheduler account tells what the machine took from
        // it from now on, exactly and without a watchdog. This wake-up's lateness (beyond
        // tokio's whole-millisecond timer) is time the machine took from this thread's CPU
        // before the account was opened: the bot's too when it last ran there.
        // A bot with more threads that has read the request and whose main thread is
        // computing: that thread's account, the same way (see
        // [`Stopwatch::open_main_thread_account_now`]).
        if self.own.is_none() {
            self.open_own_account();
            if self.own.is_none() && !unread {
                self.open_main_thread_account(false);
            }
            // Not read yet (a long request in the middle of its write, or a bot slow to
            // read): its main thread's account may open once it has read it.
            self.main_at_read = self.own.is_none() && unread;
            // (The lateness of this wake-up is not credited: it came before the account
            // opened, and nothing tells what the bot did meanwhile.)
        }
        // Otherwise watch the CPUs where the bot and this game's thread may run, from now
        // until the answer. When this thread's CPU was not watched, this wake-up tells of a
        // stall its watchdog could not see.
        let demand = self.stalls.as_ref().filter(|_| self.own.is_none()).map(|w| {
            let here = crate::supervise::os::current_cpu();
            let watching = w.watching(here);
            if !watching {
                w.woken_late(due + Duration::from_millis(1), woken);
            }
            tracing::trace!(late = ?woken.saturating_duration_since(due), watching, state = w.describe(here, self.start()), "went long, CPU watch");
            let mut cpus = crate::supervise::os::allowed_cpus().unwrap_or_default();
            if let Some(bot) = self.pid.and_then(|p| crate::supervise::os::process_cpus(p).ok()) {
                cpus.extend(bot);
            } else {
                cpus.clear(); // the bot's CPUs unknown: watch them all
                cpus.extend(w.cpus());
            }
            w.want(&cpus)
        });
        self.long = Some(Arc::new(LongRequest { tempo, _watch: demand }));
        if self.deferred_watch && unread {
            self.watch = true;
        }
        self.deferred_watch = false;
    }

    /// Opens the bot's own scheduler account at the start of the clock: now (before the
    /// write) when the clock starts at the end of the write, else when the bot's read is
    /// seen. For a bot whose previous request ran long, so that the whole request is
    /// accounted; otherwise the account opens when the request runs long.
    pub fn open_own_account_at_start(&mut self) {
        if self.watch {
            self.open_at_read = true;
            // Its waits from now are told apart if it reads only after the latest start
            // (see [`Stopwatch::open_own_account_late`]).
            if self.stalls.is_some() && self.tempo.is_some() {
                self.at_write = self.pid.and_then(crate::supervise::os::own_account_rechecked_later);
            }
        } else {
            self.open_own_account();
            self.long_from_start();
        }
    }

    /// Opens the bot's own scheduler account now, at the start of the clock, for a
    /// stopwatch that does not watch the bot's read; whether it opened (the stall credit is
    /// on, the tempo adaptive, and the bot single-threaded with a normal policy).
    pub fn open_own_account_now(&mut self) -> bool {
        if self.watch || self.deferred_watch || self.own.is_some() {
            return false;
        }
        self.open_own_account_counting(true);
        self.long_from_start();
        self.own.is_some()
    }

    /// Opens the account of a multi-threaded bot's main thread now, before the request is
    /// written, for a stopwatch that does not watch the bot's read; whether it opened (the
    /// stall credit is on, the tempo adaptive, the main thread has a normal policy and is
    /// blocked reading the bot's input, and the bot has no child process). The clock then
    /// starts at the end of the write, the request's write wakes that thread, and
    /// [`main_thread_credit`] credits the time the machine kept the bot from a CPU from
    /// then on: no read watch, no wake-up 2 ms in, no watchdog.
    pub fn open_main_thread_account_now(&mut self) -> bool {
        if self.watch || self.deferred_watch || self.own.is_some() {
            return false;
        }
        self.open_main_thread_account(true);
        self.long_from_start();
        self.own.is_some()
    }

    /// Opens the account of a multi-threaded bot's main thread (see
    /// [`main_thread_credit`]): `before_write`, when that thread is blocked reading the
    /// bot's input (the request's write wakes it); otherwise (the request has run long and
    /// the bot has read it), when that thread is runnable, computing. Not for a bot with
    /// child processes, whose CPU time the account does not see.
    fn open_main_thread_account(&mut self, before_write: bool) {
        if self.stalls.is_none() || self.tempo.is_none() {
            return;
        }
        let Some(pid) = self.pid else { return };
        if before_write && !crate::supervise::os::main_thread_reads_input(pid) {
            return;
        }
        let Some(account) = crate::supervise::os::main_thread_account(pid) else { return };
        let computing = || account.runnable && crate::supervise::os::has_children(pid) == Some(false);
        if !before_write && !computing() {
            return;
        }
        let voluntary = crate::supervise::os::voluntary_switches(pid);
        // Woken once by the write; or running (or about to) already.
        let sleep = SleepCheck::Slices { allowed: u64::from(before_write), voluntary };
        self.own = Some(Own::open(account, sleep, Some(MainThread { host_late: Duration::ZERO, slept: false })));
        self.start_checkpoints();
    }

    /// Once the bot's own account is open from the start, the request counts as long at
    /// once (the tempo stays escalated): no wake-up 2 ms in to find it out. Without the
    /// account (a multi-threaded bot), that wake-up stays: it wakes the CPU watch.
    fn long_from_start(&mut self) {
        if self.own.is_none() {
            return;
        }
        if let Some(tempo) = self.tempo.clone().filter(|t| t.escalated() && self.long.is_none()) {
            tempo.request_went_long();
            self.long = Some(Arc::new(LongRequest { tempo, _watch: None }));
        }
    }

    /// Opens the bot's own scheduler account now (see [`Stopwatch::credit_stalls`]), when the
    /// stall credit is on and the bot has one thread.
    fn open_own_account(&mut self) {
        self.open_own_account_counting(false);
    }

    /// [`Stopwatch::open_own_account`]; `by_slices`: see [`SleepCheck::Slices`].
    fn open_own_account_counting(&mut self, by_slices: bool) {
        if self.stalls.is_none() || self.tempo.is_none() {
            return;
        }
        if let Some(account) = self.pid.and_then(crate::supervise::os::own_account_rechecked_later) {
            let voluntary = self.pid.and_then(crate::supervise::os::voluntary_switches);
            let sleep =
                if by_slices { SleepCheck::Slices { allowed: 1, voluntary } } else { SleepCheck::Voluntary(voluntary) };
            self.own = Some(Own::open(account, sleep, None));
            self.start_checkpoints();
        } else {
            self.not_single = self.pid.is_some();
        }
    }

    /// Has the watchdog of the game thread's CPU take checkpoints of the bot while its own
    /// account (or its main thread's) is open, when the bot shares that CPU (every thread of
    /// it runs there and nowhere else, so its process's CPU clock can run no faster than
    /// the wall clock), and the machine is a virtual one (only a hypervisor pauses a CPU
    /// behind the kernel's back; see [`StallWatch::checkpoints`]).
    fn start_checkpoints(&mut self) {
        if !self.shares_cpu || !crate::supervise::os::under_hypervisor() {
            return;
        }
        let (Some(own), Some(pid), Some(watch)) = (self.own.as_mut(), self.pid, self.stalls.as_ref()) else { return };
        if own.checkpoints.is_some() {
            return;
        }
        let Some(cpu) = crate::supervise::os::current_cpu() else { return };
        own.checkpoints = watch.checkpoints(cpu, pid, own.opened.0, own.opened.1.cpu).map(Arc::new);
    }

    /// How long after the host began writing the request the bot was seen to have read it
    /// all, when its read was watched and seen (not when it had read it before the request
    /// ran long on a calm host, or answered before). (From the start of the write: a request
    /// longer than the pipe is written in full only as the bot reads it.)
    pub fn read_delay(&self) -> Option<Duration> {
        self.read.filter(|_| self.watch).map(|r| r.saturating_duration_since(self.begun))
    }

    /// Whether the bot was found with more than one thread or a real-time policy when its
    /// own scheduler account was opened or looked at (or it was gone).
    pub fn found_not_single_threaded(&self) -> bool {
        self.not_single
    }

    /// Gives the calling thread (the game's, about to sleep until the deadline) the tempo's
    /// scheduling policy, if it has not got it yet: real-time once another game's request
    /// has escalated the host in the middle of this one, so that the deadline wakes it on
    /// time on a busy CPU.
    pub fn follow_tempo(&self) {
        if let Some(tempo) = &self.tempo {
            tempo.follow();
        }
    }

    /// Whether the host should still wait for the bot to read the request.
    pub fn waits_for_read(&self) -> bool {
        self.watch && self.read.is_none()
    }

    /// Notes that the bot was seen to have read the request at `at` (counted no later than
    /// the latest start).
    pub fn seen_read(&mut self, at: Instant) {
        self.read = Some(at.min(self.latest_start));
        if std::mem::take(&mut self.main_at_read) && self.own.is_none() {
            self.open_main_thread_account(false);
        }
        if std::mem::take(&mut self.open_at_read) && self.own.is_none() {
            if at > self.latest_start {
                self.open_own_account_late(at);
            } else {
                self.open_own_account();
                self.long_from_start();
            }
        }
    }

    /// Opens at `at` the account that was to open at the bot's read, when the bot has read
    /// the request only after the latest start (or not yet, at a look past the deadline):
    /// its clock has run since the latest start, and what kept it from reading till then
    /// may have been a wait for its CPU (a stall as the request was written), which has
    /// ended by now and so is in the account as it opens. Its waits since the write, as
    /// far as they fit between the latest start and `at`, are credited (as time before the
    /// opening).
    fn open_own_account_late(&mut self, at: Instant) {
        let late = at.saturating_duration_since(self.latest_start);
        self.open_own_account();
        if let (Some(own), Some(before)) = (self.own.as_mut(), self.at_write.take()) {
            let waited = own.account.waited.saturating_sub(before.waited).min(late);
            own.credit += waited;
            own.prior += waited;
            own.cpu_before_start = Some(before.cpu);
        }
        self.long_from_start();
    }

    /// Notes the end of the write: the moment its last bytes went into the pipe (see
    /// [`crate::supervise::process::Process::write_request`]).
    pub fn written(&mut self, at: Instant) {
        self.written = at;
        // The clock never starts before the whole request is in the bot's pipe.
        self.latest_start = self.latest_start.max(at);
    }

    /// When the answer is due: the limit after the start, or after the latest start while
    /// the read is not seen yet, plus the stall time credited.
    pub fn deadline(&self) -> Instant {
        let due = match (self.watch, self.read) {
            (false, _) => self.written + self.limit,
            (true, Some(read)) => read + self.limit,
            (true, None) => self.latest_start + self.limit,
        } + self.credit;
        match self.own.as_ref().and_then(|o| o.probe_until) {
            Some(probe) => due.max(probe),
            None => due,
        }
    }

    /// Stall time credited to the bot for this request.
    pub fn credit(&self) -> Duration {
        self.credit
    }

    /// Credits the bot with the time, between the start of its clock and `until`, during
    /// which the CPU it last ran on was stalled, and with a stall of the host's CPU that
    /// made the host notice `until` late (see [`crate::supervise::stall_watch`]), at most
    /// [`credit_cap`] of the limit.
    /// Costs one atomic load unless a stall happened or `judging` (the bot is about to lose
    /// on time), when it reads the bot's `/proc/PID/stat`. A bot running under a real-time
    /// policy gets no credit.
    ///
    /// From the moment a request runs long, a bot with one thread is credited from its own
    /// scheduler account instead ([`crate::supervise::os::own_account`]): the time it waited for a CPU
    /// (whatever took the CPU: another process, the host, a real-time thread, the
    /// hypervisor), and, over a stretch in which it never went to sleep, the time it neither
    /// ran nor waited (the hypervisor took the CPU while it had it: steal time); and the time the
    /// game's thread waited for a CPU meanwhile (so it saw the answer late). Time the bot
    /// slept is never credited. A look also takes back time an earlier look counted as
    /// neither run nor waited and that the account now shows as run or waited (the bot's
    /// run time lags up to a tick when it runs on another CPU; a wait shows once it is
    /// over): over the move the credit is what the bot did not run, not more; so the credit
    /// may go down from one look to the next. `answered`: the answer has come (the bot may
    /// be asleep again since). At the deadline, a runnable bot gets one more look [`PROBE`]
    /// later, and more while looks earn credit, since a wait still going on shows only once
    /// it is over.
    pub fn credit_stalls(&mut self, until: Instant, judging: bool, answered: bool) -> Duration {
        if judging && !answered && self.own.is_none() && std::mem::take(&mut self.open_at_read) {
            self.open_own_account_late(until);
        }
        if self.own.is_some() {
            return self.credit_own(until, answered);
        }
        if judging {
            tracing::debug!(
                window = ?until.saturating_duration_since(self.start()), watch = self.watch, read = self.read.is_some(),
                not_single = self.not_single, long = self.long.is_some(), answered, "no own account, past the limit"
            );
        }
        let Some(w) = &self.stalls else { return self.credit };
        let start = self.start();
        if !judging && !w.stalled_since(start) {
            return self.credit;
        }
        let bot_cpu = match self.pid.and_then(crate::supervise::os::last_cpu) {
            Some((_, false)) => return self.credit,
            Some((cpu, true)) => Some(cpu),
            None => None,
        };
        let host_cpu = crate::supervise::os::current_cpu();
        let credit = w.stalled(bot_cpu, host_cpu, start, until).min(credit_cap(self.limit));
        if judging {
            tracing::debug!(
                ?credit, bot = w.describe(bot_cpu, start), host = w.describe(host_cpu, start),
                written = ?self.written.saturating_duration_since(start), "watchdogs, past the limit"
            );
        }
        self.credit = self.credit.max(credit);
        self.credit
    }

    /// The credit of a bot with an own account (see [`Stopwatch::credit_stalls`]), at a look
    /// at that account: what the look found since the last one, whether the bot slept
    /// meanwhile, the credit that makes, capped by the time the bot did not run.
    fn credit_own(&mut self, until: Instant, answered: bool) -> Duration {
        let start = self.start();
        let window = until.saturating_duration_since(start);
        let output = self.output;
        let (Some(own), Some(pid)) = (self.own.as_mut(), self.pid) else { return self.credit };
        own.probe_until = None;
        let Some(now) = own.account_now(pid, window) else {
            if own.main.is_none() {
                self.not_single = true;
            }
            return self.credit;
        };
        // A bot that had a child process compute (or has one now) may have waited for a CPU
        // its child had, or slept while the child thought for it: the account tells
        // neither, so it credits nothing for this request.
        if own.children
            || now.children_ticks != own.opened.1.children_ticks
            || crate::supervise::os::has_child_processes(pid) == Some(true)
        {
            if !own.children {
                tracing::debug!(?window, "own account: the bot has child processes, nothing credited");
            }
            own.children = true;
            own.credit = Duration::ZERO;
            own.at = Instant::now();
            own.account = now;
            self.credit = Duration::ZERO;
            return self.credit;
        }
        // A main thread found asleep may have answered a moment ago, the answer not read yet:
        // back at its read, it did not sleep.
        let answered =
            answered || (own.main.is_some() && !now.runnable && output.is_some_and(crate::supervise::os::has_input));
        let mut look = own.measure(&now);
        let quiet = own.did_not_sleep(pid, &now, &look, answered);
        if quiet && !look.gap.is_zero() {
            // Time neither run nor waited, while the bot did not seem to sleep: credited only
            // as far as its CPU's steal since the opening covers it (a bot that sleeps, or
            // waits for a child process, once or in a way the switch counts miss, is
            // credited nothing for it).
            let budget = own.steal_since_open(pid).saturating_sub(own.unslept_total);
            look.unslept = look.gap.min(budget);
            own.unslept_total += look.unslept;
        }
        own.uncredited += look.gap.saturating_sub(look.unslept);
        look.before = own.credit;
        own.credit = own.account_credit(pid, &now, &look, quiet);
        (look.phantom, look.phantom_net) = own.phantom();
        own.credit = own.capped(until, start, &now, look.phantom);
        // What this look added (nothing when it took back more than it found).
        look.earned = own.credit.saturating_sub(look.before);
        own.log_look(&now, &look, answered, (window > self.limit).then_some(window));
        own.at = look.at;
        own.account = now;
        // Not only ever more: a later look may take back what an earlier one counted.
        self.credit = (own.credit + look.phantom_net).min(window).min(credit_cap(self.limit));
        if !answered && now.runnable {
            // Runnable and not running (time neither run nor waited grows): a wait for a CPU
            // still going on, which the account shows once it is over. Looked at again
            // while that lasts, as long as a credit could still move the deadline.
            let waiting = quiet && look.gap.saturating_sub(look.unslept) >= PROBE / 2;
            let could_move = window < self.limit + credit_cap(self.limit);
            own.schedule_probe(look.at, look.earned, waiting && could_move);
        }
        self.credit
    }

    /// The start of the clock for an answer that arrives now.
    pub fn start(&self) -> Instant {
        match (self.watch, self.read) {
            (true, Some(read)) => read,
            (true, None) => self.written.min(self.latest_start),
            (false, _) => self.written,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stopwatch_starts_at_the_read_within_the_grace() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        // Watching reads: due `limit` after the read, and no later than grace + limit.
        let mut w = Stopwatch::new(t0, ms(100), ms(10), true, None, None);
        assert!(w.waits_for_read());
        assert_eq!(w.deadline(), t0 + ms(110), "read not seen: the latest start counts");
        w.written(t0 + ms(1));
        w.seen_read(t0 + ms(4));
        assert!(!w.waits_for_read());
        assert_eq!(w.start(), t0 + ms(4));
        assert_eq!(w.deadline(), t0 + ms(104));
        // A read seen after the grace counts at the end of the grace.
        let mut late = Stopwatch::new(t0, ms(100), ms(10), true, None, None);
        late.seen_read(t0 + ms(30));
        assert_eq!(late.start(), t0 + ms(10));
        // An answer before the read was seen: the clock started at the end of the write.
        let mut quick = Stopwatch::new(t0, ms(100), ms(10), true, None, None);
        quick.written(t0 + ms(2));
        assert_eq!(quick.start(), t0 + ms(2));
        // Not watching (grace 0, or a pipe that cannot be resized): from the end of the write.
        let mut plain = Stopwatch::new(t0, ms(100), Duration::ZERO, false, None, None);
        plain.written(t0 + ms(3));
        assert_eq!(plain.start(), t0 + ms(3));
        assert_eq!(plain.deadline(), t0 + ms(103));
        // Without a stall watch nothing is credited.
        assert_eq!(plain.credit_stalls(t0 + ms(200), true, false), Duration::ZERO);
    }
}
