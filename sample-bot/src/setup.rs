//! Setups: human-like ones drawn from a table baked from 160,951 Gravon setups, and a
//! structured fallback for setup areas of other shapes.

use stratego_protocol::Rng;
use stratego_rules::{Color, Deployment, Rank, Ruleset, Square};

use crate::setup_table::{BOMBS_BY_FLAG, MARGINAL};

/// Draws one item with probability proportional to its weight (`None` if all are zero).
pub fn weighted(weights: &[f64], rng: &mut Rng) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let mut x = rng.unit() * total;
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return Some(i);
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0)
}

/// The table index of a square of `color`'s classic 4x10 area: rank from the owner's back
/// rank * 10 + file from the owner's left.
pub(crate) fn table_index(rules: &Ruleset, color: Color, sq: Square) -> usize {
    let d = usize::from(depth(rules, color, sq));
    let file = match color {
        Color::Red => sq.file(),
        Color::Blue => rules.width() - 1 - sq.file(),
    };
    d * 10 + usize::from(file)
}

/// Whether two table squares share a side.
fn is_beside(a: usize, b: usize) -> bool {
    let (ra, fa, rb, fb) = (a / 10, a % 10, b / 10, b % 10);
    (ra == rb && fa.abs_diff(fb) == 1) || (fa == fb && ra.abs_diff(rb) == 1)
}

/// A setup drawn like a human player's: the Flag on the back rank where Gravon players put
/// it, Bombs where
/// they put them given the Flag's square, then each other piece (rarest first) where
/// players put that rank. Falls back to [`structured`] when the setup area is not 4 ranks
/// of 10 files.
pub fn human_like(rules: &Ruleset, color: Color, rng: &mut Rng) -> Deployment {
    let squares: Vec<Square> = rules.setup_squares(color).collect();
    let [lo, hi] = rules.spec().setup_ranks[color];
    if rules.width() != 10 || hi - lo != 3 || squares.len() != 40 {
        return structured(rules, color, rng);
    }
    let index: Vec<usize> = squares.iter().map(|&s| table_index(rules, color, s)).collect();
    let mut free = [true; 40];
    let mut placed = Vec::new();
    let counts = *rules.pieces();
    let mut flag_at: Option<usize> = None;
    let order = [
        Rank::Flag,
        Rank::Bomb,
        Rank::Spy,
        Rank::Marshal,
        Rank::General,
        Rank::Colonel,
        Rank::Major,
        Rank::Captain,
        Rank::Lieutenant,
        Rank::Sergeant,
        Rank::Miner,
        Rank::Scout,
    ];
    for rank in order {
        for _ in 0..counts[rank] {
            let weights: Vec<f64> = (0..40)
                .map(|i| {
                    if !free[index[i]] {
                        return 0.0;
                    }
                    let t = index[i];
                    match (rank, flag_at) {
                        (Rank::Bomb, Some(f)) => f64::from(BOMBS_BY_FLAG[f][t]) + 1.0,
                        // The Flag on the back rank (where 86.7 % of Gravon players put it),
                        // on the files they favour there.
                        (Rank::Flag, _) if t >= 10 => 0.0,
                        _ => f64::from(MARGINAL[rank.index()][t]) + 1.0,
                    }
                })
                .collect();
            // Bombs close every free side of the Flag first (Gravon players bomb their Flag
            // in most setups; an open side is where most lost games were lost).
            let beside_flag = match (rank, flag_at) {
                (Rank::Bomb, Some(f)) => (0..40).find(|&i| free[index[i]] && index[i] != f && is_beside(index[i], f)),
                _ => None,
            };
            let Some(i) = beside_flag.or_else(|| weighted(&weights, rng)) else { break };
            free[index[i]] = false;
            placed.push((squares[i], rank));
            if rank == Rank::Flag {
                flag_at = Some(index[i]);
            }
        }
    }
    Deployment::new(rules, color, placed).expect("the table places the ruleset's army on free squares")
}

