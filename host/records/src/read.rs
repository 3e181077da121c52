//! Reading a records file of either form, one record at a time.
//!
//! The torn-tail rule, in both forms: what follows the last whole record is a *torn tail*
//! when nothing readable comes after it — in the plain form the last line that is not
//! blank and is not a record, in the compact form bytes from a frame start to the end of
//! the file that are not one whole zstd frame. A host killed in the middle of its single
//! write of a record leaves exactly that. The reader drops it and says so
//! ([`RecordReader::torn`]); a caller that goes on appending cuts it off
//! ([`cut_torn_tail`]). A bad line or frame with more after it is corruption, not a torn
//! write: an error naming its position ([`ReadError::Bad`]).

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use stratego_protocol::record::GameRecord;
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

use crate::form::{Form, ZSTD_MAGIC};

/// The longest record a reader takes by default: 64 MiB, a line of a plain file or the
/// content of a frame of a compact one. A record of a 1,000-ply game is about 50 KB, so
/// this is a game of over a million plies; what is longer is not a record the host wrote
/// but a hostile or broken file (a decompression bomb: a frame of a few kilobytes that
/// decompresses to gigabytes), refused before it takes the memory.
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 << 20;

static MAX_RECORD_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_RECORD_BYTES);

/// Sets the limit of readers opened from now on in this process (the host's
/// `--max-record-bytes`); at least 1024.
pub fn set_max_record_bytes(bytes: usize) {
    MAX_RECORD_BYTES.store(bytes.max(1024), Ordering::Relaxed);
}

/// The limit readers are opened with: [`DEFAULT_MAX_RECORD_BYTES`] unless
/// [`set_max_record_bytes`] changed it.
pub fn max_record_bytes() -> usize {
    MAX_RECORD_BYTES.load(Ordering::Relaxed)
}

pub(crate) fn too_long(max: usize) -> String {
    format!(
        "longer than {max} bytes, the longest record read (a decompression bomb or not a records file? --max-record-bytes raises the limit)"
    )
}

/// Where in a records file a record, a bad record or a torn tail is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A line of a plain file (from 1; blank lines count).
    Line(usize),
    /// A frame of a compact file.
    Frame {
        /// Its number, from 1 (a damaged stretch counts as one frame).
        number: usize,
        /// The file offset of its first byte.
        byte: u64,
        /// The line within the frame (from 1), when the frame holds more than one line (a
        /// plain file compressed whole by the `zstd` tool is one frame of many lines).
        line: Option<usize>,
    },
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Frame { number, byte, line: None } => write!(f, "frame {number} (byte {byte})"),
            Position::Frame { number, byte, line: Some(l) } => write!(f, "frame {number} (byte {byte}), line {l}"),
        }
    }
}

/// A torn tail: the end of a file that is not whole records, with nothing readable after
/// it (what a host killed in the middle of a write leaves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Torn {
    /// The line or frame where it starts.
    pub position: Position,
    /// The file offset where it starts: the length to cut the file to.
    pub offset: u64,
    /// Its length in bytes, to the end of the file.
    pub bytes: u64,
}

/// What stops or interrupts reading a records file.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read; reading ends.
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// A line or frame that is not a game record, with more of the file after it. The
    /// reader goes on with the next line or frame.
    Bad {
        /// The file.
        path: PathBuf,
        /// Where.
        position: Position,
        /// What is wrong, in words (`not a game record: …`, `not a zstd frame (…)…`).
        what: String,
    },
}

impl ReadError {
    /// The position of a bad line or frame (`None` for an I/O error).
    pub fn position(&self) -> Option<Position> {
        match self {
            ReadError::Io { .. } => None,
            ReadError::Bad { position, .. } => Some(*position),
        }
    }
}

impl fmt::Display for ReadError {
    /// `FILE: error`; a bad line `FILE:LINE: what` (as the host has always said it); a bad
    /// frame `FILE: frame N (byte B): what`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ReadError::Bad { path, position: Position::Line(n), what } => {
                write!(f, "{}:{n}: {what}", path.display())
            }
            ReadError::Bad { path, position, what } => write!(f, "{}: {position}: {what}", path.display()),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { error, .. } => Some(error),
            ReadError::Bad { .. } => None,
        }
    }
}

