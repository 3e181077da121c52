//! Files people open.
//!
//! Module structure:
//! - [`game_page`]: one game viewer page (the games' data, the viewer's script).
//! - [`viewer`]: the self-contained HTML game viewer (`viewer.html`/`.js`/`.css`, the rules
//!   as WebAssembly) and the index pages of a run.
//!
//! Prints nothing (a page it cannot write is a notice); writes only files the host may
//! replace (`run::output_file`).

pub mod game_page;
pub mod viewer;
