//! A run's records read one at a time, for what reads a large directory without holding it
//! (its index, `merge`, a resumed run's history): a plain file's lines parsed by several
//! threads while one reads, as records ([`records_iter`]) or as digests ([`digests_iter`]).
//! They follow [`RecordReader`]'s rule for the last line (RECORDS.md): a whole record
//! without its newline is a record; a torn tail ends the records quietly (nothing is cut).

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use stratego_protocol::record::GameRecord;

use crate::digest::GameDigest;
use crate::dir::{is_compact, records_path};
use crate::read::{RecordReader, max_record_bytes, too_long};

/// The records of the `--out` directory `dir` (either form), read one at a time.
///
/// # Errors
/// The directory holds both forms, or the file cannot be opened (none is no error: no
/// records); each item is a record or why a line (frame) is not one.
pub fn records_iter(dir: &Path) -> Result<Box<dyn Iterator<Item = Result<GameRecord, String>>>, String> {
    let path = records_path(dir)?;
    if !path.exists() {
        return Ok(Box::new(std::iter::empty()));
    }
    if !is_compact(&path)? {
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Box::new(parallel_plain(file, path, parse_whole)));
    }
    let reader = RecordReader::open(&path).map_err(|e| e.to_string())?;
    Ok(Box::new(reader.map(|r| r.map_err(|e| e.to_string()))))
}

/// A record read as its digest (all a report or an index row reads of it), its line kept
/// to read it whole when that is wanted (a viewer page): [`digests_iter`].
pub struct Digested {
    /// The record's digest.
    pub digest: GameDigest,
    whole: Whole,
}

/// Where a [`Digested`] record's whole form comes from.
enum Whole {
    /// Its line, not parsed yet.
    Line(Vec<u8>),
    /// The record, already read.
    Record(Box<GameRecord>),
}

impl Digested {
    /// A record already read whole.
    pub fn of(record: GameRecord) -> Digested {
        Digested { digest: GameDigest::of(&record), whole: Whole::Record(Box::new(record)) }
    }

    /// A record's line (its JSON, with or without its newline) read as a digest, the line
    /// kept.
    ///
    /// # Errors
    /// The line is not a record's JSON (why, in serde_json's words).
    pub fn from_line(line: Vec<u8>) -> Result<Digested, String> {
        parse_digested(line)
    }

    /// The whole record (its line parsed now, when it was read as a digest).
    ///
    /// # Errors
    /// The line is a digest but not a whole record (a ply's move that is not a move): the
    /// game named, and why.
    pub fn record(self) -> Result<GameRecord, String> {
        match self.whole {
            Whole::Record(r) => Ok(*r),
            Whole::Line(line) => {
                parse_whole(line).map_err(|e| format!("game {}: not a game record: {e}", self.digest.game_id))
            }
        }
    }
}

/// As [`records_iter`], each record read as its [`Digested`] form: a plain file's lines
/// parsed without their moves ([`GameDigest::parse`], a few times faster), by up to 4
/// threads; a compact file's records read whole (their digests made of them).
///
/// # Errors
/// As [`records_iter`]'s.
pub fn digests_iter(dir: &Path) -> Result<Box<dyn Iterator<Item = Result<Digested, String>>>, String> {
    let path = records_path(dir)?;
    if path.exists() && !is_compact(&path)? {
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Box::new(parallel_plain(file, path, parse_digested)));
    }
    Ok(Box::new(records_iter(dir)?.map(|r| r.map(Digested::of))))
}

/// A plain line as a whole record.
fn parse_whole(line: Vec<u8>) -> Result<GameRecord, String> {
    std::str::from_utf8(&line)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<GameRecord>(t).map_err(|e| e.to_string()))
}

/// A plain line as a digest, the line kept.
fn parse_digested(line: Vec<u8>) -> Result<Digested, String> {
    let digest = std::str::from_utf8(&line)
        .map_err(|e| e.to_string())
        .and_then(|t| GameDigest::parse(t).map_err(|e| e.to_string()))?;
    Ok(Digested { digest, whole: Whole::Line(line) })
}

/// Lines of a plain records file handed to the parsing threads at once.
const BATCH_LINES: usize = 64;

/// A batch of lines of a plain records file: its number in the file, the number of its
/// first line, and the lines.
type LineBatch = (usize, usize, Vec<Vec<u8>>);

/// What a batch's parsing gave, line by line (blank lines left out).
enum Parsed<T> {
    Record(T),
    /// Not a record: an error if anything readable follows, else a torn tail.
    Bad(String),
    /// Longer than the limit: an error even at the end (the host writes no such line).
    TooLong(String),
}

/// What stands for a line longer than the records limit in a batch (a NUL byte: no
/// record's line).
const TOO_LONG: &[u8] = b"\0longer than the limit\n";

