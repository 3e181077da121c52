//! Network lag of a remote bot, measured and credited fairly.
//!
//! The host charges a remote bot, as a local one, from the end of its write to the arrival
//! of the answer, so the network's round trip falls on the bot's clock. A move is credited
//! back at most the recent median one-way lag (half the median round trip of the last
//! [`RTT_SAMPLES`] ping/pong pairs taken outside the bot's thinking), at most
//! [`MAX_CREDIT`] a move, and at most what its quota holds: a bank of at most
//! [`QUOTA_MAX`] that each move refills by [`QUOTA_GAIN`] (the model is lichess's
//! `LagTracker`). So steady lag up to [`QUOTA_GAIN`] is credited in full on every move, a
//! burst up to [`MAX_CREDIT`] for a few moves, and no bot gets more than [`MAX_CREDIT`] a
//! move, whatever it claims: the host measures, the bot says nothing.

use std::collections::VecDeque;
use std::time::Duration;

/// Round trips kept for the median.
pub const RTT_SAMPLES: usize = 9;
/// The most lag credited to one move.
pub const MAX_CREDIT: Duration = Duration::from_millis(50);
/// What each move adds to the quota.
pub const QUOTA_GAIN: Duration = Duration::from_millis(25);
/// The most the quota holds (and what it starts with).
pub const QUOTA_MAX: Duration = Duration::from_millis(250);

/// Recent round trips of one connection.
#[derive(Clone, Debug, Default)]
pub struct RttWindow {
    samples: VecDeque<Duration>,
}

impl RttWindow {
    /// Adds a round trip measured by a ping and its pong.
    pub fn push(&mut self, rtt: Duration) {
        if self.samples.len() == RTT_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(rtt);
    }

    /// Half the median round trip, if any was measured.
    pub fn one_way(&self) -> Option<Duration> {
        if self.samples.is_empty() {
            return None;
        }
        let mut v: Vec<Duration> = self.samples.iter().copied().collect();
        v.sort_unstable();
        Some(v[v.len() / 2] / 2)
    }
}

/// A bot's lag quota (kept across its games' moves in one session).
#[derive(Clone, Debug)]
pub struct LagQuota {
    bank: Duration,
}

impl Default for LagQuota {
    fn default() -> LagQuota {
        LagQuota { bank: QUOTA_MAX }
    }
}

impl LagQuota {
    /// The most a move may be credited now, given the measured one-way lag.
    pub fn allowance(&self, one_way: Option<Duration>) -> Duration {
        one_way.unwrap_or_default().min(MAX_CREDIT).min(self.bank)
    }

    /// A move was answered after `raw` (end of write to arrival) with `allowance` offered:
    /// the credit given (never more than `raw`), taken from the quota, which then refills.
    pub fn credit(&mut self, allowance: Duration, raw: Duration) -> Duration {
        let credit = allowance.min(raw);
        self.bank = (self.bank - credit.min(self.bank) + QUOTA_GAIN).min(QUOTA_MAX);
        credit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_median_of_recent_round_trips_halved() {
        let mut w = RttWindow::default();
        assert_eq!(w.one_way(), None);
        for ms in [10, 500, 12, 14, 11] {
            w.push(ms * MS);
        }
        // A lone spike does not move the median.
        assert_eq!(w.one_way(), Some(6 * MS));
        for _ in 0..RTT_SAMPLES {
            w.push(80 * MS);
        }
        assert_eq!(w.one_way(), Some(40 * MS));
    }

    #[test]
    fn the_credit_is_capped_and_comes_from_a_refilling_quota() {
        let mut q = LagQuota::default();
        // Steady lag below the gain: credited in full, for ever.
        for _ in 0..100 {
            let a = q.allowance(Some(20 * MS));
            assert_eq!(q.credit(a, 900 * MS), 20 * MS);
        }
        // Lag above the cap: at most the cap.
        assert_eq!(q.allowance(Some(300 * MS)), MAX_CREDIT);
        // Lag above the gain: the quota runs down to the gain a move.
        let mut total = Duration::ZERO;
        for _ in 0..100 {
            let a = q.allowance(Some(45 * MS));
            total += q.credit(a, 900 * MS);
        }
        assert!(total <= QUOTA_MAX + 100 * QUOTA_GAIN, "{total:?}");
        assert_eq!(q.allowance(Some(45 * MS)), QUOTA_GAIN);
        // Never more than the move took.
        let a = q.allowance(Some(20 * MS));
        assert_eq!(q.credit(a, 3 * MS), 3 * MS);
        // No measurement, no credit.
        assert_eq!(LagQuota::default().allowance(None), Duration::ZERO);
    }
}
