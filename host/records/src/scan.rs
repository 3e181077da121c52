//! The game ids of a run's finished games, for a resumed run: what [`crate::read_back`]
//! finds, without parsing or holding the records.

use std::path::Path;

use serde::Deserialize;
use stratego_protocol::record::GameRecord;

use crate::dir::{is_compact, records_path};
use crate::read::{Position, RecordReader, Torn, cut_torn_tail};

/// How much of a plain records file [`scan_ids`] reads at a time (more for a longer line).
pub const SCAN_CHUNK: usize = 4 << 20;

/// The game ids of the finished games of the `--out` directory `dir`'s records file, in
/// file order. A plain file's lines are not parsed but for the last (to tell a torn one)
/// and those that do not begin as the host writes a record (`{"game_id":"…"`): a line in
/// the middle that is not a record shows when the records are read. A compact file's
/// frames are decoded, their lines not parsed. A torn tail is cut off the file, as by
/// [`crate::read_back`], and returned.
///
/// # Errors
/// The directory holds both forms, a line without a game id, or the file cannot be read
/// or cut.
pub fn scan_ids(dir: &Path) -> Result<(Vec<String>, Option<Torn>), String> {
    let path = records_path(dir)?;
    if !(path.exists() && is_compact(&path)?) {
        return scan_plain_ids(&path, SCAN_CHUNK);
    }
    let mut lines = RecordReader::open(&path).map_err(|e| e.to_string())?.raw_lines();
    let mut ids = Vec::new();
    for line in lines.by_ref() {
        let line = line.map_err(|e| e.to_string())?;
        ids.push(game_id_of(&line).ok_or_else(|| format!("{}: a frame without a game id", path.display()))?);
    }
    let torn = lines.torn().cloned();
    if let Some(torn) = &torn {
        cut_torn_tail(&path, torn).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((ids, torn))
}

/// [`scan_ids`] of the plain file `path` (none when it does not exist), read `chunk` bytes
/// at a time (more for a longer line). The last line is a record when it is a whole one,
/// with its newline or without (RECORDS.md); else it is torn, cut off and returned.
///
/// # Errors
/// A line before the last without a game id, or the file cannot be read or cut.
pub fn scan_plain_ids(path: &Path, chunk: usize) -> Result<(Vec<String>, Option<Torn>), String> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(f) => f,
    };
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    // Large reads, lines found by memchr in place: a line is known not to be the last
    // once a byte follows it; the bytes from the start of the line not yet known so are
    // kept at the front of the buffer for the next read.
    let mut buf = vec![0u8; chunk.max(1)];
    let (mut filled, mut kept_from) = (0usize, 0u64);
    let mut ids = Vec::new();
    let mut line_no = 0usize;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if n == 0 {
            break;
        }
        filled += n;
        let mut start = 0;
        // Lines ending before the last byte read: not the last line.
        while let Some(p) = memchr::memchr(b'\n', &buf[start..filled.saturating_sub(1)]) {
            line_no += 1;
            let line = &buf[start..start + p + 1];
            ids.push(game_id_of(line).ok_or_else(|| format!("{}:{line_no}: not a game record", path.display()))?);
            start += p + 1;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        kept_from += start as u64;
    }
    // What is left is the last line: every newline before the last byte read was a line's
    // end with more after it.
    let rest = &buf[..filled];
    if rest.is_empty() {
        return Ok((ids, None));
    }
    line_no += 1;
    if serde_json::from_slice::<GameRecord>(rest).is_ok() {
        ids.push(game_id_of(rest).ok_or_else(|| format!("{}:{line_no}: not a game record", path.display()))?);
        return Ok((ids, None));
    }
    let torn = Torn { position: Position::Line(line_no), offset: kept_from, bytes: rest.len() as u64 };
    cut_torn_tail(path, &torn).map_err(io)?;
    Ok((ids, Some(torn)))
}

/// The game id of a record's line: read from its start when it begins as the host writes
/// records (`{"game_id":"ID",`), else parsed (`None`: not a record).
fn game_id_of(line: &[u8]) -> Option<String> {
    const START: &[u8] = b"{\"game_id\":\"";
    if let Some(rest) = line.strip_prefix(START) {
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
        if rest[end] == b'"' && rest.get(end + 1) == Some(&b',') {
            return std::str::from_utf8(&rest[..end]).ok().map(str::to_owned);
        }
    }
    #[derive(Deserialize)]
    struct Id {
        game_id: String,
    }
    let text = std::str::from_utf8(line).ok()?;
    if text.trim().is_empty() {
        return None;
    }
    serde_json::from_str::<Id>(text).ok().map(|i| i.game_id)
}
