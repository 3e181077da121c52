//! Match statistics: Elo and normalised Elo with 95 % intervals, likelihood of superiority (LOS),
//! pentanomial (game-pair) statistics, the generalised SPRT and Bradley–Terry ratings.
//!
//! The definitions follow fastchess and fishtest, so a match here and one run by those tools report
//! the same numbers for the same results:
//!
//! - score `s` = points per game; Elo = 400 log10(s / (1 − s));
//! - the 95 % interval is the normal (Wald) interval of the score, s ± 1.96 σ/√n, mapped to Elo;
//!   the "±" figure is half its width in Elo ([`EloEstimate::err95`]);
//! - normalised Elo = (s − ½) / σ_game × 800 / ln 10, with σ_game the standard deviation of one
//!   game's score;
//! - pentanomial statistics treat each colour-swapped pair as one observation (its mean score), so
//!   the variance is that of a pair, which removes the opening's share of the noise.
//!
//! Values that have no finite answer (the Elo of a bot that won every game) are `f64::INFINITY` or
//! `f64::NEG_INFINITY` in the structs, never NaN; serde_json writes them as `null`. The `describe_*`
//! functions give text that never shows an infinity, a NaN or `-0`.

use serde::{Deserialize, Serialize};

/// Two-sided 95 % quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Error level of the exact bounds used when every game (or pair) had the same result.
const ALPHA: f64 = 0.05;

/// Normalised Elo per unit of t = (score − ½) / σ_game (fishtest's 800 / ln 10).
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Elo per unit of natural-log strength (the Bradley–Terry parameter): 400 / ln 10.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Per-game points of the trinomial cells: loss, draw, win.
const TRI_POINTS: [f64; 3] = [0.0, 0.5, 1.0];

/// Per-game points of the pentanomial cells (pair score / 2): 0–2, ½–1½, 1–1, 1½–½, 2–0.
const PENTA_POINTS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Stand-in count for an empty cell in the SPRT likelihoods (as fastchess does), so that the
/// constrained maximum-likelihood distributions exist and no logarithm of zero appears.
const EMPTY_CELL: f64 = 1e-3;

/// Elo estimate from wins, draws and losses (from the first player's side).
///
/// Infinite fields (every game won or lost, or an interval reaching a score of 0 or 1) are written
/// as `null` by serde_json.
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

impl EloEstimate {
    /// Half the width of the 95 % interval in Elo: the "±" that fastchess prints (infinite if the
    /// interval is open on one side).
    pub fn err95(&self) -> f64 {
        (self.elo_high - self.elo_low) / 2.0
    }
}

/// Normalised Elo with the half-width of its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NormalizedElo {
    /// (score − ½) / σ_game × 800 / ln 10.
    pub nelo: f64,
    /// Half-width of the 95 % interval, 1.96 × 800 / ln 10 / √games.
    pub err95: f64,
}

/// Turns `-0.0` into `0.0` (IEEE: −0 + +0 = +0) so that no `-0` reaches a report.
fn unsigned_zero(x: f64) -> f64 {
    x + 0.0
}

fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        unsigned_zero(400.0 * (score / (1.0 - score)).log10())
    }
}

fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
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

fn los_counts(w: f64, l: f64) -> f64 {
    if w + l == 0.0 { 0.5 } else { 0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt())) }
}

/// Likelihood of superiority from wins and losses alone (draws carry no information in this
/// model): ½ (1 + erf((w − l) / √(2 (w + l)))), as cutechess prints; 0.5 without decisive games.
pub fn los(w: u32, l: u32) -> f64 {
    los_counts(f64::from(w), f64::from(l))
}

/// Share of draws among all games, 0 to 1; 0 without games.
pub fn draw_ratio(w: u32, d: u32, l: u32) -> f64 {
    let n = f64::from(w) + f64::from(d) + f64::from(l);
    if n == 0.0 { 0.0 } else { f64::from(d) / n }
}

/// Size, mean and (population) variance of a sample given as counts per cell.
struct Moments {
    n: f64,
    mean: f64,
    var: f64,
}

fn moments<const N: usize>(points: &[f64; N], counts: &[u32; N]) -> Option<Moments> {
    let n: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    if n == 0.0 {
        return None;
    }
    let mean = points.iter().zip(counts).map(|(a, &c)| a * f64::from(c)).sum::<f64>() / n;
    let var = points.iter().zip(counts).map(|(a, &c)| f64::from(c) * (a - mean).powi(2)).sum::<f64>() / n;
    Some(Moments { n, mean, var })
}

/// The points of the only non-empty cell, if the sample has exactly one.
fn single_cell<const N: usize>(points: &[f64; N], counts: &[u32; N]) -> Option<f64> {
    let mut filled = points.iter().zip(counts).filter(|&(_, &c)| c > 0);
    match (filled.next(), filled.next()) {
        (Some((&a, _)), None) => Some(a),
        _ => None,
    }
}

fn estimate<const N: usize>(points: &[f64; N], counts: &[u32; N]) -> Option<EloEstimate> {
    let m = moments(points, counts)?;
    let (low, high, los) = if let Some(a) = single_cell(points, counts) {
        // Every observation had the same result, so the normal interval collapses to a point.
        // Exact bound instead: the chance q of that result satisfies q^n >= ALPHA at 95 %, and
        // with probability at least q of scoring `a` the mean score lies in [a q, 1 − (1 − a) q].
        let q = ALPHA.powf(1.0 / m.n);
        let los = if a > 0.5 {
            los_counts(m.n, 0.0)
        } else if a < 0.5 {
            los_counts(0.0, m.n)
        } else {
            0.5
        };
        (a * q, 1.0 - (1.0 - a) * q, los)
    } else {
        let se = (m.var / m.n).sqrt();
        let los = 0.5 * (1.0 + erf((m.mean - 0.5) / (std::f64::consts::SQRT_2 * se)));
        (m.mean - Z95 * se, m.mean + Z95 * se, los)
    };
    Some(EloEstimate { score: m.mean, elo: elo_of(m.mean), elo_low: elo_of(low), elo_high: elo_of(high), los })
}

fn normalized<const N: usize>(points: &[f64; N], counts: &[u32; N], games_per_cell: f64) -> Option<NormalizedElo> {
    let m = moments(points, counts)?;
    if m.var <= 0.0 {
        return None;
    }
    let sd_per_game = (games_per_cell * m.var).sqrt();
    Some(NormalizedElo {
        nelo: unsigned_zero((m.mean - 0.5) / sd_per_game * NELO_PER_T),
        err95: Z95 * NELO_PER_T / (games_per_cell * m.n).sqrt(),
    })
}

/// The estimate for `w` wins, `d` draws, `l` losses; `None` without games.
///
/// The interval is the normal interval of the score mapped to Elo (as fastchess), except when
/// every game had the same result: then it is the exact one-sided bound of [`describe_elo`] (all
/// wins: `[bound, +inf]`; all draws: a symmetric bound from the chance of a decisive game). The
/// LOS is ½ (1 + erf((s − ½) / (√2 σ/√n))) as fastchess prints, or [`los`] when every game had the
/// same result.
pub fn elo(w: u32, d: u32, l: u32) -> Option<EloEstimate> {
    estimate(&TRI_POINTS, &[l, d, w])
}

/// Normalised Elo, (s − ½) / σ × 800 / ln 10 with σ the standard deviation of one game's score;
/// `None` without games or when every game had the same result (σ = 0).
pub fn nelo(w: u32, d: u32, l: u32) -> Option<f64> {
    nelo_estimate(w, d, l).map(|e| e.nelo)
}

/// [`nelo`] with the half-width of its 95 % interval.
pub fn nelo_estimate(w: u32, d: u32, l: u32) -> Option<NormalizedElo> {
    normalized(&TRI_POINTS, &[l, d, w], 1.0)
}

/// An Elo value for text: one decimal, explicit sign, plain `0.0` for zero.
fn fmt_elo(x: f64) -> String {
    if !x.is_finite() {
        return "—".to_string();
    }
    let r = unsigned_zero((x * 10.0).round() / 10.0);
    if r == 0.0 { "0.0".to_string() } else { format!("{r:+.1}") }
}

