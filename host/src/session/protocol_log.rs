//! `--log-protocol FILE|DIR`: every line each way between the host and the bots, with a
//! timestamp and the direction, for a bot author debugging their bot.
//!
//! One line per message: `SECONDS BOT GAME > LINE` for what the host sent, `<` for what
//! the bot sent and `!` for a line the bot wrote to its stderr, as it came (seconds since
//! the run began, six decimals). A path that is an existing
//! directory, or ends with `/`, gets one file per bot (`DIR/BOT.log`); otherwise every bot
//! goes to the one file. Each line is written with one `write`, unbuffered, so a crash of the
//! host or the bot loses nothing before it.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Which way a line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Host to bot.
    ToBot,
    /// Bot to host.
    FromBot,
    /// A line of the bot's stderr.
    Stderr,
}

/// The protocol log of a run.
#[derive(Debug)]
pub struct ProtocolLog {
    start: Instant,
    target: Target,
    path: PathBuf,
}

#[derive(Debug)]
enum Target {
    File(Mutex<File>),
    Dir(PathBuf, Mutex<HashMap<String, File>>),
}

impl ProtocolLog {
    /// Opens the log: a directory (existing, or a path ending with `/`) for a file per bot,
    /// else one file (truncated).
    ///
    /// # Errors
    /// The file or directory cannot be created.
    pub fn open(path: &Path) -> std::io::Result<ProtocolLog> {
        let is_dir = path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/');
        let target = if is_dir {
            std::fs::create_dir_all(path)?;
            Target::Dir(path.to_owned(), Mutex::new(HashMap::new()))
        } else {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            Target::File(Mutex::new(File::create(path)?))
        };
        Ok(ProtocolLog { start: Instant::now(), target, path: path.to_owned() })
    }

    /// Where it is written, for the `-v` message.
    pub fn describe(&self) -> String {
        match &self.target {
            Target::File(_) => format!("{} (every bot)", self.path.display()),
            Target::Dir(dir, _) => format!("{} (a file per bot)", dir.display()),
        }
    }

    /// Logs one line (`text` without its newline). Write errors are ignored: the log must
    /// never stop a game.
    pub fn line(&self, bot: &str, game_id: &str, direction: Direction, text: &[u8]) {
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        let arrow = match direction {
            Direction::ToBot => '>',
            Direction::FromBot => '<',
            Direction::Stderr => '!',
        };
        let mut line = format!("{:.6} {bot} {game_id} {arrow} ", self.start.elapsed().as_secs_f64()).into_bytes();
        line.extend_from_slice(text);
        line.push(b'\n');
        match &self.target {
            Target::File(f) => {
                let _ = f.lock().unwrap_or_else(|e| e.into_inner()).write_all(&line);
            }
            Target::Dir(dir, files) => {
                let mut files = files.lock().unwrap_or_else(|e| e.into_inner());
                if !files.contains_key(bot) {
                    let name: String =
                        bot.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
                    match OpenOptions::new().create(true).append(true).open(dir.join(format!("{name}.log"))) {
                        Ok(f) => {
                            files.insert(bot.to_owned(), f);
                        }
                        Err(_) => return,
                    }
                }
                if let Some(f) = files.get_mut(bot) {
                    let _ = f.write_all(&line);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_time_bot_game_and_direction_in_one_file_or_one_per_bot() {
        let dir = std::env::temp_dir().join(format!("stratego-protolog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join("all.log");
        let log = ProtocolLog::open(&file).unwrap();
        log.line("a", "g-1", Direction::ToBot, b"{\"type\":\"quit\"}\n");
        log.line("b", "g-1", Direction::FromBot, b"{\"type\":\"ready\"}");
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].ends_with(" a g-1 > {\"type\":\"quit\"}"), "{}", lines[0]);
        assert!(lines[1].ends_with(" b g-1 < {\"type\":\"ready\"}"), "{}", lines[1]);
        let per_bot = dir.join("bots/");
        let log = ProtocolLog::open(&per_bot).unwrap();
        log.line("my bot/1", "g-2", Direction::FromBot, b"x");
        assert!(std::fs::read_to_string(per_bot.join("my_bot_1.log")).unwrap().ends_with(" my bot/1 g-2 < x\n"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