/// What a source found next.
enum Step {
    Record(Box<GameRecord>),
    /// A record's line as it is ([`RecordReader::raw_lines`]).
    Line(Vec<u8>),
    Bad(Position, String),
    Torn(Torn),
    End,
}

/// Reads the records of a file of either form, one by one: an iterator of records and
/// [`ReadError`]s. After a [`ReadError::Bad`] it goes on with the next line or frame;
/// after a [`ReadError::Io`] it ends. A torn tail ends it quietly: see
/// [`RecordReader::torn`].
///
/// Memory: one line or one frame at a time (a frame is decoded whole, so a plain file
/// compressed whole by the `zstd` tool takes its plain size while it is read). A line,
/// or a frame's content, longer than the limit ([`max_record_bytes`],
/// [`RecordReader::with_max_record_bytes`]) is not held: it is read past (a frame is
/// decoded on into a small buffer, so its declared size is never trusted) and is a
/// [`ReadError::Bad`] naming it, even at the end of the file. A zstd skippable frame is
/// read past.
pub struct RecordReader<R> {
    path: PathBuf,
    form: Form,
    source: Source<R>,
    queue: VecDeque<Step>,
    torn: Option<Torn>,
    done: bool,
    /// Lines are yielded as they are ([`RecordReader::raw_lines`]), not parsed.
    raw: bool,
}

enum Source<R> {
    Plain(PlainSource<R>),
    Compact(Box<CompactSource<R>>),
}

impl RecordReader<std::fs::File> {
    /// Opens the records file `path`, of either form ([`Form::of_file`]).
    ///
    /// # Errors
    /// It cannot be opened.
    pub fn open(path: &Path) -> Result<RecordReader<std::fs::File>, ReadError> {
        let io = |error| ReadError::Io { path: path.to_owned(), error };
        let form = Form::of_file(path).map_err(io)?;
        let file = std::fs::File::open(path).map_err(io)?;
        RecordReader::new(file, form, path)
    }
}

impl<R: Read> RecordReader<R> {
    /// Reads records of `form` from `input`; `path` names it in messages.
    ///
    /// # Errors
    /// zstd could not make its context.
    pub fn new(input: R, form: Form, path: &Path) -> Result<RecordReader<R>, ReadError> {
        let source = match form {
            Form::Plain => Source::Plain(PlainSource {
                input: BufReader::with_capacity(64 * 1024, input),
                line: 0,
                offset: 0,
                good_end: 0,
                stash: None,
                max: max_record_bytes(),
            }),
            Form::Compact => Source::Compact(Box::new(CompactSource {
                input,
                buf: Vec::new(),
                start: 0,
                base: 0,
                eof: false,
                dctx: Decoder::new().map_err(|error| ReadError::Io { path: path.to_owned(), error })?,
                frames: 0,
                good_end: 0,
                max: max_record_bytes(),
                piece: Vec::new(),
            })),
        };
        let mut source = source;
        if let Source::Compact(c) = &mut source {
            c.limit_window().map_err(|error| ReadError::Io { path: path.to_owned(), error })?;
        }
        Ok(RecordReader {
            path: path.to_owned(),
            form,
            source,
            queue: VecDeque::new(),
            torn: None,
            done: false,
            raw: false,
        })
    }

    /// The same reader with a limit of `bytes` on a record (a line, or a frame's
    /// content) instead of [`max_record_bytes`].
    ///
    /// # Errors
    /// zstd could not take the matching window limit.
    pub fn with_max_record_bytes(mut self, bytes: usize) -> Result<RecordReader<R>, ReadError> {
        match &mut self.source {
            Source::Plain(p) => p.max = bytes,
            Source::Compact(c) => {
                c.max = bytes;
                c.limit_window().map_err(|error| ReadError::Io { path: self.path.clone(), error })?;
            }
        }
        Ok(self)
    }

    /// The form being read.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The file, as named in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The torn tail dropped at the end, once the reader has ended (`None` when the file
    /// ends with a whole record, or before the end).
    pub fn torn(&self) -> Option<&Torn> {
        self.torn.as_ref()
    }

