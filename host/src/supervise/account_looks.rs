//! A bot's own scheduler account over one request: the looks the stopwatch takes at it (run,
//! waits for a CPU, time neither), whether the bot slept between them, and the stall credit
//! they earn (see [`crate::supervise::stopwatch::Stopwatch::credit_stalls`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::supervise::stall_watch::Checkpoints;

/// The last look at a bot's own scheduler account.
#[derive(Clone, Debug)]
pub(super) struct Own {
    pub(super) at: Instant,
    pub(super) account: crate::supervise::os::OwnAccount,
    /// When the account opened, and the account then: over the move the credit is never
    /// more than the time the bot did not run since (plus `prior`).
    pub(super) opened: (Instant, crate::supervise::os::OwnAccount),
    /// Credit for time before the opening (the late wake-up that opened it: see
    /// [`Stopwatch::went_long`](crate::supervise::stopwatch::Stopwatch::went_long)).
    pub(super) prior: Duration,
    /// How long the game's thread had waited for a CPU (it sees the answer late), and how
    /// many times it was given one.
    pub(super) host_waited: Duration,
    pub(super) host_slices: u64,
    /// How the look tells whether the bot slept since the last one.
    pub(super) sleep: SleepCheck,
    /// Credit earned from the account so far.
    pub(super) credit: Duration,
    /// Looks in a row past the deadline that earned nothing while the bot was runnable.
    pub(super) probes: u32,
    /// A further look is due then, before the deadline is called (see [`PROBE`]).
    pub(super) probe_until: Option<Instant>,
    /// For a bot with more than one thread, the account of its main thread, totalled from
    /// the opening (see [`Stopwatch::open_main_thread_account_now`](crate::supervise::stopwatch::Stopwatch::open_main_thread_account_now)); `None` for a
    /// single-threaded bot.
    pub(super) main: Option<MainThread>,
    /// The game thread's waits for a CPU when the account opened.
    pub(super) opened_host_waited: Duration,
    /// The bot's CPU time before its clock started, for an account opened after that (see
    /// [`Stopwatch::open_own_account_late`](crate::supervise::stopwatch::Stopwatch::open_own_account_late)).
    pub(super) cpu_before_start: Option<Duration>,
    /// The checkpoints of a bot that shares the CPU of the game's thread (all its threads),
    /// on a virtual machine (see [`StallWatch::checkpoints`](crate::supervise::stall_watch::StallWatch::checkpoints)): they find the run time the
    /// kernel counted for the bot while that CPU's watchdog was due.
    pub(super) checkpoints: Option<Arc<Checkpoints>>,
    /// Checkpoints that had preempted the bot by the last look.
    pub(super) checkpoints_seen: u32,
    /// Every CPU's steal time when the account opened (see
    /// [`crate::supervise::os::cpu_steal`]): time the bot neither ran nor waited is credited
    /// only up to the steal of its CPU since.
    pub(super) steal_at_open: Vec<Duration>,
    /// Time neither run nor waited credited so far (within that steal).
    pub(super) unslept_total: Duration,
    /// Time neither run nor waited that was not credited and that no later look has shown
    /// as run or waited yet: a wait for a CPU still going on at a look shows in the account
    /// only once it is over, and then in full; what an earlier look left uncredited is not
    /// taken back from the credit then (see [`settle`]).
    pub(super) uncredited: Duration,
    /// The bot had a child process since the account opened: its waits may have been
    /// for a CPU its own child had (which the account does not see), so it is credited
    /// nothing from the account.
    pub(super) children: bool,
}

/// What a multi-threaded bot's main-thread account keeps besides [`Own`], totalled from
/// its opening (see [`Stopwatch::open_main_thread_account_now`](crate::supervise::stopwatch::Stopwatch::open_main_thread_account_now) and
/// [`main_thread_credit`]).
#[derive(Clone, Debug)]
pub(super) struct MainThread {
    /// The game's thread's own waits since the opening (it saw the answer late), and the
    /// lateness of its wake-up that opened the account (see [`Stopwatch::went_long`](crate::supervise::stopwatch::Stopwatch::went_long)).
    pub(super) host_late: Duration,
    /// The main thread slept at some time since the opening (beyond going back to its read
    /// once answered).
    pub(super) slept: bool,
}

