//! Colour for human output: only on a terminal, and never when `NO_COLOR` is set.

use std::io::IsTerminal;

/// Whether to colour, decided once per stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// The style for stdout.
    pub fn stdout() -> Style {
        Style { color: std::io::stdout().is_terminal() && no_color_unset() }
    }

    /// The style for stderr.
    pub fn stderr() -> Style {
        Style { color: std::io::stderr().is_terminal() && no_color_unset() }
    }

    /// No colour.
    pub fn plain() -> Style {
        Style { color: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Green (good).
    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Red (bad).
    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Yellow (a warning).
    pub fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }
}

/// `NO_COLOR` set to anything non-empty turns colour off (no-color.org).
fn no_color_unset() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::Style;

    #[test]
    fn plain_style_adds_no_escape_codes() {
        assert_eq!(Style::plain().green("x"), "x");
        assert_eq!(Style { color: true }.green("x"), "\x1b[32mx\x1b[0m");
    }
}