fn describe_estimate(e: &EloEstimate) -> String {
    let interval = match (e.elo_low.is_finite(), e.elo_high.is_finite()) {
        (true, true) => {
            format!("± {:.1} [{}, {}] (95 %)", e.err95(), fmt_elo(e.elo_low), fmt_elo(e.elo_high))
        }
        (true, false) => format!("[{}, no upper bound] (95 %)", fmt_elo(e.elo_low)),
        (false, true) => format!("[no lower bound, {}] (95 %)", fmt_elo(e.elo_high)),
        (false, false) => "(too few games for a 95 % interval)".to_string(),
    };
    format!("{} {interval}, LOS {:.1} %", fmt_elo(e.elo), 100.0 * e.los)
}

/// `1 game`, `2 games`: a count and its noun, singular for one.
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// The Elo line of a summary, e.g. `+40.7 ± 30.4 [+10.6, +71.4] (95 %), LOS 99.6 %`.
///
/// It never shows an infinity, a NaN or `-0`:
/// - no games: `no games`;
/// - only draws: `no decisive game (N draws)`;
/// - every game won: `> +X (95 %), every game won`, where X is the exact (Clopper–Pearson)
///   one-sided 95 % lower bound: the win probability p satisfies p^n ≥ 0.05, so the score is at
///   least 0.05^(1/n) (10 wins: > +182.7); every game lost is the mirror image;
/// - an interval end that reaches a score of 0 or 1 prints as `no lower bound` / `no upper bound`.
pub fn describe_elo(w: u32, d: u32, l: u32) -> String {
    match elo(w, d, l) {
        None => "no games".to_string(),
        Some(_) if w == 0 && l == 0 => format!("no decisive game ({})", plural(u64::from(d), "draw")),
        Some(e) if d == 0 && l == 0 => format!("> {} (95 %), every game won", fmt_elo(e.elo_low)),
        Some(e) if d == 0 && w == 0 => format!("< {} (95 %), every game lost", fmt_elo(e.elo_high)),
        Some(e) => describe_estimate(&e),
    }
}

/// Colour-swapped game pairs counted by the first bot's points in the pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial {
    /// Pairs with 0 points (lost both).
    pub ll: u32,
    /// Pairs with ½ point (a loss and a draw).
    pub ld: u32,
    /// Pairs with 1 point (a win and a loss, or two draws).
    pub wl_dd: u32,
    /// Pairs with 1½ points (a win and a draw).
    pub wd: u32,
    /// Pairs with 2 points (won both).
    pub ww: u32,
}

impl Pentanomial {
    /// Counts one pair from the first bot's points in its two games (each 0, ½ or 1).
    pub fn add_pair(&mut self, score_a: f64, score_b: f64) {
        self.add(score_a + score_b);
    }

    /// Counts one pair from the first bot's points in it, 0 to 2 in half points; other values are
    /// rounded to the nearest half point and clamped, non-finite ones are ignored.
    pub fn add(&mut self, points_in_pair: f64) {
        if !points_in_pair.is_finite() {
            return;
        }
        let cell = match (points_in_pair * 2.0).round() {
            h if h <= 0.0 => &mut self.ll,
            h if h <= 1.0 => &mut self.ld,
            h if h <= 2.0 => &mut self.wl_dd,
            h if h <= 3.0 => &mut self.wd,
            _ => &mut self.ww,
        };
        *cell = cell.saturating_add(1);
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts().iter().map(|&c| u64::from(c)).sum()
    }

    /// Counts from 0 points to 2 points.
    pub fn counts(&self) -> [u32; 5] {
        [self.ll, self.ld, self.wl_dd, self.wd, self.ww]
    }
}

/// Elo from game pairs: the score is the mean points per game, its variance that of the pair mean
/// divided by the number of pairs (fastchess's pentanomial model); `None` without pairs. The LOS is
/// the normal one with the pair variance; when every pair had the same result the interval and LOS
/// are exact bounds as in [`elo`], with pairs in place of games.
pub fn pentanomial_elo(p: &Pentanomial) -> Option<EloEstimate> {
    estimate(&PENTA_POINTS, &p.counts())
}

/// Normalised Elo from game pairs: (s − ½) / σ_game × 800 / ln 10 with σ_game = √2 × the standard
/// deviation of a pair's mean score (fastchess); `None` without pairs or when every pair had the
/// same result. The 95 % half-width is 1.96 × 800 / ln 10 / √(2 pairs).
pub fn pentanomial_nelo(p: &Pentanomial) -> Option<NormalizedElo> {
    normalized(&PENTA_POINTS, &p.counts(), 2.0)
}

/// [`describe_elo`] for game pairs: `no game pairs`, `no decisive pair (N pairs at 1–1)`, `> +X
/// (95 %), every pair won 2–0` (X from 0.05^(1/pairs)), `< X (95 %), every pair lost 0–2`, else
/// the usual line.
pub fn describe_pentanomial(p: &Pentanomial) -> String {
    let pairs = p.pairs();
    match pentanomial_elo(p) {
        None => "no game pairs".to_string(),
        Some(_) if u64::from(p.wl_dd) == pairs => format!("no decisive pair ({} at 1–1)", plural(pairs, "pair")),
        Some(e) if u64::from(p.ww) == pairs => format!("> {} (95 %), every pair won 2–0", fmt_elo(e.elo_low)),
        Some(e) if u64::from(p.ll) == pairs => format!("< {} (95 %), every pair lost 0–2", fmt_elo(e.elo_high)),
        Some(e) => describe_estimate(&e),
    }
}

/// How the SPRT's Elo bounds are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Normalised Elo (fishtest's default): bounds on (s − ½) / σ_game × 800 / ln 10.
    Normalized,
    /// Logistic Elo: bounds on the score 1 / (1 + 10^(−elo / 400)).
    Logistic,
}

/// The hypothesis an SPRT accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Hypothesis {
    /// The Elo difference is `elo0` (the change is not an improvement).
    H0,
    /// The Elo difference is `elo1` (the change is an improvement).
    H1,
}

/// A generalised sequential probability ratio test (GSPRT) of `elo0` against `elo1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1 (greater than `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
    /// How `elo0` and `elo1` are read.
    pub model: EloModel,
}

impl Sprt {
    /// Why the parameters make no test, if they don't.
    pub fn check(&self) -> Result<(), String> {
        let ok = |x: f64| x > 0.0 && x < 1.0;
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            Err(format!("SPRT: elo0 ({}) must be below elo1 ({})", self.elo0, self.elo1))
        } else if !ok(self.alpha) || !ok(self.beta) || self.alpha + self.beta >= 1.0 {
            Err(format!("SPRT: alpha ({}) and beta ({}) must lie in (0, 1) with a sum below 1", self.alpha, self.beta))
        } else {
            Ok(())
        }
    }

    /// Wald's stopping bounds on the log-likelihood ratio: (ln(β / (1 − α)), ln((1 − β) / α)).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// Log-likelihood ratio of H1 to H0 for `w` wins, `d` draws and `l` losses; 0 without a decisive
    /// game (see [`Sprt::llr_pentanomial`] for the details).
    pub fn llr_trinomial(&self, w: u32, d: u32, l: u32) -> f64 {
        self.llr(&TRI_POINTS, &[l, d, w], 1.0)
    }

    /// Log-likelihood ratio of H1 to H0 for game pairs; 0 when no pair was decisive.
    ///
    /// Generalised SPRT as in fastchess and fishtest: under each hypothesis, the distribution over
    /// the cells that maximises the sample's likelihood subject to that hypothesis (a mean score for
    /// the logistic model, a t-value (s − ½) / σ for the normalised one) is found, and the LLR is
    /// Σ nᵢ ln(p1ᵢ / p0ᵢ). Empty cells count as 0.001 so both fits exist; a sample with only 1–1
    /// results (or none) gives 0, since then the LLR would only reflect those stand-in counts; if a
    /// hypothesis cannot be fitted at all the LLR is 0 too, never NaN.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        self.llr(&PENTA_POINTS, &p.counts(), 2.0)
    }

    /// The accepted hypothesis once `llr` leaves the bounds, `None` while the test goes on.
    pub fn verdict(&self, llr: f64) -> Option<Hypothesis> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        }
    }

    /// The constrained fits follow Van den Bergh, "Comments on Normalized Elo" (propositions 1.1 and
    /// section 4.1); `games_per_cell` is 2 for pairs, whose t is √2 times the per-game t.
    fn llr<const N: usize>(&self, points: &[f64; N], counts: &[u32; N], games_per_cell: f64) -> f64 {
        let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        // A sample of only 1–1 results says nothing about which bot is stronger; with the empty
        // cells regularised its LLR would only reflect the size of the stand-in counts.
        if total == 0 || u64::from(counts[N / 2]) == total {
            return 0.0;
        }
        let n = counts.map(|c| if c == 0 { EMPTY_CELL } else { f64::from(c) });
        let sum: f64 = n.iter().sum();
        let phat = n.map(|c| c / sum);
        let (p0, p1) = match self.model {
            EloModel::Logistic => {
                (mle_with_mean(points, &phat, score_of(self.elo0)), mle_with_mean(points, &phat, score_of(self.elo1)))
            }
            EloModel::Normalized => {
                // t for a cell (pair of games) is √games_per_cell times the per-game t.
                let t_per_elo = games_per_cell.sqrt() / NELO_PER_T;
                (mle_with_t(points, &phat, self.elo0 * t_per_elo), mle_with_t(points, &phat, self.elo1 * t_per_elo))
            }
        };
        match (p0, p1) {
            (Some(p0), Some(p1)) => (0..N).map(|i| n[i] * (p1[i].ln() - p0[i].ln())).sum(),
            _ => 0.0,
        }
    }
}

