//! Game records: the types and their replay are [`stratego_protocol::record`] (usable without
//! the host); reading and writing them at rest is the records crate's
//! ([`stratego_records`], the one reader and the one writer). This module adds what is the
//! host's: which file of an `--out` directory is written ([`OutDirWriter`]), and the
//! warnings a read gives (a torn tail dropped, lines skipped), through [`crate::notice`].
//! Every part of the host reads records through the functions here.

use std::path::Path;

pub use stratego_protocol::record::*;
pub use stratego_records::{Digested, Position, digests_iter, records_iter, records_path, with_skip_hint};

/// Appends records to `DIR/games.jsonl`, one write per record (or, when the directory
/// already holds its records in the compact form, `DIR/games.jsonl.zst`, one zstd frame
/// per record: a resumed run goes on in the form it has). The writing is the records
/// crate's ([`stratego_records::RecordWriter`], the one writer of records files); this adds
/// which file of an `--out` directory it is (hence its name: the host's writer of an `--out`
/// directory, over the records crate's `RecordWriter` of one file).
pub struct OutDirWriter {
    file: stratego_records::RecordWriter,
}

/// Refuses `--compress` for the `--out` directory `dir` when it holds plain records
/// (`games.jsonl`) of an earlier run: a directory keeps the form it was started with. Every
/// command that writes records asks this before it writes anything (`match` before its
/// manifest, `ladder play` before its records file; [`OutDirWriter::open`] asks it too, so
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

