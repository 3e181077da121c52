//! The board as text, laid out as the host's `replay` prints it without colour
//! (`host/src/compete/replay.rs`): file letters above and below, rank numbers on both
//! sides, `rX` a Red Marshal, `b?` a Blue piece the viewer does not know, `~~` a lake,
//! ` .` an empty square; Blue's view turned half a turn.

use std::fmt::Write;

use stratego_rules::{ByColor, Color, PieceCounts, Rank, Ruleset, Square};

/// One occupied square as a viewer sees it.
#[derive(Clone, Copy)]
pub struct Cell {
    pub square: Square,
    pub color: Color,
    pub rank: Option<Rank>,
}

/// The board's lines; `cells` by square; `flipped` for Blue's eyes.
pub fn board_lines(rules: &Ruleset, cells: &[Cell], flipped: bool) -> Vec<String> {
    let (w, h) = (rules.width(), rules.height());
    let files: Vec<u8> = if flipped { (0..w).rev().collect() } else { (0..w).collect() };
    let ranks: Vec<u8> = if flipped { (0..h).collect() } else { (0..h).rev().collect() };
    let letters: Vec<String> = files.iter().map(|&f| ((b'a' + f) as char).to_string()).collect();
    let header = format!("    {}", letters.join("  "));
    let mut lines = vec![header.clone()];
    for &rank in &ranks {
        let mut s = format!("{:>2} ", rank + 1);
        for (i, &file) in files.iter().enumerate() {
            let sq = Square::new(file, rank).expect("on the board");
            if i > 0 {
                s.push(' ');
            }
            match cells.iter().find(|c| c.square == sq) {
                Some(c) => {
                    s.push(if c.color == Color::Red { 'r' } else { 'b' });
                    s.push(c.rank.map_or('?', Rank::code));
                }
                None if rules.is_lake(sq) => s.push_str("~~"),
                None => s.push_str(" ."),
            }
        }
        let _ = write!(s, " {}", rank + 1);
        lines.push(s);
    }
    lines.push(header);
    lines
}

/// `Red lost 4: X 2×2 B` (strongest first) or `Red lost nothing`, a line per side.
pub fn captured_lines(lost: &ByColor<PieceCounts>) -> Vec<String> {
    Color::ALL
        .into_iter()
        .map(|c| {
            let items: Vec<String> = Rank::STRONGEST_FIRST
                .into_iter()
                .filter(|&r| lost[c][r] > 0)
                .map(|r| match lost[c][r] {
                    1 => r.code().to_string(),
                    k => format!("{}×{k}", r.code()),
                })
                .collect();
            match lost[c].total() {
                0 => format!("{c} lost nothing"),
                k => format!("{c} lost {k}: {}", items.join(" ")),
            }
        })
        .collect()
}

/// `Ply 12: Red e4-e5, marshal (X) attacks scout (2): marshal wins` for the last ply, or
/// `Ply 0: Red to move` before the first.
pub fn ply_line(ply: u32, last: Option<&stratego_rules::Ply>, to_move: Color) -> String {
    use stratego_rules::CombatResult;
    let Some(p) = last else { return format!("Ply {ply}: {to_move} to move") };
    let mut s = format!("Ply {ply}: {} {}", p.color, p.mv);
    if let Some(c) = p.combat {
        let outcome = match c.result {
            CombatResult::AttackerWins => format!("{} wins", c.attacker),
            CombatResult::DefenderWins => format!("{} wins", c.defender),
            CombatResult::BothRemoved => "both removed".to_owned(),
        };
        let _ = write!(
            s,
            ", {} ({}) attacks {} ({}): {outcome}",
            c.attacker,
            c.attacker.code(),
            c.defender,
            c.defender.code()
        );
    }
    s
}

/// The whole text: the board, then the last ply, the losses, and who is to move or how
/// the game ended.
#[allow(clippy::too_many_arguments)]
pub fn frame(
    rules: &Ruleset,
    cells: &[Cell],
    flipped: bool,
    ply: u32,
    last: Option<&stratego_rules::Ply>,
    to_move: Color,
    captured: &ByColor<PieceCounts>,
    outcome: Option<stratego_rules::Outcome>,
) -> String {
    let mut lines = board_lines(rules, cells, flipped);
    lines.push(String::new());
    lines.push(ply_line(ply, last, to_move));
    lines.extend(captured_lines(captured));
    lines.push(match outcome {
        Some(o) => match o.winner {
            Some(w) => format!("Result: {w} wins ({})", o.reason),
            None => format!("Result: draw ({})", o.reason),
        },
        None => format!("{to_move} to move"),
    });
    lines.join("\n")
}
