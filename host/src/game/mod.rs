//! What a game is, as values with no I/O: its time control and game clock, and the setup book
//! it draws deployments from.

pub mod clock;
pub mod setup_book;
