//! `stratego-host connect`: runs a bot on this machine for an organiser's `--listen` host
//! (the client itself is [`crate::remote::client`]).

use crate::commands::CommandOutput;
use crate::remote::client::ConnectOptions;
use crate::run::plan::ConfigError;

/// `connect`: runs the bot here and carries its lines to the host until the event is over,
/// saying a line per game on stderr as each ends, and printing a summary of its games on
/// stdout at the end. Its exit code says how the event went for the bot: see
/// [`crate::remote::client::EXIT_CLEAN`] and the codes beside it.
/// The bot gets the parent-death signal: it dies with `connect`, even a SIGKILLed one (the
/// runtime has one thread, the one that starts the bot and lives as long as `connect`);
/// its process group (whatever it started) is killed by a guardian process then.
///
/// # Errors
/// None so far (the options were checked by the command line).
pub fn run(options: ConnectOptions) -> Result<CommandOutput, ConfigError> {
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
    let report = runtime.block_on(crate::remote::client::run(options, crate::supervise::os::die_with_parent, guardian));
    // The games' lines went out as they ended (stderr); the summary is the command's output.
    Ok(CommandOutput { stdout: report.summary(), code: report.code })
}
