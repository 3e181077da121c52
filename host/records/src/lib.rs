//! Game records at rest, in two forms:
//!
//! - **plain**: `games.jsonl`, one JSON object per line (RECORDS.md);
//! - **compact**: `games.jsonl.zst`, one zstd frame per record, each frame holding exactly
//!   the record's plain line (its JSON and a newline). Frames concatenated make a valid
//!   zstd file, so `zstd -dc games.jsonl.zst` prints the plain JSON Lines with no tool of
//!   ours, and a frame per record keeps `kill -9` safety: a frame torn by a killed host is
//!   detected and dropped like a torn line.
//!
//! [`RecordReader`] reads either form (told apart by the zstd magic number, else by the
//! file name) and yields records one by one; a torn tail is dropped and reported by
//! [`RecordReader::torn`], a bad line or frame in the middle is an error naming its
//! position ([`ReadError::Bad`]), after which the reader goes on with the next one (for
//! the read-only commands' `--skip-bad-lines`). [`RecordWriter`] appends one record per
//! write, in either form.
//!
//! [`GameDigest`] reads a record's line without its moves, for what needs only the
//! results and the ply tallies of many records (a merged report, an index's rows).
//!
//! This crate is the one reader and the one writer of records at rest; the host calls it
//! for every records file. Module structure:
//! - `form`: the two forms, the file names, the zstd framing, the encoder.
//! - `read`: [`RecordReader`], the torn-tail rule, [`cut_torn_tail`].
//! - `write`: [`RecordWriter`], one write per record, rolled back when it fails.
//! - `dir`: a run directory's records file, read back by a resumed run ([`read_back`]) or
//!   whole by a read-only command ([`read_file`], [`read_file_skipping`]).
//! - `scan`: the ids of a run's finished games without parsing them ([`scan_ids`]).
//! - `parallel`: a run's records one at a time, a plain file parsed by several threads
//!   ([`records_iter`], [`digests_iter`]).
//! - `digest`: [`GameDigest`].
//!
//! This crate uses serde, serde_json, zstd and memchr only (no tokio, libc or clap).

mod digest;
mod dir;
mod form;
mod parallel;
mod read;
mod scan;
mod write;

pub use digest::{BotDigest, GameDigest, STALL_CAP_FLOOR_US, STALLED_SHARE_OF_LIMIT_PERCENT, SideTally, stall_cap_us};
pub use dir::{Skipping, read_back, read_file, read_file_skipping, records_path, with_skip_hint};
pub use form::{
    COMPACT_FILE, Encoder, Form, LEVEL, PLAIN_FILE, ZSTD_MAGIC, decode_frame, is_skippable_magic, records_file,
};
pub use parallel::{Digested, digests_iter, records_iter};
pub use read::{
    DEFAULT_MAX_RECORD_BYTES, Position, RawLines, ReadError, RecordReader, Records, Torn, cut_torn_tail,
    max_record_bytes, read_all, read_all_skipping, set_max_record_bytes,
};
pub use scan::{SCAN_CHUNK, scan_ids, scan_plain_ids};
pub use stratego_protocol::record::GameRecord;
pub use write::RecordWriter;
