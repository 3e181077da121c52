//! The bot protocol of `stratego-host`, version 1 (see `protocol.md` at the top of the
//! repository for the prose).
//!
//! - [`HostMessage`]: everything the host sends to a bot; [`BotMessage`]: everything a bot
//!   may send. One JSON object per line, with a `"type"` field.
//! - [`schema`]: the JSON Schema of both, committed as `protocol/schema/protocol.schema.json`.
//! - [`bot`]: a small loop so a Rust bot is one function from turn to move.
//! - [`record`]: the game record format (RECORDS.md) and its playthrough (`GameRecord::play_through`); [`reason`]: why a game
//!   ended.
//! - [`Rng`]: SplitMix64, the named generator bots and the host use for seeded choices.

pub mod bot;
pub mod fast_json;
mod messages;
pub mod reason;
pub mod record;
mod rng;

pub use messages::*;
pub use rng::Rng;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Default limit on the length of one line a bot may send, in bytes (1 MiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// Appends `msg` as one JSON line (with its newline) to `out`: the same bytes as
/// `serde_json`, written faster for `turn` (see [`fast_json`]).
pub fn write_host_message(out: &mut Vec<u8>, msg: &HostMessage) {
    match msg {
        HostMessage::Turn(t) => fast_json::write_turn(out, t),
        other => serde_json::to_writer(&mut *out, other).expect("host messages serialise"),
    }
    out.push(b'\n');
}

/// The JSON Schema of the whole protocol: `{"host_message": …, "bot_message": …}`.
pub fn schema() -> serde_json::Value {
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    /// Every message of protocol version 1.
    struct Protocol {
        /// A message from the host to a bot.
        host_message: HostMessage,
        /// A message from a bot to the host.
        bot_message: BotMessage,
    }
    serde_json::to_value(schemars::schema_for!(Protocol)).expect("a schema is JSON")
}