/// Whether `color`'s setup area is the classic 4 ranks of 10 files the table describes.
pub(crate) fn classic_area(rules: &Ruleset, color: Color) -> bool {
    let [lo, hi] = rules.spec().setup_ranks[color];
    rules.width() == 10 && hi - lo == 3 && rules.setup_area_size(color) == 40
}

/// How far a square is from the enemy: 0 on the back rank of `color`'s area.
fn depth(rules: &Ruleset, color: Color, sq: Square) -> u8 {
    let [lo, hi] = rules.spec().setup_ranks[color];
    match color {
        Color::Red => sq.rank() + 1 - lo,
        Color::Blue => hi - 1 - sq.rank(),
    }
}

/// A structured setup: Flag on the back rank, Bombs beside and in front of it, Scouts and
/// Miners spread, the rest at random.
pub fn structured(rules: &Ruleset, color: Color, rng: &mut Rng) -> Deployment {
    let squares: Vec<Square> = rules.setup_squares(color).collect();
    let mut counts = *rules.pieces();
    let mut placed: Vec<(Square, Rank)> = Vec::new();
    let mut free: Vec<Square> = squares.clone();
    let take = |free: &mut Vec<Square>, sq: Square| free.retain(|&s| s != sq);
    if counts[Rank::Flag] > 0 {
        let back: Vec<Square> = free.iter().copied().filter(|&s| depth(rules, color, s) == 0).collect();
        if let Some(&flag) = rng.choose(&back) {
            placed.push((flag, Rank::Flag));
            take(&mut free, flag);
            counts[Rank::Flag] -= 1;
            // Bombs on the Flag's free neighbours inside the area.
            let mut around: Vec<Square> = free.iter().copied().filter(|s| s.is_adjacent(flag)).collect();
            around.sort_by_key(|s| std::cmp::Reverse(depth(rules, color, *s)));
            for sq in around {
                if counts[Rank::Bomb] == 0 {
                    break;
                }
                placed.push((sq, Rank::Bomb));
                take(&mut free, sq);
                counts[Rank::Bomb] -= 1;
            }
        }
    }
    // Remaining pieces: shuffle, then keep the strongest off the front rank when possible.
    for i in (1..free.len()).rev() {
        let j = rng.below(i + 1);
        free.swap(i, j);
    }
    free.sort_by_key(|&s| depth(rules, color, s)); // back first (stable: random within a rank)
    let mut army: Vec<Rank> = counts.iter().flat_map(|(r, n)| std::iter::repeat_n(r, usize::from(n))).collect();
    for i in (1..army.len()).rev() {
        let j = rng.below(i + 1);
        army.swap(i, j);
    }
    // Bombs prefer the back half; Scouts the front.
    army.sort_by_key(|r| match r {
        Rank::Bomb => 0,
        Rank::Marshal | Rank::General | Rank::Spy => 1,
        Rank::Scout => 3,
        _ => 2,
    });
    let mixed: Vec<Rank> = army;
    for (sq, r) in free.into_iter().zip(mixed) {
        placed.push((sq, r));
    }
    Deployment::new(rules, color, placed).expect("the structured setup places the ruleset's army")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_like_setups_are_valid_and_keep_the_flag_back_behind_bombs() {
        let rules = Ruleset::classic();
        let mut rng = Rng::new(9);
        let (mut back, mut bombed) = (0, 0);
        for i in 0..200 {
            let color = if i % 2 == 0 { Color::Red } else { Color::Blue };
            let d = human_like(&rules, color, &mut rng);
            assert_eq!(d.pieces().len(), 40);
            let flag = d.pieces().iter().find(|p| p.1 == Rank::Flag).unwrap().0;
            if depth(&rules, color, flag) == 0 {
                back += 1;
            }
            if d.pieces().iter().any(|&(s, r)| r == Rank::Bomb && s.is_adjacent(flag)) {
                bombed += 1;
            }
        }
        assert_eq!(back, 200, "flag on the back rank in {back} of 200");
        assert!(bombed == 200, "a bomb beside the flag in {bombed} of 200");
        let b = Ruleset::barrage();
        assert_eq!(human_like(&b, Color::Red, &mut rng).pieces().len(), 8);
    }
}
