//! The records file of a run's `--out` directory, and a records file read whole: what a
//! resumed run reads back, and what the read-only commands (`replay`, `export`, `convert`,
//! `merge --skip-bad-lines`) read. Every function here reads with [`RecordReader`], so each
//! follows its rule for the last line (RECORDS.md): a whole record without its newline is a
//! record, a torn tail is dropped and returned (cut off the file only by [`read_back`],
//! which a run that goes on appending calls).

use std::path::{Path, PathBuf};

use stratego_protocol::record::GameRecord;

use crate::form::{Form, PLAIN_FILE, records_file};
use crate::read::{Position, ReadError, RecordReader, Torn, cut_torn_tail, max_record_bytes, read_all, too_long};

/// The records file of the `--out` directory `dir`: `games.jsonl.zst` (the compact form)
/// when it is there, else `games.jsonl` (whether or not it exists).
///
/// # Errors
/// The directory holds both files.
pub fn records_path(dir: &Path) -> Result<PathBuf, String> {
    Ok(records_file(dir)?.unwrap_or_else(|| dir.join(PLAIN_FILE)))
}

/// Whether `path` is a records file in the compact form (zstd frames).
pub(crate) fn is_compact(path: &Path) -> Result<bool, String> {
    Form::of_file(path).map(|f| f == Form::Compact).map_err(|e| format!("{}: {e}", path.display()))
}

/// The finished games of the `--out` directory `dir` (either form; none when it has no
/// records file), for a run that goes on appending: a torn tail is cut off the file, so
/// that the next record starts clean, and returned (for the caller to say so).
///
/// # Errors
/// A line (frame) other than the last is not a record, the directory holds both forms, or
/// the file cannot be read or cut.
pub fn read_back(dir: &Path) -> Result<(Vec<GameRecord>, Option<Torn>), String> {
    let path = records_path(dir)?;
    if !path.exists() {
        return Ok((Vec::new(), None));
    }
    let read = read_all(&path).map_err(|e| e.to_string())?;
    if let Some(torn) = &read.torn {
        cut_torn_tail(&path, torn).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((read.records, read.torn))
}

/// Every record of the records file `path` (either form), for the read-only commands: a
/// torn tail is left out and returned (the file is not changed), a bad line or frame before
/// it is an error `FILE:LINE: …` or `FILE: frame N (byte B): …`. A plain file is first
/// checked a piece at a time for a line longer than [`max_record_bytes`].
///
/// # Errors
/// The file cannot be read, or holds something that is not a record.
pub fn read_file(path: &Path) -> Result<(Vec<GameRecord>, Option<Torn>), String> {
    if !is_compact(path)? {
        check_line_lengths(path)?;
    }
    let read = read_all(path).map_err(|e| e.to_string())?;
    Ok((read.records, read.torn))
}

/// What [`read_file_skipping`] found: the records, where the bad lines (frames) skipped are,
/// and the torn tail left out.
pub type Skipping = (Vec<GameRecord>, Vec<Position>, Option<Torn>);

/// Every line (frame) of the records file `path` that is a game record, where the ones that
/// are not are (skipped: the read-only commands' `--skip-bad-lines`, so that one corrupted
/// line does not hide a whole file), and the torn tail left out. Blank lines are not
/// counted; a line longer than [`max_record_bytes`] is skipped like any bad line, without
/// being held.
///
/// # Errors
/// The file cannot be read.
pub fn read_file_skipping(path: &Path) -> Result<Skipping, String> {
    let mut reader = RecordReader::open(path).map_err(|e| e.to_string())?;
    let (mut records, mut bad) = (Vec::new(), Vec::new());
    for r in reader.by_ref() {
        match r {
            Ok(r) => records.push(r),
            Err(e @ ReadError::Bad { .. }) => bad.extend(e.position()),
            Err(e) => return Err(e.to_string()),
        }
    }
    let torn = reader.torn().cloned();
    Ok((records, bad, torn))
}

/// `error` with a hint at `--skip-bad-lines` when it is about a line of a records file
/// (`FILE:LINE: …`) or a frame of a compact one (`FILE: frame N …`).
pub fn with_skip_hint(error: String, path: &Path) -> String {
    let about_a_line = error
        .strip_prefix(&format!("{}:", path.display()))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()) || rest.starts_with(" frame "));
    if about_a_line { format!("{error} (--skip-bad-lines skips such lines)") } else { error }
}

/// Checks, reading it a piece at a time, that no line of the plain file `path` is longer
/// than [`max_record_bytes`], before a reader that holds the file's records reads it.
///
/// # Errors
/// The first such line, `FILE:LINE: longer than …`, or a read error.
fn check_line_lengths(path: &Path) -> Result<(), String> {
    use std::io::BufRead;
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let max = max_record_bytes();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, std::fs::File::open(path).map_err(io)?);
    let (mut line, mut len) = (1usize, 0usize);
    loop {
        let buf = input.fill_buf().map_err(io)?;
        if buf.is_empty() {
            return Ok(());
        }
        let n = buf.len();
        for &b in buf {
            if b == b'\n' {
                line += 1;
                len = 0;
            } else {
                len += 1;
                if len > max {
                    return Err(format!("{}:{line}: {}", path.display(), too_long(max)));
                }
            }
        }
        input.consume(n);
    }
}