impl OutDirWriter {
    /// Opens (creating) `dir/games.jsonl` for appending; `dir/games.jsonl.zst` instead
    /// when it exists (and `games.jsonl` does not), or when `compress` and the directory
    /// holds no records yet: a directory keeps the form it was started with.
    ///
    /// # Errors
    /// The directory or file cannot be created, the directory holds both files, or
    /// `compress` is asked of a directory whose records are plain.
    pub fn open(dir: &Path, compress: bool) -> std::io::Result<OutDirWriter> {
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
        Ok(OutDirWriter { file: stratego_records::RecordWriter::open_in(dir, form)? })
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

/// The finished games of the `--out` directory `dir` (either form), for a run that goes on
/// appending: a torn tail is reported and cut off the file ([`stratego_records::read_back`]).
///
/// # Errors
/// A line (frame) other than the last is not a record, the directory holds both forms, or
/// the file cannot be read or cut.
pub fn read_back(dir: &Path) -> Result<Vec<GameRecord>, String> {
    let (records, torn) = stratego_records::read_back(dir)?;
    if let Some(torn) = &torn {
        warn_torn(&records_path(dir)?, torn, true);
    }
    Ok(records)
}

/// The game ids of the finished games of the `--out` directory `dir`, in file order, for a
/// resumed run, without reading the records whole ([`stratego_records::scan_ids`]); a torn
/// tail is reported and cut off the file, as by [`read_back`].
///
/// # Errors
/// The directory holds both forms, a line without a game id, or the file cannot be read
/// or cut.
pub fn scan_finished(dir: &Path) -> Result<Vec<String>, String> {
    let (ids, torn) = stratego_records::scan_ids(dir)?;
    if let Some(torn) = &torn {
        warn_torn(&records_path(dir)?, torn, true);
    }
    Ok(ids)
}

/// Every record of the records file `path` (either form), for the read-only commands
/// (`replay`, `export`, `convert`): a torn tail is left out with a warning (the file is not
/// changed), a bad line or frame before it is an error `FILE:LINE: …` or
/// `FILE: frame N (byte B): …` ([`stratego_records::read_file`]).
///
/// # Errors
/// The file cannot be read, or holds something that is not a record.
pub fn read_records_file(path: &Path) -> Result<Vec<GameRecord>, String> {
    let (records, torn) = stratego_records::read_file(path)?;
    if let Some(torn) = &torn {
        warn_torn(path, torn, false);
    }
    Ok(records)
}

/// Every line (frame) of the records file `path` that is a game record, and where the
/// ones that are not are, skipped (`--skip-bad-lines`); a torn tail is left out with a
/// warning ([`stratego_records::read_file_skipping`]).
///
/// # Errors
/// The file cannot be read.
pub fn read_records_skipping(path: &Path) -> Result<(Vec<GameRecord>, Vec<Position>), String> {
    let (records, bad, torn) = stratego_records::read_file_skipping(path)?;
    if let Some(torn) = &torn {
        warn_torn(path, torn, false);
    }
    Ok((records, bad))
}

/// Says that a records file ends in a torn line or frame, and what becomes of it.
fn warn_torn(path: &Path, torn: &stratego_records::Torn, cut: bool) {
    crate::notice::warn(format_args!(
        "{}: {} is torn (the host was stopped, or a write failed, while writing it): {} bytes {}",
        path.display(),
        torn.position,
        torn.bytes,
        if cut { "dropped" } else { "not read" }
    ));
}

/// Says which lines (or frames) `--skip-bad-lines` skipped in `path`, if any.
pub fn report_skipped(path: &Path, bad: &[Position]) {
    if bad.is_empty() {
        return;
    }
    const SHOWN: usize = 20;
    let more = if bad.len() > SHOWN { format!(" and {} more", bad.len() - SHOWN) } else { String::new() };
    let lines: Option<Vec<String>> = bad
        .iter()
        .take(SHOWN)
        .map(|p| match p {
            Position::Line(n) => Some(n.to_string()),
            Position::Frame { .. } => None,
        })
        .collect();
    match lines {
        Some(lines) => crate::notice::warn(format_args!(
            "{}: skipped {} that {} not a game record (--skip-bad-lines): line{} {}{more}",
            path.display(),
            stratego_stats::plural(bad.len() as u64, "line"),
            if bad.len() == 1 { "is" } else { "are" },
            if bad.len() == 1 { "" } else { "s" },
            lines.join(", ")
        )),
        None => {
            let places: Vec<String> = bad.iter().take(SHOWN).map(Position::to_string).collect();
            crate::notice::warn(format_args!(
                "{}: skipped {} that {} not a game record (--skip-bad-lines): {}{more}",
                path.display(),
                stratego_stats::plural(bad.len() as u64, "frame"),
                if bad.len() == 1 { "is" } else { "are" },
                places.join(", ")
            ));
        }
    }
}

#[cfg(test)]
mod compress_tests {
    use super::{OutDirWriter, compress_allowed};

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
        let Err(e) = OutDirWriter::open(&plain, true) else { panic!("the writer must refuse it too") };
        assert_eq!(e.to_string(), refused, "one refusal, one text");
        assert_eq!(std::fs::read_to_string(plain.join("games.jsonl")).unwrap(), "{}\n", "the plain records are kept");
        assert!(!plain.join("games.jsonl.zst").exists(), "no compact file was started beside them");
        assert!(OutDirWriter::open(&plain, false).is_ok(), "without --compress the plain records are appended to");
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

#[cfg(test)]
mod read_tests {
    use super::*;

    /// The plain scan of ids, `chunk` bytes at a time, its torn tail reported as resume does.
    fn scan_plain(path: &Path, chunk: usize) -> Result<Vec<String>, String> {
        stratego_records::scan_plain_ids(path, chunk).map(|(ids, _)| ids)
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_off_the_file() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let line = serde_json::to_string(&rec).unwrap();
        std::fs::write(dir.join("games.jsonl"), format!("{line}\n{line}\n{}", &line[..40])).unwrap();
        let records = read_back(&dir).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(std::fs::read_to_string(dir.join("games.jsonl")).unwrap(), format!("{line}\n{line}\n"));
        // A bad line in the middle is an error, not a silent loss.
        std::fs::write(dir.join("games.jsonl"), format!("{line}\nnot json\n{line}\n")).unwrap();
        assert!(read_back(&dir).unwrap_err().contains("games.jsonl:2: not a game record"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_compact_file_is_read_its_torn_frame_cut_and_resume_appends_frames() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-zst-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let frame = enc.encode(&rec).unwrap();
        let whole = [frame.clone(), frame.clone()].concat();
        let file = dir.join("games.jsonl.zst");
        std::fs::write(&file, [whole.clone(), frame[..frame.len() - 5].to_vec()].concat()).unwrap();
        assert_eq!(records_path(&dir).unwrap(), file);
        assert_eq!(read_back(&dir).unwrap().len(), 2);
        assert_eq!(std::fs::read(&file).unwrap(), whole, "the torn frame is cut off");
        // The writer goes on in the compact form; the plain file is not made.
        let w = crate::record::OutDirWriter::open(&dir, false).unwrap();
        assert_eq!(w.path(), file);
        w.append(&rec).unwrap();
        assert!(!dir.join("games.jsonl").exists());
        assert_eq!(read_records_file(&file).unwrap().len(), 3);
        // Both forms in one directory: which holds the run is unclear, so it is an error.
        std::fs::write(dir.join("games.jsonl"), "").unwrap();
        assert!(read_back(&dir).unwrap_err().contains("holds both"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_id_scan_finds_the_ids_of_the_records_in_both_forms_and_cuts_a_torn_tail() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut recs = Vec::new();
        for i in 0..5u32 {
            let mut r = crate::record::tests_support::record(None);
            r.game_id = format!("scan-{i}");
            r.index = i;
            recs.push(r);
        }
        // The fourth one written as another writer would (keys in another order): parsed.
        let mut lines: Vec<String> = recs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
        let mut v: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
        let id = v.as_object_mut().unwrap().remove("game_id").unwrap();
        v.as_object_mut().unwrap().insert("game_id".into(), id);
        lines[3] = serde_json::to_string(&v).unwrap() + "\n";
        assert!(!lines[3].starts_with("{\"game_id\""));
        let whole = lines.concat();
        let ids: Vec<String> = recs.iter().map(|r| r.game_id.clone()).collect();
        let plain = dir.join("games.jsonl");
        // Chunks smaller than a line, around a line, and larger than the file; with and
        // without a torn last line.
        for chunk in [1, 97, lines[0].len(), lines[0].len() + 1, 1 << 20] {
            std::fs::write(&plain, &whole).unwrap();
            assert_eq!(scan_plain(&plain, chunk).unwrap(), ids, "chunk {chunk}");
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), whole);
            std::fs::write(&plain, format!("{whole}{}", &lines[0][..50])).unwrap();
            assert_eq!(scan_plain(&plain, chunk).unwrap(), ids, "chunk {chunk}, torn");
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), whole, "the torn line is cut off");
            // A last line without its newline is a record when it is a whole one (RECORDS.md),
            // kept as it is (the writer starts the next record on a line of its own).
            let unterminated = format!("{whole}{}", lines[0].trim_end());
            std::fs::write(&plain, &unterminated).unwrap();
            let mut with_it = ids.clone();
            with_it.push(ids[0].clone());
            assert_eq!(scan_plain(&plain, chunk).unwrap(), with_it);
            assert_eq!(std::fs::read_to_string(&plain).unwrap(), unterminated);
            // A line in the middle without an id is an error naming it.
            std::fs::write(&plain, format!("{}\n{}", lines[0], lines[1])).unwrap();
            assert!(scan_plain(&plain, chunk).unwrap_err().contains("games.jsonl:2: not a game record"));
        }
        // The same ids as the records read whole.
        std::fs::write(&plain, &whole).unwrap();
        let read: Vec<String> = read_back(&dir).unwrap().into_iter().map(|r| r.game_id).collect();
        assert_eq!(scan_finished(&dir).unwrap(), read);
        std::fs::remove_file(&plain).unwrap();
        // The compact form: frames decoded, ids from the lines; a torn frame cut off.
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let frames: Vec<u8> = lines.iter().flat_map(|l| enc.encode_line(l.as_bytes()).unwrap()).collect();
        let compact = dir.join("games.jsonl.zst");
        let torn = enc.encode_line(lines[0].as_bytes()).unwrap();
        std::fs::write(&compact, [frames.clone(), torn[..torn.len() - 3].to_vec()].concat()).unwrap();
        assert_eq!(scan_finished(&dir).unwrap(), ids);
        assert_eq!(std::fs::read(&compact).unwrap(), frames, "the torn frame is cut off");
        let read: Vec<String> = read_back(&dir).unwrap().into_iter().map(|r| r.game_id).collect();
        assert_eq!(read, ids);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn skipped_lines_and_frames_are_named() {
        let dir = std::env::temp_dir().join(format!("stratego-manifest-skip-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let rec = crate::record::tests_support::record(None);
        let line = serde_json::to_string(&rec).unwrap() + "\n";
        let plain = dir.join("games.jsonl");
        std::fs::write(&plain, format!("{line}not json\n{line}")).unwrap();
        let (records, bad) = read_records_skipping(&plain).unwrap();
        assert_eq!((records.len(), bad), (2, vec![Position::Line(2)]));
        let mut enc = stratego_records::Encoder::new(stratego_records::Form::Compact).unwrap();
        let good = enc.encode(&rec).unwrap();
        let wrong = enc.encode_line(b"not json\n").unwrap();
        let compact = dir.join("other.jsonl.zst");
        std::fs::write(&compact, [good.clone(), wrong, good].concat()).unwrap();
        let (records, bad) = read_records_skipping(&compact).unwrap();
        assert_eq!(records.len(), 2);
        assert!(matches!(bad[..], [Position::Frame { number: 2, .. }]), "{bad:?}");
        let err = read_records_file(&compact).unwrap_err();
        assert!(with_skip_hint(err.clone(), &compact).ends_with("(--skip-bad-lines skips such lines)"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
