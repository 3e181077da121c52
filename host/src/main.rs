//! The `stratego-host` binary: parses the command line, runs, maps errors to exit codes.

use clap::Parser;
use stratego_host::cli::{Cli, Command, ConfigError};
use stratego_host::{exit, os, runner};

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Command::SampleBot { args } => {
            let mut argv = vec!["sample-bot".to_owned()];
            argv.extend(args);
            std::process::exit(stratego_sample_bot::main_with_args(argv));
        }
        Command::Check(args) => {
            init_logging("warn");
            let json = args.json;
            let plan = args.into_plan().unwrap_or_else(|e| config_error(e));
            os::become_subreaper();
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
            let results = runtime.block_on(stratego_host::check::run_check(&plan));
            let out = if json {
                serde_json::to_string_pretty(&results).expect("results serialise") + "\n"
            } else {
                stratego_host::check::render(&plan.bot, &results)
            };
            print_stdout(&out);
            os::kill_all_groups();
            os::kill_escaped_descendants();
            std::process::exit(if results.iter().all(|r| r.passed) { exit::OK } else { exit::CHECK_FAILED });
        }
        Command::Match(args) => run_match(*args),
    }
}

fn run_match(args: stratego_host::cli::MatchArgs) -> ! {
    init_logging(match (args.quiet, args.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, _) => "debug",
    });
    let json = args.json;
    let plan = args.into_plan().unwrap_or_else(|e| config_error(e));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let code = runtime.block_on(async move {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            result = runner::run_match(plan) => match result {
                Ok(summary) => {
                    let out = if json {
                        serde_json::to_string_pretty(&summary).expect("summary serialises") + "\n"
                    } else {
                        summary.render()
                    };
                    print_stdout(&out);
                    exit::OK
                }
                Err(e) => {
                    eprintln!("stratego-host: cannot write a game record: {e}");
                    exit::FAILURE
                }
            },
            _ = tokio::signal::ctrl_c() => interrupted(),
            _ = term.recv() => interrupted(),
        }
    });
    drop(runtime);
    os::kill_all_groups();
    // After an interruption: the records of finished games still queued are written now.
    let _ = runner::wait_for_records();
    os::kill_escaped_descendants();
    std::process::exit(code);
}

fn config_error(e: ConfigError) -> ! {
    eprintln!("stratego-host: {}", e.message);
    std::process::exit(e.code);
}

fn init_logging(level: &str) {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .init();
}

fn interrupted() -> i32 {
    os::kill_all_groups();
    os::kill_escaped_descendants();
    eprintln!("stratego-host: interrupted; every bot process was killed; finished games are in the records");
    exit::INTERRUPTED
}

/// Prints to stdout; a closed pipe (`| head`) ends quietly.
fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        std::process::exit(exit::OK);
    }
}
