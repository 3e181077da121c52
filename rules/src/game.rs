//! The game: position, legal moves, combat, repetition rules and the end of the game.

use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::idset::IdSet;
use crate::repetition::{Chase, LastMove, SIDE_KEY, Shuttle, zobrist};
use crate::ruleset::WALL;
use crate::{
    ByColor, Color, Combat, CombatResult, Deployment, DeploymentError, EndReason, Move, Outcome, PieceCounts, Ply,
    Rank, Ruleset, Square,
};

const EMPTY: u8 = 0;
const DIRS: [u8; 4] = [1, 255, 16, 240]; // +1 file, -1 file, +1 rank, -1 rank (wrapping)

/// One piece's state. Ids are assigned by deployment order: Red's pieces by square, then
/// Blue's, so an id depends only on the starting square, never on the rank.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PieceState {
    pub color: Color,
    pub rank: Rank,
    pub square: Square,
    pub origin: Square,
    pub alive: bool,
    pub moved: bool,
    /// Rank shown to both players by a fight.
    pub revealed: bool,
    /// Shown to be a Scout by a move of more than one square.
    pub scout_shown: bool,
}

/// Why a move is illegal in the current position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A square is off the board.
    #[error("square {0} is off the board")]
    OffBoard(Square),
    /// No piece stands on the square moved from.
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    /// The piece belongs to the other side.
    #[error("the piece on {0} is not yours")]
    NotYourPiece(Square),
    /// Bombs and Flags never move.
    #[error("the {rank} on {square} cannot move")]
    Immobile {
        /// The piece's rank.
        rank: Rank,
        /// Its square.
        square: Square,
    },
    /// From and to are the same square.
    #[error("the move does not leave {0}")]
    SameSquare(Square),
    /// Not along one file or rank.
    #[error("{0} is not a straight move along a file or rank")]
    NotStraight(Move),
    /// A piece other than a Scout moved more than one square.
    #[error("a {0} moves only one square")]
    TooFar(Rank),
    /// The destination or a square on the way is a lake.
    #[error("the way is blocked by the lake on {0}")]
    BlockedByLake(Square),
    /// A piece stands on the way (Scout moves).
    #[error("the way is blocked by the piece on {0}")]
    BlockedPath(Square),
    /// The destination holds a piece of the mover.
    #[error("{0} holds one of your own pieces")]
    OntoOwnPiece(Square),
    /// The ruleset forbids a Scout to move and attack in one turn.
    #[error("a Scout may not move several squares and attack in one turn under these rules")]
    ScoutMoveAndAttack,
    /// The two-square rule.
    #[error("two-square rule: this piece has already moved {limit} times in a row between these squares")]
    TwoSquareRule {
        /// The ruleset's limit.
        limit: u8,
    },
    /// The more-squares (chasing) rule.
    #[error("more-squares rule: this chasing move repeats a position already seen during the chase")]
    ChasingRule,
}

impl IllegalMove {
    /// A stable machine-readable code (`"two_square_rule"`, …).
    pub const fn code(&self) -> &'static str {
        match self {
            IllegalMove::GameOver => "game_over",
            IllegalMove::OffBoard(_) => "off_board",
            IllegalMove::NoPiece(_) => "no_piece",
            IllegalMove::NotYourPiece(_) => "not_your_piece",
            IllegalMove::Immobile { .. } => "immobile_piece",
            IllegalMove::SameSquare(_) => "same_square",
            IllegalMove::NotStraight(_) => "not_straight",
            IllegalMove::TooFar(_) => "too_far",
            IllegalMove::BlockedByLake(_) => "blocked_by_lake",
            IllegalMove::BlockedPath(_) => "blocked_path",
            IllegalMove::OntoOwnPiece(_) => "onto_own_piece",
            IllegalMove::ScoutMoveAndAttack => "scout_move_and_attack",
            IllegalMove::TwoSquareRule { .. } => "two_square_rule",
            IllegalMove::ChasingRule => "chasing_rule",
        }
    }
}

