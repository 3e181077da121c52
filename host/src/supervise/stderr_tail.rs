//! A bot's stderr kept for its record: the last bytes it wrote (a bounded tail), how much it
//! wrote in all and since the game began, and where each line also goes as it comes
//! (`--log-protocol`). Used by [`crate::supervise::process`], which drains the pipe into it;
//! uses nothing of the host. Prints nothing, blocks nothing.

/// Bytes of stderr kept per bot for the record.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// Where each line a bot writes to stderr also goes, as it comes (`--log-protocol`).
pub type StderrSink = Box<dyn FnMut(&[u8]) + Send>;

/// Longest stderr line given to a [`StderrSink`] whole: a longer one is given in pieces.
pub(crate) const STDERR_SINK_LINE: usize = 4096;

/// The last bytes a bot wrote to stderr, and how many it wrote in all and since the
/// current game began.
#[derive(Default)]
pub struct StderrTail {
    pub(crate) buf: Vec<u8>,
    /// Total bytes written.
    pub total: u64,
    /// `total` when the current game began.
    pub(crate) game_start: u64,
    /// Where its lines go too, and the start of a line not yet ended.
    pub(crate) sink: Option<(StderrSink, Vec<u8>)>,
}

impl std::fmt::Debug for StderrTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StderrTail").field("total", &self.total).field("game_start", &self.game_start).finish()
    }
}

impl StderrTail {
    /// Gives each line of `chunk` that ends to the sink, keeping the start of the last.
    pub(crate) fn feed_sink(&mut self, chunk: &[u8]) {
        let Some((sink, partial)) = self.sink.as_mut() else { return };
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            partial.extend_from_slice(piece);
            if partial.ends_with(b"\n") || partial.len() >= STDERR_SINK_LINE {
                sink(partial.strip_suffix(b"\n").unwrap_or(partial));
                partial.clear();
            }
        }
    }

    /// The end of the pipe: a last line without its newline goes to the sink too.
    pub(crate) fn finish(&mut self) {
        if let Some((sink, partial)) = self.sink.as_mut().filter(|(_, p)| !p.is_empty()) {
            sink(partial);
            partial.clear();
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.feed_sink(chunk);
        self.total += chunk.len() as u64;
        self.buf.extend_from_slice(chunk);
        if self.buf.len() > 2 * STDERR_TAIL_BYTES {
            let cut = self.buf.len() - STDERR_TAIL_BYTES;
            self.buf.drain(..cut);
        }
    }

    /// The tail of what was written since the current game began, as text (lossy), at most
    /// [`STDERR_TAIL_BYTES`].
    pub fn text(&self) -> String {
        let since_game = usize::try_from(self.total - self.game_start).unwrap_or(usize::MAX);
        let keep = STDERR_TAIL_BYTES.min(since_game);
        let start = self.buf.len().saturating_sub(keep);
        String::from_utf8_lossy(&self.buf[start..]).into_owned()
    }

    /// Bytes written since the current game began.
    pub fn game_bytes(&self) -> u64 {
        self.total - self.game_start
    }
}
