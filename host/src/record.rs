//! Game records: the types and their replay are [`stratego_protocol::record`] (usable without
//! the host); this module adds the writer that appends them to `DIR/games.jsonl`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use stratego_protocol::record::*;

/// Appends records to `DIR/games.jsonl`, one write per record.
pub struct RecordWriter {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl RecordWriter {
    /// Opens (creating) `dir/games.jsonl` for appending.
    ///
    /// # Errors
    /// The directory or file cannot be created.
    pub fn open(dir: &Path) -> std::io::Result<RecordWriter> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join("games.jsonl");
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(RecordWriter { path, file: Mutex::new(file) })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line with a single write, so a crash or kill of the host
    /// never leaves half a game and never loses a finished one.
    ///
    /// # Errors
    /// The write failed.
    pub fn append(&self, record: &GameRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(&line)?;
        f.flush()
    }
}