/// The credit of a multi-threaded bot from its main thread's account over a move: `wall`
/// time since the opening, the whole process `ran` meanwhile (all its threads), its main
/// thread `waited` for a CPU, and the `steal` of the CPU it ran on meanwhile (see
/// [`crate::supervise::os::cpu_steal`]). Only time the bot could not run: the main thread's
/// waits, with the steal when that thread never slept since (it wanted a CPU all along),
/// and never more than the time the process ran less than one CPU's worth (a wait caused by
/// the bot's own other threads, which ran meanwhile, is not credited). Time it slept is
/// never credited, however it slept (a thread that sleeps is neither waiting nor robbed).
pub(super) fn main_thread_credit(
    wall: Duration,
    ran: Duration,
    waited: Duration,
    steal: Duration,
    slept: bool,
) -> Duration {
    let short = wall.saturating_sub(ran);
    if slept { waited.min(short) } else { (waited + steal).min(short) }
}

impl Own {
    /// An account opened now on `account` (taken just before), with the host's own
    /// waits so far; `main` for a multi-threaded bot's main thread.
    pub(super) fn open(account: crate::supervise::os::OwnAccount, sleep: SleepCheck, main: Option<MainThread>) -> Own {
        let (host_waited, host_slices) = crate::supervise::os::thread_waited().unwrap_or_default();
        let at = Instant::now();
        Own {
            at,
            account,
            opened: (at, account),
            prior: Duration::ZERO,
            host_waited,
            host_slices,
            sleep,
            credit: Duration::ZERO,
            probes: 0,
            probe_until: None,
            main,
            opened_host_waited: host_waited,
            cpu_before_start: None,
            checkpoints: None,
            checkpoints_seen: 0,
            steal_at_open: crate::supervise::os::cpu_steal(),
            unslept_total: Duration::ZERO,
            uncredited: Duration::ZERO,
            children: false,
        }
    }

    /// The steal time of the CPU bot `pid` last ran on, since the account opened (zero when
    /// that cannot be told). The only time a bot that neither ran nor waited is credited:
    /// whatever else kept it off a CPU without it waiting for one was its own doing (it
    /// slept, waited for a child process, or for input it had left unread).
    pub(super) fn steal_since_open(&self, pid: u32) -> Duration {
        let Some((cpu, _)) = crate::supervise::os::last_cpu(pid) else { return Duration::ZERO };
        let (Some(now), Some(then)) =
            (crate::supervise::os::cpu_steal().get(cpu).copied(), self.steal_at_open.get(cpu))
        else {
            return Duration::ZERO;
        };
        now.saturating_sub(*then)
    }
}

/// What one look at a bot's own account found since the last look, and what it made of it
/// (see [`Stopwatch::credit_stalls`](crate::supervise::stopwatch::Stopwatch::credit_stalls)).
#[derive(Clone, Copy, Debug)]
pub(super) struct Look {
    /// When it was taken.
    pub(super) at: Instant,
    /// Wall time since the last look, and the bot's waits for a CPU and its run meanwhile.
    pub(super) wall: Duration,
    pub(super) waited: Duration,
    pub(super) ran: Duration,
    /// Time neither run nor waited: slept, taken while it had its CPU (steal), or a wait
    /// still going on.
    pub(super) gap: Duration,
    /// The game thread's waits for a CPU meanwhile (it sees the answer late).
    pub(super) host_late: Duration,
    /// Times the game's thread woke meanwhile, before this look, and checkpoints that took
    /// the bot's CPU while it ran: each may have switched the bot out for a moment.
    pub(super) host_woke: u64,
    pub(super) checkpoints: u64,
    /// The gap, credited when the bot did not sleep meanwhile.
    pub(super) unslept: Duration,
    /// The account's credit before this look, and what this look added.
    pub(super) before: Duration,
    pub(super) earned: Duration,
    /// Run found at checkpoints not to be the bot's, and that less the game thread's waits
    /// since the opening (see [`Own::phantom`]).
    pub(super) phantom: Duration,
    pub(super) phantom_net: Duration,
}

impl Look {
    /// Run and waited beyond the wall time since the last look: time an earlier look
    /// counted as neither (so perhaps credited), now counted (see [`settle`]).
    pub(super) fn overcount(&self) -> Duration {
        (self.ran + self.waited).saturating_sub(self.wall)
    }
}

