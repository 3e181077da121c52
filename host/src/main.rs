//! The `stratego-host` binary: parses the command line, runs, maps errors to exit codes.

use clap::Parser;
use stratego_host::cli::{Cli, Command};
use stratego_host::run::plan::ConfigError;

fn main() {
    // Before anything else: what a program that exec'ed the host used is not the host's.
    stratego_host::supervise::os::mark_start();
    let cli = Cli::parse();
    // What the layers below the commands say, until a command sends it elsewhere.
    stratego_host::notice::set_listener(Some(std::sync::Arc::new(|n: &stratego_host::notice::Notice| {
        eprintln!("{}", n.text)
    })));
    if cli.max_record_bytes < 1024 {
        config_error(ConfigError {
            message: "--max-record-bytes: must be at least 1024 bytes".into(),
            code: stratego_host::exit::USAGE,
        });
    }
    stratego_records::set_max_record_bytes(cli.max_record_bytes);
    let result = match cli.command {
        Command::SampleBot { args } => {
            let mut argv = vec!["sample-bot".to_owned()];
            argv.extend(args);
            std::process::exit(stratego_sample_bot::main_with_args(argv));
        }
        Command::Check(args) => {
            init_logging("warn");
            args.into_plan().map(|plan| stratego_host::commands::check::run(&plan))
        }
        Command::Ladder(args) => {
            init_logging(args.log_level());
            args.into_plan().and_then(stratego_host::commands::ladder::run)
        }
        Command::Arena(args) => {
            init_logging(args.log_level());
            args.into_plan().and_then(stratego_host::commands::arena::run)
        }
        Command::Token(args) => stratego_host::commands::token::token(args.out.as_deref()),
        Command::Connect(args) => {
            init_logging("warn");
            args.into_options().and_then(stratego_host::commands::connect::run)
        }
        Command::Replay(args) => stratego_host::commands::replay::run(args.into_options()),
        Command::Convert(args) => stratego_host::commands::convert::run(args.into_options()),
        Command::Export(args) => {
            init_logging("warn");
            stratego_host::commands::export::run(args.into_options())
        }
        Command::Merge(args) => {
            init_logging("warn");
            stratego_host::commands::merge::run_merge(args.into_options())
        }
        Command::Match(args) => {
            init_logging(args.run.log_level());
            args.into_plan().and_then(stratego_host::commands::r#match::run)
        }
        Command::Tournament(args) => {
            init_logging(args.run.log_level());
            args.into_plan().and_then(stratego_host::commands::tournament::run)
        }
        Command::Sprt(args) => {
            init_logging(args.run.log_level());
            args.into_plan().and_then(stratego_host::commands::sprt::run)
        }
    };
    // The one place a subcommand's result becomes output and an exit code.
    match result {
        Ok(outcome) => {
            print_stdout(&outcome.stdout);
            std::process::exit(outcome.code);
        }
        Err(e) => config_error(e),
    }
}

fn config_error(e: ConfigError) -> ! {
    eprintln!("stratego-host: {}", e.message);
    std::process::exit(e.code);
}

fn init_logging(level: &str) {
    // Colour only on a terminal, and never with NO_COLOR (no-color.org).
    use std::io::IsTerminal;
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .init();
}

/// Prints to stdout; a closed pipe (`| head`) ends quietly. The exit code stays the
/// command's: a failed `ladder play` or an `sprt` that accepted H0 does not become a
/// success because its report could not be printed.
fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
