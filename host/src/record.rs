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

    /// Appends one record as one line with a single write. A kill of the host in the middle
    /// of that write can still leave the start of a line (a test saw one when the kill came
    /// as a third record went in): readers drop a torn last line and resume plays that game
    /// again, so no finished game that was whole on disk is lost. A write that fails part of
    /// the way (a full disk) is cut off again: the file keeps whole records only.
    ///
    /// # Errors
    /// The write failed (and, if the part written could not be cut off, says so too).
    pub fn append(&self, record: &GameRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let before = f.metadata()?.len();
        match f.write_all(&line).and_then(|()| f.flush()) {
            Ok(()) => Ok(()),
            Err(e) => match f.set_len(before) {
                Ok(()) => Err(e),
                Err(cut) => Err(std::io::Error::new(
                    e.kind(),
                    format!("{e}; and the part written could not be cut off ({cut}): its last line is torn"),
                )),
            },
        }
    }
}
