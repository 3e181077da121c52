//! One side's setup, validated against a ruleset, and its text forms.

use std::fmt;

use crate::{Color, PieceCounts, Rank, Ruleset, Square};

/// One side's validated setup: which piece stands on which square at the start.
///
/// Two text forms, both accepted by [`Deployment::parse`]:
/// - rows: the setup area's ranks from the top rank down, one code per file
///   ([`Rank::code`]: `F S 2`–`9` `X B`, `.` for an empty square, `~` for a lake), separated
///   by `/`. Red's classic setup of 40 is four rows of ten.
/// - pairs: `square=code` separated by spaces, like `a1=F b1=B`.
///
/// ```
/// use stratego_rules::{Color, Deployment, Ruleset};
/// let rules = Ruleset::classic();
/// let rows = "B32222222S/6655554444/BX98877766/FB3B333B2B";
/// let d = Deployment::parse(&rules, Color::Red, rows).unwrap();
/// assert_eq!(d.to_rows(&rules), rows);
/// assert_eq!(d.rank_at("a1".parse().unwrap()), Some(stratego_rules::Rank::Flag));
/// let err = Deployment::parse(&rules, Color::Blue, "BBBBBBBBB2/2222222333/3344445555/666677789X").unwrap_err();
/// assert_eq!(err.to_string(), "Blue places 9 bombs; the ruleset allows 6");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Deployment {
    color: Color,
    /// Sorted by square.
    pieces: Vec<(Square, Rank)>,
}

/// Why a deployment is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeploymentError {
    /// A piece stands outside the side's setup area.
    #[error("square {square} is outside {color}'s setup area")]
    OutsideArea {
        /// The side deploying.
        color: Color,
        /// The offending square.
        square: Square,
    },
    /// Two pieces on one square.
    #[error("square {0} is given twice")]
    Duplicate(Square),
    /// A piece count differs from the ruleset's: more than it allows, or fewer than it
    /// requires (any shortfall with exact counts; a missing Flag always).
    #[error("{color} places {}; the ruleset {} {allowed}", placed_words(*rank, *placed, *allowed), if *placed > u32::from(*allowed) { "allows" } else { "requires" })]
    Count {
        /// The side deploying.
        color: Color,
        /// The piece kind.
        rank: Rank,
        /// How many the deployment places.
        placed: u32,
        /// How many the ruleset allows or requires.
        allowed: u16,
    },
    /// Nothing placed (checked before the counts, so an empty setup says so rather than
    /// naming the missing Flag).
    #[error("{0} places no piece")]
    Empty(Color),
    /// The text does not parse.
    #[error("{0}")]
    Syntax(String),
}

/// "3 scouts", or "no flag" / "no bombs" (in the number the ruleset asks for), which reads
/// as the mistake it is where "0 flags" reads like a count.
fn placed_words(rank: Rank, placed: u32, allowed: u16) -> String {
    if placed == 0 {
        format!("no {}", plural(rank, u32::from(allowed)))
    } else {
        format!("{placed} {}", plural(rank, placed))
    }
}

fn plural(rank: Rank, n: u32) -> String {
    match (rank, n) {
        (_, 1) => rank.name().to_owned(),
        (Rank::Spy, _) => "spies".to_owned(),
        _ => format!("{}s", rank.name()),
    }
}

impl Deployment {
    /// Validates a list of placements for `color`.
    ///
    /// With [`Ruleset::exact_counts`] the deployment places exactly the ruleset's army.
    /// Without it (free setups) it may place fewer of any kind but the Flag: every setup
    /// places exactly the ruleset's Flag, since a side without one could never lose by
    /// capture. A setup without a movable piece is accepted: that side simply loses at once
    /// for having no legal move.
    ///
    /// # Errors
    /// The first problem found: a square outside the setup area, a square given twice, no
    /// piece at all, then piece counts, too many of a kind before too few (each in the
    /// order Flag, Spy, … Marshal, Bomb).
    pub fn new(
        rules: &Ruleset,
        color: Color,
        pieces: impl IntoIterator<Item = (Square, Rank)>,
    ) -> Result<Deployment, DeploymentError> {
        Deployment::checked(rules, color, pieces, true)
    }

