//! Reading and writing records files of both forms, on real files.
//!
//! `data/real-games.jsonl.zst` holds four records written by `stratego-host match --out`
//! (sample-bot against itself and against `--strategy random`, 38 to 2,000 plies), each
//! compressed into its own frame by the `zstd` command-line tool (`zstd -9`), so the
//! reader is tested on frames it did not write.

#[path = "support/synthetic.rs"]
mod synthetic;

use std::io::Read;
use std::path::{Path, PathBuf};

use stratego_records::{
    COMPACT_FILE, Encoder, Form, GameRecord, PLAIN_FILE, Position, ReadError, RecordReader, RecordWriter, Torn,
    cut_torn_tail, read_all, read_all_skipping, records_file,
};

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real-games.jsonl.zst");

/// A directory removed at the end of the test.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("stratego-records-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn real_records() -> Vec<GameRecord> {
    let read = read_all(Path::new(REAL)).unwrap();
    assert_eq!(read.form, Form::Compact);
    assert_eq!(read.torn, None);
    read.records
}

/// `zstd -dc`: every frame of the file decoded, concatenated.
fn zstd_dc(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(std::fs::File::open(path).unwrap()).unwrap().read_to_end(&mut out).unwrap();
    out
}

fn frames(records: &[GameRecord]) -> Vec<Vec<u8>> {
    let mut e = Encoder::new(Form::Compact).unwrap();
    records.iter().map(|r| e.encode(r).unwrap()).collect()
}

fn bad(e: ReadError) -> (Position, String) {
    match e {
        ReadError::Bad { position, ref what, .. } => (position, what.clone()),
        ReadError::Io { .. } => panic!("an I/O error, not a bad record: {e}"),
    }
}

#[test]
fn the_real_records_are_whole_games() {
    let records = real_records();
    let plies: Vec<usize> = records.iter().map(|r| r.plies.len()).collect();
    assert_eq!(plies, [2000, 547, 38, 946]);
    for r in &records {
        r.play_through().unwrap_or_else(|e| panic!("{}: {e}", r.game_id));
    }
}

#[test]
fn real_records_round_trip_in_both_forms_and_zstd_dc_gives_the_plain_file() {
    let records = real_records();
    let tmp = TempDir::new("round-trip");
    let plain = RecordWriter::open_in(&tmp.0, Form::Plain).unwrap();
    let compact = RecordWriter::open_in(&tmp.0.join("z"), Form::Compact).unwrap();
    assert_eq!(plain.path(), tmp.join(PLAIN_FILE));
    assert_eq!(compact.path(), tmp.0.join("z").join(COMPACT_FILE));
    for r in &records {
        plain.append(r).unwrap();
        compact.append(r).unwrap();
    }
    for path in [plain.path(), compact.path()] {
        let read = read_all(path).unwrap();
        assert_eq!(read.records, records, "{}", path.display());
        assert_eq!(read.torn, None);
    }
    assert_eq!(read_all(plain.path()).unwrap().form, Form::Plain);
    assert_eq!(read_all(compact.path()).unwrap().form, Form::Compact);
    // The plain file is the records' JSON lines; the compact one decodes to exactly it.
    let plain_bytes = std::fs::read(plain.path()).unwrap();
    let lines: String = records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    assert_eq!(plain_bytes, lines.as_bytes());
    assert_eq!(zstd_dc(compact.path()), plain_bytes);
    // One frame a record, each a tenth of its line or less.
    let compact_bytes = std::fs::read(compact.path()).unwrap();
    assert_eq!(compact_bytes, frames(&records).concat());
    assert!(compact_bytes.len() * 8 < plain_bytes.len(), "{} vs {}", compact_bytes.len(), plain_bytes.len());
}

#[test]
fn a_compact_file_with_another_name_is_told_by_its_magic_number() {
    let records = real_records();
    let tmp = TempDir::new("magic");
    let path = tmp.join("games.jsonl");
    std::fs::write(&path, frames(&records).concat()).unwrap();
    assert_eq!(Form::of_file(&path).unwrap(), Form::Compact);
    assert_eq!(read_all(&path).unwrap().records, records);
    // A missing file is told by its name.
    assert_eq!(Form::of_file(&tmp.join("x.zst")).unwrap(), Form::Compact);
    assert_eq!(Form::of_file(&tmp.join("x.jsonl")).unwrap(), Form::Plain);
}

