//! Match statistics: score, Elo difference with a 95 % interval, likelihood of superiority.

use serde::Serialize;

/// Elo estimate from wins, draws and losses (from the first player's side).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Points per game, 0 to 1.
    pub score: f64,
    /// Elo difference (infinite when every game was won or lost).
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub elo_low: f64,
    /// Upper end of the 95 % interval.
    pub elo_high: f64,
    /// Likelihood of superiority, 0 to 1.
    pub los: f64,
}

fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// The estimate for `w` wins, `d` draws, `l` losses; `None` without games.
pub fn elo(w: u32, d: u32, l: u32) -> Option<EloEstimate> {
    let n = f64::from(w + d + l);
    if n == 0.0 {
        return None;
    }
    let (wf, df, lf) = (f64::from(w), f64::from(d), f64::from(l));
    let score = (wf + df / 2.0) / n;
    let var = (wf * (1.0 - score).powi(2) + df * (0.5 - score).powi(2) + lf * score.powi(2)) / n;
    let se = (var / n).sqrt();
    let los = if w + l == 0 { 0.5 } else { 0.5 * (1.0 + erf((wf - lf) / (2.0 * (wf + lf)).sqrt())) };
    Some(EloEstimate {
        score,
        elo: elo_of(score),
        elo_low: elo_of(score - 1.959_964 * se),
        elo_high: elo_of(score + 1.959_964 * se),
        los,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_matches_hand_computed_values() {
        let e = elo(60, 20, 20).unwrap();
        assert!((e.score - 0.7).abs() < 1e-12);
        assert!((e.elo - 147.19).abs() < 0.01, "{}", e.elo);
        assert!(e.elo_low < e.elo && e.elo < e.elo_high);
        // LOS for 60 wins against 20 losses: 0.5 (1 + erf(40 / sqrt(160))).
        assert!((e.los - 0.999_92).abs() < 1e-4, "{}", e.los);
        let even = elo(10, 0, 10).unwrap();
        assert_eq!(even.elo, 0.0);
        assert!((even.los - 0.5).abs() < 1e-6);
        assert_eq!(elo(5, 0, 0).unwrap().elo, f64::INFINITY);
        assert!(elo(0, 0, 0).is_none());
        assert!((erf(1.0) - 0.842_700_79).abs() < 2e-7);
    }
}
