//! Where a game's bots run: on one CPU, with the game's event loop, when both are
//! single-threaded (the default; `--no-auto-pin` turns it off). The executor decides which CPU each
//! concurrent game gets ([`ShareCpu::for_slot`]); [`ShareCpu::settle`] moves both bots and
//! the host's thread there, or lets them go. The referee only says when: after the bots
//! started, and at each turn until they share (a bot may be seen single-threaded only
//! after some turns); it knows nothing of CPUs.

use std::sync::Arc;

use crate::session::BotSession;

/// Where a game's bots go when both say they are single-threaded.
#[derive(Clone, Debug)]
pub struct ShareCpu {
    /// The CPU of the game's slot.
    pub cpu: usize,
    /// Every CPU of the run (to let bots and host go again).
    pub all: Arc<Vec<usize>>,
}

impl ShareCpu {
    /// The CPU that the single-threaded bots of the game in slot `slot` share, with `auto_pin`
    /// on, no `--pin`, and at most one game per CPU; `None` otherwise (or when the host's
    /// CPUs cannot be read).
    pub fn for_slot(slot: usize, concurrency: usize, auto_pin: bool, pin: bool) -> Option<ShareCpu> {
        let all = crate::supervise::os::allowed_cpus().ok().filter(|c| !c.is_empty())?;
        (auto_pin && !pin && concurrency <= all.len())
            .then(|| ShareCpu { cpu: all[slot % all.len()], all: Arc::new(all) })
    }

    /// Puts both bots and the game's event loop on the game's CPU when both are
    /// single-threaded (they said so, or were seen so); otherwise lets kept sessions pinned
    /// by an earlier game go. Whether they now share it.
    pub fn settle<S: BotSession>(&self, red: Option<&mut S>, blue: Option<&mut S>) -> bool {
        let both = red.as_deref().is_some_and(S::single_threaded) && blue.as_deref().is_some_and(S::single_threaded);
        let cpu = both.then_some(self.cpu);
        for s in [red, blue].into_iter().flatten() {
            s.share_cpu(cpu, &self.all);
        }
        // The game's event loop (the run's at -j 1, its slot's thread above) follows them.
        match cpu {
            Some(c) => {
                if let Err(e) = crate::supervise::os::pin_current(c) {
                    tracing::debug!("cannot pin the host to CPU {c}: {e}");
                }
            }
            None => crate::supervise::os::unpin_current(&self.all),
        }
        both
    }
}