impl Own {
    /// The bot's account now: its main thread's for a multi-threaded bot, else its own.
    /// `None` when there is nothing to look at (a main thread gone real-time, a bot gone
    /// multi-threaded or real-time, or gone): nothing more is credited.
    pub(super) fn account_now(&self, pid: u32, window: Duration) -> Option<crate::supervise::os::OwnAccount> {
        if self.main.is_some() {
            let now = crate::supervise::os::main_thread_account(pid);
            if now.is_none() {
                tracing::debug!(?window, "main thread's account: no look at the bot");
            }
            return now;
        }
        let now = crate::supervise::os::own_account(pid);
        if now.is_none() {
            tracing::debug!(
                ?window, single = ?crate::supervise::os::is_single_threaded(pid), cpu = ?crate::supervise::os::process_cpu_time(pid),
                "own account: no look at the bot"
            );
        }
        now
    }

    /// Measures the account `now` against the last look, and keeps the game thread's waits
    /// and the checkpoints seen for the next one.
    pub(super) fn measure(&mut self, now: &crate::supervise::os::OwnAccount) -> Look {
        let at = Instant::now();
        let wall = at.saturating_duration_since(self.at);
        let waited = now.waited.saturating_sub(self.account.waited);
        let ran = now.cpu.saturating_sub(self.account.cpu);
        let (host_waited, host_slices) =
            crate::supervise::os::thread_waited().unwrap_or((self.host_waited, self.host_slices));
        let host_late = host_waited.saturating_sub(self.host_waited);
        // Times the game's thread woke since the last look, before this one (the timer
        // before a deadline, say): each may have taken the bot's CPU for a moment (it is
        // real-time). (The deadline's timer wakes that thread itself: no other thread of
        // the host sleeps until it.)
        let host_woke = host_slices.saturating_sub(self.host_slices).saturating_sub(1);
        // And the checkpoints since that took the bot's CPU while it ran.
        let preempted = self.checkpoints.as_ref().map_or(0, |c| c.preempted());
        let checkpoints = u64::from(preempted.saturating_sub(self.checkpoints_seen));
        self.checkpoints_seen = preempted;
        self.host_waited = host_waited;
        self.host_slices = host_slices;
        let gap = wall.saturating_sub(ran).saturating_sub(waited);
        let zero = Duration::ZERO;
        Look {
            at,
            wall,
            waited,
            ran,
            gap,
            host_late,
            host_woke,
            checkpoints,
            unslept: zero,
            before: zero,
            earned: zero,
            phantom: zero,
            phantom_net: zero,
        }
    }

    /// Whether the bot did not sleep since the last look, so that its gap was taken from it:
    /// no voluntary switch, but the one of an answered bot back at reading its input. A
    /// multi-threaded bot's main thread is asked at every look (that decides the whole
    /// move's credit); a single-threaded bot, when there is a gap to credit. Asleep now, and
    /// not back at its read once answered: it slept.
    pub(super) fn did_not_sleep(
        &mut self,
        pid: u32,
        now: &crate::supervise::os::OwnAccount,
        look: &Look,
        answered: bool,
    ) -> bool {
        let looks = (now.runnable || answered) && (self.main.is_some() || look.gap >= GAP_WORTH_A_LOOK);
        match &mut self.sleep {
            SleepCheck::Slices { allowed, voluntary } => {
                // Woken once by the request (allowed until the first look), then never
                // switched out but by the host's own wake-ups: it did not sleep. Otherwise
                // it did not sleep if it made no voluntary switch (but going back to its
                // read once answered).
                let quiet = looks
                    && (now.slices <= self.account.slices + *allowed + look.host_woke + look.checkpoints
                        || no_voluntary_switch(pid, voluntary, answered && !now.runnable));
                *allowed = 0;
                quiet
            }
            SleepCheck::Voluntary(before) => looks && no_voluntary_switch(pid, before, answered && !now.runnable),
        }
    }