#[test]
fn a_torn_last_frame_is_dropped_at_every_byte_and_the_file_can_be_cut_and_appended_to() {
    let records = real_records();
    // The short game twice (short: each of the 6,000 reads below parses them), then the
    // 2,000-ply game, the biggest frame.
    let again = GameRecord { game_id: "again".into(), ..records[2].clone() };
    let records = [records[2].clone(), again, records[0].clone()];
    let frames = frames(&records);
    let whole = frames.concat();
    let last_start = whole.len() - frames[2].len();
    let tmp = TempDir::new("torn-frame");
    let path = tmp.join(COMPACT_FILE);
    for cut in last_start..whole.len() {
        // The file cut at `cut`: read from memory (the reader reads any `Read`), and from a
        // real file at every 64th byte (each file written takes ext4 a flush).
        let on_disk = (cut - last_start) % 64 == 0;
        let cut_file = tmp.join(&format!("{cut}.zst"));
        let input: Box<dyn Read> = if on_disk {
            std::fs::write(&cut_file, &whole[..cut]).unwrap();
            Box::new(std::fs::File::open(&cut_file).unwrap())
        } else {
            Box::new(&whole[..cut])
        };
        let mut reader = RecordReader::new(input, Form::Compact, &cut_file).unwrap();
        let read: Vec<GameRecord> =
            reader.by_ref().map(|r| r.unwrap_or_else(|e| panic!("cut at {cut}: {e}"))).collect();
        assert_eq!(read, records[..2], "cut at {cut}");
        assert_eq!(reader.good_end(), last_start as u64, "cut at {cut}");
        let expected = (cut > last_start).then_some(Torn {
            position: Position::Frame { number: 3, byte: last_start as u64, line: None },
            offset: last_start as u64,
            bytes: (cut - last_start) as u64,
        });
        assert_eq!(reader.torn(), expected.as_ref(), "cut at {cut}");
        if on_disk {
            std::fs::remove_file(&cut_file).unwrap();
        }
    }
    // Cut off, the file takes the next record as a whole frame.
    std::fs::write(&path, &whole[..last_start + frames[2].len() / 2]).unwrap();
    let read = read_all(&path).unwrap();
    cut_torn_tail(&path, read.torn.as_ref().unwrap()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), whole[..last_start]);
    RecordWriter::open(&path, Form::Compact).unwrap().append(&records[2]).unwrap();
    assert_eq!(read_all(&path).unwrap().records, records);
    assert_eq!(std::fs::read(&path).unwrap(), whole);
}

#[test]
fn a_torn_last_line_is_dropped_at_every_byte() {
    let records: Vec<GameRecord> = (1..=3).map(|seed| synthetic::record(12, seed, synthetic::Times::Fast)).collect();
    let lines: Vec<String> = records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    let whole = lines.concat();
    let last_start = whole.len() - lines[2].len();
    let tmp = TempDir::new("torn-line");
    let path = tmp.join(PLAIN_FILE);
    for cut in last_start..whole.len() {
        let path = tmp.join(&format!("{cut}.jsonl"));
        std::fs::write(&path, &whole[..cut]).unwrap();
        let read = read_all(&path).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        std::fs::remove_file(&path).unwrap();
        if cut == whole.len() - 1 {
            // Whole but for its newline: a record (the writer adds the newline first).
            assert_eq!(read.records, records, "cut at {cut}");
            assert_eq!(read.torn, None);
            continue;
        }
        assert_eq!(read.records, records[..2], "cut at {cut}");
        let expected = (cut > last_start).then_some(Torn {
            position: Position::Line(3),
            offset: last_start as u64,
            bytes: (cut - last_start) as u64,
        });
        assert_eq!(read.torn, expected, "cut at {cut}");
    }
    // A line that lost only its newline gets one before the next record.
    std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
    RecordWriter::open(&path, Form::Plain).unwrap().append(&records[0]).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{whole}{}", lines[0]));
    // A torn line followed by blank lines only is still the torn tail; cut, the file
    // ends with its last whole line.
    std::fs::write(&path, format!("{}{}{}\n\n  \n", lines[0], lines[1], &lines[2][..40])).unwrap();
    let read = read_all(&path).unwrap();
    assert_eq!(read.records, records[..2]);
    cut_torn_tail(&path, read.torn.as_ref().unwrap()).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}{}", lines[0], lines[1]));
}

