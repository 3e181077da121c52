//! The web: the live page of `--serve` and its HTTP server.

pub mod live_page;
