//! A hand-written JSON writer for `turn`, the one message sent every ply. It writes exactly
//! the bytes `serde_json` writes for the same message (a test pins this), without the
//! per-string escaping machinery: every string in a turn is a square, a move, a rank, a
//! colour or the game id, and only the game id can hold characters that need escaping.

use stratego_rules::{Color, CombatResult, PieceCounts, Ply, Rank, Square};

use crate::Turn;

fn name(out: &mut Vec<u8>, sq: Square) {
    let (bytes, len) = sq.name_bytes();
    out.extend_from_slice(&bytes[..len]);
}

fn square(out: &mut Vec<u8>, sq: Square) {
    out.push(b'"');
    name(out, sq);
    out.push(b'"');
}

fn mv(out: &mut Vec<u8>, m: stratego_rules::Move) {
    out.push(b'"');
    name(out, m.from);
    out.push(b'-');
    name(out, m.to);
    out.push(b'"');
}

fn color(out: &mut Vec<u8>, c: Color) {
    out.extend_from_slice(if c == Color::Red { b"\"red\"" } else { b"\"blue\"" });
}

fn rank(out: &mut Vec<u8>, r: Rank) {
    out.push(b'"');
    out.extend_from_slice(r.name().as_bytes());
    out.push(b'"');
}

fn number(out: &mut Vec<u8>, n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn opt_number(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => number(out, n),
        None => out.extend_from_slice(b"null"),
    }
}

fn counts(out: &mut Vec<u8>, c: &PieceCounts) {
    // Same order as `PieceCounts`'s Serialize: strongest first, Bomb first of all.
    out.push(b'{');
    let mut first = true;
    for &r in Rank::ALL.iter().rev() {
        if c[r] > 0 {
            if !first {
                out.push(b',');
            }
            first = false;
            rank(out, r);
            out.push(b':');
            number(out, u64::from(c[r]));
        }
    }
    out.push(b'}');
}

/// Writes one ply as `serde_json` would.
pub fn ply(out: &mut Vec<u8>, p: &Ply) {
    out.extend_from_slice(b"{\"color\":");
    color(out, p.color);
    out.extend_from_slice(b",\"move\":");
    mv(out, p.mv);
    if let Some(c) = p.combat {
        out.extend_from_slice(b",\"combat\":{\"attacker\":");
        rank(out, c.attacker);
        out.extend_from_slice(b",\"defender\":");
        rank(out, c.defender);
        out.extend_from_slice(b",\"result\":");
        out.extend_from_slice(match c.result {
            CombatResult::AttackerWins => b"\"attacker_wins\"",
            CombatResult::DefenderWins => b"\"defender_wins\"",
            CombatResult::BothRemoved => b"\"both_removed\"",
        });
        out.push(b'}');
    }
    out.push(b'}');
}

/// Appends the `turn` message (with its `"type"`) as one JSON object, no newline.
pub fn write_turn(out: &mut Vec<u8>, t: &Turn) {
    out.extend_from_slice(b"{\"type\":\"turn\",\"game_id\":");
    serde_json::to_writer(&mut *out, &t.game_id).expect("writing to a Vec cannot fail");
    out.extend_from_slice(b",\"ply\":");
    number(out, u64::from(t.ply));
    out.extend_from_slice(b",\"color\":");
    color(out, t.color);
    out.extend_from_slice(b",\"plies\":[");
    for (i, p) in t.plies.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        ply(out, p);
    }
    out.push(b']');
    if !t.pieces.is_empty() {
        out.extend_from_slice(b",\"pieces\":[");
    }
    for (i, p) in t.pieces.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"square\":");
        square(out, p.square);
        out.extend_from_slice(b",\"color\":");
        color(out, p.color);
        out.extend_from_slice(b",\"origin\":");
        square(out, p.origin);
        if let Some(r) = p.rank {
            out.extend_from_slice(b",\"rank\":");
            rank(out, r);
        }
        if p.moved {
            out.extend_from_slice(b",\"moved\":true");
        }
        if p.revealed {
            out.extend_from_slice(b",\"revealed\":true");
        }
        out.push(b'}');
    }
    if !t.pieces.is_empty() {
        out.push(b']');
    }
    if let Some(captured) = &t.captured {
        out.extend_from_slice(b",\"captured\":{\"red\":");
        counts(out, &captured.red);
        out.extend_from_slice(b",\"blue\":");
        counts(out, &captured.blue);
        out.push(b'}');
    }
    out.extend_from_slice(b",\"legal_moves\":[");
    for (i, &m) in t.legal_moves.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        mv(out, m);
    }
    out.extend_from_slice(b"],\"clock\":{\"move_ms\":");
    number(out, t.clock.move_ms);
    out.extend_from_slice(b",\"remaining_ms\":");
    opt_number(out, t.clock.remaining_ms);
    out.extend_from_slice(b",\"opponent_remaining_ms\":");
    opt_number(out, t.clock.opponent_remaining_ms);
    out.push(b'}');
    if let Some(s) = &t.strike {
        out.extend_from_slice(b",\"strike\":");
        serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
    }
    if let Some(squares) = &t.opponent_squares {
        out.extend_from_slice(b",\"opponent_squares\":[");
        for (i, &s) in squares.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            square(out, s);
        }
        out.push(b']');
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Clock, HostMessage};
    use stratego_rules::{Deployment, Game, Ruleset};

    #[test]
    fn writes_exactly_what_serde_json_writes() {
        for (preset, seed) in [("classic", 1u64), ("isf", 2), ("barrage", 3), ("classic", 4)] {
            let rules = Ruleset::preset(preset).unwrap();
            let mut rng = crate::Rng::new(seed);
            let red = Deployment::random(&rules, Color::Red, &mut || rng.next_u64());
            let blue = Deployment::random(&rules, Color::Blue, &mut || rng.next_u64());
            let mut game = Game::new(rules, &red, &blue).unwrap();
            let mut moves = Vec::new();
            while !game.is_over() {
                game.legal_moves(&mut moves);
                let color = game.to_move();
                let n = game.history().len();
                let turn = Turn {
                    game_id: format!("g\"{seed}\\é"),
                    ply: game.ply_count(),
                    color,
                    plies: game.history()[n.saturating_sub(2)..].to_vec(),
                    // Seed 2 plays with the "moves" view: no pieces, no captured.
                    pieces: if seed == 2 { Vec::new() } else { game.view_pieces(color) },
                    captured: (seed != 2).then(|| *game.captured()),
                    legal_moves: moves.clone(),
                    clock: Clock {
                        move_ms: 1000 + seed,
                        remaining_ms: (seed % 2 == 0).then_some(12_345_678_901),
                        opponent_remaining_ms: None,
                    },
                    strike: (seed == 3).then(|| crate::Strike {
                        reason: "move_timeout".into(),
                        message: "no \"move\" in time".into(),
                        replaced_by: moves[0],
                        strikes_left: 2,
                    }),
                    opponent_squares: (seed == 2 && game.ply_count() < 2)
                        .then(|| blue.pieces().iter().map(|&(s, _)| s).collect()),
                };
                let mut fast = Vec::new();
                write_turn(&mut fast, &turn);
                let slow = serde_json::to_vec(&HostMessage::Turn(turn)).unwrap();
                assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
                game.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
    }
}
