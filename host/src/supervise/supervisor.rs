//! The supervisor: everything the host does to the operating system on behalf of a run.
//!
//! It makes the host a child subreaper, raises its priority, starts the stall watchdogs,
//! keeps the registry of live bot process groups, owns the one kill sequence for the whole
//! run, and turns SIGINT/SIGTERM into a [`Cancel`] that the executor honours (finished games
//! are kept and summarised; running ones are stopped). Nothing here is a process-wide
//! static: a run creates one `Supervisor` and hands it down.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::supervise::os::{self, HostPriority};
use crate::supervise::sandbox::Masks;
use crate::supervise::stall_watch::StallWatch;
use crate::supervise::tempo::Tempo;

/// What a run asks of the operating system.
#[derive(Clone, Copy, Debug)]
pub struct SupervisorOptions {
    /// The scheduling priority the host asks for.
    pub priority: HostPriority,
    /// Start the stall watchdogs (they need a real-time host).
    pub stall_credit: bool,
    /// Pin the host's thread to CPU 0 (`--pin` with one game at a time).
    pub pin_host: bool,
}

/// Live bot process groups, and the lock that keeps a starting bot from looking escaped.
#[derive(Default, Debug)]
struct Registry {
    groups: Mutex<HashSet<i32>>,
    /// Held while a bot is started and registered, and while the scan for escaped
    /// descendants decides whom to kill: a child forked but not yet registered must not
    /// look escaped.
    spawning: Mutex<()>,
}

/// The run's supervisor. Cheap to clone (shared state behind an `Arc`).
#[derive(Clone, Debug)]
pub struct Supervisor {
    registry: Arc<Registry>,
    /// What the sandboxes mask: the run's, grown when an arena admits an entrant
    /// ([`Supervisor::note_bot`]).
    masks: Arc<std::sync::RwLock<Arc<Masks>>>,
    stalls: Option<Arc<StallWatch>>,
    priority: HostPriority,
    tempo: Arc<Tempo>,
}

impl Supervisor {
    /// Prepares the host for a run: subreaper, priority, stall watchdogs, pinning. Each step
    /// that cannot be done is logged with its consequence, never fatal. Call it before the
    /// tokio runtime starts its threads (they inherit the priority).
    pub fn start(opts: SupervisorOptions) -> Supervisor {
        if !os::become_subreaper() {
            tracing::warn!(
                "could not become a child subreaper: bot descendants that leave their process group may outlive their game"
            );
        }
        let got = os::raise_host_priority(opts.priority);
        if got < opts.priority {
            tracing::info!(
                "the host runs at priority {got:?}, not {:?} (needs CAP_SYS_NICE): answers may be read late when bots fill every CPU",
                opts.priority
            );
        } else {
            tracing::debug!("the host runs at priority {got:?}");
        }
        let mut stalls = None;
        if opts.stall_credit {
            if got >= HostPriority::Realtime {
                match crate::supervise::stall_watch::start() {
                    Ok(w) => {
                        tracing::debug!("stall watchdogs on CPUs {:?}", w.cpus().collect::<Vec<_>>());
                        stalls = Some(w);
                    }
                    Err(e) => tracing::info!("no credit for machine stalls: {e}"),
                }
            } else {
                tracing::info!("no credit for machine stalls: the watchdogs need a real-time host (CAP_SYS_NICE)");
            }
        }
        if opts.pin_host {
            // One game at a time: host and both bots share one CPU, so every hand-over is a
            // cheap same-CPU wake-up instead of a cross-CPU one.
            if let Err(e) = os::pin_current(0) {
                tracing::warn!("--pin: cannot pin the host: {e}");
            }
        }
        let tempo = match got {
            HostPriority::Auto => Tempo::adaptive(stalls.as_deref()),
            HostPriority::Realtime => Tempo::fixed(true),
            HostPriority::Nice | HostPriority::Normal => Tempo::fixed(false),
        };
        Supervisor { registry: Arc::default(), masks: Arc::default(), stalls, priority: got, tempo: Arc::new(tempo) }
    }

    /// A supervisor that only makes the host a subreaper (for `check`, which keeps the
    /// host's priority and charges all wall time).
    pub fn plain() -> Supervisor {
        os::become_subreaper();
        Supervisor {
            registry: Arc::default(),
            masks: Arc::default(),
            stalls: None,
            priority: HostPriority::Normal,
            tempo: Arc::new(Tempo::fixed(false)),
        }
    }

    /// The supervisor with what the run's sandboxes must mask (the plan's paths and bots;
    /// see [`Masks`]); without it, a sandbox masks only what it masks for every run.
    #[must_use]
    pub fn with_masks(mut self, masks: Masks) -> Supervisor {
        self.masks = Arc::new(std::sync::RwLock::new(Arc::new(masks)));
        self
    }