/// Why two deployments cannot start a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// A deployment is for the wrong side.
    #[error("the {expected} deployment is {found}'s")]
    WrongColor {
        /// The side expected.
        expected: Color,
        /// The side the deployment belongs to.
        found: Color,
    },
    /// Both sides place a piece on the same square (overlapping setup areas).
    #[error("both sides place a piece on {0}")]
    Overlap(Square),
    /// A piece of a position stands off the board or on a lake.
    #[error("square {0} is not a playable square")]
    OffBoard(Square),
    /// More pieces than the board representation holds.
    #[error("{0} pieces are more than the board can hold")]
    TooManyPieces(usize),
    /// A deployment is not valid under this ruleset.
    #[error(transparent)]
    Deployment(#[from] DeploymentError),
}

/// A game in progress, refereed by its [`Ruleset`].
///
/// ```
/// use stratego_rules::{Color, Deployment, Game, Ruleset};
/// let rules = Ruleset::classic();
/// let red = Deployment::parse(&rules, Color::Red, "B32222222S/6655554444/BX98877766/FB3B333B2B").unwrap();
/// let blue = Deployment::parse(&rules, Color::Blue, "FB3B333B2B/BX98877766/6655554444/B32222222S").unwrap();
/// let mut game = Game::new(rules, &red, &blue).unwrap();
/// let mut moves = Vec::new();
/// game.legal_moves(&mut moves);
/// assert!(moves.contains(&"b4-b5".parse().unwrap()));
/// assert!(!moves.contains(&"a4-a5".parse().unwrap())); // a Bomb
/// let err = game.play("a1-a2".parse().unwrap()).unwrap_err();
/// assert_eq!(err.to_string(), "the flag on a1 cannot move");
/// game.play("b4-b5".parse().unwrap()).unwrap();
/// assert_eq!(game.to_move(), Color::Blue);
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    rules: Arc<Ruleset>,
    board: [u8; 256],
    /// Per side and cell, 1 when that side may move onto the cell: it is empty or holds an
    /// enemy piece (never a wall). Kept with `board`.
    enterable: ByColor<[u8; 256]>,
    pieces: Vec<PieceState>,
    /// Ids `1..=red_count` are Red's, the rest Blue's.
    red_count: u8,
    /// Each side's pieces that are alive and can move, one bit per id: move generation
    /// visits only these, in id order.
    mobile: ByColor<IdSet>,
    /// Each side's live Scouts (they take more room in a move list).
    scouts: ByColor<u8>,
    /// Occupied squares, one bit per mailbox index: views list the pieces by square from it.
    occupied: IdSet,
    deployments: ByColor<Deployment>,
    to_move: Color,
    history: Vec<Ply>,
    shuttle: ByColor<Shuttle>,
    chase: Option<Chase>,
    last_move: Option<LastMove>,
    hash: u64,
    captured: ByColor<PieceCounts>,
    outcome: Option<Outcome>,
    /// Plies played before the position this game was built from.
    ply_offset: u32,
}

/// One piece of a position given to [`Game::from_position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionPiece {
    /// Where it stands.
    pub square: Square,
    /// Whose it is.
    pub color: Color,
    /// Its rank.
    pub rank: Rank,
    /// Whether it has moved.
    pub moved: bool,
    /// Whether its rank is public.
    pub revealed: bool,
}

impl Game {
    /// Starts a game; Red moves first. The game may already be over if a side has no
    /// legal move (possible with free setups).
    ///
    /// # Errors
    /// A deployment for the wrong side, or one that is invalid under `rules`.
    pub fn new(rules: impl Into<Arc<Ruleset>>, red: &Deployment, blue: &Deployment) -> Result<Game, GameError> {
        let rules = rules.into();
        let deployments = ByColor::new(red.clone(), blue.clone());
        for color in Color::ALL {
            let found = deployments[color].color();
            if found != color {
                return Err(GameError::WrongColor { expected: color, found });
            }
            Deployment::new(&rules, color, deployments[color].pieces().iter().copied())?;
        }
        Game::start(rules, deployments)
    }

