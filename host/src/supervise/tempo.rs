//! The host's tempo: fair-clock machinery only while a clock can be at stake.
//!
//! Fair clocks cost. A real-time (`SCHED_FIFO`) host, a host wake-up when a bot reads its
//! request, and stall watchdogs ticking every millisecond make the host see a
//! bot's read and answer within microseconds when thinking bots fill every CPU, and credit
//! the machine's stalls; but on this kind of machine every one of those wake-ups costs
//! 20–25 µs of CPU, and with bots that answer in microseconds they tripled the host's CPU
//! per ply (BENCHMARKS.md) for no benefit: a move answered in microseconds is nowhere near
//! its limit.
//!
//! With `--host-priority auto` (the default) the host starts **calm**: nice −10, the clock
//! of a request starts when the host has finished writing it, and the watchdogs sleep. As
//! soon as any request has been waiting for its answer for [`ESCALATE_AFTER`] (a bot that
//! thinks), the host **escalates**, for every game at once: it turns `SCHED_FIFO` and
//! watches reads again (for that request too, if the bot has not read it yet); and that
//! request wakes the watchdogs of the CPUs its bot and its game's thread may run on, until
//! it is answered ([`crate::supervise::stall_watch::StallWatch::want`]). The host calms down once no
//! request has run that long for [`CALM_AFTER`]. While bots
//! think, the host therefore stays escalated and clocks are as fair as with
//! `--host-priority realtime`; what calm mode gives up is bounded: a bot that answers
//! within [`ESCALATE_AFTER`] is charged from the end of the write rather than from its read
//! (its wake-up latency, microseconds on an idle CPU), and stalls in the first
//! [`ESCALATE_AFTER`] of the first long move after a calm spell are not seen.
//!
//! `--host-priority realtime` keeps the host escalated for the whole run; `nice` and
//! `normal` never escalate (and run no watchdogs).
//!
//! With `-j` above 1 each game slot runs on a thread of its own (see
//! [`crate::run::executor`]); the tempo is shared, and each thread follows it at its next request
//! (a scheduling policy belongs to a thread).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::supervise::stall_watch::StallWatch;

/// How long a request waits for its answer before the host escalates.
pub const ESCALATE_AFTER: Duration = Duration::from_millis(2);

/// How long after the last long request ended the host calms down.
pub const CALM_AFTER: Duration = Duration::from_millis(100);

thread_local! {
    /// Whether this thread has been made real-time by the tempo.
    static THREAD_ESCALATED: Cell<bool> = const { Cell::new(false) };
}

/// The run's tempo, shared by every game and every game thread.
#[derive(Debug)]
pub struct Tempo {
    /// Whether the tempo changes at all (`--host-priority auto` with the right to go
    /// real-time); otherwise it stays as it started.
    adaptive: bool,
    escalated: AtomicBool,
    /// Requests in flight that have run past [`ESCALATE_AFTER`].
    long_requests: AtomicU32,
    /// When the last long request ended, in ns since `base`.
    last_long_end: AtomicU64,
    /// Escalations so far (for the logs and the tests).
    escalations: AtomicU64,
    base: Instant,
}

impl Tempo {
    /// A tempo that never changes: escalated (`realtime`) or calm (`nice`, `normal`).
    pub fn fixed(escalated: bool) -> Tempo {
        Tempo::new(false, escalated)
    }

    /// An adaptive tempo (`auto`); starts calm, with the watchdogs asleep until a long
    /// request wants them.
    pub fn adaptive(stalls: Option<&StallWatch>) -> Tempo {
        if let Some(w) = stalls {
            w.pause();
        }
        Tempo::new(true, false)
    }

    fn new(adaptive: bool, escalated: bool) -> Tempo {
        Tempo {
            adaptive,
            escalated: AtomicBool::new(escalated),
            long_requests: AtomicU32::new(0),
            last_long_end: AtomicU64::new(0),
            escalations: AtomicU64::new(0),
            base: Instant::now(),
        }
    }