    /// The account's credit after this look, before the caps: for a multi-threaded bot, from
    /// its main thread's totals since the opening (a look corrects whatever an earlier one
    /// saw lagging); otherwise the credit so far with what this look earned (waits, the gap
    /// if `quiet`, the host's waits), less what it takes back (see [`settle`]): the kernel
    /// brings a thread's run time up to date only at scheduler events (a tick at most: 4 ms
    /// at 250 Hz), so a look at a bot running on another CPU sees up to that much too little
    /// run; and a wait still going on at a look shows as neither until it ends, then as a
    /// wait in full. Over the whole move a bot that never slept is so credited exactly the
    /// time it did not run.
    pub(super) fn account_credit(
        &mut self,
        pid: u32,
        now: &crate::supervise::os::OwnAccount,
        look: &Look,
        quiet: bool,
    ) -> Duration {
        match self.main.as_mut() {
            Some(main) => {
                main.slept |= !quiet;
                main.host_late += look.host_late;
                let (opened_at, opened) = self.opened;
                let wall = look.at.saturating_duration_since(opened_at);
                let ran = now.cpu.saturating_sub(opened.cpu);
                let waited = now.waited.saturating_sub(opened.waited);
                // The steal matters only when the shortfall is more than the waits: read
                // then (the dearest file, /proc/stat).
                let slept = main.slept;
                let host_late = main.host_late;
                let steal = if !slept && wall.saturating_sub(ran) > waited {
                    self.steal_since_open(pid)
                } else {
                    Duration::ZERO
                };
                main_thread_credit(wall, ran, waited, steal, slept) + host_late
            }
            None => {
                settle(self.credit, look.overcount(), &mut self.uncredited, look.waited + look.host_late + look.unslept)
            }
        }
    }

    /// Run found at checkpoints not to be the bot's; and that less the game thread's waits
    /// since the opening, for the request's credit (a pause that delayed the checkpoint's
    /// watchdog may have delayed the game's thread too, and the credit counts its waits
    /// already).
    pub(super) fn phantom(&self) -> (Duration, Duration) {
        let phantom = self.checkpoints.as_ref().map_or(Duration::ZERO, |c| c.phantom());
        let phantom_net = phantom.saturating_sub(self.host_waited.saturating_sub(self.opened_host_waited));
        (phantom, phantom_net)
    }

    /// The account's credit, capped by the time the bot did not run from the opening, or
    /// from the start of the clock if later, to `until` (the answer, or now), with the
    /// `phantom` run: the game's thread waits too when a stall takes the CPU it shares with
    /// the bot, and its wait is the same time as the bot's. To `until`, not to this look: a
    /// stall of the host between reading an answer and looking, with the bot asleep since
    /// its answer, would otherwise count as time the bot did not run. From the start: an
    /// account opened before the write counts the bot's waits from then, and a stall that
    /// held the host in its write, the bot waiting for a CPU meanwhile, ends before the clock
    /// starts. The run counts from the opening: it can only ever credit less.
    /// An account opened after the clock started (its waits since the write that fit
    /// between the latest start and the read credited as before the opening) is also capped
    /// by the window less the bot's run since the write (it was blocked in its read until
    /// then): those waits may have come before the latest start.
    pub(super) fn capped(
        &self,
        until: Instant,
        start: Instant,
        now: &crate::supervise::os::OwnAccount,
        phantom: Duration,
    ) -> Duration {
        let not_run = until
            .saturating_duration_since(self.opened.0.max(start))
            .saturating_sub(now.cpu.saturating_sub(self.opened.1.cpu));
        let mut credit = self.credit.min(not_run + self.prior + phantom);
        if let Some(cpu) = self.cpu_before_start {
            let window_not_run = until.saturating_duration_since(start).saturating_sub(now.cpu.saturating_sub(cpu));
            credit = credit.min(window_not_run + phantom);
        }
        credit
    }

    /// Logs the look (trace), and in detail when the request is past its limit (`past`:
    /// the window so far).
    pub(super) fn log_look(
        &self,
        now: &crate::supervise::os::OwnAccount,
        look: &Look,
        answered: bool,
        past: Option<Duration>,
    ) {
        tracing::trace!(
            wall = ?look.wall,
            waited = ?look.waited,
            ran = ?look.ran,
            runnable = now.runnable,
            answered,
            unslept = ?look.unslept,
            overcount = ?look.overcount(),
            earned = ?look.earned,
            "own account"
        );
        if let Some(window) = past {
            tracing::debug!(
                ?window, wall = ?look.wall, waited = ?look.waited, ran = ?look.ran, gap = ?look.gap,
                slices = now.slices.saturating_sub(self.account.slices), sleep = ?self.sleep,
                runnable = now.runnable, answered, host_woke = look.host_woke, unslept = ?look.unslept,
                host_late = ?look.host_late, overcount = ?look.overcount(), credit = ?look.before,
                minflt = now.faults.0.saturating_sub(self.account.faults.0),
                majflt = now.faults.1.saturating_sub(self.account.faults.1),
                main = ?self.main.as_ref().map(|m| (self.opened.0.elapsed(), m.slept, m.host_late)), new_credit = ?self.credit,
                phantom = ?look.phantom, phantom_net = ?look.phantom_net,
                "own account, past the limit"
            );
        }
    }