/// The root of a function that falls from +∞ to −∞ on the open interval (lo, hi), by bisection
/// (never evaluated at the ends, where it has poles).
fn falling_root(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let mut x = 0.5 * (lo + hi);
    for _ in 0..200 {
        x = 0.5 * (lo + hi);
        if x <= lo || x >= hi {
            break;
        }
        let v = f(x);
        if v > 0.0 {
            lo = x;
        } else if v < 0.0 {
            hi = x;
        } else {
            break;
        }
    }
    x
}

/// The distribution p maximising Σ p̂ᵢ ln pᵢ subject to Σ pᵢ aᵢ = s: pᵢ = p̂ᵢ / (1 + θ (aᵢ − s)), with
/// θ the root of Σ p̂ᵢ (aᵢ − s) / (1 + θ (aᵢ − s)) = 0. All p̂ᵢ must be positive.
fn mle_with_mean<const N: usize>(points: &[f64; N], phat: &[f64; N], s: f64) -> Option<[f64; N]> {
    let d = points.map(|a| a - s);
    let (low, high) = min_max(&d);
    if !(low < 0.0 && high > 0.0) {
        return None;
    }
    let theta = falling_root(|x| (0..N).map(|i| phat[i] * d[i] / (1.0 + x * d[i])).sum(), -1.0 / high, -1.0 / low);
    Some(normalise((0..N).map(|i| phat[i] / (1.0 + theta * d[i]))))
}

/// The distribution p maximising Σ p̂ᵢ ln pᵢ subject to (μ(p) − ½) / σ(p) = t, by the fixed-point
/// iteration of Van den Bergh's section 4.1: linearise the constraint around the current p into
/// Σ pᵢ φᵢ = 0 with φᵢ = aᵢ − ½ − t (σ² + (aᵢ − μ)²) / (2σ), solve that as in [`mle_with_mean`],
/// repeat from the uniform distribution until p settles.
fn mle_with_t<const N: usize>(points: &[f64; N], phat: &[f64; N], t: f64) -> Option<[f64; N]> {
    let mut p = [1.0 / N as f64; N];
    for _ in 0..1000 {
        let mu: f64 = (0..N).map(|i| p[i] * points[i]).sum();
        let var: f64 = (0..N).map(|i| p[i] * (points[i] - mu).powi(2)).sum();
        let sigma = var.sqrt();
        if sigma <= 0.0 {
            return None;
        }
        let phi = points.map(|a| a - 0.5 - t * (var + (a - mu).powi(2)) / (2.0 * sigma));
        let (low, high) = min_max(&phi);
        if !(low < 0.0 && high > 0.0) {
            return None;
        }
        let theta =
            falling_root(|x| (0..N).map(|i| phat[i] * phi[i] / (1.0 + x * phi[i])).sum(), -1.0 / high, -1.0 / low);
        let next = normalise((0..N).map(|i| phat[i] / (1.0 + theta * phi[i])));
        let change = (0..N).map(|i| (next[i] - p[i]).abs()).fold(0.0, f64::max);
        p = next;
        if change < 1e-13 {
            break;
        }
    }
    Some(p)
}

fn min_max(x: &[f64]) -> (f64, f64) {
    x.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

fn normalise<const N: usize>(values: impl Iterator<Item = f64>) -> [f64; N] {
    let mut p = [0.0; N];
    for (slot, v) in p.iter_mut().zip(values) {
        *slot = v;
    }
    let sum: f64 = p.iter().sum();
    p.map(|v| v / sum)
}

/// A Bradley–Terry rating on the Elo scale.
///
/// `err95` is `f64::INFINITY` for a bot without games (serde_json writes `null`; renderers print
/// "—").
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo, 400 log10 of the Bradley–Terry strength, shifted as asked (mean 0, or the anchor).
    pub elo: f64,
    /// Half-width of the 95 % interval: 1.96 standard errors from the inverse Fisher information.
    pub err95: f64,
}

/// Maximum-likelihood Bradley–Terry ratings for `n_bots` bots from `games` (bot i, bot j, points of
/// i: 0, ½ or 1; a draw counts as half a win for each side).
///
/// The ratings average 0 over the bots that played, unless `anchor` = (bot, Elo) fixes one bot's
/// rating (its `err95` is then 0 and the others' are relative to it). The error bars invert the
/// Fisher information of the log-likelihood at the maximum, with one rating held fixed unless the
/// prior below ties the scale, which gives the covariance of every rating difference; they are
/// then re-expressed for the chosen origin (mean or anchor). Treating a
/// draw as half a win and half a loss overstates the variance of draw-heavy pairings, so the error
/// bars are on the wide side there.
///
/// Degenerate data:
/// - when the games alone have no finite maximum (some group of bots never scored a point against
///   the rest, e.g. a bot won or lost every game, or two groups never met), every bot that played
///   gets one virtual draw against a fixed player rated 0: a mild prior that keeps all ratings
///   finite and pulls them a little toward the middle (two bots, 10–0: 580.5 Elo apart instead of
///   infinitely);
/// - a bot without games has Elo 0 (or the anchor value if it is the anchor) and `err95` infinite;
///   if the anchor bot played no game it cannot tie the others, who then average 0;
/// - games naming a bot twice or a bot index out of range, or with a non-finite score, are
///   skipped; scores are clamped to [0, 1]; an anchor out of range is ignored.
pub fn bradley_terry(n_bots: usize, games: &[(usize, usize, f64)], anchor: Option<(usize, f64)>) -> Vec<Rating> {
    let tallies: Vec<(usize, usize, f64, f64)> = games.iter().map(|&(i, j, s)| (i, j, s, 1.0)).collect();
    bradley_terry_tallies(n_bots, &tallies, anchor)
}

