//! Appending records to a file of either form.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use stratego_protocol::record::GameRecord;

use crate::form::{Encoder, Form};

/// Appends records to a records file, one write per record: a line in the plain form, a
/// zstd frame in the compact form.
pub struct RecordWriter {
    path: PathBuf,
    form: Form,
    state: Mutex<State>,
}

struct State {
    file: std::fs::File,
    encoder: Encoder,
    /// The plain file ends without a newline (a last line written by hand): the next
    /// line starts with one.
    needs_newline: bool,
}

impl RecordWriter {
    /// Opens (creating it and its directory) the records file `path` for appending
    /// records of `form`. A file that already holds records must be of that form. Cut a
    /// torn tail off first ([`crate::cut_torn_tail`]), or what is appended follows it.
    ///
    /// # Errors
    /// The directory or file cannot be created or read, or the file holds records of the
    /// other form.
    pub fn open(path: &Path, form: Form) -> std::io::Result<RecordWriter> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new().create(true).append(true).read(true).open(path)?;
        let len = file.metadata()?.len();
        let mut needs_newline = false;
        if len > 0 {
            let mut head = [0u8; 4];
            let n = file.read(&mut head)?;
            let found = Form::of_start(&head[..n], Path::new(""));
            if found != form {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{}: holds {} records, not {}", path.display(), name(found), name(form)),
                ));
            }
            if form == Form::Plain {
                let mut last = [0u8];
                file.seek(SeekFrom::Start(len - 1))?;
                file.read_exact(&mut last)?;
                needs_newline = last[0] != b'\n';
            }
        }
        let encoder = Encoder::new(form)?;
        Ok(RecordWriter { path: path.to_owned(), form, state: Mutex::new(State { file, encoder, needs_newline }) })
    }

    /// Opens `dir/games.jsonl` or `dir/games.jsonl.zst` ([`Form::file_name`]) as
    /// [`RecordWriter::open`] does.
    ///
    /// # Errors
    /// As [`RecordWriter::open`].
    pub fn open_in(dir: &Path, form: Form) -> std::io::Result<RecordWriter> {
        RecordWriter::open(&dir.join(form.file_name()), form)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The form written.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Appends one record with a single write. A kill of the host in the middle of that
    /// write can still leave the start of a line or frame: readers drop such a torn tail.
    /// A write that fails part of the way (a full disk) is cut off again: the file keeps
    /// whole records only.
    ///
    /// # Errors
    /// The record cannot be encoded or the write failed (and, if the part written could
    /// not be cut off, says so too).
    pub fn append(&self, record: &GameRecord) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut bytes = state.encoder.encode(record)?;
        if state.needs_newline {
            bytes.insert(0, b'\n');
        }
        let before = state.file.metadata()?.len();
        match state.file.write_all(&bytes).and_then(|()| state.file.flush()) {
            Ok(()) => {
                state.needs_newline = false;
                Ok(())
            }
            Err(e) => match state.file.set_len(before) {
                Ok(()) => Err(e),
                Err(cut) => Err(std::io::Error::new(
                    e.kind(),
                    format!(
                        "{e}; and the part written could not be cut off ({cut}): its last {} is torn",
                        match self.form {
                            Form::Plain => "line",
                            Form::Compact => "frame",
                        }
                    ),
                )),
            },
        }
    }
}

fn name(form: Form) -> &'static str {
    match form {
        Form::Plain => "plain (JSON Lines)",
        Form::Compact => "compact (zstd)",
    }
}
