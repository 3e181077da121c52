//! What one player may know of a game.

use serde::{Deserialize, Serialize};

use crate::{ByColor, Color, Game, Move, Outcome, PieceCounts, Ply, Rank, Square};

/// A piece as one player sees it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ViewPiece {
    /// Where it stands.
    pub square: Square,
    /// Whose it is.
    pub color: Color,
    /// Where it stood at the start: a public, stable label for the piece.
    pub origin: Square,
    /// Its rank: always for the viewer's own pieces; for the opponent's only once revealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<Rank>,
    /// Whether it has moved (so it is neither a Bomb nor the Flag). Left out when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved: bool,
    /// Whether its rank is known to both players (by a fight, or a Scout by a long move).
    /// Left out when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub revealed: bool,
}

/// Everything one player is entitled to know, and nothing more.
///
/// Opponent pieces are listed by square with their public history (origin, moved,
/// revealed); their ranks appear only once revealed. The list is ordered by square and
/// carries no internal ids, so two games that differ only in unseen opponent ranks give
/// identical views.
///
/// ```
/// use stratego_rules::{Color, Deployment, Game, Ruleset};
/// let rules = Ruleset::barrage();
/// let red = Deployment::parse(&rules, Color::Red, "a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=S").unwrap();
/// let blue = Deployment::parse(&rules, Color::Blue, "a10=F b10=B c9=X d9=9 e9=3 f8=2 g8=2 h7=S").unwrap();
/// let game = Game::new(rules, &red, &blue).unwrap();
/// let view = game.view(Color::Red);
/// assert!(view.pieces.iter().filter(|p| p.color == Color::Blue).all(|p| p.rank.is_none()));
/// assert!(!view.legal_moves.is_empty());
/// ```
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    /// The viewer.
    pub color: Color,
    /// The side to move.
    pub to_move: Color,
    /// Plies played.
    pub ply: u32,
    /// Every piece on the board, by square.
    pub pieces: Vec<ViewPiece>,
    /// Pieces each side has lost (public).
    pub captured: ByColor<PieceCounts>,
    /// Every ply so far, as both players saw it.
    pub history: Vec<Ply>,
    /// The viewer's legal moves when it is to move (empty otherwise).
    pub legal_moves: Vec<Move>,
    /// The result, once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Game {
    /// The pieces on the board as `viewer` sees them, by square.
    pub fn view_pieces(&self, viewer: Color) -> Vec<ViewPiece> {
        let mut out = Vec::new();
        self.view_pieces_into(viewer, &mut out);
        out
    }

    /// [`Game::view_pieces`] into `buf` (cleared first), reusing its allocation.
    pub fn view_pieces_into(&self, viewer: Color, buf: &mut Vec<ViewPiece>) {
        buf.clear();
        let occupied = self.occupied_squares();
        buf.reserve(occupied.len());
        let pieces = self.pieces_raw();
        for (w, mut bits) in occupied.words().into_iter().enumerate() {
            while bits != 0 {
                let index = (w as u32 * 64 + bits.trailing_zeros()) as u8;
                bits &= bits - 1;
                let p = pieces[self.piece_id_at_index(index) as usize];
                // Only a Scout can be shown by a long move, so a shown piece's rank is public.
                let shown = p.revealed | p.scout_shown;
                buf.push(ViewPiece {
                    square: Square::at(index),
                    color: p.color,
                    origin: p.origin,
                    rank: ((p.color == viewer) | shown).then_some(p.rank),
                    moved: p.moved,
                    revealed: shown,
                });
            }
        }
    }

    /// Everything `viewer` may know of the game.
    pub fn view(&self, viewer: Color) -> View {
        let mut view = View {
            color: viewer,
            to_move: self.to_move(),
            ply: self.ply_count(),
            pieces: Vec::new(),
            captured: *self.captured(),
            history: Vec::new(),
            legal_moves: Vec::new(),
            outcome: self.outcome(),
        };
        self.view_into(viewer, &mut view);
        view
    }

    /// [`Game::view`] into `view`, reusing its buffers (no allocation once they are large
    /// enough).
    pub fn view_into(&self, viewer: Color, view: &mut View) {
        view.color = viewer;
        view.to_move = self.to_move();
        view.ply = self.ply_count();
        view.captured = *self.captured();
        view.outcome = self.outcome();
        self.view_pieces_into(viewer, &mut view.pieces);
        view.history.clear();
        view.history.extend_from_slice(self.history());
        if viewer == self.to_move() {
            self.legal_moves(&mut view.legal_moves);
        } else {
            view.legal_moves.clear();
        }
    }
}

impl View {
    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<&ViewPiece> {
        self.pieces.binary_search_by_key(&sq, |p| p.square).ok().map(|i| &self.pieces[i])
    }
}
