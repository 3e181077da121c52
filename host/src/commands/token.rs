//! `token` and `connect`: the two commands of remote bots (see [`crate::remote`]).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use std::path::Path;

use crate::commands::Outcome;
use crate::remote::client::ConnectOptions;
use crate::remote::token;
use crate::run::plan::{ConfigError, usage};

/// `token`: a new token and its SHA-256. The token is printed once (or written to `--out
/// FILE`, created with mode 0600, never replacing a file); the host keeps only the hash.
///
/// # Errors
/// No randomness, or `--out` names a file that exists or cannot be created.
pub fn token(out: Option<&Path>) -> Result<Outcome, ConfigError> {
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
    Ok(Outcome { stdout, code: crate::exit::OK })
}

/// `connect`: runs the bot here and carries its lines to the host until the event is over.
/// The bot gets the parent-death signal: it dies with `connect`, even a SIGKILLed one (the
/// runtime has one thread, the one that starts the bot and lives as long as `connect`);
/// its process group (whatever it started) is killed by a guardian process then.
///
/// # Errors
/// None so far (the options were checked by the command line).
pub fn connect(options: ConnectOptions) -> Result<Outcome, ConfigError> {
    // Forked first, while this process has one thread: it kills the bot's process group
    // once connect is gone, however (an engine a launcher script started included).
    let guardian = match crate::remote::client::Guardian::start() {
        Ok(g) => Some(std::sync::Arc::new(g)),
        Err(e) => {
            tracing::warn!("connect: no guardian process ({e}): a bot's own children may outlive a killed connect");
            None
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let code = runtime.block_on(crate::remote::client::run(options, crate::supervise::os::die_with_parent, guardian));
    Ok(Outcome { stdout: String::new(), code })
}
