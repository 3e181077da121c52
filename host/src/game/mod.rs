//! What a game is, as values with no I/O.
//!
//! Module structure:
//! - [`clock`]: time controls, the game clock, and `in_time`, the one verdict on an answer's time.
//! - [`setup_book`]: the setup book an event draws deployments from.
//!
//! Imports no layer; prints, blocks and spawns nothing.

pub mod clock;
pub mod setup_book;