    /// Starts a game from deployments the caller has already validated (for Gravon replays,
    /// whose free training games may lack a Flag, which [`Deployment::new`] refuses).
    pub(crate) fn start(rules: Arc<Ruleset>, deployments: ByColor<Deployment>) -> Result<Game, GameError> {
        let pieces: Vec<PositionPiece> = Color::ALL
            .iter()
            .flat_map(|&color| {
                deployments[color].pieces().iter().map(move |&(square, rank)| PositionPiece {
                    square,
                    color,
                    rank,
                    moved: false,
                    revealed: false,
                })
            })
            .collect();
        Game::build(rules, &pieces, deployments, Color::Red, 0, ByColor::default())
    }

    /// A game from an arbitrary position, for analysis and search: pieces anywhere on
    /// playable squares, any counts, `to_move` to play, `plies` already played (for the
    /// ply limit) and the pieces each side has lost. Repetition histories start empty.
    ///
    /// # Errors
    /// A piece off the board or on a lake, two pieces on one square, or more pieces than
    /// the board representation holds.
    pub fn from_position(
        rules: impl Into<Arc<Ruleset>>,
        pieces: &[PositionPiece],
        to_move: Color,
        plies: u32,
        captured: ByColor<PieceCounts>,
    ) -> Result<Game, GameError> {
        if pieces.len() > crate::MAX_PIECES as usize {
            return Err(GameError::TooManyPieces(pieces.len()));
        }
        let mut sorted: Vec<PositionPiece> = pieces.to_vec();
        sorted.sort_by_key(|p| (p.color, p.square));
        let deployments = ByColor::new_with(|c| {
            Deployment::unchecked(c, sorted.iter().filter(|p| p.color == c).map(|p| (p.square, p.rank)).collect())
        });
        Game::build(rules.into(), &sorted, deployments, to_move, plies, captured)
    }

    /// Places `pieces` (Red's first, each side by square: ids follow that order) and
    /// computes whether the game is already over.
    fn build(
        rules: Arc<Ruleset>,
        pieces: &[PositionPiece],
        deployments: ByColor<Deployment>,
        to_move: Color,
        ply_offset: u32,
        captured: ByColor<PieceCounts>,
    ) -> Result<Game, GameError> {
        let mut board = *rules.cells();
        let unused = Square::new(0, 0).expect("a1");
        let mut states = vec![PieceState {
            color: Color::Red,
            rank: Rank::Flag,
            square: unused,
            origin: unused,
            alive: false,
            moved: false,
            revealed: false,
            scout_shown: false,
        }];
        let mut hash = if to_move == Color::Blue { SIDE_KEY } else { 0 };
        for p in pieces {
            if !rules.on_board(p.square) || rules.is_lake(p.square) {
                return Err(GameError::OffBoard(p.square));
            }
            if board[p.square.index()] != EMPTY {
                return Err(GameError::Overlap(p.square));
            }
            let id = states.len() as u8;
            board[p.square.index()] = id;
            hash ^= zobrist(id, p.square);
            states.push(PieceState {
                color: p.color,
                rank: p.rank,
                square: p.square,
                origin: p.square,
                alive: true,
                moved: p.moved,
                revealed: p.revealed,
                scout_shown: false,
            });
        }
        let red_count = pieces.iter().filter(|p| p.color == Color::Red).count() as u8;
        let enterable = ByColor::new_with(|color| {
            board.map(|cell| match cell {
                EMPTY => 1,
                WALL => 0,
                id => u8::from(states[id as usize].color != color),
            })
        });
        let mut mobile = ByColor::<IdSet>::default();
        let mut scouts = ByColor::<u8>::default();
        let mut occupied = IdSet::default();
        for (id, p) in states.iter().enumerate().skip(1) {
            if p.rank.is_mobile() {
                mobile[p.color].insert(id as u8);
            }
            if p.rank == Rank::Scout {
                scouts[p.color] += 1;
            }
            occupied.insert(p.square.index() as u8);
        }
        let mut game = Game {
            rules,
            board,
            enterable,
            pieces: states,
            red_count,
            mobile,
            scouts,
            occupied,
            deployments,
            to_move,
            history: Vec::new(),
            shuttle: ByColor::default(),
            chase: None,
            last_move: None,
            hash,
            captured,
            outcome: None,
            ply_offset,
        };
        game.outcome = game.compute_end(None);
        Ok(game)
    }

