//! Waiting for an X event with a deadline, which x11rb does not offer: the connection's
//! socket polled once its queue is empty.

use std::os::fd::AsFd;
use std::time::Instant;

use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// The next event on `conn`, waiting for it until `deadline` (`None` then).
pub(crate) fn next_event(conn: &RustConnection, deadline: Instant) -> std::io::Result<Option<Event>> {
    loop {
        if let Some(event) = conn.poll_for_event().map_err(std::io::Error::other)? {
            return Ok(Some(event));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        // x11rb has read everything the socket held into its queue (empty now), so the
        // socket becoming readable is the only way a new event can arrive.
        let fd = conn.stream().as_fd();
        let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
        // Under the deadline, so far below what a Timespec holds.
        let timeout =
            rustix::event::Timespec::try_from(left).unwrap_or(rustix::event::Timespec { tv_sec: 1, tv_nsec: 0 });
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}
