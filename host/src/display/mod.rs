//! What people see of a run and its records, by audience.
//!
//! Module structure:
//! - [`terminal`]: progress lines and bar, `--report-every`, the `--watch` board, the replay
//!   board, colours. The one place below `commands/` that writes to the terminal.
//! - [`files`]: the HTML viewer and the index pages of an `--out` directory or `export`.
//! - [`web`]: the live page of `--serve` and its HTTP server.
//!
//! Imports `run` and below (never `compete`: a competition hands it text and figures);
//! `web` spawns the live page's thread.

pub mod files;
pub mod terminal;
pub mod web;
