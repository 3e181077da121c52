//! Setups: the Flag on the back rank with Bombs around it, the rest spread over the area.

use stratego_protocol::Rng;
use stratego_rules::{Color, Deployment, Rank, Ruleset, Square};

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
