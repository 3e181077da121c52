//! Notices: what the layers below `commands/` have to tell the person running the host
//! (a resumed directory, a torn line dropped, a remote bot connected, the address a
//! listener took), said through [`say`] instead of printed where it happens. The command
//! that runs decides where they go ([`set_listener`]): `main.rs` prints them on stderr
//! until a command that plays games installs its own listener, which leaves out the
//! [`Level::Info`] ones under `-q` and shows them under the board with `--watch` instead of
//! writing over it. With no listener (a library user, a unit test), notices are dropped.
//!
//! A display that shows them too (the live page of `--serve`) [`watch`]es them besides: it
//! is given the last [`KEEP`] said before it started ([`Watch::earlier`]), then each one as
//! it is said, whatever the listener does with it (`-q` is about the terminal).
//!
//! Nothing here prints; it uses no layer.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, RwLock};

/// How much a notice matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Said even with `-q`: a warning, a resumed directory, the address a test or an
    /// organiser waits for.
    Always,
    /// Left out by `-q`: how the run goes (a remote bot connected, a game played again).
    Info,
}

/// One notice: its level and its line (with its `stratego-host: ` prefix, no newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// How much it matters.
    pub level: Level,
    /// The line.
    pub text: String,
}

/// Where notices go.
pub type Listener = Arc<dyn Fn(&Notice) + Send + Sync>;

static LISTENER: RwLock<Option<Listener>> = RwLock::new(None);

/// Notices kept for a display that starts watching later ([`Watch::earlier`]).
pub const KEEP: usize = 50;

/// The displays watching, by number, and the last [`KEEP`] notices said.
struct Watchers {
    next: u64,
    watching: Vec<(u64, Listener)>,
    recent: VecDeque<Notice>,
}

static WATCHERS: Mutex<Watchers> = Mutex::new(Watchers { next: 0, watching: Vec::new(), recent: VecDeque::new() });

fn watchers() -> std::sync::MutexGuard<'static, Watchers> {
    WATCHERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A display watching the notices ([`watch`]), until dropped.
pub struct Watch {
    id: u64,
    earlier: Vec<Notice>,
}

impl Watch {
    /// The last [`KEEP`] notices said before it began watching, oldest first.
    pub fn earlier(&self) -> &[Notice] {
        &self.earlier
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        watchers().watching.retain(|(id, _)| *id != self.id);
    }
}

/// Hands every notice said from now on to `display` as well as to the listener (from the
/// thread that says it: `display` should only queue it), until the [`Watch`] is dropped;
/// the notices said before are in [`Watch::earlier`] (none is missed nor given twice).
pub fn watch(display: Listener) -> Watch {
    let mut w = watchers();
    let id = w.next;
    w.next += 1;
    w.watching.push((id, display));
    Watch { id, earlier: w.recent.iter().cloned().collect() }
}

/// Makes `listener` the one place notices go (from every thread), replacing the one before,
/// which is returned (`None`: notices are dropped).
pub fn set_listener(listener: Option<Listener>) -> Option<Listener> {
    std::mem::replace(&mut *LISTENER.write().unwrap_or_else(|e| e.into_inner()), listener)
}

/// Hands a notice to the listener.
pub fn say(level: Level, text: impl Into<String>) {
    let notice = Notice { level, text: text.into() };
    let watching: Vec<Listener> = {
        let mut w = watchers();
        if w.recent.len() == KEEP {
            w.recent.pop_front();
        }
        w.recent.push_back(notice.clone());
        w.watching.iter().map(|(_, l)| l.clone()).collect()
    };
    let listener = LISTENER.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(listener) = listener {
        listener(&notice);
    }
    for display in watching {
        display(&notice);
    }
}

/// A warning (said even with `-q`): `stratego-host: warning: TEXT`.
pub fn warn(text: impl std::fmt::Display) {
    say(Level::Always, format!("stratego-host: warning: {text}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn notices_reach_the_listener_in_order_and_none_without_one() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let before = set_listener(Some(Arc::new(move |n: &Notice| s.lock().unwrap().push(n.clone()))));
        say(Level::Info, "stratego-host: notice-test a");
        warn("notice-test b");
        let ours = set_listener(before);
        assert!(ours.is_some());
        // Other unit tests may say things meanwhile: only ours are looked at.
        let seen: Vec<Notice> =
            seen.lock().unwrap().iter().filter(|n| n.text.contains("notice-test")).cloned().collect();
        assert_eq!(
            seen,
            [
                Notice { level: Level::Info, text: "stratego-host: notice-test a".into() },
                Notice { level: Level::Always, text: "stratego-host: warning: notice-test b".into() }
            ]
        );
    }

    #[test]
    fn a_display_is_given_the_notices_said_before_it_watched_then_each_one_once() {
        say(Level::Info, "stratego-host: watch-test before");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let watch = watch(Arc::new(move |n: &Notice| s.lock().unwrap().push(n.text.clone())));
        assert!(watch.earlier().iter().any(|n| n.text == "stratego-host: watch-test before"));
        assert!(watch.earlier().len() <= KEEP);
        say(Level::Always, "stratego-host: watch-test during");
        drop(watch);
        say(Level::Always, "stratego-host: watch-test after");
        let ours: Vec<String> = seen.lock().unwrap().iter().filter(|t| t.contains("watch-test")).cloned().collect();
        assert_eq!(ours, ["stratego-host: watch-test during"], "only what was said while it watched");
    }
}
