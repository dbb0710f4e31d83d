//! A progress spinner on stderr for long waits: only on a terminal, only for people (never
//! with --json/--yaml), on its own thread so the wait itself is not slowed.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK: Duration = Duration::from_millis(80);
/// Waits shorter than this never show a spinner, so quick actions print nothing extra.
const SHOW_AFTER: Duration = Duration::from_millis(300);

struct Shared {
    message: Mutex<String>,
    stop: AtomicBool,
}

/// A running spinner (or a disabled one that does nothing). Stops on drop.
pub struct Spinner {
    running: Mutex<Option<(Arc<Shared>, JoinHandle<()>)>>,
}

impl Spinner {
    /// Start spinning with `message` when `enabled` (decide with [`Spinner::wanted`]).
    pub fn start(enabled: bool, message: impl Into<String>) -> Spinner {
        if !enabled {
            return Spinner { running: Mutex::new(None) };
        }
        let shared = Arc::new(Shared { message: Mutex::new(message.into()), stop: AtomicBool::new(false) });
        let thread = std::thread::Builder::new().name("agent-cli-spinner".into()).spawn({
            let shared = Arc::clone(&shared);
            move || spin(&shared)
        });
        match thread {
            Ok(t) => Spinner { running: Mutex::new(Some((shared, t))) },
            // No thread, no spinner: it is decoration, never a reason to fail.
            Err(_) => Spinner { running: Mutex::new(None) },
        }
    }

    /// Whether a spinner belongs here: people reading a terminal on stderr.
    pub fn wanted(human: bool) -> bool {
        use std::io::IsTerminal;
        human && std::io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
    }

    /// Replace the message (e.g. with the executor's current step).
    pub fn set_message(&self, message: impl Into<String>) {
        if let Some((shared, _)) = &*self.running.lock().unwrap_or_else(PoisonError::into_inner) {
            *shared.message.lock().unwrap_or_else(PoisonError::into_inner) = message.into();
        }
    }

    /// Stop and clear the line (also done on drop). Later calls do nothing.
    pub fn stop(&self) {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((shared, thread)) = running {
            shared.stop.store(true, Ordering::Release);
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

fn spin(shared: &Shared) {
    let start = Instant::now();
    let mut shown = false;
    let mut frame = 0;
    while !shared.stop.load(Ordering::Acquire) {
        let elapsed = start.elapsed();
        if elapsed >= SHOW_AFTER {
            let message = shared.message.lock().unwrap_or_else(PoisonError::into_inner).clone();
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{} {message} {:.1}s", FRAMES[frame % FRAMES.len()], elapsed.as_secs_f64());
            let _ = err.flush();
            shown = true;
            frame += 1;
        }
        std::thread::park_timeout(TICK);
    }
    if shown {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disabled_spinner_does_nothing_and_an_enabled_one_stops_at_once() {
        let s = Spinner::start(false, "x");
        s.set_message("y");
        s.stop();
        let t = Instant::now();
        let s = Spinner::start(true, "waiting");
        s.set_message("still waiting");
        drop(s);
        assert!(t.elapsed() < Duration::from_secs(1));
    }
}
