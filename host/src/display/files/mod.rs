//! Files: the HTML viewer and the index pages.

pub mod viewer;
