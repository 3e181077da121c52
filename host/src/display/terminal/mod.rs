//! The terminal.
//!
//! Module structure:
//! - [`progress`]: the progress bar or a line per finished game, and `--report-every`.
//! - [`watch_board`]: `--watch`, one running game drawn as it is played, the run's notices under it.
//! - [`replay`]: the replay board (`replay`, and the frames `--watch` draws).
//! - [`style`]: colours, when the terminal wants them.
//!
//! May print (stdout for reports and replays, stderr for progress and the board).

pub(crate) mod progress;
pub(crate) mod replay;
pub(crate) mod style;
pub(crate) mod watch_board;
