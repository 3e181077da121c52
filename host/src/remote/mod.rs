//! Remote bots: bots that run on the entrant's machine and connect out to the host over a
//! WebSocket (TLS), one protocol line per text frame. [`hub`] is the organiser's listener
//! and the registry that hands each game its bot's connection; [`client`] is the entrant's
//! `connect` command; [`token`] makes and checks the tokens; [`lag`] measures the network
//! and credits it fairly. The session over a connection is
//! [`crate::session::remote_session`] (the referee, clocks and records do not change).

pub mod client;
pub mod hub;
pub mod lag;
pub mod token;
