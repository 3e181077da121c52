//! The host's small text helpers, one home for each, shared by every layer (uses none):
//! - [`clean`], [`clean_lines`]: the one sanitiser for text the host did not write that
//!   reaches a terminal (issue #42, item 10): a bot's name, start-up stderr or close reason,
//!   a record's names and game id, a host's close reason or refusal as `connect` prints it.
//!   Such text may hold terminal controls: `ESC ] 0 ; … BEL` sets the window title,
//!   `ESC [ 2 J` clears the screen, `ESC ] 52 ; c ; … BEL` writes the clipboard, a bidi
//!   override makes a line read in another order than it is. [`clean`] shows each of them
//!   as a visible escape instead (`\x1b`, `\u{202e}`), so what is printed is what was sent,
//!   and the terminal does nothing but show it.
//! - [`clip`]: at most 200 characters of a line, for messages.
//! - [`secs`]: a duration as `1.234 s`.
//! - [`plural`]: `1 game`, `3 games` (the `stratego-stats` crate's, which its tables use too).
//! - [`html_escape`], [`half`]: HTML text, points with a half.

use std::borrow::Cow;
use std::time::Duration;

pub use stratego_stats::plural;

/// Escapes text for HTML content and quoted attribute values (the viewer, the ladder's
/// page).
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Points with a half as `3.5`, whole ones as `3` (the text tables and the pages).
pub fn half(p: f64) -> String {
    if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") }
}

/// At most 200 characters of a line, for messages. A bot's line must go through [`clean`]
/// first: fault messages reach the terminal.
pub fn clip(line: &str) -> String {
    if line.chars().count() <= 200 {
        line.to_owned()
    } else {
        format!("{}…", line.chars().take(200).collect::<String>())
    }
}

/// `1.234 s`.
pub fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Whether `c` must not reach a terminal as it is: C0 controls (tab and line feed too,
/// unless `keep_lines`), DEL, C1 controls, and the bidirectional formatting characters
/// (embeddings, overrides, isolates, marks).
fn is_unsafe(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_lines,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c, keep_lines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c, keep_lines) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// `text` on one line, safe for a terminal: every control character (line breaks and tabs
/// too), DEL, C1 control and bidi formatting character shown as a visible escape (`ESC` is
/// `\x1b`, BEL `\x07`, U+202E `\u{202e}`). Everything else is kept as it is.
pub fn clean(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// [`clean`] for text of several lines (a bot's stderr): line feeds and tabs are kept.
pub fn clean_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes_and_plain_text_is_kept() {
        assert_eq!(clean("sample-bot ♜ é"), "sample-bot ♜ é");
        assert!(matches!(clean("plain"), Cow::Borrowed(_)));
        assert_eq!(clean("\x1b]52;c;aGk=\x07"), "\\x1b]52;c;aGk=\\x07");
        assert_eq!(clean("\x1b[2J\x1b]0;pwned\x07"), "\\x1b[2J\\x1b]0;pwned\\x07");
        assert_eq!(clean("a\r\nb\tc\x7f"), "a\\x0d\\x0ab\\x09c\\x7f");
        assert_eq!(clean("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(clean("abc\u{202e}fed\u{2066}"), "abc\\u{202e}fed\\u{2066}");
        assert_eq!(clean_lines("one\n\ttwo\x1b[2J"), "one\n\ttwo\\x1b[2J");
    }
}