/// [`bradley_terry`] of games given as tallies: (bot i, bot j, points of i, games), the
/// games between two bots counted once instead of listed one by one (the ladder keeps
/// them so). The ratings are the same as those of the games listed one by one (points and
/// games are sums of halves: exact in any order).
///
/// Tallies naming a bot twice or out of range, or with games or points not finite, or no
/// games, are skipped; points are clamped to [0, games].
pub fn bradley_terry_tallies(
    n_bots: usize,
    tallies: &[(usize, usize, f64, f64)],
    anchor: Option<(usize, f64)>,
) -> Vec<Rating> {
    let anchor = anchor.filter(|&(a, v)| a < n_bots && v.is_finite());
    let mut out = vec![Rating { elo: 0.0, err95: f64::INFINITY }; n_bots];
    if let Some((a, v)) = anchor {
        out[a].elo = v;
    }
    let valid = |&&(i, j, s, n): &&(usize, usize, f64, f64)| {
        i < n_bots && j < n_bots && i != j && s.is_finite() && n.is_finite() && n > 0.0
    };
    let mut played = vec![false; n_bots];
    for &(i, j, _, _) in tallies.iter().filter(valid) {
        played[i] = true;
        played[j] = true;
    }
    let active: Vec<usize> = (0..n_bots).filter(|&b| played[b]).collect();
    let m = active.len();
    if m == 0 {
        return out;
    }
    let mut index = vec![usize::MAX; n_bots];
    for (k, &bot) in active.iter().enumerate() {
        index[bot] = k;
    }
    let mut fit = BtFit { m, points: vec![0.0; m * m], games: vec![0.0; m * m], prior: false };
    for &(i, j, s, n) in tallies.iter().filter(valid) {
        let (a, b, s) = (index[i], index[j], s.clamp(0.0, n));
        fit.points[a * m + b] += s;
        fit.points[b * m + a] += n - s;
        fit.games[a * m + b] += n;
        fit.games[b * m + a] += n;
    }
    fit.prior = !strongly_connected(m, |a, b| fit.points[a * m + b] > 0.0);
    // Without the prior the ratings are only defined up to a constant: hold the first at 0.
    let first = usize::from(!fit.prior);
    let anchored = anchor.map(|(a, v)| (index[a], v)).filter(|&(k, _)| k != usize::MAX);
    let (theta, factor) = fit.maximise(first);
    let spread = fit.spread(&theta, first, factor, anchored.map(|(c, _)| c));

    let var_to_err = |var: f64| if var.is_finite() { Z95 * ELO_PER_NAT * var.max(0.0).sqrt() } else { f64::INFINITY };
    for (k, &bot) in active.iter().enumerate() {
        let (origin, var) = match anchored {
            Some((c, v)) => {
                let var = spread.as_ref().map_or(f64::INFINITY, |s| {
                    let column = s.column.as_ref().expect("asked for the anchor's column");
                    s.diag[k] + s.diag[c] - 2.0 * column[k]
                });
                if k == c {
                    out[bot] = Rating { elo: v, err95: 0.0 };
                    continue;
                }
                (theta[c] - v / ELO_PER_NAT, var)
            }
            None => {
                let mean = theta.iter().sum::<f64>() / m as f64;
                let var = spread
                    .as_ref()
                    .map_or(f64::INFINITY, |s| s.diag[k] - 2.0 * s.rows[k] / m as f64 + s.all / (m * m) as f64);
                (mean, var)
            }
        };
        out[bot] = Rating { elo: unsigned_zero((theta[k] - origin) * ELO_PER_NAT), err95: var_to_err(var) };
    }
    out
}

/// What the error bars need of the covariance of θ (m × m, the held parameter's row and
/// column zero): its diagonal, its row sums and their sum, and one column (the anchor's).
struct Spread {
    diag: Vec<f64>,
    rows: Vec<f64>,
    all: f64,
    column: Option<Vec<f64>>,
}

