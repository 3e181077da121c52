//! The web.
//!
//! Module structure:
//! - [`bot_page`]: the arena's page per bot (rendered from the data its file gives).
//! - [`http`]: the live page's connection limits, refusals and stalled writes.
//! - [`live_page`]: the live page of `--serve` (`live_page.html`/`.js`/`.css`) and its HTTP
//!   server, on a thread of its own.
//! - [`live_state`]: the live page's state (what it shows, the messages it sends).
//!
//! Prints nothing (its address is a notice); spawns its server thread.

pub mod bot_page;
pub mod http;
pub mod live_page;
pub mod live_state;