    /// The file offset just past the last whole line or frame read so far (blank lines
    /// included): where the whole records end, once the reader has ended.
    pub fn good_end(&self) -> u64 {
        match &self.source {
            Source::Plain(p) => p.good_end,
            Source::Compact(c) => c.good_end,
        }
    }
}

impl<R: Read> RecordReader<R> {
    /// The reader as an iterator of the records' lines as they are (a line's bytes without
    /// its newline), for a caller that needs only a field or two of each and
    /// would rather not parse whole records (the ids of a resumed run). A compact file's
    /// frames are decoded but their lines not parsed (a frame that decodes is whole, as
    /// when reading records); a plain file's lines are checked as when reading records (a
    /// line that is not a record is a torn tail or [`ReadError::Bad`]). Torn tails, errors
    /// and [`RecordReader::torn`] are as when reading records.
    pub fn raw_lines(mut self) -> RawLines<R> {
        self.raw = true;
        RawLines(self)
    }

    /// The next record (or line, in raw mode) or error.
    fn next_step(&mut self) -> Option<Result<Step, ReadError>> {
        loop {
            match self.queue.pop_front() {
                Some(step @ (Step::Record(_) | Step::Line(_))) => return Some(Ok(step)),
                Some(Step::Bad(position, what)) => {
                    return Some(Err(ReadError::Bad { path: self.path.clone(), position, what }));
                }
                Some(Step::Torn(t)) => {
                    self.torn = Some(t);
                    self.done = true;
                }
                Some(Step::End) => self.done = true,
                None if self.done => return None,
                None => {
                    let stepped = match &mut self.source {
                        Source::Plain(p) => p.step(&mut self.queue, self.raw),
                        Source::Compact(c) => c.step(&mut self.queue, self.raw),
                    };
                    if let Err(error) = stepped {
                        self.done = true;
                        self.queue.clear();
                        return Some(Err(ReadError::Io { path: self.path.clone(), error }));
                    }
                }
            }
        }
    }
}

impl<R: Read> Iterator for RecordReader<R> {
    type Item = Result<GameRecord, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.next_step()? {
            Ok(Step::Record(r)) => Ok(*r),
            // Lines come only in raw mode, where the reader is a [`RawLines`].
            Ok(_) => unreachable!("a record reader reads records"),
            Err(e) => Err(e),
        })
    }
}

/// The lines of a records file's records, unparsed: see [`RecordReader::raw_lines`].
pub struct RawLines<R>(RecordReader<R>);

impl<R> RawLines<R> {
    /// As [`RecordReader::torn`].
    pub fn torn(&self) -> Option<&Torn> {
        self.0.torn.as_ref()
    }
}

impl<R: Read> Iterator for RawLines<R> {
    type Item = Result<Vec<u8>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.0.next_step()? {
            Ok(Step::Line(line)) => Ok(line),
            // A `RawLines` is made in raw mode: no records.
            Ok(_) => unreachable!("a raw reader reads lines"),
            Err(e) => Err(e),
        })
    }
}

fn blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

fn not_a_record(e: &serde_json::Error) -> String {
    format!("not a game record: {e}")
}

struct Line {
    bytes: Vec<u8>,
    number: usize,
    start: u64,
    /// Longer than the limit: `bytes` holds none of it.
    too_long: bool,
}

struct PlainSource<R> {
    input: BufReader<R>,
    /// Lines read.
    line: usize,
    /// Bytes read.
    offset: u64,
    good_end: u64,
    /// A line read ahead (after a bad line, to see whether it was the last).
    stash: Option<Line>,
    /// The longest line kept.
    max: usize,
}

