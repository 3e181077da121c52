//! `stratego-host`: runs Stratego bots against each other.
//!
//! The host is built in layers; each folder uses only the folders below it (a test in the
//! tests crate, `architecture.rs`, reads these sources and fails on an import that points up or
//! on two folders that import each other):
//!
//! 1. [`cli`]: the command line (clap) and the tournament file, validated once into a plan.
//! 2. [`commands`]: one file per subcommand; each runs a plan and returns what to print and its exit code.
//! 3. [`compete`]: competitions: what tells match, tournament and SPRT apart, their reports and sinks.
//! 4. [`display`]: what people see, by audience: the terminal (progress, `--watch` board, replay), files (HTML pages), the web (live page).
//! 5. [`run`]: a plan turned into played games (schedule, executor, referee, happenings, manifest).
//! 6. [`session`]: the seam between the referee and a bot, and the protocols behind it.
//! 7. [`supervise`]: bot processes and everything done to the operating system for them.
//! 8. [`remote`]: remote bots' connections: the `--listen` hub, the `connect` client, tokens, lag.
//! 9. [`game`]: what a game is, as values (time control and clock, setup book).
//!
//! Beside the layers, usable from any of them and using none: [`record`] (the game record),
//! [`exit`] (exit codes), [`reason`] (why a game ended), [`text`] (the small text
//! helpers, one home each: the one sanitiser of text from bots, records and remote hosts
//! before it reaches a terminal, `clip`, `secs`, `plural`, HTML escaping), [`notice`] (what a layer has to tell the person running
//! the host, said instead of printed); the statistics are the
//! `stratego-stats` crate, the records files in both forms the `stratego-records` crate; the
//! HTML viewer's rules in the browser are the `stratego-viewer-wasm` crate (`host/viewer-wasm`),
//! which `build.rs` compiles to WebAssembly for [`display::files::viewer`] to embed.
//!
//! Only these write to the terminal: `commands/`, `display/terminal/`, `main.rs`. Below
//! them, what a layer has to say goes through [`notice`], and the command decides where it
//! goes (`tests/tests/architecture.rs` refuses a print, a `dbg!` or a handle on stdout or
//! stderr anywhere else).
//!
//! One game's path: `cli` validates flags into a plan → `commands::harness` builds the competition
//! → `run::schedule` lists the games → `run::executor` starts bot sessions and runs each game's
//! `run::referee`, which talks to each bot through `session::BotSession` (`session::json_session`
//! over a `supervise::process`, or `session::remote_session` over a `remote::hub` connection)
//! → `run::happenings` → `compete::sinks` (records, report) and `display` (progress, board, pages).

pub mod cli;
pub mod commands;
pub mod compete;
pub mod display;
pub mod exit;
pub(crate) mod game;
pub mod notice;
pub use stratego_protocol::reason;
pub mod record;
pub mod remote;
pub mod run;
pub(crate) mod session;
/// How the host reads one line of a bot's output (a message, or a fault with its reason);
/// public for the fuzz target in `host/fuzz`, which feeds it arbitrary bytes.
pub use session::messages::parse_bot_message;
pub mod supervise;
pub mod text;