    /// [`Deployment::new`], with the Flag optional in free setups when `flag_required` is
    /// false: only for replaying Gravon's `classicfree` training games, one of which has a
    /// side without its Flag.
    pub(crate) fn checked(
        rules: &Ruleset,
        color: Color,
        pieces: impl IntoIterator<Item = (Square, Rank)>,
        flag_required: bool,
    ) -> Result<Deployment, DeploymentError> {
        let mut pieces: Vec<(Square, Rank)> = pieces.into_iter().collect();
        for &(sq, _) in &pieces {
            if !rules.in_setup_area(color, sq) {
                return Err(DeploymentError::OutsideArea { color, square: sq });
            }
        }
        pieces.sort_by_key(|&(sq, _)| sq);
        if let Some(w) = pieces.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(DeploymentError::Duplicate(w[0].0));
        }
        // Checked before the counts: "places no piece" says more than "places no flag" about
        // an empty answer.
        if pieces.is_empty() {
            return Err(DeploymentError::Empty(color));
        }
        let mut counts = PieceCounts::default();
        for &(_, r) in &pieces {
            counts[r] = counts[r].saturating_add(1);
        }
        let exact = rules.exact_counts();
        // Too many of a kind is reported before too few: it is the more specific mistake.
        for too_many in [true, false] {
            for r in Rank::ALL {
                let (placed, allowed) = (counts[r], rules.pieces()[r]);
                // A free setup may leave pieces out, but not its Flag.
                let must_place_all = exact || (flag_required && r == Rank::Flag);
                if (too_many && placed > allowed) || (!too_many && must_place_all && placed < allowed) {
                    return Err(DeploymentError::Count { color, rank: r, placed: u32::from(placed), allowed });
                }
            }
        }
        Ok(Deployment { color, pieces })
    }

    /// Parses either text form (see the type's docs) and validates it.
    ///
    /// # Errors
    /// A [`DeploymentError::Syntax`] that names the row, square or token, or any
    /// validation error of [`Deployment::new`].
    pub fn parse(rules: &Ruleset, color: Color, text: &str) -> Result<Deployment, DeploymentError> {
        let text = text.trim();
        if text.contains('=') {
            return Deployment::parse_pairs(rules, color, text);
        }
        let [lo, hi] = rules.spec().setup_ranks[color];
        let rows: Vec<&str> = text.split('/').map(str::trim).collect();
        let want = usize::from(hi - lo + 1);
        if rows.len() != want {
            return Err(DeploymentError::Syntax(format!(
                "{} rows given; {color}'s setup area has {want} (ranks {hi} down to {lo}, separated by '/')",
                rows.len()
            )));
        }
        let mut pieces = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let rank = hi - 1 - i as u8;
            let n = row.chars().count();
            if n != usize::from(rules.width()) {
                return Err(DeploymentError::Syntax(format!(
                    "row {} (rank {}) has {n} squares; the board is {} wide",
                    i + 1,
                    rank + 1,
                    rules.width()
                )));
            }
            for (file, c) in row.chars().enumerate() {
                let sq = Square::new(file as u8, rank).expect("within the board");
                match c {
                    '.' | '~' => {}
                    _ => {
                        let r = Rank::from_code(c).ok_or_else(|| {
                            DeploymentError::Syntax(format!(
                                "square {sq}: unknown piece code {c:?} (use F S 2-9 X B, or . for empty)"
                            ))
                        })?;
                        pieces.push((sq, r));
                    }
                }
            }
        }
        Deployment::new(rules, color, pieces)
    }

    fn parse_pairs(rules: &Ruleset, color: Color, text: &str) -> Result<Deployment, DeploymentError> {
        let mut pieces = Vec::new();
        for token in text.split_whitespace() {
            let (sq, code) = token
                .split_once('=')
                .ok_or_else(|| DeploymentError::Syntax(format!("{token:?} is not square=piece, like a1=F")))?;
            let sq: Square = sq.parse().map_err(|e: crate::ParseSquareError| DeploymentError::Syntax(e.to_string()))?;
            if !rules.on_board(sq) {
                return Err(DeploymentError::OutsideArea { color, square: sq });
            }
            let mut chars = code.chars();
            let r = match (chars.next(), chars.next()) {
                (Some(c), None) => Rank::from_code(c),
                _ => code.parse().ok(),
            }
            .ok_or_else(|| DeploymentError::Syntax(format!("square {sq}: unknown piece {code:?}")))?;
            pieces.push((sq, r));
        }
        Deployment::new(rules, color, pieces)
    }

    /// A uniformly random deployment of the ruleset's army (for free setups, the full
    /// allowed army, or where that does not fit, its first pieces in the order Flag, Spy, …
    /// Bomb) over `color`'s setup area, drawing from `rng` (any 64-bit generator).
    ///
    /// ```
    /// use stratego_rules::{Color, Deployment, Ruleset};
    /// let rules = Ruleset::classic();
    /// let mut state = 7u64;
    /// let mut rng = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
    /// let d = Deployment::random(&rules, Color::Blue, &mut rng);
    /// assert_eq!(d.pieces().len(), 40);
    /// ```
    pub fn random(rules: &Ruleset, color: Color, rng: &mut impl FnMut() -> u64) -> Deployment {
        let mut squares: Vec<Square> = rules.setup_squares(color).collect();
        for i in (1..squares.len()).rev() {
            let j = (rng() % (i as u64 + 1)) as usize;
            squares.swap(i, j);
        }
        // The army comes Flag first, so a free setup's area too small for all of it (the zip
        // stops at the last square) still gets the Flag every deployment must place.
        let army = rules.pieces().iter().flat_map(|(r, n)| std::iter::repeat_n(r, usize::from(n)));
        let pieces: Vec<(Square, Rank)> = squares.into_iter().zip(army).collect();
        Deployment::new(rules, color, pieces).expect("a shuffled army fits its setup area")
    }

    /// Placements taken as they are (positions built for analysis).
    pub(crate) fn unchecked(color: Color, mut pieces: Vec<(Square, Rank)>) -> Deployment {
        pieces.sort_by_key(|&(sq, _)| sq);
        Deployment { color, pieces }
    }

    /// The side deploying.
    pub fn color(&self) -> Color {
        self.color
    }

    /// `(square, rank)` for every piece, by square.
    pub fn pieces(&self) -> &[(Square, Rank)] {
        &self.pieces
    }

    /// The piece placed on `sq`, if any.
    pub fn rank_at(&self, sq: Square) -> Option<Rank> {
        self.pieces.binary_search_by_key(&sq, |&(s, _)| s).ok().map(|i| self.pieces[i].1)
    }

    /// The rows form.
    pub fn to_rows(&self, rules: &Ruleset) -> String {
        let [lo, hi] = rules.spec().setup_ranks[self.color];
        let mut out = String::new();
        for rank in (lo - 1..hi).rev() {
            if rank != hi - 1 {
                out.push('/');
            }
            for file in 0..rules.width() {
                let sq = Square::new(file, rank).expect("within the board");
                out.push(match self.rank_at(sq) {
                    Some(r) => r.code(),
                    None if rules.is_lake(sq) => '~',
                    None => '.',
                });
            }
        }
        out
    }

    /// The pairs form (`a1=F b1=B …`), by square.
    pub fn to_pairs(&self) -> String {
        let parts: Vec<String> = self.pieces.iter().map(|(sq, r)| format!("{sq}={}", r.code())).collect();
        parts.join(" ")
    }
}

