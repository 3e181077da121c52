//! The `stratego-host` binary: parses the command line, runs, maps errors to exit codes.

use clap::Parser;
use stratego_host::cli::{Cli, Command};
use stratego_host::exit;
use stratego_host::run::plan::{ConfigError, EventPlan};
use stratego_host::supervise::supervisor::Supervisor;

fn main() {
    let cli = Cli::parse();
    let plan = match cli.command {
        Command::SampleBot { args } => {
            let mut argv = vec!["sample-bot".to_owned()];
            argv.extend(args);
            std::process::exit(stratego_sample_bot::main_with_args(argv));
        }
        Command::Check(args) => run_check(*args),
        Command::Ladder(args) => {
            init_logging(args.log_level());
            let outcome =
                args.into_plan().and_then(stratego_host::commands::ladder::run).unwrap_or_else(|e| config_error(e));
            // Unlike `print_stdout`, a closed stdout keeps the exit code: a `ladder play` that
            // failed still fails when its table cannot be printed.
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(outcome.stdout.as_bytes()).and_then(|()| out.flush());
            std::process::exit(outcome.code);
        }
        Command::Replay(args) => std::process::exit(stratego_host::compete::replay::run(args)),
        Command::Convert(args) => std::process::exit(stratego_host::commands::convert::run(args)),
        Command::Export(args) => {
            init_logging("warn");
            std::process::exit(stratego_host::compete::viewer::run_export(args));
        }
        Command::Merge(args) => {
            init_logging("warn");
            let outcome = stratego_host::commands::merge::run_merge(args).unwrap_or_else(|e| config_error(e));
            print_stdout(&outcome.stdout);
            std::process::exit(outcome.code);
        }
        Command::Match(args) => {
            init_logging(args.run.log_level());
            args.into_plan()
        }
        Command::Tournament(args) => {
            init_logging(args.run.log_level());
            args.into_plan()
        }
        Command::Sprt(args) => {
            init_logging(args.run.log_level());
            args.into_plan()
        }
    };
    run_event(plan.unwrap_or_else(|e| config_error(e)))
}

fn run_check(args: stratego_host::cli::CheckArgs) -> ! {
    init_logging("warn");
    let json = args.json;
    let plan = args.into_plan().unwrap_or_else(|e| config_error(e));
    let supervisor = Supervisor::plain();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let results = runtime.block_on(stratego_host::commands::check::run_check(&plan, &supervisor));
    drop(runtime);
    let out = if json {
        serde_json::to_string_pretty(&results).expect("results serialise") + "\n"
    } else {
        stratego_host::commands::check::render(&plan.bot, &results)
    };
    print_stdout(&out);
    supervisor.kill_all();
    let failed = results.iter().any(|r| r.status != stratego_host::commands::check::Status::Pass);
    std::process::exit(if failed { exit::CHECK_FAILED } else { exit::OK });
}

fn run_event(plan: EventPlan) -> ! {
    let outcome = stratego_host::commands::play::run_event(plan).unwrap_or_else(|e| config_error(e));
    print_stdout(&outcome.stdout);
    std::process::exit(outcome.code);
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

/// Prints to stdout; a closed pipe (`| head`) ends quietly.
fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        std::process::exit(exit::OK);
    }
}
