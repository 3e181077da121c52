//! A hand-written JSON writer for `turn`, the one message sent every ply. It writes exactly
//! the bytes `serde_json` writes for the same message (a test pins this), without the
//! per-string escaping machinery: every string in a turn is a square, a move, a rank, a
//! colour or the game id, and only the game id can hold characters that need escaping.

use stratego_rules::{Color, CombatResult, PieceCounts, Ply, Rank, Square};

use crate::Turn;

/// A rank's name in quotes, padded to 16 bytes, and its length, by `Rank as usize`.
const RANK_JSON: [([u8; 16], usize); 12] = {
    let mut table = [([0u8; 16], 0); 12];
    let mut i = 0;
    while i < 12 {
        let name = Rank::ALL[i].name().as_bytes();
        let mut quoted = [0u8; 16];
        quoted[0] = b'"';
        let mut j = 0;
        while j < name.len() {
            quoted[j + 1] = name[j];
            j += 1;
        }
        quoted[name.len() + 1] = b'"';
        table[Rank::ALL[i] as usize] = (quoted, name.len() + 2);
        i += 1;
    }
    table
};

/// Room for a few list entries of a turn, written with copies of fixed sizes (no calls
/// and no capacity checks per field), then appended to the message at once.
struct Chunk {
    buf: [u8; 256],
    len: usize,
}

impl Chunk {
    /// Flushed once this full: an entry (at most 100 bytes) always fits after it.
    const HIGH: usize = 150;

    fn new() -> Chunk {
        Chunk { buf: [0; 256], len: 0 }
    }

    /// Appends `bytes` (a literal: its length is known where this is inlined).
    #[inline(always)]
    fn lit(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// Appends the first `len` bytes of `bytes` (all `N` are copied, then overwritten).
    #[inline(always)]
    fn padded<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        self.buf[self.len..self.len + N].copy_from_slice(bytes);
        self.len += len;
    }

    #[inline(always)]
    fn name(&mut self, sq: Square) {
        let (bytes, len) = sq.name_bytes();
        self.padded(&bytes, len);
    }

    #[inline(always)]
    fn color(&mut self, c: Color) {
        if c == Color::Red {
            self.lit(b"\"red\"");
        } else {
            self.lit(b"\"blue\"");
        }
    }

    #[inline(always)]
    fn rank(&mut self, r: Rank) {
        let (bytes, len) = &RANK_JSON[r as usize];
        self.padded(bytes, *len);
    }

    #[inline(always)]
    fn mv(&mut self, m: stratego_rules::Move) {
        self.lit(b"\"");
        self.name(m.from);
        self.lit(b"-");
        self.name(m.to);
        self.lit(b"\"");
    }

    /// Appends what it holds to `out` when it is full enough (or `always`).
    #[inline(always)]
    fn flush(&mut self, out: &mut Vec<u8>, always: bool) {
        if always || self.len >= Self::HIGH {
            out.extend_from_slice(&self.buf[..self.len]);
            self.len = 0;
        }
    }
}

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
    let mut chunk = Chunk::new();
    chunk.lit(b"{");
    let mut first = true;
    for &r in Rank::ALL.iter().rev() {
        let n = c[r];
        if n > 0 {
            if !first {
                chunk.lit(b",");
            }
            first = false;
            chunk.rank(r);
            chunk.lit(b":");
            if n < 10 {
                chunk.padded(&[b'0' + n as u8], 1);
            } else {
                chunk.flush(out, true);
                number(out, u64::from(n));
            }
        }
        chunk.flush(out, false);
    }
    chunk.lit(b"}");
    chunk.flush(out, true);
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
    let mut c = Chunk::new();
    for (i, p) in t.pieces.iter().enumerate() {
        if i > 0 {
            c.lit(b",");
        }
        c.lit(b"{\"square\":\"");
        c.name(p.square);
        c.lit(b"\",\"color\":");
        c.color(p.color);
        c.lit(b",\"origin\":\"");
        c.name(p.origin);
        c.lit(b"\"");
        if let Some(r) = p.rank {
            c.lit(b",\"rank\":");
            c.rank(r);
        }
        if p.moved {
            c.lit(b",\"moved\":true");
        }
        if p.revealed {
            c.lit(b",\"revealed\":true");
        }
        c.lit(b"}");
        c.flush(out, false);
    }
    c.flush(out, true);
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
            c.lit(b",");
        }
        c.mv(m);
        c.flush(out, false);
    }
    c.flush(out, true);
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