    /// The ruleset.
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The shared ruleset handle.
    pub fn rules_arc(&self) -> &Arc<Ruleset> {
        &self.rules
    }

    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Number of plies played (including those before a [`Game::from_position`] start).
    pub fn ply_count(&self) -> u32 {
        self.ply_offset + self.history.len() as u32
    }

    /// Every ply played so far.
    pub fn history(&self) -> &[Ply] {
        &self.history
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The starting deployments.
    pub fn deployments(&self) -> &ByColor<Deployment> {
        &self.deployments
    }

    /// Pieces each side has lost.
    pub fn captured(&self) -> &ByColor<PieceCounts> {
        &self.captured
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<(Color, Rank)> {
        match self.board[sq.index()] {
            EMPTY | WALL => None,
            id => {
                let p = &self.pieces[id as usize];
                Some((p.color, p.rank))
            }
        }
    }

    /// Every piece on the board: `(square, color, rank)`, by square.
    pub fn board_pieces(&self) -> impl Iterator<Item = (Square, Color, Rank)> + '_ {
        self.rules.squares().filter_map(|sq| self.piece_at(sq).map(|(c, r)| (sq, c, r)))
    }

    /// A hash of the position by piece identity (which piece stands where) and side to move.
    pub fn position_hash(&self) -> u64 {
        self.hash
    }

    pub(crate) fn pieces_raw(&self) -> &[PieceState] {
        &self.pieces
    }

    pub(crate) fn piece_id_at_index(&self, index: u8) -> u8 {
        self.board[index as usize]
    }

    pub(crate) fn occupied_squares(&self) -> &IdSet {
        &self.occupied
    }

    #[inline]
    fn ids(&self, color: Color) -> std::ops::RangeInclusive<usize> {
        match color {
            Color::Red => 1..=self.red_count as usize,
            Color::Blue => self.red_count as usize + 1..=self.pieces.len() - 1,
        }
    }

    #[inline]
    fn is_enemy_cell(&self, cell: u8, color: Color) -> bool {
        cell != EMPTY && cell != WALL && ((cell > self.red_count) == (color == Color::Red))
    }

    /// Fills `buf` (cleared first) with the legal moves of the side to move; empty once
    /// the game is over. Reuse the buffer to avoid allocation.
    ///
    /// The order is fixed: the mover's pieces by starting square, then direction (+file,
    /// -file, +rank, -rank), then distance.
    pub fn legal_moves(&self, buf: &mut Vec<Move>) {
        buf.clear();
        if self.outcome.is_some() {
            return;
        }
        let color = self.to_move;
        let mobile = &self.mobile[color];
        // Room for every candidate: four a piece; a Scout reaches at most the other squares
        // of its file and rank, plus one slot for the candidate that ends its last ray.
        let scouts = self.scouts[color] as usize;
        let line = (self.rules.width() as usize + self.rules.height() as usize - 1).max(4);
        buf.reserve(4 * (mobile.len() - scouts) + line * scouts);
        let slots = buf.spare_capacity_mut();
        let len = match self.restricted_pieces(color) {
            (0, 0) => self.write_moves::<false>(color, slots, (0, 0)),
            restricted => self.write_moves::<true>(color, slots, restricted),
        };
        // SAFETY: `write_moves` wrote each of the first `len` slots of the spare capacity,
        // which follow the buffer's length 0 (it was cleared above).
        unsafe { buf.set_len(len) };
    }

    /// Writes the legal moves of `color` into `slots` (room for every candidate, see
    /// [`Game::legal_moves`]) and returns how many it wrote. Only with `RESTRICTED` may a
    /// piece (one of `restricted`) have moves the repetition rules forbid.
    #[inline(always)]
    fn write_moves<const RESTRICTED: bool>(
        &self,
        color: Color,
        slots: &mut [MaybeUninit<Move>],
        restricted: (u8, u8),
    ) -> usize {
        let long_attack = self.rules.scout_move_and_attack();
        let board = &self.board;
        let enterable = &self.enterable[color];
        // Whether a piece can move or attack onto a cell is data no branch predictor can
        // guess: each candidate is written to the next free slot, and kept by advancing
        // the count past it.
        let mut len = 0;
        for (word, mut bits) in self.mobile[color].words().into_iter().enumerate() {
            while bits != 0 {
                let id = (word as u32 * 64 + bits.trailing_zeros()) as u8;
                bits &= bits - 1;
                let p = &self.pieces[id as usize];
                let from = p.square;
                let f = from.index() as u8;
                if RESTRICTED && (id == restricted.0 || id == restricted.1) {
                    // Copies, so that `len` and `slots` stay in registers elsewhere.
                    let (mut k, out) = (len, &mut *slots);
                    self.gen_checked_moves(color, id, &mut |m| {
                        out[k].write(m);
                        k += 1;
                        false
                    });
                    len = k;
                } else if p.rank != Rank::Scout {
                    for d in DIRS {
                        let to = f.wrapping_add(d);
                        slots[len].write(Move::new(from, Square::at(to)));
                        len += enterable[to as usize] as usize;
                    }
                } else {
                    for d in DIRS {
                        let first = f.wrapping_add(d);
                        let mut to = first;
                        let mut cell = board[to as usize];
                        while cell == EMPTY {
                            slots[len].write(Move::new(from, Square::at(to)));
                            len += 1;
                            to = to.wrapping_add(d);
                            cell = board[to as usize];
                        }
                        slots[len].write(Move::new(from, Square::at(to)));
                        // The ray ends on a wall, an own piece or an enemy: only the last is
                        // enterable.
                        len += (enterable[to as usize] & u8::from(long_attack | (to == first))) as usize;
                    }
                }
            }
        }
        len
    }

    /// Whether `color` would have a legal move if it were its turn in this position.
    pub fn has_legal_move(&self, color: Color) -> bool {
        let (shuttle_piece, chase_piece) = self.restricted_pieces(color);
        let enterable = &self.enterable[color];
        let can_move = |id: u8| {
            if id == shuttle_piece || id == chase_piece {
                return self.gen_checked_moves(color, id, &mut |_| true);
            }
            // Any other piece (a Scout too) has a move exactly when a neighbouring cell is
            // empty or holds an enemy.
            let f = self.pieces[id as usize].square.index() as u8;
            DIRS.iter().any(|&d| enterable[f.wrapping_add(d) as usize] != 0)
        };
        // Ids follow the starting squares, so each side's front row comes first when Red's
        // pieces are visited from the highest id down and Blue's from the lowest up: the
        // search usually stops at the first piece.
        let words = self.mobile[color].words();
        match color {
            Color::Red => {
                for (word, mut bits) in words.into_iter().enumerate().rev() {
                    while bits != 0 {
                        let top = 63 - bits.leading_zeros();
                        bits &= !(1 << top);
                        if can_move((word as u32 * 64 + top) as u8) {
                            return true;
                        }
                    }
                }
            }
            Color::Blue => {
                for (word, mut bits) in words.into_iter().enumerate() {
                    while bits != 0 {
                        let id = (word as u32 * 64 + bits.trailing_zeros()) as u8;
                        bits &= bits - 1;
                        if can_move(id) {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }

    /// The pieces of `color` whose moves the repetition rules may restrict now (0: none):
    /// the shuttling piece once it has reached the two-square limit, and the chasing piece.
    /// Every other piece skips those checks.
    #[inline]
    fn restricted_pieces(&self, color: Color) -> (u8, u8) {
        let shuttle = &self.shuttle[color];
        let shuttle_piece = match self.rules.two_square_limit() {
            Some(limit) if shuttle.count >= limit => shuttle.piece,
            _ => 0,
        };
        let chase_piece = match &self.chase {
            Some(c) if c.chaser == color => c.piece,
            _ => 0,
        };
        (shuttle_piece, chase_piece)
    }

    /// The moves of piece `id`, which the repetition rules may restrict, in the order of
    /// [`Game::legal_moves`]; stops early when `emit` returns true and says whether it did.
    #[cold]
    #[inline(never)]
    fn gen_checked_moves(&self, color: Color, id: u8, emit: &mut impl FnMut(Move) -> bool) -> bool {
        let move_and_attack = self.rules.scout_move_and_attack();
        let p = &self.pieces[id as usize];
        let from = p.square;
        let scout = p.rank == Rank::Scout;
        for d in DIRS {
            let mut to = from.index() as u8;
            let mut steps = 0u8;
            loop {
                to = to.wrapping_add(d);
                steps += 1;
                let cell = self.board[to as usize];
                let attack = cell != EMPTY;
                if attack && (!self.is_enemy_cell(cell, color) || (steps > 1 && !move_and_attack)) {
                    break;
                }
                let mv = Move::new(from, Square::at(to));
                if self.repetition_check(color, id, mv, attack).is_ok() && emit(mv) {
                    return true;
                }
                if attack || !scout {
                    break;
                }
            }
        }
        false
    }

    /// The two-square and chasing rules for a geometrically possible move.
    #[inline]
    fn repetition_check(&self, color: Color, id: u8, mv: Move, attack: bool) -> Result<(), IllegalMove> {
        if let Some(limit) = self.rules.two_square_limit() {
            let sh = &self.shuttle[color];
            if sh.piece == id && sh.count >= limit && sh.continues(mv, self.rules.scout_path()) {
                return Err(IllegalMove::TwoSquareRule { limit });
            }
        }
        if let Some(chase) = &self.chase {
            if chase.chaser == color && chase.piece == id && !attack {
                let target = self.pieces[chase.target as usize].square;
                if mv.to.is_adjacent(target) && mv.to != chase.came_from {
                    let next = self.hash ^ zobrist(id, mv.from) ^ zobrist(id, mv.to) ^ SIDE_KEY;
                    if chase.positions.contains(&next) {
                        return Err(IllegalMove::ChasingRule);
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks a move against the position and says why it is illegal.
    ///
    /// # Errors
    /// The first rule the move breaks, in the order of [`IllegalMove`]'s variants.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::GameOver);
        }
        for sq in [mv.from, mv.to] {
            if !self.rules.on_board(sq) {
                return Err(IllegalMove::OffBoard(sq));
            }
        }
        let id = self.board[mv.from.index()];
        if id == EMPTY || id == WALL {
            return Err(IllegalMove::NoPiece(mv.from));
        }
        let p = self.pieces[id as usize];
        if p.color != self.to_move {
            return Err(IllegalMove::NotYourPiece(mv.from));
        }
        if !p.rank.is_mobile() {
            return Err(IllegalMove::Immobile { rank: p.rank, square: mv.from });
        }
        if mv.from == mv.to {
            return Err(IllegalMove::SameSquare(mv.from));
        }
        if mv.from.file() != mv.to.file() && mv.from.rank() != mv.to.rank() {
            return Err(IllegalMove::NotStraight(mv));
        }
        let dist = mv.from.distance(mv.to);
        if dist > 1 && p.rank != Rank::Scout {
            return Err(IllegalMove::TooFar(p.rank));
        }
        let step: u8 = if mv.from.file() == mv.to.file() {
            if mv.to > mv.from { 16 } else { 240 }
        } else if mv.to > mv.from {
            1
        } else {
            255
        };
        let mut sq = mv.from.index() as u8;
        for _ in 1..dist {
            sq = sq.wrapping_add(step);
            let s = Square::from_index(sq).expect("between two board squares");
            match self.board[sq as usize] {
                EMPTY => {}
                WALL => return Err(IllegalMove::BlockedByLake(s)),
                _ => return Err(IllegalMove::BlockedPath(s)),
            }
        }
        let cell = self.board[mv.to.index()];
        if cell == WALL {
            return Err(IllegalMove::BlockedByLake(mv.to));
        }
        let attack = cell != EMPTY;
        if attack && !self.is_enemy_cell(cell, p.color) {
            return Err(IllegalMove::OntoOwnPiece(mv.to));
        }
        if attack && dist > 1 && !self.rules.scout_move_and_attack() {
            return Err(IllegalMove::ScoutMoveAndAttack);
        }
        self.repetition_check(p.color, id, mv, attack)
    }

    /// Checks and plays a move.
    ///
    /// # Errors
    /// Why the move is illegal ([`Game::check_move`]); the game is unchanged then.
    pub fn play(&mut self, mv: Move) -> Result<Ply, IllegalMove> {
        self.check_move(mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// Plays a move known to be legal (from [`Game::legal_moves`]), skipping the check.
    /// Playing an illegal move this way leaves the game in an unspecified (but memory-safe)
    /// state; debug builds assert legality.
    pub fn play_unchecked(&mut self, mv: Move) -> Ply {
        debug_assert_eq!(self.check_move(mv), Ok(()), "{mv}");
        let color = self.to_move;
        let id = self.board[mv.from.index()];
        let target = self.board[mv.to.index()];
        let rank = self.pieces[id as usize].rank;

        if self.rules.two_square_limit().is_some() {
            self.shuttle[color].record(id, mv, self.rules.scout_path());
        }

        self.set_empty(mv.from);
        self.hash ^= zobrist(id, mv.from);
        {
            let p = &mut self.pieces[id as usize];
            p.moved = true;
            if mv.from.distance(mv.to) > 1 {
                p.scout_shown = true;
            }
        }
        let mut combat = None;
        if target == EMPTY {
            self.place(id, mv.to);
        } else {
            let c = Combat::resolve(rank, self.pieces[target as usize].rank);
            self.pieces[id as usize].revealed = true;
            self.pieces[target as usize].revealed = true;
            match c.result {
                CombatResult::AttackerWins => {
                    self.remove(target);
                    self.place(id, mv.to);
                }
                CombatResult::DefenderWins => self.remove(id),
                CombatResult::BothRemoved => {
                    self.remove(target);
                    self.remove(id);
                }
            }
            combat = Some(c);
        }
        self.hash ^= SIDE_KEY;
        self.to_move = !color;
        let ply = Ply { color, mv, combat };
        self.history.push(ply);
        if self.rules.more_squares() {
            self.update_chase(color, id, mv, combat.is_some());
        }
        self.outcome = self.compute_end(combat);
        ply
    }

    /// Empties a cell of the board (the piece's own records are the caller's).
    fn set_empty(&mut self, sq: Square) {
        self.board[sq.index()] = EMPTY;
        self.occupied.remove(sq.index() as u8);
        self.enterable[Color::Red][sq.index()] = 1;
        self.enterable[Color::Blue][sq.index()] = 1;
    }

    fn place(&mut self, id: u8, sq: Square) {
        self.board[sq.index()] = id;
        let color = self.pieces[id as usize].color;
        self.enterable[color][sq.index()] = 0;
        self.enterable[!color][sq.index()] = 1;
        self.occupied.insert(sq.index() as u8);
        self.pieces[id as usize].square = sq;
        self.hash ^= zobrist(id, sq);
    }

    fn remove(&mut self, id: u8) {
        let p = &mut self.pieces[id as usize];
        p.alive = false;
        self.captured[p.color][p.rank] += 1;
        self.mobile[p.color].remove(id);
        if p.rank == Rank::Scout {
            self.scouts[p.color] -= 1;
        }
        // An attacker has already been lifted off its square (and out of the hash).
        if self.board[p.square.index()] == id {
            let sq = p.square;
            self.set_empty(sq);
            self.hash ^= zobrist(id, sq);
        }
    }

    fn update_chase(&mut self, color: Color, id: u8, mv: Move, attack: bool) {
        if attack {
            self.chase = None;
            self.last_move = None;
            return;
        }
        let sq_of = |g: &Game, pid: u8| g.pieces[pid as usize].square;
        if let Some(chase) = &self.chase {
            let keep = if chase.chaser == color {
                id == chase.piece && mv.to.is_adjacent(sq_of(self, chase.target))
            } else {
                id == chase.target && mv.from.is_adjacent(sq_of(self, chase.piece))
            };
            if keep {
                let hash = self.hash;
                let chase = self.chase.as_mut().expect("checked above");
                if chase.chaser == color {
                    chase.came_from = mv.from;
                }
                chase.positions.push(hash);
            } else {
                self.chase = None;
            }
        }
        if self.chase.is_none() {
            if let Some(last) = self.last_move {
                // The opponent's last move brought its piece next to ours, and ours now
                // moves away: a chase begins.
                if last.color != color
                    && self.pieces[last.piece as usize].alive
                    && mv.from.is_adjacent(sq_of(self, last.piece))
                {
                    self.chase = Some(Chase {
                        chaser: last.color,
                        piece: last.piece,
                        target: id,
                        came_from: last.from,
                        positions: vec![last.hash_after, self.hash],
                    });
                }
            }
        }
        self.last_move = Some(LastMove { color, piece: id, from: mv.from, hash_after: self.hash });
    }

    fn compute_end(&self, combat: Option<Combat>) -> Option<Outcome> {
        if let Some(c) = combat {
            if c.flag_captured() {
                return Some(Outcome { winner: Some(!self.to_move), reason: EndReason::FlagCaptured });
            }
        }
        let red = self.has_legal_move(Color::Red);
        let blue = self.has_legal_move(Color::Blue);
        match (red, blue) {
            (false, false) => return Some(Outcome { winner: None, reason: EndReason::NeitherCanMove }),
            (false, true) => return Some(Outcome { winner: Some(Color::Blue), reason: EndReason::NoLegalMoves }),
            (true, false) => return Some(Outcome { winner: Some(Color::Red), reason: EndReason::NoLegalMoves }),
            (true, true) => {}
        }
        if self.rules.ply_limit().is_some_and(|limit| self.ply_count() >= limit) {
            return Some(Outcome { winner: None, reason: EndReason::PlyLimit });
        }
        if self.rules.sealed_flags_draw() && self.flag_sealed_from(Color::Red) && self.flag_sealed_from(Color::Blue) {
            return Some(Outcome { winner: None, reason: EndReason::SealedFlags });
        }
        None
    }

    /// Whether `attacker` can never capture the opposing Flag: it has no Miner, and no path
    /// from any of its movable pieces reaches the Flag through squares other than lakes and
    /// the Flag owner's Bombs. Everything else counts as passable, so this never claims a
    /// seal while a capture is still possible.
    pub fn flag_sealed_from(&self, attacker: Color) -> bool {
        let defender = !attacker;
        let Some(flag) = self.ids(defender).map(|i| &self.pieces[i]).find(|p| p.alive && p.rank == Rank::Flag) else {
            return true;
        };
        let mut seen = [false; 256];
        let mut stack = Vec::new();
        for id in self.ids(attacker) {
            let p = &self.pieces[id];
            if !p.alive || !p.rank.is_mobile() {
                continue;
            }
            if p.rank == Rank::Miner {
                return false;
            }
            seen[p.square.index()] = true;
            stack.push(p.square.index() as u8);
        }
        while let Some(sq) = stack.pop() {
            for d in DIRS {
                let next = sq.wrapping_add(d);
                let cell = self.board[next as usize];
                if seen[next as usize] || cell == WALL {
                    continue;
                }
                if next as usize == flag.square.index() {
                    return false;
                }
                if cell != EMPTY {
                    let p = &self.pieces[cell as usize];
                    if p.color == defender && p.rank == Rank::Bomb {
                        continue;
                    }
                }
                seen[next as usize] = true;
                stack.push(next);
            }
        }
        true
    }
}