#[test]
fn garbage_in_the_middle_of_a_compact_file_is_an_error_naming_its_frame_and_the_rest_is_read() {
    let records = real_records();
    let frames = frames(&records);
    let tmp = TempDir::new("garbage-frame");
    let path = tmp.join(COMPACT_FILE);
    let second = frames[0].len();

    // Bytes overwritten inside frame 2.
    let mut damaged = frames.concat();
    for b in &mut damaged[second + 100..second + 140] {
        *b = b'#';
    }
    std::fs::write(&path, &damaged).unwrap();
    let e = read_all(&path).unwrap_err();
    assert_eq!(e.to_string().split(": ").nth(1).unwrap(), format!("frame 2 (byte {second})"), "{e}");
    assert!(e.to_string().contains("not a zstd frame"), "{e}");
    assert_eq!(bad(e).0, Position::Frame { number: 2, byte: second as u64, line: None });
    let (read, skipped) = read_all_skipping(&path).unwrap();
    assert_eq!(read.records, [records[0].clone(), records[2].clone(), records[3].clone()]);
    assert_eq!(skipped.len(), 1);
    assert_eq!(read.torn, None);

    // Bytes that are no frame at all between frames 1 and 2: frame 2 is the garbage, the
    // records after it are frames 3 to 5.
    let mut inserted = frames[0].clone();
    inserted.extend_from_slice(b"hello, this is not zstd\n");
    inserted.extend(frames[1..].concat());
    std::fs::write(&path, &inserted).unwrap();
    let (read, skipped) = read_all_skipping(&path).unwrap();
    assert_eq!(read.records, records);
    let (position, what) = bad(skipped.into_iter().next().unwrap());
    assert_eq!(position, Position::Frame { number: 2, byte: second as u64, line: None });
    assert!(what.contains("24 bytes skipped"), "{what}");

    // A whole frame that is not a record is an error wherever it is, even last: its
    // checksum says it was written whole.
    let mut encoder = Encoder::new(Form::Compact).unwrap();
    let not_a_record = encoder.encode_line(b"{\"game_id\": \"x\"}\n").unwrap();
    for at in [1, frames.len()] {
        let mut file = frames[..at].concat();
        file.extend(&not_a_record);
        file.extend(frames[at..].concat());
        std::fs::write(&path, &file).unwrap();
        let e = read_all(&path).unwrap_err();
        let byte = frames[..at].iter().map(Vec::len).sum::<usize>() as u64;
        assert!(e.to_string().contains("not a game record: missing field"), "{e}");
        assert_eq!(bad(e).0, Position::Frame { number: at + 1, byte, line: None });
    }
}

#[test]
fn a_bad_line_in_the_middle_of_a_plain_file_is_an_error_naming_its_line() {
    let records = real_records();
    let tmp = TempDir::new("garbage-line");
    let path = tmp.join(PLAIN_FILE);
    let line = |r: &GameRecord| serde_json::to_string(r).unwrap();
    std::fs::write(&path, format!("{}\n\nnot json\n{}\n", line(&records[0]), line(&records[1]))).unwrap();
    let e = read_all(&path).unwrap_err();
    assert!(e.to_string().starts_with(&format!("{}:3: not a game record: ", path.display())), "{e}");
    let (read, skipped) = read_all_skipping(&path).unwrap();
    assert_eq!(read.records, records[..2]);
    assert_eq!(skipped.iter().map(|e| e.position()).collect::<Vec<_>>(), [Some(Position::Line(3))]);
}

#[test]
fn a_plain_file_compressed_whole_by_zstd_reads_and_names_lines_within_its_frame() {
    let records = real_records();
    let tmp = TempDir::new("one-frame");
    let path = tmp.join(COMPACT_FILE);
    let plain: String = records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    std::fs::write(&path, zstd::stream::encode_all(plain.as_bytes(), 3).unwrap()).unwrap();
    assert_eq!(read_all(&path).unwrap().records, records);
    let bad_plain = plain.replacen("\n", "\nnot json\n", 1);
    std::fs::write(&path, zstd::stream::encode_all(bad_plain.as_bytes(), 3).unwrap()).unwrap();
    let e = read_all(&path).unwrap_err();
    assert_eq!(bad(e).0, Position::Frame { number: 1, byte: 0, line: Some(2) });
}

