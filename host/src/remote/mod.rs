//! Remote bots: bots that run on the entrant's machine and connect out to the host over a
//! WebSocket (TLS), one protocol line per text frame. The session over a connection is
//! [`crate::session::remote_session`] (the referee, clocks and records do not change).
//!
//! Module structure:
//! - [`hub`]: the organiser's `--listen` listener and the registry that hands each game its
//!   bot's connection.
//! - [`conn`]: one bot's connection once authenticated (frames, pings, limits), and the
//!   look at a request's head that tells a bot from a page on a shared port.
//! - [`client`]: the entrant's side of `connect` (the command is `commands/connect.rs`);
//!   `client/guardian.rs`: the process that kills its bot groups once it is gone;
//!   `client/games.rs`: the games it saw and its report; `client/relay.rs`: one
//!   connection's relay, a method per event (host frame, bot line, bot gone, heartbeat).
//! - [`token`]: tokens and their SHA-256.
//! - [`lag`]: the network lag and the credit it earns.
//!
//! Imports `game` and below; prints nothing (notices); async, spawns a task per connection.

pub mod client;
pub mod conn;
pub mod hub;
pub mod lag;
pub mod token;