/// Reads the plain file in batches of lines for the parsing threads; a line past the
/// records limit is not held: read past, and marked [`TOO_LONG`].
fn read_batches(file: std::fs::File, path: PathBuf, batches: std::sync::mpsc::SyncSender<LineBatch>) -> Option<String> {
    use std::io::{BufRead, Read};
    let mut input = std::io::BufReader::with_capacity(256 * 1024, file);
    let (mut batch, mut first, mut line_no, mut seq) = (Vec::new(), 1usize, 0usize, 0usize);
    loop {
        let mut line = Vec::new();
        let max = max_record_bytes();
        let read = (&mut input).take(max as u64 + 1).read_until(b'\n', &mut line);
        let error = read.as_ref().err().map(|e| format!("{}: {e}", path.display()));
        let n = read.unwrap_or(0);
        if line.len() > max && line.last() != Some(&b'\n') {
            line = TOO_LONG.to_vec();
            while let Ok(buf) = input.fill_buf() {
                if buf.is_empty() {
                    break;
                }
                let (k, end) = buf.iter().position(|&b| b == b'\n').map_or((buf.len(), false), |i| (i + 1, true));
                input.consume(k);
                if end {
                    break;
                }
            }
        }
        if n > 0 {
            line_no += 1;
            batch.push(line);
        }
        if (batch.len() == BATCH_LINES || n == 0) && !batch.is_empty() {
            if batches.send((seq, first, std::mem::take(&mut batch))).is_err() {
                return None;
            }
            seq += 1;
            first = line_no + 1;
        }
        if n == 0 {
            return error;
        }
    }
}

/// One batch parsed: its lines that are not blank, in order.
fn parse_batch<T>(
    path: &Path,
    first: usize,
    lines: Vec<Vec<u8>>,
    parse: fn(Vec<u8>) -> Result<T, String>,
) -> Vec<Parsed<T>> {
    lines
        .into_iter()
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .map(|(i, l)| {
            if l == TOO_LONG {
                return Parsed::TooLong(format!("{}:{}: {}", path.display(), first + i, too_long(max_record_bytes())));
            }
            match parse(l) {
                Ok(r) => Parsed::Record(r),
                Err(e) => Parsed::Bad(format!("{}:{}: not a game record: {e}", path.display(), first + i)),
            }
        })
        .collect()
}

/// The records of a plain records file, in file order, parsed by as many threads as there
/// are CPUs (up to 4) while one thread reads: parsing is most of the cost of reading
/// records. Reads as [`RecordReader`] does: blank lines are skipped, a whole last record
/// without its newline is a record, a line that is not a record is the error
/// `FILE:LINE: not a game record: …` (and the last item) when anything readable follows it
/// and a torn tail ending the records quietly when nothing does, and a line longer than
/// [`max_record_bytes`] is an error, read past without being held. Memory: a few batches of
/// lines per thread. Dropping the iterator stops the threads.
fn parallel_plain<T: Send + 'static>(
    file: std::fs::File,
    path: PathBuf,
    parse: fn(Vec<u8>) -> Result<T, String>,
) -> impl Iterator<Item = Result<T, String>> {
    use std::sync::mpsc;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let (batch_tx, batch_rx) = mpsc::sync_channel::<LineBatch>(2 * workers);
    let (out_tx, out_rx) = mpsc::sync_channel::<(usize, Vec<Parsed<T>>)>(2 * workers);
    let (read_err_tx, read_err_rx) = mpsc::channel::<String>();
    let read_path = path.clone();
    std::thread::spawn(move || {
        if let Some(e) = read_batches(file, read_path, batch_tx) {
            let _ = read_err_tx.send(e);
        }
    });
    let batch_rx = std::sync::Arc::new(std::sync::Mutex::new(batch_rx));
    for _ in 0..workers {
        let (rx, tx) = (batch_rx.clone(), out_tx.clone());
        let path = path.clone();
        std::thread::spawn(move || {
            loop {
                let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((seq, first, lines)) = next else { return };
                if tx.send((seq, parse_batch(&path, first, lines, parse))).is_err() {
                    return;
                }
            }
        });
    }
    drop(out_tx);
    // Batches come back in any order: kept until their turn. A bad line is held until
    // what follows it is known: anything readable makes it an error, the end a torn tail.
    let mut waiting: BTreeMap<usize, Vec<Parsed<T>>> = BTreeMap::new();
    let mut next = 0usize;
    let mut current: VecDeque<Parsed<T>> = VecDeque::new();
    let mut held: Option<String> = None;
    let mut done = false;
    std::iter::from_fn(move || {
        loop {
            if done {
                return None;
            }
            match current.pop_front() {
                Some(_) if held.is_some() => {
                    done = true;
                    return held.take().map(Err);
                }
                Some(Parsed::Record(r)) => return Some(Ok(r)),
                Some(Parsed::Bad(e)) => held = Some(e),
                Some(Parsed::TooLong(e)) => {
                    done = true;
                    return Some(Err(e));
                }
                None => {
                    if let Some(batch) = waiting.remove(&next) {
                        next += 1;
                        current.extend(batch);
                        continue;
                    }
                    match out_rx.recv() {
                        Ok((seq, batch)) => {
                            waiting.insert(seq, batch);
                        }
                        Err(_) => {
                            // The end: a held bad line was a torn tail.
                            done = true;
                            return read_err_rx.try_recv().ok().map(Err);
                        }
                    }
                }
            }
        }
    })
}