impl fmt::Display for Deployment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_pairs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classic() -> Ruleset {
        Ruleset::classic()
    }

    #[test]
    fn rows_and_pairs_round_trip() {
        let r = classic();
        let rows = "B32222222S/6655554444/BX98877766/FB3B333B2B";
        let d = Deployment::parse(&r, Color::Red, rows).unwrap();
        assert_eq!(d.to_rows(&r), rows);
        assert_eq!(Deployment::parse(&r, Color::Red, &d.to_pairs()).unwrap(), d);
        let blue = Deployment::parse(&r, Color::Blue, rows).unwrap();
        assert_eq!(blue.rank_at("a10".parse().unwrap()), Some(Rank::Bomb));
        assert_eq!(blue.to_rows(&r), rows);
        let b = Ruleset::barrage();
        let d = Deployment::parse(&b, Color::Red, "a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=S").unwrap();
        assert_eq!(Deployment::parse(&b, Color::Red, &d.to_rows(&b)).unwrap(), d);
    }

    #[test]
    fn errors_name_the_square_or_count() {
        let b = Ruleset::barrage();
        let cases = [
            ("a1=F b1=B c2=X d2=9 e5=3 f3=2 g3=2 h4=S", "square e5 is outside Red's setup area"),
            ("a1=F a1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=S", "square a1 is given twice"),
            ("a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=2", "Red places 3 scouts; the ruleset allows 2"),
            ("a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2", "Red places no spy; the ruleset requires 1"),
            ("a1=F b1=Q", "square b1: unknown piece \"Q\""),
            ("a1=F b1", "\"b1\" is not square=piece, like a1=F"),
        ];
        for (text, want) in cases {
            assert_eq!(Deployment::parse(&b, Color::Red, text).unwrap_err().to_string(), want);
        }
        let c = classic();
        assert_eq!(
            Deployment::parse(&c, Color::Red, "B32222222S/6655554444/BX98877766").unwrap_err().to_string(),
            "3 rows given; Red's setup area has 4 (ranks 4 down to 1, separated by '/')"
        );
        assert_eq!(
            Deployment::parse(&c, Color::Red, "B32222222S/665555444/BX98877766/FB3B333B2B").unwrap_err().to_string(),
            "row 2 (rank 3) has 9 squares; the board is 10 wide"
        );
        assert_eq!(
            Deployment::parse(&c, Color::Red, "B32222222S/6655554444/BX98877766/FB3B333B2Z").unwrap_err().to_string(),
            "square j1: unknown piece code 'Z' (use F S 2-9 X B, or . for empty)"
        );
    }
}
