//! Everything the host does to the operating system for a bot.
//!
//! Module structure:
//! - [`bot_spec`]: a bot's spec (command, directory, limits, sandbox).
//!   `bot_spec/naming.rs`: the name a bot goes by when its spec gives none, made unique in an
//!   event.
//! - [`program_files`]: what a bot's command loads (class path, jar, module), for its hash.
//! - [`process`]: the bot's process: spawn, messages, the bounded line reader, kills.
//!   `process/exit.rs`: how it ended, as the fault it loses with (a crash or a limit).
//! - [`pipe_wait`]: the stdin pipe's size and reads, whole writes, the deadline `timerfd`.
//! - [`stderr_tail`]: the bot's stderr kept for its record.
//! - [`supervisor`]: the registry of bot processes, the kill sequence, signals, sandbox masks.
//! - [`stopwatch`]: one request's stopwatch: when the bot's time starts, its deadline, credit.
//! - [`account_looks`]: the looks at a bot's own scheduler account and the stall credit they earn.
//! - [`stall_watch`]: the real-time watchdog per CPU.
//! - [`tempo`]: when that machinery runs.
//! - [`observe`]: watching a bot that did not say `single_threaded`.
//! - [`sandbox`], [`sandbox_paths`], [`seccomp`]: `--sandbox` (bubblewrap, cgroups and the
//!   launch; what the bot sees of the host's files; the seccomp filter); `sandbox/cgroup.rs`:
//!   the controllers this host can use, and one bot's cgroups.
//! - [`os`]: the raw system calls; `os/account.rs`: a process's scheduler account, threads and
//!   children, read from `/proc`.
//!
//! Imports `remote` and below; prints nothing; blocks and spawns (threads, processes).

pub(crate) mod account_looks;
pub mod bot_spec;
pub(crate) mod observe;
pub mod os;
pub(crate) mod pipe_wait;
pub mod process;
pub(crate) mod program_files;
pub mod sandbox;
pub(crate) mod sandbox_paths;
pub(crate) mod seccomp;
pub mod stall_watch;
pub(crate) mod stderr_tail;
pub(crate) mod stopwatch;
pub mod supervisor;
pub(crate) mod tempo;