    /// Past the deadline and runnable, the bot may be waiting for its CPU right now (a wait
    /// shows in the account once it is over): a look again [`PROBE`] after `at`, as long as
    /// looks keep earning something or find the bot `waiting` (runnable, not running, not
    /// asleep since the last look). The deadline is called only once the wait is over and
    /// shows in the account: a wait credited, or a bot found running or asleep.
    pub(super) fn schedule_probe(&mut self, at: Instant, earned: Duration, waiting: bool) {
        if earned >= PROBE / 2 || waiting {
            self.probes = 0;
        }
        if self.probes < MAX_PROBES {
            self.probes += 1;
            self.probe_until = Some(at + PROBE);
        }
    }
}

/// How a look at a bot's own account tells that it did not sleep since the last look (so
/// that the time it neither ran nor waited was taken from it: steal).
#[derive(Clone, Copy, Debug)]
pub(super) enum SleepCheck {
    /// By its voluntary context switches (`/proc/PID/status`), as read at the last look.
    Voluntary(Option<u64>),
    /// By the times it was given a CPU (no read of `/proc/PID/status`, the dearest file):
    /// for an account opened before the request was written to a bot asleep in its read
    /// ([`Stopwatch::open_own_account_now`](crate::supervise::stopwatch::Stopwatch::open_own_account_now), [`Stopwatch::open_main_thread_account_now`](crate::supervise::stopwatch::Stopwatch::open_main_thread_account_now)),
    /// or on a multi-threaded bot's main thread while it computes (then `allowed` is 0). It
    /// is given a CPU once when the request wakes
    /// it; any more means it was switched out meanwhile, perhaps to sleep, unless the host's
    /// own threads woke meanwhile and took its CPU for a moment (counted from the game
    /// thread's `schedstat`, once each; and once each checkpoint that found it running, see
    /// [`StallWatch::checkpoints`](crate::supervise::stall_watch::StallWatch::checkpoints)).
    /// How many more times it may have been given a CPU since the last look without that
    /// counting, besides those: 1 until the first look, then 0. When it was given a CPU
    /// more often (preempted, or asleep), its voluntary switches tell, as
    /// [`SleepCheck::Voluntary`] does: read at the opening, and at such a look only.
    Slices { allowed: u64, voluntary: Option<u64> },
}

/// Whether process `pid` made no voluntary switch since `before` (its count then, now
/// updated), but one when `back_to_read` (an answered bot back at reading its input).
pub(super) fn no_voluntary_switch(pid: u32, before: &mut Option<u64>, back_to_read: bool) -> bool {
    let after = crate::supervise::os::voluntary_switches(pid);
    let quiet = matches!((*before, after), (Some(b), Some(a)) if a.saturating_sub(b) <= u64::from(back_to_read));
    *before = after;
    quiet
}

/// A bot's credit after a look at its own account: `credit` so far, plus what this look
/// `earned` (waits, time neither run nor waited while it did not sleep, the host's own
/// waits), less the `overcount`: run and waited time beyond the wall time since the last
/// look (see [`Stopwatch::credit_stalls`](crate::supervise::stopwatch::Stopwatch::credit_stalls)).
/// Time that earlier looks counted as neither and left `uncredited` is not taken back: it
/// was a wait still going on (now shown in full in `earned`), or run not yet counted.
pub(super) fn settle(credit: Duration, overcount: Duration, uncredited: &mut Duration, earned: Duration) -> Duration {
    let absorbed = overcount.min(*uncredited);
    *uncredited -= absorbed;
    (credit + earned).saturating_sub(overcount - absorbed)
}

/// How long the host looks again, past the deadline, at a bot that is runnable but may be
/// waiting for its CPU (its account shows a wait only once the wait is over).
pub const PROBE: Duration = Duration::from_micros(500);