    /// Whether the tempo adapts (calm until a bot thinks).
    pub fn is_adaptive(&self) -> bool {
        self.adaptive
    }

    /// Whether the host is escalated: real-time, watching reads.
    pub fn escalated(&self) -> bool {
        self.escalated.load(Ordering::Acquire)
    }

    /// How many times the host escalated.
    pub fn escalations(&self) -> u64 {
        self.escalations.load(Ordering::Relaxed)
    }

    /// A request has waited [`ESCALATE_AFTER`] for its answer. Must be called on the
    /// thread of the request's game (the thread made real-time). Returns whether this escalated
    /// the host (it was calm).
    pub fn request_went_long(&self) -> bool {
        self.long_requests.fetch_add(1, Ordering::AcqRel);
        let now = self.adaptive && !self.escalated() && !self.escalated.swap(true, Ordering::AcqRel);
        if now {
            self.escalations.fetch_add(1, Ordering::Relaxed);
            tracing::trace!("tempo: escalated");
        }
        self.follow();
        now
    }

    /// Gives the calling thread the tempo's scheduling policy, if it has not got it yet.
    pub fn follow(&self) {
        if !self.adaptive {
            return;
        }
        let want = self.escalated();
        if THREAD_ESCALATED.get() == want {
            return;
        }
        THREAD_ESCALATED.set(want);
        if want {
            if let Err(e) = crate::supervise::os::make_current_thread_realtime(1) {
                tracing::debug!("cannot escalate the host to real-time: {e}");
            }
        } else {
            crate::supervise::os::calm_current_thread();
        }
    }

    /// A request that had gone long has its answer (or ended otherwise).
    pub fn long_request_ended(&self, at: Instant) {
        self.long_requests.fetch_sub(1, Ordering::AcqRel);
        self.last_long_end.fetch_max(self.ns(at), Ordering::AcqRel);
    }

    /// Called when a request starts: calms the host down when no request has run long for
    /// [`CALM_AFTER`], and gives the calling thread (the game's) the tempo's policy.
    pub fn request_starts(&self, now: Instant) {
        if !self.adaptive {
            return;
        }
        if self.escalated() && self.long_requests.load(Ordering::Acquire) == 0 {
            let since = self.ns(now).saturating_sub(self.last_long_end.load(Ordering::Acquire));
            if since >= CALM_AFTER.as_nanos() as u64 && self.escalated.swap(false, Ordering::AcqRel) {
                tracing::trace!("tempo: calm");
            }
        }
        self.follow();
    }

    fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.base).as_nanos() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adaptive_tempo_escalates_on_a_long_request_and_calms_after_the_quiet_period() {
        let t = Tempo::adaptive(None);
        assert!(!t.escalated(), "starts calm");
        let t0 = Instant::now();
        t.request_starts(t0);
        assert!(!t.escalated());
        assert!(t.request_went_long(), "this escalated the host");
        assert!(t.escalated());
        assert_eq!(t.escalations(), 1);
        assert!(!t.request_went_long(), "already escalated");
        t.long_request_ended(Instant::now());
        // Another request starts while the long one runs: stays escalated.
        t.request_starts(t0 + Duration::from_secs(1));
        assert!(t.escalated(), "a long request is in flight");
        let end = Instant::now();
        t.long_request_ended(end);
        t.request_starts(end + CALM_AFTER / 2);
        assert!(t.escalated(), "within the quiet period");
        t.request_starts(end + CALM_AFTER + Duration::from_millis(1));
        assert!(!t.escalated(), "quiet for long enough");
        crate::supervise::os::calm_current_thread();
    }

    #[test]
    fn a_fixed_tempo_never_changes() {
        let rt = Tempo::fixed(true);
        assert!(!rt.request_went_long());
        rt.long_request_ended(Instant::now());
        rt.request_starts(Instant::now() + Duration::from_secs(5));
        assert!(rt.escalated());
        let calm = Tempo::fixed(false);
        assert!(!calm.request_went_long());
        assert!(!calm.escalated());
        assert_eq!(calm.escalations(), 0);
    }
}