/// Whether every node reaches every other along `edge(a, b)`.
fn strongly_connected(m: usize, edge: impl Fn(usize, usize) -> bool) -> bool {
    let reaches_all = |forward: bool| {
        let mut seen = vec![false; m];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(a) = stack.pop() {
            for (b, seen_b) in seen.iter_mut().enumerate() {
                let linked = if forward { edge(a, b) } else { edge(b, a) };
                if linked && !*seen_b {
                    *seen_b = true;
                    stack.push(b);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    reaches_all(true) && reaches_all(false)
}

/// ln(1 / (1 + e^(−x))) without overflow.
fn ln_sigmoid(x: f64) -> f64 {
    -(x.max(0.0) - x + (-x.abs()).exp().ln_1p())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The Bradley–Terry log-likelihood in natural-log strengths θ (rating = θ × 400 / ln 10).
struct BtFit {
    m: usize,
    /// Points of a against b, row-major.
    points: Vec<f64>,
    /// Games between a and b, symmetric.
    games: Vec<f64>,
    /// One virtual draw per bot against a fixed player with θ = 0.
    prior: bool,
}

impl BtFit {
    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let m = self.m;
        let mut ll = 0.0;
        for a in 0..m {
            for b in 0..m {
                if self.points[a * m + b] > 0.0 {
                    ll += self.points[a * m + b] * ln_sigmoid(theta[a] - theta[b]);
                }
            }
            if self.prior {
                ll += 0.5 * (ln_sigmoid(theta[a]) + ln_sigmoid(-theta[a]));
            }
        }
        ll
    }

    /// Gradient and Fisher information (minus the Hessian) of the log-likelihood over the
    /// parameters `first..m`, row-major.
    fn derivatives(&self, theta: &[f64], first: usize) -> (Vec<f64>, Vec<f64>) {
        let m = self.m;
        let k = m - first;
        let mut grad = vec![0.0; k];
        let mut info = vec![0.0; k * k];
        let mut add_info = |a: usize, b: usize, v: f64| {
            if a >= first && b >= first {
                info[(a - first) * k + (b - first)] += v;
            }
        };
        for a in 0..m {
            for b in 0..m {
                let n = self.games[a * m + b];
                if a == b || n == 0.0 {
                    continue;
                }
                let p = sigmoid(theta[a] - theta[b]);
                if a >= first {
                    grad[a - first] += self.points[a * m + b] - n * p;
                }
                add_info(a, a, n * p * (1.0 - p));
                add_info(a, b, -n * p * (1.0 - p));
            }
            if self.prior {
                let p = sigmoid(theta[a]);
                if a >= first {
                    grad[a - first] += 0.5 - p;
                }
                add_info(a, a, p * (1.0 - p));
            }
        }
        (grad, info)
    }

    /// Newton's method with step halving; the log-likelihood is concave, and strictly so in the
    /// free parameters once the data are strongly connected or the prior is on.
    ///
    /// Returns θ and, when it converged, the Cholesky factor of the information of its last
    /// step (taken at θ less that last step, under 10⁻¹¹: the same information to about
    /// 10⁻¹¹, so the error bars need not factor it again).
    fn maximise(&self, first: usize) -> (Vec<f64>, Option<Vec<f64>>) {
        let mut theta = vec![0.0; self.m];
        // The log-likelihood at θ, known from the step that reached it.
        let mut current = self.log_likelihood(&theta);
        for _ in 0..200 {
            let (grad, info) = self.derivatives(&theta, first);
            let Some(l) = cholesky(&info, grad.len()) else {
                break;
            };
            let step = cholesky_solve(&l, &grad);
            let mut scale = 1.0;
            let mut trial = theta.clone();
            let mut reached = current;
            while scale > 1e-12 {
                for (i, s) in step.iter().enumerate() {
                    trial[first + i] = theta[first + i] + scale * s;
                }
                reached = self.log_likelihood(&trial);
                if reached >= current - 1e-12 * current.abs() {
                    break;
                }
                scale *= 0.5;
            }
            theta = trial;
            current = reached;
            if step.iter().all(|s| (scale * s).abs() < 1e-11) {
                return (theta, Some(l));
            }
        }
        (theta, None)
    }

    /// The [`Spread`] of θ's covariance (the inverse information over the free parameters
    /// `first..m`), from the information's Cholesky factor `factor` (made here when `None`);
    /// `column`: the covariance column wanted too. `None` when the information is not
    /// positive definite.
    fn spread(&self, theta: &[f64], first: usize, factor: Option<Vec<f64>>, column: Option<usize>) -> Option<Spread> {
        let m = self.m;
        let k = m - first;
        let l = match factor {
            Some(l) => l,
            None => cholesky(&self.derivatives(theta, first).1, k)?,
        };
        // The inverse information is (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹: its diagonal is the squared norms
        // of L⁻¹'s columns. Row j of `inv_t` is column j of L⁻¹ (lower triangular: zero
        // above row j), so the steps read memory in order.
        let mut diag = vec![0.0; m];
        let mut x = vec![0.0; k];
        for j in 0..k {
            x[j] = 1.0 / l[j * k + j];
            for i in j + 1..k {
                x[i] = -dot(&l[i * k + j..i * k + i], &x[j..i]) / l[i * k + i];
            }
            diag[first + j] = dot(&x[j..], &x[j..]);
        }
        // Row sums: the covariance times ones, a solve with the factor.
        let mut rows = vec![0.0; m];
        rows[first..].copy_from_slice(&cholesky_solve(&l, &vec![1.0; k]));
        let all = rows.iter().sum();
        let column = column.map(|c| {
            let mut col = vec![0.0; m];
            if c >= first {
                let mut unit = vec![0.0; k];
                unit[c - first] = 1.0;
                col[first..].copy_from_slice(&cholesky_solve(&l, &unit));
            }
            col
        });
        Some(Spread { diag, rows, all, column })
    }

    /// Covariance of θ (row-major m × m) from the inverse information, with the held parameter's
    /// row and column zero: right for every rating difference. (The fit needs only its
    /// [`Spread`]; this whole matrix checks it.)
    #[cfg(test)]
    fn covariance(&self, theta: &[f64], first: usize) -> Option<Vec<f64>> {
        let m = self.m;
        let k = m - first;
        let (_, info) = self.derivatives(theta, first);
        let l = cholesky(&info, k)?;
        // The inverse information is (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹. Row j of `inv_t` is column j of L⁻¹
        // (lower triangular: zero above row j), so both steps read memory in order.
        let mut inv_t = vec![0.0; k * k];
        for j in 0..k {
            let x = &mut inv_t[j * k..(j + 1) * k];
            x[j] = 1.0 / l[j * k + j];
            for i in j + 1..k {
                x[i] = -dot(&l[i * k + j..i * k + i], &x[j..i]) / l[i * k + i];
            }
        }
        let mut cov = vec![0.0; m * m];
        for a in 0..k {
            for b in 0..=a {
                // Column a of L⁻¹ is zero above row a (≥ b): the sum starts at row a.
                let v = dot(&inv_t[a * k + a..(a + 1) * k], &inv_t[b * k + a..(b + 1) * k]);
                cov[(first + a) * m + first + b] = v;
                cov[(first + b) * m + first + a] = v;
            }
        }
        Some(cov)
    }
}

/// The dot product of two slices of one length, summed in eight lanes (which the compiler
/// vectorises; a single running sum cannot be reordered, and waits on each addition).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut lanes = [0.0; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        let (x, y): (&[f64; 8], &[f64; 8]) = (x.try_into().expect("8"), y.try_into().expect("8"));
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let quads = [lanes[0] + lanes[4], lanes[1] + lanes[5], lanes[2] + lanes[6], lanes[3] + lanes[7]];
    (quads[0] + quads[2]) + (quads[1] + quads[3]) + tail
}

/// Lower Cholesky factor (row-major) of a symmetric positive definite k × k matrix, if it is one.
fn cholesky(a: &[f64], k: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let s = a[i * k + j] - dot(&l[i * k..i * k + j], &l[j * k..j * k + j]);
            if i == j {
                if !(s > 0.0 && s.is_finite()) {
                    return None;
                }
                l[i * k + i] = s.sqrt();
            } else {
                l[i * k + j] = s / l[j * k + j];
            }
        }
    }
    Some(l)
}

/// Solves L Lᵀ x = b for the factor of [`cholesky`].
fn cholesky_solve(l: &[f64], b: &[f64]) -> Vec<f64> {
    let k = b.len();
    let mut y = vec![0.0; k];
    for i in 0..k {
        y[i] = (b[i] - dot(&l[i * k..i * k + i], &y[..i])) / l[i * k + i];
    }
    let mut x = vec![0.0; k];
    for i in (0..k).rev() {
        x[i] = (y[i] - (i + 1..k).map(|p| l[p * k + i] * x[p]).sum::<f64>()) / l[i * k + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five bots with uneven games, with the prior: the fit both covariance tests use.
    fn five_bot_fit() -> BtFit {
        let m = 5;
        let mut fit = BtFit { m, points: vec![0.0; m * m], games: vec![0.0; m * m], prior: true };
        for (a, b, n, won) in [(0, 1, 7.0, 4.0), (1, 2, 3.0, 1.0), (2, 3, 9.0, 8.5), (3, 4, 2.0, 0.5), (0, 4, 5.0, 3.0)]
        {
            fit.points[a * m + b] = won;
            fit.points[b * m + a] = n - won;
            fit.games[a * m + b] = n;
            fit.games[b * m + a] = n;
        }
        fit
    }

    #[test]
    fn the_covariance_is_the_inverse_information() {
        // Five bots, uneven games: the covariance (from the inverted factor) times the
        // information is the identity over the free parameters.
        let fit = five_bot_fit();
        let m = fit.m;
        let theta = [0.3, -0.1, 0.2, 0.0, -0.4];
        for first in [0, 1] {
            let k = m - first;
            let cov = fit.covariance(&theta, first).unwrap();
            let (_, info) = fit.derivatives(&theta, first);
            for i in 0..k {
                for j in 0..k {
                    let v: f64 = (0..k).map(|p| cov[(first + i) * m + first + p] * info[p * k + j]).sum();
                    close(v, if i == j { 1.0 } else { 0.0 }, 1e-12);
                }
            }
        }
    }

    #[test]
    fn the_spread_is_the_full_covariances() {
        // Its diagonal, row sums and a column, from the factor the fit kept or made anew, are
        // those of the whole inverse information.
        let fit = five_bot_fit();
        let m = fit.m;
        for first in [0, 1] {
            let (theta, factor) = fit.maximise(first);
            assert!(factor.is_some(), "converged");
            let cov = fit.covariance(&theta, first).unwrap();
            for (given, c) in [(factor, 3), (None, 0)] {
                let s = fit.spread(&theta, first, given, Some(c)).unwrap();
                let column = s.column.as_ref().unwrap();
                for a in 0..m {
                    close(s.diag[a], cov[a * m + a], 1e-9);
                    close(s.rows[a], cov[a * m..(a + 1) * m].iter().sum(), 1e-9);
                    close(column[a], cov[a * m + c], 1e-9);
                }
                close(s.all, cov.iter().sum(), 1e-9);
            }
        }
    }

    #[test]
    fn tallies_rate_as_the_games_listed_one_by_one() {
        // Four bots, uneven pairings with draws, both colours: the same ratings to the bit.
        let mut games = Vec::new();
        let mut tallies: Vec<(usize, usize, f64, f64)> = Vec::new();
        for (i, j, w, d, l) in [(0, 1, 5, 2, 1), (1, 0, 1, 0, 3), (1, 2, 2, 2, 2), (2, 3, 0, 1, 4), (3, 0, 2, 0, 1)] {
            for (s, n) in [(1.0, w), (0.5, d), (0.0, l)] {
                games.extend(std::iter::repeat_n((i, j, s), n));
            }
            tallies.push((i, j, w as f64 + 0.5 * d as f64, (w + d + l) as f64));
        }
        for anchor in [None, Some((2, 100.0))] {
            assert_eq!(bradley_terry(4, &games, anchor), bradley_terry_tallies(4, &tallies, anchor));
        }
        // Bad tallies are skipped; points are clamped to the games.
        let mut bad = tallies.clone();
        bad.extend([(0, 0, 1.0, 1.0), (9, 1, 1.0, 1.0), (0, 1, f64::NAN, 1.0), (0, 1, 0.0, 0.0)]);
        assert_eq!(bradley_terry_tallies(4, &bad, None), bradley_terry_tallies(4, &tallies, None));
        let over = bradley_terry_tallies(2, &[(0, 1, 7.0, 3.0)], None);
        assert_eq!(over, bradley_terry(2, &[(0, 1, 1.0); 3], None));
    }

    fn close(actual: f64, expected: f64, tol: f64) {
        assert!((actual - expected).abs() <= tol, "{actual} is not within {tol} of {expected}");
    }

    #[test]
    fn elo_matches_hand_computed_values() {
        let e = elo(60, 20, 20).unwrap();
        close(e.score, 0.7, 1e-12);
        close(e.elo, 147.19, 0.01);
        // s ± 1.96 √(0.16 / 100): [0.6216, 0.7784] → [+86.2, +218.3].
        close(e.elo_low, 86.23, 0.01);
        close(e.elo_high, 218.25, 0.01);
        // Normal LOS: ½ (1 + erf(0.2 / (√2 × 0.04))).
        close(e.los, 0.999_999_7, 2e-7);
        // Draw-free LOS for 60 wins against 20 losses: ½ (1 + erf(40 / √160)).
        close(los(60, 20), 0.999_996_1, 1e-6);
        let even = elo(10, 0, 10).unwrap();
        assert_eq!(even.elo.to_bits(), 0.0f64.to_bits(), "no -0");
        close(even.los, 0.5, 1e-9);
        assert_eq!(elo(5, 0, 0).unwrap().elo, f64::INFINITY);
        assert!(elo(0, 0, 0).is_none());
        close(erf(1.0), 0.842_700_79, 2e-7);
        close(los(0, 0), 0.5, 0.0);
        close(draw_ratio(3, 2, 5), 0.2, 1e-12);
        close(draw_ratio(0, 0, 0), 0.0, 0.0);
    }

    #[test]
    fn trinomial_matches_fastchess_vectors() {
        // fastchess app/tests/elo_test.cpp "EloWDL 2": W 136, L 96, D 111.
        let e = elo(136, 111, 96).unwrap();
        close(e.elo, 40.70, 0.01);
        close(e.err95(), 30.43, 0.01);
        close(e.los, 0.9960, 0.00005);
        let n = nelo_estimate(136, 111, 96).unwrap();
        close(n.nelo, 49.77, 0.01);
        close(n.err95, 36.77, 0.01);
        assert_eq!(nelo(136, 111, 96), Some(n.nelo));
        // "EloWDL 1": W 76, L 89, D 123; "EloWDL 3": W 34, L 356, D 0.
        close(nelo(76, 123, 89).unwrap(), -20.76, 0.01);
        close(nelo_estimate(76, 123, 89).unwrap().err95, 40.13, 0.01);
        close(elo(76, 123, 89).unwrap().los, 0.1553, 0.00005);
        close(nelo(34, 0, 356).unwrap(), -508.44, 0.01);
        close(nelo_estimate(34, 0, 356).unwrap().err95, 34.48, 0.01);
    }

    #[test]
    fn nelo_is_undefined_without_spread() {
        assert_eq!(nelo(0, 0, 0), None);
        assert_eq!(nelo(0, 7, 0), None);
        assert_eq!(nelo(7, 0, 0), None);
        assert_eq!(nelo(5, 0, 5).unwrap().to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn degenerate_samples_get_exact_bounds() {
        // 10 wins: the win chance p has p^10 ≥ 0.05, so s ≥ 0.7411 → +182.7.
        let e = elo(10, 0, 0).unwrap();
        close(e.elo_low, 182.729, 0.001);
        assert_eq!(e.elo_high, f64::INFINITY);
        close(e.los, 0.999_217_3, 1e-6);
        let e = elo(0, 0, 3).unwrap();
        // 3 losses: the loss chance is at least 0.05^(1/3) = 0.3684, so s ≤ 0.6316 → +93.6.
        close(e.elo_high, 93.647, 0.001);
        assert_eq!(e.elo_low, f64::NEG_INFINITY);
        // 100 draws: a decisive game has chance ≤ 1 − 0.05^(1/100) = 0.0295, so |s − ½| ≤ 0.0148.
        let e = elo(0, 100, 0).unwrap();
        close(e.elo, 0.0, 0.0);
        close(e.elo_high, 10.26, 0.01);
        close(e.elo_low, -10.26, 0.01);
        close(e.los, 0.5, 0.0);
    }

    #[test]
    fn json_writes_infinities_as_null() {
        let json = serde_json::to_string(&elo(4, 0, 0).unwrap()).unwrap();
        assert!(json.contains("\"elo\":null") && json.contains("\"elo_high\":null"), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        close(back["elo_low"].as_f64().unwrap(), elo_of(0.05f64.powf(0.25)), 1e-9);
        let rating = serde_json::to_string(&Rating { elo: 0.0, err95: f64::INFINITY }).unwrap();
        assert_eq!(rating, r#"{"elo":0.0,"err95":null}"#);
    }

    #[test]
    fn describe_covers_every_case() {
        assert_eq!(describe_elo(136, 111, 96), "+40.7 ± 30.4 [+10.6, +71.4] (95 %), LOS 99.6 %");
        assert_eq!(describe_elo(96, 111, 136), "-40.7 ± 30.4 [-71.4, -10.6] (95 %), LOS 0.4 %");
        assert_eq!(describe_elo(0, 0, 0), "no games");
        assert_eq!(describe_elo(0, 12, 0), "no decisive game (12 draws)");
        assert_eq!(describe_elo(0, 1, 0), "no decisive game (1 draw)");
        assert_eq!(describe_elo(10, 0, 0), "> +182.7 (95 %), every game won");
        assert_eq!(describe_elo(0, 0, 10), "< -182.7 (95 %), every game lost");
        assert_eq!(describe_elo(0, 0, 3), "< +93.6 (95 %), every game lost");
        // A win and a draw: s = 0.75 ± 0.245, the interval reaches a score of 1.
        assert_eq!(describe_elo(1, 1, 0), "+190.8 [-67.9, no upper bound] (95 %), LOS 92.1 %");
        assert_eq!(describe_elo(0, 1, 1), "-190.8 [no lower bound, +67.9] (95 %), LOS 7.9 %");
        assert_eq!(describe_elo(1, 0, 1), "0.0 (too few games for a 95 % interval), LOS 50.0 %");
        // Even score: zero prints without a sign, never as -0.0.
        assert_eq!(describe_elo(50, 0, 50), "0.0 ± 69.0 [-69.0, +69.0] (95 %), LOS 50.0 %");
        for (w, d, l) in [(0, 0, 0), (3, 0, 0), (0, 3, 0), (0, 0, 3), (1, 0, 0), (2, 5, 2), (1, 1000, 0)] {
            let text = describe_elo(w, d, l);
            for bad in ["-0.0 ", "inf", "NaN", "—"] {
                assert!(!text.contains(bad), "{text}");
            }
        }
        assert_eq!(fmt_elo(-0.04), "0.0");
        assert_eq!(fmt_elo(f64::NAN), "—");
    }

    #[test]
    fn pentanomial_counts_pairs() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 1.0);
        p.add_pair(1.0, 0.5);
        p.add_pair(1.0, 0.0);
        p.add_pair(0.5, 0.5);
        p.add_pair(0.0, 0.5);
        p.add_pair(0.0, 0.0);
        p.add(f64::NAN);
        p.add(7.0);
        assert_eq!(p, Pentanomial { ll: 1, ld: 1, wl_dd: 2, wd: 1, ww: 2 });
        assert_eq!(p.pairs(), 7);
        assert_eq!(p.counts(), [1, 1, 2, 1, 2]);
    }

    #[test]
    fn pentanomial_matches_fastchess_vectors() {
        // fastchess app/tests/elo_test.cpp, Stats(LL, LD, WL, DD, WD, WW).
        let p = Pentanomial { ll: 34, ld: 54, wl_dd: 31 + 32, wd: 64, ww: 75 };
        let e = pentanomial_elo(&p).unwrap();
        let n = pentanomial_nelo(&p).unwrap();
        close(e.elo, 55.58, 0.01);
        close(e.err95(), 27.65, 0.01);
        close(n.nelo, 57.94, 0.01);
        close(n.err95, 28.28, 0.01);
        assert!(e.los > 0.99995, "prints as 100.00 %: {}", e.los);

        let p = Pentanomial { ll: 332, ld: 433, wl_dd: 457 + 41, wd: 333, ww: 334 };
        let e = pentanomial_elo(&p).unwrap();
        let n = pentanomial_nelo(&p).unwrap();
        close(e.elo, -8.64, 0.01);
        close(e.err95(), 10.33, 0.01);
        close(n.nelo, -9.17, 0.01);
        close(n.err95, 10.96, 0.01);
        close(e.los, 0.0505, 0.00005);

        let p = Pentanomial { ll: 7895, ld: 8757, wl_dd: 5485 + 200, wd: 568, ww: 9999 };
        let e = pentanomial_elo(&p).unwrap();
        let n = pentanomial_nelo(&p).unwrap();
        close(e.elo, -21.04, 0.01);
        close(e.err95(), 2.95, 0.01);
        close(n.nelo, -19.01, 0.01);
        close(n.err95, 2.65, 0.01);
    }

    #[test]
    fn pentanomial_degenerate_cases() {
        assert_eq!(pentanomial_elo(&Pentanomial::default()), None);
        assert_eq!(pentanomial_nelo(&Pentanomial::default()), None);
        assert_eq!(describe_pentanomial(&Pentanomial::default()), "no game pairs");
        let even = Pentanomial { wl_dd: 9, ..Pentanomial::default() };
        assert_eq!(describe_pentanomial(&even), "no decisive pair (9 pairs at 1–1)");
        assert_eq!(pentanomial_nelo(&even), None);
        let won = Pentanomial { ww: 10, ..Pentanomial::default() };
        assert_eq!(describe_pentanomial(&won), "> +182.7 (95 %), every pair won 2–0");
        let lost = Pentanomial { ll: 10, ..Pentanomial::default() };
        assert_eq!(describe_pentanomial(&lost), "< -182.7 (95 %), every pair lost 0–2");
        // Every pair 1½–½: s = 0.75 exactly, bounds [0.75 q, 1 − 0.25 q] with q = 0.05^(1/20).
        let wd = Pentanomial { wd: 20, ..Pentanomial::default() };
        let e = pentanomial_elo(&wd).unwrap();
        let q = 0.05f64.powf(1.0 / 20.0);
        close(e.elo, 190.85, 0.01);
        close(e.elo_low, elo_of(0.75 * q), 1e-9);
        close(e.elo_high, elo_of(1.0 - 0.25 * q), 1e-9);
        let p = Pentanomial { ll: 1, ld: 2, wl_dd: 10, wd: 4, ww: 3 };
        assert_eq!(describe_pentanomial(&p), "+52.5 ± 79.7 [-24.4, +135.0] (95 %), LOS 90.9 %");
    }

    fn sprt(elo0: f64, elo1: f64, model: EloModel) -> Sprt {
        Sprt { elo0, elo1, alpha: 0.05, beta: 0.05, model }
    }

    #[test]
    fn sprt_bounds_and_verdicts() {
        let s = sprt(0.0, 2.0, EloModel::Normalized);
        let (lower, upper) = s.bounds();
        close(lower, -2.944, 0.001);
        close(upper, 2.944, 0.001);
        let (lower, upper) = Sprt { alpha: 0.1, beta: 0.2, ..s }.bounds();
        close(lower, (0.2f64 / 0.9).ln(), 1e-12);
        close(upper, (0.8f64 / 0.1).ln(), 1e-12);
        assert_eq!(s.verdict(3.0), Some(Hypothesis::H1));
        assert_eq!(s.verdict(-3.0), Some(Hypothesis::H0));
        assert_eq!(s.verdict(2.9), None);
        assert_eq!(s.check(), Ok(()));
        assert!(Sprt { elo1: -1.0, ..s }.check().is_err());
        assert!(Sprt { alpha: 0.0, ..s }.check().is_err());
        assert!(Sprt { alpha: 0.6, beta: 0.5, ..s }.check().is_err());
        assert_eq!(serde_json::to_string(&EloModel::Normalized).unwrap(), "\"normalized\"");
        assert_eq!(serde_json::to_string(&EloModel::Logistic).unwrap(), "\"logistic\"");
        assert_eq!(serde_json::to_string(&Hypothesis::H1).unwrap(), "\"H1\"");
    }

    #[test]
    fn sprt_matches_fastchess_vectors() {
        // fastchess app/tests/sprt_test.cpp; Stats(W, L, D) and Stats(LL, LD, WL, DD, WD, WW).
        use EloModel::{Logistic, Normalized};
        let penta = |ll, ld, wl: u32, dd, wd, ww| Pentanomial { ll, ld, wl_dd: wl + dd, wd, ww };
        close(sprt(0.0, 2.0, Normalized).llr_pentanomial(&penta(365, 16618, 36029, 200, 16974, 390)), 2.25, 0.01);
        close(sprt(-1.75, 0.25, Normalized).llr_pentanomial(&penta(127, 4883, 10311, 401, 5150, 104)), 3.01, 0.01);
        // Extreme samples: the answer rests on the 1e-3 stand-ins for the empty cells.
        close(sprt(0.0, 5.0, Normalized).llr_pentanomial(&penta(0, 0, 0, 0, 0, 5550)), 111.82, 0.05);
        close(sprt(0.0, 10.0, Normalized).llr_trinomial(4250, 0, 0), 120.56, 0.05);
        close(sprt(0.5, 2.5, Logistic).llr_pentanomial(&penta(223, 9863, 20279, 1000, 10037, 246)), -3.07, 0.01);
        close(sprt(0.0, 2.0, Logistic).llr_pentanomial(&penta(871, 26175, 55003, 980, 26678, 821)), -4.98, 0.01);
        close(sprt(0.0, 2.0, Normalized).llr_trinomial(36433, 68692, 36027), 0.92, 0.01);
        close(sprt(-1.75, 0.25, Normalized).llr_trinomial(10871, 20431, 10650), 2.30, 0.01);
        close(sprt(0.5, 2.5, Logistic).llr_trinomial(21404, 40708, 21184), -1.57, 0.01);
        close(sprt(0.0, 2.0, Logistic).llr_trinomial(57433, 106593, 57030), -2.59, 0.01);
    }

    #[test]
    fn sprt_without_information_is_zero() {
        for model in [EloModel::Normalized, EloModel::Logistic] {
            let s = sprt(0.0, 5.0, model);
            assert_eq!(s.llr_trinomial(0, 0, 0), 0.0);
            assert_eq!(s.llr_trinomial(0, 16700, 0), 0.0);
            assert_eq!(s.llr_pentanomial(&Pentanomial::default()), 0.0);
            assert_eq!(s.llr_pentanomial(&Pentanomial { wl_dd: 500, ..Pentanomial::default() }), 0.0);
            // An even sample favours H0 (0 Elo) over H1 (5 Elo).
            assert!(s.llr_trinomial(300, 400, 300) < 0.0);
        }
    }

    #[test]
    fn sprt_decides_clear_samples() {
        for model in [EloModel::Normalized, EloModel::Logistic] {
            let s = sprt(0.0, 10.0, model);
            let better = s.llr_trinomial(1400, 1200, 1000);
            let worse = s.llr_trinomial(1000, 1200, 1400);
            assert_eq!(s.verdict(better), Some(Hypothesis::H1), "{model:?} {better}");
            assert_eq!(s.verdict(worse), Some(Hypothesis::H0), "{model:?} {worse}");
            let better = s.llr_pentanomial(&Pentanomial { ll: 100, ld: 300, wl_dd: 600, wd: 450, ww: 150 });
            let worse = s.llr_pentanomial(&Pentanomial { ll: 150, ld: 450, wl_dd: 600, wd: 300, ww: 100 });
            assert_eq!(s.verdict(better), Some(Hypothesis::H1), "{model:?} {better}");
            assert_eq!(s.verdict(worse), Some(Hypothesis::H0), "{model:?} {worse}");
            // A few games stay undecided.
            assert_eq!(s.verdict(s.llr_trinomial(3, 2, 1)), None);
            for llr in [better, worse, s.llr_trinomial(5, 0, 0), s.llr_trinomial(0, 0, 5)] {
                assert!(llr.is_finite());
            }
        }
    }

    /// Largest log-likelihood of 60 W / 20 D / 20 L over trinomial distributions with p_W − p_L = d
    /// and p_W + p_L = q, where `d_of_q` ties d to q (the hypothesis), by a dense grid over q.
    fn profile_log_likelihood(d_of_q: impl Fn(f64) -> f64) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for step in 1..400_000 {
            let q = step as f64 / 400_000.0;
            let d = d_of_q(q);
            let (w, l) = ((q + d) / 2.0, (q - d) / 2.0);
            if w > 0.0 && l > 0.0 {
                best = best.max(60.0 * w.ln() + 20.0 * (1.0 - q).ln() + 20.0 * l.ln());
            }
        }
        best
    }

    #[test]
    fn sprt_llr_matches_a_brute_force_profile_likelihood() {
        // Mean score s = ½ + d/2, so the logistic hypothesis fixes d = 2 s − 1.
        let logistic = sprt(0.0, 100.0, EloModel::Logistic);
        let expected = profile_log_likelihood(|_| 2.0 * score_of(100.0) - 1.0) - profile_log_likelihood(|_| 0.0);
        close(logistic.llr_trinomial(60, 20, 20), expected, 1e-3);
        // σ = √(q − d²) / 2, so t = (s − ½) / σ = d / √(q − d²) gives d = t √(q / (1 + t²)).
        let normalized = sprt(-20.0, 60.0, EloModel::Normalized);
        let d_for = |nelo: f64| {
            let t = nelo / NELO_PER_T;
            move |q: f64| t * (q / (1.0 + t * t)).sqrt()
        };
        let expected = profile_log_likelihood(d_for(60.0)) - profile_log_likelihood(d_for(-20.0));
        close(normalized.llr_trinomial(60, 20, 20), expected, 1e-3);
    }

    #[test]
    fn bradley_terry_two_bots() {
        // 75 % for bot 0: 400 log10(3) = 190.85 apart, centred on 0.
        let mut games = Vec::new();
        for k in 0..100 {
            games.push(if k % 4 == 0 { (0, 1, 0.0) } else { (0, 1, 1.0) });
        }
        let r = bradley_terry(2, &games, None);
        close(r[0].elo - r[1].elo, 190.85, 0.01);
        close(r[0].elo + r[1].elo, 0.0, 1e-9);
        // One difference from 100 binary games: se = 1 / √(100 × 0.75 × 0.25) in ln units, halved
        // for each centred rating.
        let se = 1.0 / (100.0f64 * 0.75 * 0.25).sqrt() * ELO_PER_NAT;
        close(r[0].err95, Z95 * se / 2.0, 1e-6);
        close(r[1].err95, Z95 * se / 2.0, 1e-6);
        // The same with draws as half points: 50 wins, 50 draws = 75 %.
        let games: Vec<_> = (0..100).map(|k| (1, 0, if k % 2 == 0 { 0.0 } else { 0.5 })).collect();
        let r = bradley_terry(2, &games, None);
        close(r[0].elo - r[1].elo, 190.85, 0.01);
    }

    #[test]
    fn bradley_terry_three_bots_transitive() {
        // A beats B 2:1, B beats C 2:1, A beats C 4:1, 30 games a pairing: strengths 4 : 2 : 1 fit
        // every pairing exactly, so the ratings are +120.4, 0, -120.4 (400 log10 2 apart).
        let mut games = Vec::new();
        for k in 0..30 {
            games.push((0, 1, if k % 3 == 0 { 0.0 } else { 1.0 }));
            games.push((1, 2, if k % 3 == 0 { 0.0 } else { 1.0 }));
            games.push((0, 2, if k % 5 == 0 { 0.0 } else { 1.0 }));
        }
        let r = bradley_terry(3, &games, None);
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
        close(r.iter().map(|x| x.elo).sum::<f64>(), 0.0, 1e-9);
        // Score equations of the MLE: each bot's expected points equal its actual points.
        let theta: Vec<f64> = r.iter().map(|x| x.elo / ELO_PER_NAT).collect();
        let expected =
            |a: usize| -> f64 { (0..3).filter(|&b| b != a).map(|b| 30.0 * sigmoid(theta[a] - theta[b])).sum() };
        close(expected(0), 20.0 + 24.0, 1e-6);
        close(expected(1), 10.0 + 20.0, 1e-6);
        close(expected(2), 10.0 + 6.0, 1e-6);
        let step = 400.0 * 2f64.log10();
        close(r[0].elo, step, 1e-6);
        close(r[1].elo, 0.0, 1e-6);
        close(r[2].elo, -step, 1e-6);
        assert!(r.iter().all(|x| x.err95 > 30.0 && x.err95 < 120.0), "{r:?}");
    }

    #[test]
    fn bradley_terry_ignores_game_order_and_honours_the_anchor() {
        let mut games = vec![(0, 1, 1.0), (1, 2, 0.5), (2, 0, 0.0), (0, 2, 0.5), (1, 0, 1.0), (2, 1, 1.0), (0, 1, 1.0)];
        let a = bradley_terry(3, &games, None);
        games.reverse();
        games.swap(1, 4);
        let b = bradley_terry(3, &games, None);
        for (x, y) in a.iter().zip(&b) {
            close(x.elo, y.elo, 1e-9);
            close(x.err95, y.err95, 1e-9);
        }
        let anchored = bradley_terry(3, &games, Some((2, 1500.0)));
        close(anchored[2].elo, 1500.0, 1e-9);
        close(anchored[2].err95, 0.0, 0.0);
        for k in 0..3 {
            close(anchored[k].elo - anchored[2].elo, a[k].elo - a[2].elo, 1e-9);
        }
        // Relative to a fixed bot the other ratings are less certain than relative to the mean.
        assert!(anchored[0].err95 > a[0].err95);
        // An anchor out of range is ignored.
        assert_eq!(bradley_terry(3, &games, Some((9, 1500.0))), a);
    }

    #[test]
    fn bradley_terry_degenerate_data() {
        // All draws: everyone 0.
        let draws: Vec<_> = (0..12).map(|k| (k % 3, (k + 1) % 3, 0.5)).collect();
        for r in bradley_terry(3, &draws, None) {
            assert_eq!(r.elo.to_bits(), 0.0f64.to_bits());
            assert!(r.err95.is_finite() && r.err95 > 0.0);
        }
        // Bot 0 wins all 10 of its games against two bots that drew each other 10 times: without
        // the prior its rating would be infinite. Values from a Zermelo iteration with the prior.
        let mut games: Vec<_> = (0..10).map(|k| (0, 1 + k % 2, 1.0)).collect();
        games.extend((0..10).map(|_| (1, 2, 0.5)));
        let r = bradley_terry(3, &games, None);
        assert!(r.iter().all(|x| x.err95.is_finite() && x.err95 > 0.0), "{r:?}");
        close(r[0].elo, 365.639, 0.001);
        close(r[1].elo, -182.820, 0.001);
        close(r[2].elo, -182.820, 0.001);
        // Two bots, 10–0: 580.5 apart. One game: θ = −θ₁ solves 1½ = σ(2θ) + σ(θ), θ = 131.38 Elo.
        let r = bradley_terry(2, &vec![(0, 1, 1.0); 10], None);
        close(r[0].elo - r[1].elo, 580.509, 0.001);
        let r = bradley_terry(2, &[(0, 1, 1.0)], None);
        close(r[0].elo, 131.384, 0.001);
        close(r[1].elo, -131.384, 0.001);
        // No games at all, and a bot without games among others.
        let none = bradley_terry(2, &[], Some((1, 100.0)));
        assert_eq!(none[0], Rating { elo: 0.0, err95: f64::INFINITY });
        assert_eq!(none[1], Rating { elo: 100.0, err95: f64::INFINITY });
        let r = bradley_terry(3, &[(0, 1, 1.0), (0, 1, 0.0), (0, 0, 1.0), (7, 1, 1.0)], None);
        assert_eq!(r[2], Rating { elo: 0.0, err95: f64::INFINITY });
        close(r[0].elo, 0.0, 1e-9);
        assert!(r[0].err95.is_finite());
    }
}
