//! Everything the host does to the operating system for a bot: the bot's spec, its process, the
//! supervisor (registry, kill sequence, signals), CPU accounting and stall watchdogs, the tempo,
//! the sandbox and its seccomp filter, and the raw OS calls.

pub mod bot_spec;
pub(crate) mod observe;
pub mod os;
pub mod process;
pub mod sandbox;
pub(crate) mod seccomp;
pub mod stall_watch;
pub(crate) mod stopwatch;
pub mod supervisor;
pub(crate) mod tempo;
