//! The terminal: the `--watch` board, the replay board, colours.

pub(crate) mod live_board;
pub(crate) mod progress;
pub(crate) mod replay;
pub(crate) mod style;
