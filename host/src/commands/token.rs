//! `stratego-host token`: a new token for a remote bot (see [`crate::remote`]).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use std::path::Path;

use crate::commands::CommandOutput;
use crate::remote::token;
use crate::run::plan::{ConfigError, usage};

/// `token`: a new token and its SHA-256. The token is printed once (or written to `--out
/// FILE`, created with mode 0600, never replacing a file); the host keeps only the hash.
///
/// # Errors
/// No randomness, or `--out` names a file that exists or cannot be created.
pub fn token(out: Option<&Path>) -> Result<CommandOutput, ConfigError> {
    let t = token::new_token().map_err(usage)?;
    let sha = token::hex(&token::hash(&t));
    let stdout = match out {
        Some(path) => {
            let mut f =
                std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(|e| match e
                    .kind()
                {
                    std::io::ErrorKind::AlreadyExists => usage(format!(
                        "--out {}: the file exists; it is never replaced (a token is made once)",
                        path.display()
                    )),
                    _ => usage(format!("--out {}: {e}", path.display())),
                })?;
            writeln!(f, "{t}").map_err(|e| usage(format!("--out {}: {e}", path.display())))?;
            eprintln!(
                "stratego-host: token written to {} (mode 0600): give it to the bot's entrant only",
                path.display()
            );
            format!("token_sha256 = \"{sha}\"\n")
        }
        None => {
            eprintln!(
                "stratego-host: the token is shown once: give it to the bot's entrant; the bot's spec takes only token_sha256"
            );
            format!("token = \"{t}\"\ntoken_sha256 = \"{sha}\"\n")
        }
    };
    Ok(CommandOutput { stdout, code: crate::exit::OK })
}
