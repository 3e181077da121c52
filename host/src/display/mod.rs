//! What a run and its records look like to people, by audience: the terminal, files,
//! the web.

pub mod files;
pub mod terminal;
pub mod web;
