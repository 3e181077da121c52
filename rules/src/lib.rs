//! Stratego rules: the referee core shared by the host, the sample bot and researchers.
//!
//! - Vocabulary: [`Square`], [`Color`] and [`ByColor`], [`Rank`] and [`PieceCounts`].
//! - [`Ruleset`]: board, lakes, armies and every rule setting; presets `classic`, `isf`,
//!   `barrage`, or JSON.
//! - [`Deployment`]: one side's setup, validated, with compact text forms.
//! - [`Game`]: legal moves, checked moves ([`IllegalMove`] says why), combat ([`Combat`]),
//!   the two-square and more-squares rules, and the end of the game ([`Outcome`]).
//! - [`View`]: what one player may know, and nothing more.
//! - [`gravon`]: the Gravon (StraDoS2) XML archive format.
//!
//! ```
//! use stratego_rules::{Color, Deployment, Game, Ruleset};
//! let rules = Ruleset::classic();
//! let red = Deployment::parse(&rules, Color::Red, "B32222222S/6655554444/BX98877766/FB3B333B2B").unwrap();
//! let blue = Deployment::parse(&rules, Color::Blue, "FB3B333B2B/BX98877766/6655554444/B32222222S").unwrap();
//! let mut game = Game::new(rules, &red, &blue).unwrap();
//! let mut moves = Vec::new();
//! while !game.is_over() && game.ply_count() < 100 {
//!     game.legal_moves(&mut moves);
//!     game.play_unchecked(moves[game.ply_count() as usize % moves.len()]);
//! }
//! ```

mod color;
mod deployment;
mod game;
pub mod gravon;
mod idset;
mod mv;
mod outcome;
mod rank;
mod repetition;
mod ruleset;
mod schema;
mod square;
mod view;

pub use color::{ByColor, Color};
pub use deployment::{Deployment, DeploymentError};
pub use game::{Game, GameError, IllegalMove, PositionPiece};
pub use mv::{Combat, CombatResult, Move, ParseMoveError, Ply};
pub use outcome::{EndReason, Outcome};
pub use rank::{ParseRankError, PieceCounts, Rank};
pub use ruleset::{MAX_PIECES, Ruleset, RulesetError, RulesetSpec};
pub use square::{MAX_SIDE, ParseSquareError, Square};
pub use view::{View, ViewPiece};
