//! The two forms, how a file's form is told, and the encoding of one record.

use std::io::Read;
use std::path::{Path, PathBuf};

use stratego_protocol::record::GameRecord;

/// The plain records file of an `--out` directory.
pub const PLAIN_FILE: &str = "games.jsonl";

/// The compact records file of an `--out` directory.
pub const COMPACT_FILE: &str = "games.jsonl.zst";

/// The first four bytes of every zstd frame (0xFD2FB528, little-endian).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether `start` begins with the magic number of a zstd *skippable* frame (0x184D2A50
/// to 0x184D2A5F, little-endian): metadata a zstd reader reads past.
pub fn is_skippable_magic(start: &[u8]) -> bool {
    matches!(start, [b0, 0x2A, 0x4D, 0x18, ..] if b0 & 0xF0 == 0x50)
}

/// The zstd level of the compact form's frames, chosen by measurement on real games
/// (BENCHMARKS.md, "Records at rest"): about 1 ms to encode a 1,000-ply game into
/// 4.1-5.1 KB; level 19 makes it only 9-10 % smaller but takes 20-50 ms a game, level 3
/// takes 0.1-0.2 ms and leaves it 12-20 % bigger (up to 5.8 KB, close to the 6 KB goal).
pub const LEVEL: i32 = 9;

/// The form of a records file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// JSON Lines: one record a line.
    Plain,
    /// One zstd frame a record, each holding the record's plain line.
    Compact,
}

impl Form {
    /// The form of the file at `path`: compact when it starts with the zstd magic number
    /// (or a zstd skippable frame's), else when its name ends in `.zst` (a file torn inside its first frame's magic), else
    /// plain. A file that does not exist is told by its name.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn of_file(path: &Path) -> std::io::Result<Form> {
        let mut head = [0u8; 4];
        let mut got = 0;
        match std::fs::File::open(path) {
            Ok(mut f) => {
                while got < head.len() {
                    match f.read(&mut head[got..]) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(Form::of_start(&head[..got], path))
    }

    /// The form told by a file's first bytes and its name (as [`Form::of_file`]).
    pub fn of_start(start: &[u8], path: &Path) -> Form {
        if start.starts_with(&ZSTD_MAGIC) || is_skippable_magic(start) || path.extension().is_some_and(|e| e == "zst") {
            Form::Compact
        } else {
            Form::Plain
        }
    }

    /// The records file of this form in an `--out` directory: [`PLAIN_FILE`] or
    /// [`COMPACT_FILE`].
    pub fn file_name(self) -> &'static str {
        match self {
            Form::Plain => PLAIN_FILE,
            Form::Compact => COMPACT_FILE,
        }
    }
}

/// The records file of the `--out` directory `dir`: `games.jsonl.zst` or `games.jsonl`,
/// whichever exists (`None` when neither does).
///
/// # Errors
/// Both exist: which one holds the run's games is not clear, so the caller should stop.
pub fn records_file(dir: &Path) -> Result<Option<PathBuf>, String> {
    let plain = dir.join(PLAIN_FILE);
    let compact = dir.join(COMPACT_FILE);
    match (plain.exists(), compact.exists()) {
        (true, true) => Err(format!(
            "{}: holds both {PLAIN_FILE} and {COMPACT_FILE}; keep one (zstd -dc {COMPACT_FILE} >> {PLAIN_FILE} makes one plain file)",
            dir.display()
        )),
        (true, false) => Ok(Some(plain)),
        (false, true) => Ok(Some(compact)),
        (false, false) => Ok(None),
    }
}

/// Encodes records in one form, reusing its zstd context from record to record.
pub struct Encoder {
    compressor: Option<zstd::bulk::Compressor<'static>>,
}

impl Encoder {
    /// An encoder of `form`, at [`LEVEL`] for the compact form.
    ///
    /// # Errors
    /// zstd could not make its context.
    pub fn new(form: Form) -> std::io::Result<Encoder> {
        Encoder::with_level(form, LEVEL)
    }

    /// An encoder of `form` at zstd level `level` (for measurements; records use [`LEVEL`]).
    ///
    /// # Errors
    /// zstd could not make its context, or the level is out of range.
    pub fn with_level(form: Form, level: i32) -> std::io::Result<Encoder> {
        let compressor = match form {
            Form::Plain => None,
            Form::Compact => {
                let mut c = zstd::bulk::Compressor::new(level)?;
                // A checksum (4 bytes a frame) tells a damaged frame from a whole one.
                c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
                Some(c)
            }
        };
        Ok(Encoder { compressor })
    }

    /// The bytes `record` takes in the file: its JSON line (with the newline), as it is
    /// or as one zstd frame.
    ///
    /// # Errors
    /// The record cannot be serialised, or zstd failed.
    pub fn encode(&mut self, record: &GameRecord) -> std::io::Result<Vec<u8>> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.encode_line(&line)
    }

    /// The bytes a plain line (a record's JSON and its newline) takes in the file.
    ///
    /// # Errors
    /// zstd failed.
    pub fn encode_line(&mut self, line: &[u8]) -> std::io::Result<Vec<u8>> {
        match &mut self.compressor {
            None => Ok(line.to_vec()),
            Some(c) => c.compress(line),
        }
    }
}

/// The plain line held by one compact record: `frame` must be exactly one whole zstd frame
/// (its checksum is checked when it has one). What the ladder stores for each game
/// (`records.record`) is such a frame.
///
/// Its content is decoded to at most [`crate::max_record_bytes`] (whatever its header
/// says): a longer one is refused without taking more memory.
///
/// # Errors
/// The bytes are not exactly one whole zstd frame, they do not decompress, or they
/// decompress to more than the limit.
pub fn decode_frame(frame: &[u8]) -> std::io::Result<Vec<u8>> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    if !frame.starts_with(&ZSTD_MAGIC) {
        return Err(bad("not a zstd frame (no magic number)".into()));
    }
    let size = zstd::zstd_safe::find_frame_compressed_size(frame)
        .map_err(|code| bad(format!("not a whole zstd frame ({})", zstd::zstd_safe::get_error_name(code))))?;
    if size != frame.len() {
        return Err(bad(format!("{} bytes after the zstd frame of {size} bytes", frame.len() - size)));
    }
    let max = crate::max_record_bytes();
    let mut decoder = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
    decoder.window_log_max(crate::read::window_log(max))?;
    let mut content = Vec::new();
    // One byte past the limit tells a content that is longer, whatever the header says.
    decoder.take(max as u64 + 1).read_to_end(&mut content)?;
    if content.len() > max {
        return Err(bad(format!("decompresses to more than {max} bytes, the longest record read")));
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_frame_decodes_to_its_line_and_anything_else_is_refused() {
        let mut enc = Encoder::new(Form::Compact).unwrap();
        let frame = enc.encode_line(b"{\"a\":1}\n").unwrap();
        assert_eq!(decode_frame(&frame).unwrap(), b"{\"a\":1}\n");
        assert!(decode_frame(b"{\"a\":1}").is_err());
        assert!(decode_frame(&frame[..frame.len() - 1]).is_err());
        let mut two = frame.clone();
        two.extend_from_slice(&frame);
        assert!(decode_frame(&two).unwrap_err().to_string().contains("after the zstd frame"));
        let mut flipped = frame.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff; // The checksum.
        assert!(decode_frame(&flipped).is_err());
    }
}