impl<R: Read> PlainSource<R> {
    fn read_line(&mut self) -> std::io::Result<Option<Line>> {
        if let Some(l) = self.stash.take() {
            return Ok(Some(l));
        }
        let mut bytes = Vec::new();
        // One byte more than the limit: a line of exactly `max` bytes and its newline.
        let n = (&mut self.input).take(self.max as u64 + 1).read_until(b'\n', &mut bytes)?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let start = self.offset;
        let mut len = n as u64;
        let too_long = bytes.len() > self.max && bytes.last() != Some(&b'\n');
        if too_long {
            // Read past the rest of the line without keeping it.
            bytes = Vec::new();
            loop {
                let buf = self.input.fill_buf()?;
                if buf.is_empty() {
                    break;
                }
                match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        self.input.consume(i + 1);
                        len += i as u64 + 1;
                        break;
                    }
                    None => {
                        let k = buf.len();
                        self.input.consume(k);
                        len += k as u64;
                    }
                }
            }
        }
        self.offset += len;
        Ok(Some(Line { bytes, number: self.line, start, too_long }))
    }

    fn step(&mut self, out: &mut VecDeque<Step>, raw: bool) -> std::io::Result<()> {
        loop {
            let Some(line) = self.read_line()? else {
                out.push_back(Step::End);
                return Ok(());
            };
            let end = line.start + line.bytes.len() as u64;
            if line.too_long {
                // Not a torn write (the host writes no such line): an error even at the end.
                self.good_end = self.offset;
                out.push_back(Step::Bad(Position::Line(line.number), too_long(self.max)));
                return Ok(());
            }
            if blank(&line.bytes) {
                if line.bytes.ends_with(b"\n") {
                    self.good_end = end;
                }
                continue;
            }
            match parse_record(&line.bytes) {
                Ok(r) => {
                    self.good_end = end;
                    out.push_back(if raw {
                        let mut bytes = line.bytes;
                        if bytes.last() == Some(&b'\n') {
                            bytes.pop();
                        }
                        Step::Line(bytes)
                    } else {
                        Step::Record(Box::new(r))
                    });
                    return Ok(());
                }
                Err(e) => {
                    // Torn if nothing but blank lines follows.
                    loop {
                        match self.read_line()? {
                            None => {
                                out.push_back(Step::Torn(Torn {
                                    position: Position::Line(line.number),
                                    offset: line.start,
                                    bytes: self.offset - line.start,
                                }));
                                return Ok(());
                            }
                            Some(next) if blank(&next.bytes) && !next.too_long => {}
                            Some(next) => {
                                self.stash = Some(next);
                                out.push_back(Step::Bad(Position::Line(line.number), not_a_record(&e)));
                                return Ok(());
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The window log zstd may use to read records of at most `max` bytes: the smallest power
/// of two that holds one (at least 2^20, zstd's own smallest default, at most 2^31).
pub(crate) fn window_log(max: usize) -> u32 {
    (usize::BITS - max.saturating_sub(1).leading_zeros()).clamp(20, 31)
}

/// How much is read from the file at a time.
const CHUNK: usize = 64 * 1024;

enum FrameRead {
    /// A whole frame: its content and its length in the file.
    Whole(Vec<u8>, usize),
    /// A whole frame whose content is longer than the limit (not kept): its length in the
    /// file.
    TooLong(usize),
    /// The file ends inside it.
    Incomplete,
    /// zstd's reason.
    Corrupt(String),
}

struct CompactSource<R> {
    input: R,
    /// Bytes read; `buf[start..]` are not consumed yet.
    buf: Vec<u8>,
    start: usize,
    /// The file offset of `buf[start]`.
    base: u64,
    eof: bool,
    dctx: Decoder<'static>,
    /// Frames seen.
    frames: usize,
    good_end: u64,
    /// The longest frame content kept.
    max: usize,
    /// What a frame is decoded into, a piece at a time.
    piece: Vec<u8>,
}

impl<R: Read> CompactSource<R> {
    /// Caps the window zstd may allocate at the smallest power of two that holds a
    /// record of the limit (a frame's header names its window, and the decoder would
    /// allocate it before decoding a byte).
    fn limit_window(&mut self) -> std::io::Result<()> {
        self.dctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(window_log(self.max)))
    }

    /// Reads more of the file into `buf`; false at its end.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let old = self.buf.len();
        self.buf.resize(old + CHUNK, 0);
        loop {
            match self.input.read(&mut self.buf[old..]) {
                Ok(n) => {
                    self.buf.truncate(old + n);
                    self.eof = n == 0;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(old);
                    return Err(e);
                }
            }
        }
    }

    fn unread(&self) -> usize {
        self.buf.len() - self.start
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.base += n as u64;
    }

    /// Decodes the frame that starts `at` bytes past the current position.
    fn try_frame(&mut self, at: usize) -> std::io::Result<FrameRead> {
        self.dctx.reinit()?;
        let mut content: Vec<u8> = Vec::new();
        // Decoded a piece at a time into this buffer, then kept in `content` while the
        // content is within the limit; past it, dropped (the frame is decoded on only to
        // find where it ends, and whether it is whole), so a frame takes at most the limit
        // whatever it decompresses to.
        let mut piece = std::mem::take(&mut self.piece);
        piece.resize(CHUNK, 0);
        let mut p = at;
        let mut too_long = false;
        let read = loop {
            let mut input = InBuffer::around(&self.buf[self.start + p..]);
            let mut output = OutBuffer::around(&mut piece[..]);
            let hint = match self.dctx.run(&mut input, &mut output) {
                Ok(hint) => hint,
                Err(e) => break FrameRead::Corrupt(e.to_string()),
            };
            let produced = output.pos();
            let consumed = input.pos();
            p += consumed;
            if !too_long {
                if content.len() + produced > self.max {
                    too_long = true;
                    content = Vec::new();
                } else {
                    content.extend_from_slice(&piece[..produced]);
                }
            }
            if hint == 0 {
                break if too_long { FrameRead::TooLong(p - at) } else { FrameRead::Whole(content, p - at) };
            }
            if consumed == 0 && produced == 0 && !self.fill()? {
                break FrameRead::Incomplete;
            }
        };
        self.piece = piece;
        Ok(read)
    }

    /// The offset (from the current position) of the next zstd magic number at or after
    /// `from`, reading on as needed.
    fn find_magic(&mut self, from: usize) -> std::io::Result<Option<usize>> {
        let mut from = from;
        loop {
            let unread = &self.buf[self.start..];
            if let Some(i) = unread.get(from..).and_then(|s| s.windows(4).position(|w| w == ZSTD_MAGIC)) {
                return Ok(Some(from + i));
            }
            from = from.max(self.unread().saturating_sub(3));
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Reads to the end of the file: the bytes from the current position to it.
    fn rest(&mut self) -> std::io::Result<u64> {
        while self.fill()? {}
        Ok(self.unread() as u64)
    }

    fn torn(&mut self, number: usize, byte: u64, out: &mut VecDeque<Step>) -> std::io::Result<()> {
        let bytes = self.rest()?;
        out.push_back(Step::Torn(Torn { position: Position::Frame { number, byte, line: None }, offset: byte, bytes }));
        Ok(())
    }

    fn step(&mut self, out: &mut VecDeque<Step>, raw: bool) -> std::io::Result<()> {
        if self.unread() == 0 && !self.fill()? {
            out.push_back(Step::End);
            return Ok(());
        }
        self.frames += 1;
        let (number, byte) = (self.frames, self.base);
        let why = match self.try_frame(0)? {
            FrameRead::Whole(content, len) => {
                self.consume(len);
                self.good_end = self.base;
                push_content(&content, number, byte, out, raw);
                return Ok(());
            }
            FrameRead::TooLong(len) => {
                self.consume(len);
                self.good_end = self.base;
                out.push_back(Step::Bad(Position::Frame { number, byte, line: None }, too_long(self.max)));
                return Ok(());
            }
            FrameRead::Incomplete => return self.torn(number, byte, out),
            FrameRead::Corrupt(why) => why,
        };
        // Damaged: look for the next whole frame. None: it was a torn tail.
        let mut from = 1;
        loop {
            let Some(q) = self.find_magic(from)? else { return self.torn(number, byte, out) };
            match self.try_frame(q)? {
                FrameRead::Whole(content, len) => {
                    out.push_back(Step::Bad(
                        Position::Frame { number, byte, line: None },
                        format!("not a zstd frame ({why}); {q} bytes skipped to the next frame"),
                    ));
                    self.consume(q);
                    self.frames += 1;
                    let (number, byte) = (self.frames, self.base);
                    self.consume(len);
                    self.good_end = self.base;
                    push_content(&content, number, byte, out, raw);
                    return Ok(());
                }
                FrameRead::TooLong(len) => {
                    out.push_back(Step::Bad(
                        Position::Frame { number, byte, line: None },
                        format!("not a zstd frame ({why}); {q} bytes skipped to the next frame"),
                    ));
                    self.consume(q);
                    self.frames += 1;
                    let (number, byte) = (self.frames, self.base);
                    self.consume(len);
                    self.good_end = self.base;
                    out.push_back(Step::Bad(Position::Frame { number, byte, line: None }, too_long(self.max)));
                    return Ok(());
                }
                FrameRead::Incomplete => return self.torn(number, byte, out),
                FrameRead::Corrupt(_) => from = q + 1,
            }
        }
    }
}

/// A record from its line: checked as UTF-8 once, then parsed as text (parsed as bytes,
/// every string of a record, a few a ply, was checked on its own: a seventh of the time).
/// Invalid UTF-8 gets serde_json's own error, as before.
fn parse_record(line: &[u8]) -> Result<GameRecord, serde_json::Error> {
    match std::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(line),
    }
}

/// The records of one frame's content: its lines that are not blank.
fn push_content(content: &[u8], number: usize, byte: u64, out: &mut VecDeque<Step>, raw: bool) {
    let lines: Vec<(usize, &[u8])> =
        content.split(|&b| b == b'\n').enumerate().filter(|(_, l)| !blank(l)).map(|(i, l)| (i + 1, l)).collect();
    let several = lines.len() > 1;
    if raw {
        out.extend(lines.into_iter().map(|(_, line)| Step::Line(line.to_vec())));
        return;
    }
    for (i, line) in lines {
        out.push_back(match parse_record(line) {
            Ok(r) => Step::Record(Box::new(r)),
            Err(e) => Step::Bad(Position::Frame { number, byte, line: several.then_some(i) }, not_a_record(&e)),
        });
    }
}

/// Every record of a file read by [`read_all`] or [`read_all_skipping`].
#[derive(Debug)]
pub struct Records {
    /// The file's form.
    pub form: Form,
    /// Its records, in order.
    pub records: Vec<GameRecord>,
    /// The torn tail dropped, if any.
    pub torn: Option<Torn>,
}

/// Every record of the file `path`, of either form, a torn tail dropped (and returned).
///
/// # Errors
/// The file cannot be read, or has a bad line or frame before its end (the first one).
pub fn read_all(path: &Path) -> Result<Records, ReadError> {
    let mut reader = RecordReader::open(path)?;
    let records = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok(Records { form: reader.form(), records, torn: reader.torn })
}

/// Every record of the file `path`, of either form, and the bad lines or frames skipped
/// (for `--skip-bad-lines`); a torn tail dropped (and returned).
///
/// # Errors
/// The file cannot be read.
pub fn read_all_skipping(path: &Path) -> Result<(Records, Vec<ReadError>), ReadError> {
    let mut reader = RecordReader::open(path)?;
    let mut records = Vec::new();
    let mut bad = Vec::new();
    for r in reader.by_ref() {
        match r {
            Ok(r) => records.push(r),
            Err(e @ ReadError::Bad { .. }) => bad.push(e),
            Err(e) => return Err(e),
        }
    }
    Ok((Records { form: reader.form(), records, torn: reader.torn }, bad))
}

/// Cuts the torn tail `torn`, found by reading `path`, off the file, so that records
/// appended next start clean.
///
/// # Errors
/// The file cannot be cut, or its length is no longer the one read (something wrote to
/// it since: nothing is cut).
pub fn cut_torn_tail(path: &Path, torn: &Torn) -> std::io::Result<()> {
    let f = std::fs::OpenOptions::new().write(true).open(path)?;
    let len = f.metadata()?.len();
    if len != torn.offset + torn.bytes {
        return Err(std::io::Error::other(format!(
            "{}: is {len} bytes long, not the {} read: it changed since, so its torn tail is not cut",
            path.display(),
            torn.offset + torn.bytes
        )));
    }
    f.set_len(torn.offset)
}