#[test]
fn empty_and_blank_files_hold_no_records() {
    let tmp = TempDir::new("empty");
    for (name, text) in [(PLAIN_FILE, ""), (COMPACT_FILE, ""), ("blank.jsonl", "\n  \n\n")] {
        let path = tmp.join(name);
        std::fs::write(&path, text).unwrap();
        let read = read_all(&path).unwrap();
        assert!(read.records.is_empty() && read.torn.is_none(), "{name}");
    }
    // The writer creates the file; appending to an empty file of either form works.
    for form in [Form::Plain, Form::Compact] {
        let w = RecordWriter::open(&tmp.join(form.file_name()), form).unwrap();
        w.append(&real_records()[2]).unwrap();
        assert_eq!(read_all(w.path()).unwrap().records, [real_records()[2].clone()]);
    }
}

#[test]
fn the_writer_refuses_the_other_form_and_a_directory_with_both_files_is_refused() {
    let records = real_records();
    let tmp = TempDir::new("forms");
    assert_eq!(records_file(&tmp.0).unwrap(), None);
    RecordWriter::open_in(&tmp.0, Form::Plain).unwrap().append(&records[2]).unwrap();
    assert_eq!(records_file(&tmp.0).unwrap(), Some(tmp.join(PLAIN_FILE)));
    let e = RecordWriter::open(&tmp.join(PLAIN_FILE), Form::Compact).err().unwrap();
    assert!(e.to_string().contains("holds plain (JSON Lines) records, not compact (zstd)"), "{e}");
    RecordWriter::open_in(&tmp.0, Form::Compact).unwrap().append(&records[2]).unwrap();
    let e = records_file(&tmp.0).unwrap_err();
    assert!(e.contains("holds both games.jsonl and games.jsonl.zst"), "{e}");
    std::fs::remove_file(tmp.join(PLAIN_FILE)).unwrap();
    assert_eq!(records_file(&tmp.0).unwrap(), Some(tmp.join(COMPACT_FILE)));
    let e = RecordWriter::open(&tmp.join(COMPACT_FILE), Form::Plain).err().unwrap();
    assert!(e.to_string().contains("holds compact (zstd) records, not plain (JSON Lines)"), "{e}");
}

#[test]
fn a_file_that_cannot_be_read_is_an_io_error() {
    let tmp = TempDir::new("missing");
    let e = read_all(&tmp.join(COMPACT_FILE)).unwrap_err();
    assert!(matches!(e, ReadError::Io { .. }) && e.position().is_none(), "{e}");
    assert!(e.to_string().starts_with(&tmp.join(COMPACT_FILE).display().to_string()), "{e}");
}

/// Set in the child process of the test below: the file to append to until a write fails.
const APPEND_TO: &str = "STRATEGO_RECORDS_TEST_APPEND_TO";

#[test]
fn a_write_that_fails_part_of_the_way_is_cut_off() {
    let record = real_records().swap_remove(1);
    if let Ok(path) = std::env::var(APPEND_TO) {
        // The child: appends under a file size limit until a write fails.
        let path = PathBuf::from(path);
        let writer = RecordWriter::open(&path, Form::of_file(&path).unwrap()).unwrap();
        let mut appended = 0;
        let error = loop {
            match writer.append(&record) {
                Ok(()) => appended += 1,
                Err(e) => break e,
            }
        };
        println!("appended {appended}: {error}");
        return;
    }
    // Runs this test again in a child under `ulimit -f` (writes past it fail with EFBIG,
    // SIGXFSZ ignored: as on a full disk).
    let tmp = TempDir::new("disk-full");
    let exe = std::env::current_exe().unwrap();
    for name in [PLAIN_FILE, COMPACT_FILE] {
        let path = tmp.join(name);
        let script = "ulimit -f 64; trap '' XFSZ; exec \"$0\" --exact a_write_that_fails_part_of_the_way_is_cut_off --nocapture --test-threads 1";
        let out = std::process::Command::new("bash")
            .args(["-c", script, exe.to_str().unwrap()])
            .env(APPEND_TO, &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
        let line =
            stdout.lines().find_map(|l| l.find("appended ").map(|i| &l[i..])).unwrap_or_else(|| panic!("{stdout}"));
        let appended: usize = line["appended ".len()..].split(':').next().unwrap().parse().unwrap();
        assert!(line.contains("too large"), "{line}");
        // Whole records only: as many as were appended, and no torn tail.
        let read = read_all(&path).unwrap();
        assert_eq!((read.records.len(), read.torn), (appended, None), "{name}: {line}");
        assert!(appended >= 1, "{name}: {line}");
        let len = std::fs::metadata(&path).unwrap().len();
        let one = Encoder::new(Form::of_file(&path).unwrap()).unwrap().encode(&record).unwrap().len() as u64;
        assert_eq!(len, one * appended as u64, "{name}");
    }
}
