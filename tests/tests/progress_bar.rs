//! The progress bar keeps pace with the game lines (issue #32 item 10): when a game's line
//! is printed, the bar drawn under it already counts that game, shows the status after it
//! and no longer lists it as running. Run on a real terminal: `script` (util-linux) gives
//! the host a pseudo-terminal and keeps every frame it drew.

use std::process::Command;

use stratego_tests::{TempDir, host_bin};

/// The terminal output with escape sequences removed, cut into the lines and redraws it
/// shows (`\r` and `\n` both end one).
fn frames(raw: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters… final byte in @..~
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain.split(['\r', '\n']).map(|l| l.trim().to_owned()).filter(|l| !l.is_empty()).collect()
}

/// `(w, d, l)` from the first `+W =D -L` in a bar frame.
fn wdl(frame: &str) -> Option<(u64, u64, u64)> {
    let words: Vec<&str> = frame.split_whitespace().collect();
    words.windows(3).find_map(|w| {
        Some((
            w[0].strip_prefix('+')?.parse().ok()?,
            w[1].strip_prefix('=')?.parse().ok()?,
            w[2].strip_prefix('-')?.parse().ok()?,
        ))
    })
}

#[test]
fn in_sprt_the_bar_under_a_game_line_already_counts_that_game() {
    let dir = TempDir::new("progress-bar");
    let log = dir.join("terminal.log");
    let command = format!(
        "{} sprt 'sample-bot --strategy random' sample-bot --max-games 6 --elo0 0 --elo1 10 --seed 4 --out {}",
        host_bin().display(),
        dir.join("out").display()
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command])
        .arg(&log)
        .env("COLUMNS", "200")
        .env_remove("NO_COLOR")
        .output()
        .expect("run script (util-linux)");
    let raw = std::fs::read(&log).expect("the terminal log");
    let frames = frames(&raw);
    assert_eq!(out.status.code(), Some(11), "sprt ends inconclusive at --max-games: {}", String::from_utf8_lossy(&raw));
    let mut checked = 0;
    for (i, frame) in frames.iter().enumerate() {
        let Some(rest) = frame.strip_prefix("game ") else { continue };
        // An SPRT's games are not counted against --max-games (issue #44, item 15): `game N [ID]`.
        let n: u64 = rest.split([' ', '/']).next().and_then(|n| n.parse().ok()).expect("game N");
        // The next frame that is the bar (the run may end, and clear it, after the last game).
        let Some(bar) = frames[i + 1..].iter().take_while(|f| !f.starts_with("game ")).find(|f| f.contains(" games, "))
        else {
            continue;
        };
        assert!(bar.contains(&format!(" {n} games, ")), "after the line of game {n} the bar shows {bar:?}");
        let (w, d, l) = wdl(bar).unwrap_or_else(|| panic!("after game {n}: no +W =D -L in {bar:?}"));
        assert_eq!(w + d + l, n, "after game {n} the status counts {} games: {bar:?}", w + d + l);
        assert!(!bar.contains(&format!("#{n} ")), "after game {n} the bar still shows it running: {bar:?}");
        checked += 1;
    }
    assert!(checked >= 4, "the bar was drawn after at least 4 of the 6 game lines ({checked}): {frames:#?}");
}