/// Time neither run nor waited below which a look does not ask whether the bot slept.
pub(super) const GAP_WORTH_A_LOOK: Duration = Duration::from_micros(200);

/// Looks in a row, past the deadline, that earn (almost) nothing before the deadline is
/// called: one tells a bot waiting for its CPU (time neither run nor waited grows) from one
/// that runs past its time, at 0.5 ms of timeout lateness.
pub(super) const MAX_PROBES: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_look_takes_back_time_an_earlier_one_counted_as_neither_run_nor_waited() {
        let us = Duration::from_micros;
        let zero = Duration::ZERO;
        // A bot that runs all the time on another CPU: the first look, 23 ms in, sees its
        // run time 1 ms short (not yet brought up to date) and credits that millisecond as
        // time taken from it (the CPU's steal covered it); the next look, 0.5 ms later, sees
        // 1.5 ms run (1 ms more than its wall time) and takes it back.
        let mut uncredited = zero;
        let first = settle(zero, zero, &mut uncredited, us(1_000));
        assert_eq!(first, us(1_000));
        assert_eq!(settle(first, us(1_000), &mut uncredited, zero), zero);
        // A wait going on at a look shows there as neither run nor waited (300 µs, credited
        // within the CPU's steal), then in full once it has ended (800 µs waited and 200 µs
        // run in 700 µs of wall time): credited once.
        let during = settle(zero, zero, &mut uncredited, us(300));
        let after = settle(during, us(300), &mut uncredited, us(800));
        assert_eq!(after, us(800));
        // Credit from before is kept when a look finds nothing to take back.
        assert_eq!(settle(us(2_000), zero, &mut uncredited, us(100)), us(2_100));
    }

    #[test]
    fn a_wait_going_on_at_a_look_and_left_uncredited_is_credited_in_full_once_it_shows() {
        let us = Duration::from_micros;
        let zero = Duration::ZERO;
        // Past the deadline, a bot waits 10 ms for a CPU another process has. Looks every
        // 0.5 ms see it as neither run nor waited and credit none of it (no steal on its
        // CPU: it could have been asleep); then the wait ends and shows in full (10 ms
        // waited in the last 0.5 ms). Nothing an earlier look credited is taken back: all
        // 10 ms are credited.
        let mut uncredited = zero;
        let mut credit = zero;
        for _ in 0..19 {
            uncredited += us(500);
            credit = settle(credit, zero, &mut uncredited, zero);
        }
        assert_eq!(credit, zero);
        let after = settle(credit, us(9_500), &mut uncredited, us(10_000));
        assert_eq!(after, us(10_000));
        assert_eq!(uncredited, zero);
        // A sleeper's gap never shows as run or waited: it stays uncredited, and a later
        // look's own waits are credited as they are.
        let mut slept = us(50_000);
        assert_eq!(settle(zero, zero, &mut slept, us(200)), us(200));
        assert_eq!(slept, us(50_000));
    }

    #[test]
    fn a_multi_threaded_bot_is_credited_what_its_process_ran_short_of_one_cpu() {
        let ms = Duration::from_millis;
        // Main thread awake all along: 30 ms of which the process ran 18 (12 taken from it,
        // whether as waits or as steal).
        // Main thread awake all along: 30 ms of which the process ran 18, waited 5 and had
        // 7 stolen: 12 taken from it.
        assert_eq!(main_thread_credit(ms(30), ms(18), ms(5), ms(7), false), ms(12));
        // The same with no steal on its CPU: only its waits (the rest, it was not waiting
        // for a CPU: it slept in a way its switch counts missed, or waited for a child).
        assert_eq!(main_thread_credit(ms(30), ms(18), ms(5), Duration::ZERO, false), ms(5));
        // Its other threads ran too, a CPU's worth or more: nothing was kept from it.
        assert_eq!(main_thread_credit(ms(30), ms(31), ms(9), ms(3), false), Duration::ZERO);
        // The main thread slept: its time asleep is not credited, only its waits for a CPU,
        assert_eq!(main_thread_credit(ms(30), ms(10), ms(4), ms(9), true), ms(4));
        // and not those its own threads caused by running meanwhile.
        assert_eq!(main_thread_credit(ms(30), ms(28), ms(6), Duration::ZERO, true), ms(2));
    }
}
