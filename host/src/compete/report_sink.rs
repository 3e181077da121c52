//! What a competition's games fill and what it shows once they are in ([`ReportSink`]), and
//! its index page ([`Page`]).

use crate::display::terminal::style::Style;
use crate::run::happenings::{DigestSink, Sink};

/// The sink a competition's games fill, and what it shows once they are in.
pub trait ReportSink: Sink {
    /// The report as a [`DigestSink`], when it can be filled from digests (by default it
    /// cannot: it is given whole records).
    fn digest_sink(&mut self) -> Option<&mut dyn DigestSink> {
        None
    }

    /// The progress bar's status after a finished game (`None`: unchanged).
    fn progress(&self) -> Option<String>;

    /// `--report-every`: the report after `done` finished games.
    fn interim(&self, done: u64) -> String;

    /// The report for people.
    fn text(&self, style: Style) -> String;

    /// The report as JSON, with `"event"` when the event is named.
    fn json(&self, event: Option<&str>) -> String;

    /// The index page's title and summary.
    fn page(&self) -> Page;

    /// The exit code of a run that ended without failure or interruption.
    fn code(&self) -> i32;

    /// Whether the games it was given already settle it, so that no game is to be played
    /// (an SPRT whose test has accepted a hypothesis): a rerun of such a run is a report,
    /// it plays nothing. By default a report is settled only by its plan's games running
    /// out.
    fn decided(&self) -> bool {
        false
    }

    /// The live page's standings after `done` finished games (HTML, escaped: the page
    /// inserts it as it is): every entrant from the start. By default
    /// [`ReportSink::interim`] as preformatted text; a match, a tournament and an SPRT give
    /// their table (ratings with error bars, score, faults; the SPRT's LLR and bounds).
    fn live_html(&self, done: u64) -> String {
        format!("<pre>{}</pre>", crate::text::html_escape(self.interim(done).trim_end()))
    }

    /// Whether the live page (`--serve`) shows [`ReportSink::live_html`] as the standings
    /// while the event runs. Without, the page counts each bot's wins, draws and losses
    /// itself. By default it does.
    fn live_standings(&self) -> bool {
        true
    }

    /// Once the run is over (every sink finished), before the report is shown: reads what
    /// it shows when that is kept elsewhere (the ladder's table, from its database). A
    /// failure ends the command with it instead (said on stderr, its exit code, nothing on
    /// stdout). By default there is nothing to read.
    ///
    /// # Errors
    /// What could not be read.
    fn conclude(&mut self) -> Result<(), crate::run::happenings::Failure> {
        Ok(())
    }

    /// The line said on stderr (after `stratego-host: `) at the end of a run that did not
    /// fail: interrupted (`end.cancelled`), where its finished games are (`records`: the
    /// records file, if any); else, anything the report does not say itself. By default
    /// the interruption only.
    fn end_message(&self, end: &crate::run::happenings::RunEnd, records: Option<&str>) -> Option<String> {
        end.cancelled.then(|| {
            let saved = match records {
                Some(path) => format!("the summary and {path}"),
                None => "the summary only (no --out: no records were saved)".to_owned(),
            };
            format!("interrupted; every bot process was killed; the {} finished games are in {saved}", end.finished)
        })
    }
}

/// A report's index page.
#[derive(Clone, Debug)]
pub struct Page {
    /// The title (a run prefixes the event's name).
    pub title: String,
    /// The summary above the games; `None`: the report has no page, and a run writes no
    /// index (`merge --out` still writes the games).
    pub summary_html: Option<String>,
    /// Pages beside the index that the summary links (a large tournament's crosstable).
    pub extra: Vec<crate::display::files::viewer::ExtraPage>,
}