    /// What the run's sandboxes mask besides their own rules, now.
    pub fn masks(&self) -> Arc<Masks> {
        self.masks.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A bot joins the run (an entrant admitted while an arena runs): its own paths are
    /// masked in every sandbox started from now on ([`Masks::note_bot`]), and its sandbox
    /// masks every other bot's.
    pub fn note_bot(&self, spec: &crate::supervise::bot_spec::BotSpec) {
        let mut masks = self.masks.write().unwrap_or_else(|e| e.into_inner());
        let mut grown = Masks::clone(&masks);
        grown.note_bot(spec);
        *masks = Arc::new(grown);
    }

    /// The run's tempo (when the fair-clock machinery runs).
    pub fn tempo(&self) -> &Arc<Tempo> {
        &self.tempo
    }

    /// The stall watch, when running.
    pub fn stalls(&self) -> Option<&Arc<StallWatch>> {
        self.stalls.as_ref()
    }

    /// The priority the host got.
    pub fn priority(&self) -> HostPriority {
        self.priority
    }

    /// Holds off the scan for escaped descendants while a bot is started and registered.
    pub fn spawn_guard(&self) -> MutexGuard<'_, ()> {
        self.registry.spawning.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers a live bot process group.
    pub fn register_group(&self, pgid: i32) {
        self.registry.groups.lock().unwrap_or_else(|e| e.into_inner()).insert(pgid);
    }

    /// Forgets a bot process group (it has been killed and reaped).
    pub fn unregister_group(&self, pgid: i32) {
        self.registry.groups.lock().unwrap_or_else(|e| e.into_inner()).remove(&pgid);
    }

    /// Kills and reaps every child of the host that is not a live bot: descendants of bots
    /// that escaped their group and were re-parented to the host. Returns how many.
    pub fn kill_escaped_descendants(&self) -> usize {
        let children = os::host_children_lowered();
        // A bot started after the scan is not among `children`; one started before it is
        // registered by the time this lock is ours.
        let _spawning = self.spawn_guard();
        let alive = self.registry.groups.lock().unwrap_or_else(|e| e.into_inner()).clone();
        os::kill_and_reap_children(children.into_iter().filter(|pid| !alive.contains(pid)))
    }

    /// The one kill sequence for the end of a run or an interruption: SIGKILL to every live
    /// bot group, then every escaped descendant.
    pub fn kill_all(&self) {
        let groups: Vec<i32> = self.registry.groups.lock().unwrap_or_else(|e| e.into_inner()).iter().copied().collect();
        for g in groups {
            os::kill_group(g, libc::SIGKILL);
        }
        self.kill_escaped_descendants();
    }

    /// A [`Cancel`] that fires on SIGINT or SIGTERM. Must be called inside a tokio runtime.
    pub fn cancel_on_signals(&self) -> Cancel {
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut int), Ok(mut term)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
                tracing::warn!("cannot handle SIGINT/SIGTERM: an interruption will lose the summary");
                return;
            };
            // A stop that came before these handlers (see `catch_signals_early`).
            if INTERRUPTED_EARLY.load(std::sync::atomic::Ordering::SeqCst) {
                let _ = tx.send(true);
                std::future::pending::<()>().await;
            }
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            let _ = tx.send(true);
            // Keep the handlers installed (a second Ctrl-C must not kill the host before it
            // has written what finished).
            std::future::pending::<()>().await;
        });
        Cancel(rx)
    }
}

/// Set by [`catch_signals_early`]'s handler: a SIGINT or SIGTERM came before the run's
/// [`Supervisor::cancel_on_signals`] listened.
static INTERRUPTED_EARLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn note_interrupt(_signal: libc::c_int) {
    INTERRUPTED_EARLY.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// From now on SIGINT and SIGTERM no longer end the process at once: they are noted, and
/// the run's [`Supervisor::cancel_on_signals`] fires as soon as it starts listening. For a
/// command that works a while before its run starts (the arena hashes its programs), so
/// that a stop then ends it as a stop during the run does (its end message, exit 130).
pub fn catch_signals_early() {
    // SAFETY: installs an async-signal-safe handler (one atomic store) for two signals;
    // `sa_mask` is emptied before use.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = note_interrupt as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        for signal in [libc::SIGINT, libc::SIGTERM] {
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                tracing::warn!("cannot catch signal {signal} early: a stop before the run starts ends it at once");
            }
        }
    }
}

/// A cancellation signal the executor checks between games and races against running ones.
#[derive(Clone, Debug)]
pub struct Cancel(tokio::sync::watch::Receiver<bool>);

impl Cancel {
    /// A cancel that never fires.
    pub fn never() -> Cancel {
        let (tx, rx) = tokio::sync::watch::channel(false);
        std::mem::forget(tx);
        Cancel(rx)
    }

    /// Whether it has fired.
    pub fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// Waits until it fires (for ever if it never does).
    pub async fn cancelled(&mut self) {
        if self.0.wait_for(|&c| c).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
