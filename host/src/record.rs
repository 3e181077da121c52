//! Game records: the types and their replay are [`stratego_protocol::record`] (usable without
//! the host); this module adds the writer that appends them to `DIR/games.jsonl`
//! (or to a resumed run's `DIR/games.jsonl.zst`).

use std::path::Path;

pub use stratego_protocol::record::*;

/// Appends records to `DIR/games.jsonl`, one write per record (or, when the directory
/// already holds its records in the compact form, `DIR/games.jsonl.zst`, one zstd frame
/// per record: a resumed run goes on in the form it has). The writing is the records
/// crate's ([`stratego_records::RecordWriter`], the one writer of records files); this adds
/// which file of an `--out` directory it is.
pub struct RecordWriter {
    file: stratego_records::RecordWriter,
}

/// Refuses `--compress` for the `--out` directory `dir` when it holds plain records
/// (`games.jsonl`) of an earlier run: a directory keeps the form it was started with. Every
/// command that writes records asks this before it writes anything (`match` before its
/// manifest, `ladder play` before its records file; [`RecordWriter::open`] asks it too, so
/// no caller can miss it).
///
/// # Errors
/// The message to show, naming the directory.
pub fn compress_allowed(dir: &Path) -> Result<(), String> {
    if dir.join(stratego_records::PLAIN_FILE).exists() {
        return Err(format!(
            "--compress: {} holds plain records (games.jsonl) of an earlier run; a directory keeps the form it was \
             started with: resume it without --compress, or give a new directory",
            dir.display()
        ));
    }
    Ok(())
}

impl RecordWriter {
    /// Opens (creating) `dir/games.jsonl` for appending; `dir/games.jsonl.zst` instead
    /// when it exists (and `games.jsonl` does not), or when `compress` and the directory
    /// holds no records yet: a directory keeps the form it was started with.
    ///
    /// # Errors
    /// The directory or file cannot be created, the directory holds both files, or
    /// `compress` is asked of a directory whose records are plain.
    pub fn open(dir: &Path, compress: bool) -> std::io::Result<RecordWriter> {
        std::fs::create_dir_all(dir)?;
        let existing = stratego_records::records_file(dir).map_err(std::io::Error::other)?;
        if compress {
            compress_allowed(dir).map_err(std::io::Error::other)?;
        }
        let compact = match &existing {
            Some(path) => stratego_records::Form::of_file(path)? == stratego_records::Form::Compact,
            None => compress,
        };
        let form = if compact { stratego_records::Form::Compact } else { stratego_records::Form::Plain };
        Ok(RecordWriter { file: stratego_records::RecordWriter::open_in(dir, form)? })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Appends one record as one line (or one frame) with a single write
    /// ([`stratego_records::RecordWriter::append`]). A kill of the host in the middle of that
    /// write can still leave the start of a line: readers drop a torn last line and resume
    /// plays that game again, so no finished game that was whole on disk is lost. A write
    /// that fails part of the way (a full disk) is cut off again: the file keeps whole
    /// records only. After a last line that is a whole record without its newline (kept, as
    /// RECORDS.md says), the record starts on a line of its own.
    ///
    /// # Errors
    /// The write failed (and, if the part written could not be cut off, says so too).
    pub fn append(&self, record: &GameRecord) -> std::io::Result<()> {
        self.file.append(record)
    }
}

#[cfg(test)]
mod compress_tests {
    use super::{RecordWriter, compress_allowed};

    /// A fresh directory under the system's temporary directory, removed at the end.
    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("stratego-record-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn compress_is_refused_for_a_directory_of_plain_records_with_one_message_naming_it() {
        let empty = dir("empty");
        assert_eq!(compress_allowed(&empty), Ok(()), "a new directory may be compact");
        let plain = dir("plain");
        std::fs::write(plain.join("games.jsonl"), "{}\n").unwrap();
        let refused = compress_allowed(&plain).expect_err("plain records: refused");
        assert!(refused.starts_with("--compress: ") && refused.contains(&plain.display().to_string()), "{refused}");
        let Err(e) = RecordWriter::open(&plain, true) else { panic!("the writer must refuse it too") };
        assert_eq!(e.to_string(), refused, "one refusal, one text");
        assert_eq!(std::fs::read_to_string(plain.join("games.jsonl")).unwrap(), "{}\n", "the plain records are kept");
        assert!(!plain.join("games.jsonl.zst").exists(), "no compact file was started beside them");
        assert!(RecordWriter::open(&plain, false).is_ok(), "without --compress the plain records are appended to");
        let _ = std::fs::remove_dir_all(&empty);
        let _ = std::fs::remove_dir_all(&plain);
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use stratego_rules::{ByColor, Color};

    use crate::reason::Reason;
    use crate::record::{BotInfo, GameRecord, RecordResult};

    /// A record that says only who won (what the tables read).
    pub(crate) fn record(winner: Option<Color>) -> GameRecord {
        record_with_fault(winner, None)
    }

    /// The same, with the side that faulted.
    pub(crate) fn record_with_fault(winner: Option<Color>, faulty: Option<Color>) -> GameRecord {
        let bot = |name: &str| BotInfo::new(name.into(), vec![]);
        GameRecord {
            game_id: "g".into(),
            index: 0,
            pair: 0,
            book_setups: ByColor::new(None, None),
            match_seed: 1,
            seed: 1,
            host_version: "test".into(),
            started_unix_ms: 0,
            duration_ms: 0,
            ruleset: stratego_rules::Ruleset::classic().spec().clone(),
            time_control: stratego_protocol::TimeControl {
                startup_ms: 0,
                setup_ms: 0,
                move_ms: None,
                bank_ms: None,
                increment_ms: 0,
                margin_ms: 0,
            },
            time_controls: None,
            bots: ByColor::new(bot("r"), bot("b")),
            deployments: ByColor::new(None, None),
            plies: vec![],
            result: RecordResult {
                winner,
                reason: if faulty.is_some() { Reason::MoveTimeout } else { Reason::FlagCaptured },
                message: String::new(),
                faulty,
            },
        }
    }
}
