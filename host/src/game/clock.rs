//! Time controls and game clocks: a game's limits, each side's bank, and whether an answer
//! that took a given time was in time. When a request's time starts and how much of it was
//! the machine's rather than the bot's is measured by [`crate::supervise::stopwatch`]; the
//! referee ([`crate::run::referee`]) puts the two together.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The time limits of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// From `hello` to `ready`.
    pub startup: Duration,
    /// From `setup_request` to `setup`.
    pub setup: Duration,
    /// Limit for each move.
    pub move_limit: Option<Duration>,
    /// Each side's bank.
    pub bank: Option<Duration>,
    /// Added to the bank after each move.
    pub increment: Duration,
    /// The safety margin: how far past any of the limits above an answer may come and
    /// still be in time (`--time-margin-ms`; the same for every bot of an event).
    #[serde(default)]
    pub margin: Duration,
}

impl TimeControl {
    /// The form sent to bots.
    pub fn to_wire(self) -> stratego_protocol::TimeControl {
        stratego_protocol::TimeControl {
            startup_ms: ms(self.startup),
            setup_ms: ms(self.setup),
            move_ms: self.move_limit.map(ms),
            bank_ms: self.bank.map(ms),
            increment_ms: ms(self.increment),
            margin_ms: ms(self.margin),
        }
    }

    /// How long the host waits for an answer due within `limit`: the limit plus the margin.
    pub fn allowed(&self, limit: Duration) -> Duration {
        limit + self.margin
    }

    /// Parses `BANK+INC` in seconds (`60+0.5`, or `60` for no increment).
    ///
    /// # Errors
    /// A message quoting the bad text.
    pub fn parse_bank(text: &str) -> Result<(Duration, Duration), String> {
        let (bank, inc) = text.split_once('+').unwrap_or((text, "0"));
        let bank = parse_seconds(bank).map_err(|e| format!("--tc {text:?}: bank: {e}"))?;
        let inc = parse_seconds(inc).map_err(|e| format!("--tc {text:?}: increment: {e}"))?;
        if bank.is_zero() {
            return Err(format!("--tc {text:?}: the bank must be more than zero"));
        }
        Ok((bank, inc))
    }
}

/// Parses a non-negative number of seconds (`1`, `0.25`).
///
/// # Errors
/// A message quoting the text.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let v: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=1e7).contains(&v) {
        return Err(format!("{text:?} is not a number of seconds between 0 and 10,000,000"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// Whole milliseconds (rounded down).
pub fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// One side's clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Time left in the bank, if there is a bank.
    pub remaining: Option<Duration>,
}

/// The one verdict on whether an answer was in time: it took at most its limit plus the
/// margin ([`TimeControl::allowed`]). The referee's `judge` asks it of every answer
/// (startup, setup, each move, against the clock's [`Clock::budget`]); the clock then only
/// charges the bank ([`Clock::spend`]).
pub fn in_time(took: Duration, limit: Duration, margin: Duration) -> bool {
    took <= limit + margin
}

impl Clock {
    /// A fresh clock.
    pub fn new(tc: &TimeControl) -> Clock {
        Clock { remaining: tc.bank }
    }

    /// The most time the next move may take.
    pub fn budget(&self, tc: &TimeControl) -> Duration {
        match (tc.move_limit, self.remaining) {
            (Some(m), Some(r)) => m.min(r),
            (Some(m), None) => m,
            (None, Some(r)) => r,
            (None, None) => Duration::from_secs(365 * 24 * 3600),
        }
    }

    /// Takes a move found in time (by [`in_time`]) that took `elapsed` off the bank, then
    /// adds the increment; a bank it overdraws (within the margin) is left empty. No
    /// verdict: the referee's `judge` gave it.
    pub fn spend(&mut self, tc: &TimeControl, elapsed: Duration) {
        if let Some(r) = self.remaining.as_mut() {
            *r = r.saturating_sub(elapsed) + tc.increment;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer came too late.
    #[derive(Debug, PartialEq)]
    struct Flagged;

    /// What the referee does with a move's time: the verdict, then the bank charged.
    impl Clock {
        fn charge(&mut self, tc: &TimeControl, elapsed: Duration) -> Result<(), Flagged> {
            if !in_time(elapsed, self.budget(tc), tc.margin) {
                return Err(Flagged);
            }
            self.spend(tc, elapsed);
            Ok(())
        }
    }

    fn tc(move_ms: Option<u64>, bank_ms: Option<u64>, inc_ms: u64) -> TimeControl {
        TimeControl {
            startup: Duration::from_secs(1),
            setup: Duration::from_secs(1),
            move_limit: move_ms.map(Duration::from_millis),
            bank: bank_ms.map(Duration::from_millis),
            increment: Duration::from_millis(inc_ms),
            margin: Duration::ZERO,
        }
    }

    #[test]
    fn the_margin_lets_a_move_past_its_limit_and_empties_an_overdrawn_bank() {
        let ms = Duration::from_millis;
        let t = TimeControl { margin: ms(2), ..tc(Some(20), None, 0) };
        let mut c = Clock::new(&t);
        assert_eq!(t.allowed(ms(20)), ms(22));
        assert_eq!(c.charge(&t, ms(22)), Ok(()), "within the margin");
        assert_eq!(c.charge(&t, ms(22) + Duration::from_micros(1)), Err(Flagged));
        let banked = TimeControl { margin: ms(2), ..tc(None, Some(100), 10) };
        let mut c = Clock::new(&banked);
        assert_eq!(c.charge(&banked, ms(101)), Ok(()), "1 ms over the bank, within the margin");
        assert_eq!(c.remaining, Some(ms(10)), "the bank is emptied, then the increment added");
        assert_eq!(c.charge(&banked, ms(13)), Err(Flagged));
        assert_eq!(banked.to_wire().margin_ms, 2);
    }

    #[test]
    fn bank_with_increment_is_charged_and_refilled() {
        let t = tc(None, Some(1000), 100);
        let mut c = Clock::new(&t);
        c.charge(&t, Duration::from_millis(300)).unwrap();
        assert_eq!(c.remaining, Some(Duration::from_millis(800)));
        assert_eq!(c.charge(&t, Duration::from_millis(801)), Err(Flagged));
    }

    #[test]
    fn the_budget_is_the_smaller_of_move_limit_and_bank() {
        let t = tc(Some(500), Some(300), 0);
        assert_eq!(Clock::new(&t).budget(&t), Duration::from_millis(300));
        let t = tc(Some(500), None, 0);
        let mut c = Clock::new(&t);
        assert_eq!(c.charge(&t, Duration::from_millis(500)), Ok(()));
        assert_eq!(c.charge(&t, Duration::from_millis(501)), Err(Flagged));
    }

    #[test]
    fn time_controls_parse_with_clear_errors() {
        assert_eq!(TimeControl::parse_bank("60+0.5").unwrap(), (Duration::from_secs(60), Duration::from_millis(500)));
        assert_eq!(TimeControl::parse_bank("10").unwrap(), (Duration::from_secs(10), Duration::ZERO));
        assert_eq!(TimeControl::parse_bank("x+1").unwrap_err(), "--tc \"x+1\": bank: \"x\" is not a number of seconds");
        assert!(TimeControl::parse_bank("0+1").is_err());
    }
}
