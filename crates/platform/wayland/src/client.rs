//! One client connection to a compositor, as the virtual devices use it: connected, its
//! registry listed, object ids allocated in order (the compositor refuses a gap), globals
//! bound by interface, and requests sent with a round trip (`wl_display.sync`) so a call
//! returns once the compositor has handled them.

use std::collections::VecDeque;
use std::io::{IoSlice, IoSliceMut, Write};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::registry::{DISPLAY, FIRST_FREE_ID, Global, display_error, list_globals, parse_header, request, string_arg};

/// The registry's object id, as `list_globals` allocates it.
const REGISTRY: u32 = 2;

/// How long the compositor may take to answer a round trip: it answers from memory.
const ROUND_TRIP: Duration = Duration::from_secs(2);

/// A connection with the registry read.
pub(crate) struct Client {
    socket: PathBuf,
    pub(crate) stream: UnixStream,
    globals: Vec<Global>,
    next_id: u32,
    started: Instant,
    /// Descriptors that came with events (a data source's `send`), in order.
    fds: VecDeque<OwnedFd>,
}

impl Client {
    /// Connects to the compositor at `socket` and lists its globals.
    pub(crate) fn connect(socket: &Path) -> Result<Client, String> {
        let fail = |what: &str, e: std::io::Error| format!("{what} {}: {e}", socket.display());
        let mut stream = UnixStream::connect(socket).map_err(|e| fail("cannot connect to", e))?;
        stream.set_read_timeout(Some(ROUND_TRIP)).map_err(|e| fail("cannot set a timeout on", e))?;
        let globals = list_globals(&mut stream)?;
        let started = Instant::now();
        Ok(Client {
            socket: socket.to_path_buf(),
            stream,
            globals,
            next_id: FIRST_FREE_ID,
            started,
            fds: VecDeque::new(),
        })
    }

    /// The socket, for messages.
    pub(crate) fn socket(&self) -> &Path {
        &self.socket
    }

    /// The next object id.
    pub(crate) fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Milliseconds since the connection was made: the protocol's event times.
    pub(crate) fn time(&self) -> u32 {
        u32::try_from(self.started.elapsed().as_millis()).unwrap_or(u32::MAX)
    }

    /// The request binding the first global of `interface` (at most `max_version`) to a new
    /// id, and that id; an error naming what the compositor lacks when it has none.
    pub(crate) fn bind(&mut self, interface: &str, max_version: u32) -> Result<(u32, Vec<u8>), String> {
        let global = self.globals.iter().find(|g| g.interface == interface);
        let (name, version) = global
            .map(|g| (g.name, g.version.min(max_version)))
            .ok_or_else(|| format!("the compositor at {} offers no {interface}", self.socket.display()))?;
        let global = Global { name, interface: interface.to_string(), version };
        let (id, _, bind) = self.bind_global(&global, version);
        Ok((id, bind))
    }

    /// The globals the registry listed.
    pub(crate) fn globals(&self) -> &[Global] {
        &self.globals
    }

    /// The request binding `global` (at most `max_version`) to a new id, that id and the
    /// version bound.
    pub(crate) fn bind_global(&mut self, global: &Global, max_version: u32) -> (u32, u32, Vec<u8>) {
        let version = global.version.min(max_version);
        let id = self.take_id();
        // wl_registry.bind(name, interface, version, new_id)
        let mut args = global.name.to_ne_bytes().to_vec();
        args.extend(string_arg(&global.interface));
        args.extend_from_slice(&version.to_ne_bytes());
        args.extend_from_slice(&id.to_ne_bytes());
        (id, version, request(REGISTRY, 0, &args))
    }

    /// Sends `requests`, then a round trip: returns once the compositor has handled them,
    /// or with its protocol error.
    pub(crate) fn round_trip(&mut self, requests: Vec<u8>) -> Result<(), String> {
        self.round_trip_with(requests, |_, _, _| Ok(()))
    }

    /// [`Client::round_trip`], handing every event that arrives before the round trip's
    /// end to `event` (object, opcode, body).
    pub(crate) fn round_trip_with(
        &mut self,
        mut requests: Vec<u8>,
        mut event: impl FnMut(u32, u16, &[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let callback = self.take_id();
        requests.extend(request(DISPLAY, 0, &callback.to_ne_bytes()));
        self.send(&requests)?;
        loop {
            let (object, opcode, body) = self.next_event()?;
            match (object, opcode) {
                (id, 0) if id == callback => return Ok(()),
                _ => event(object, opcode, &body)?,
            }
        }
    }

    /// Writes `requests`.
    pub(crate) fn send(&mut self, requests: &[u8]) -> Result<(), String> {
        self.stream.write_all(requests).map_err(|e| format!("cannot write to {}: {e}", self.socket.display()))
    }

    /// The next event, or the compositor's protocol error.
    pub(crate) fn next_event(&mut self) -> Result<(u32, u16, Vec<u8>), String> {
        self.event_within().and_then(|e| e.ok_or_else(|| "no event came in time".to_string()))
    }

    /// The next event, or `None` when none began before the read timeout.
    pub(crate) fn event_within(&mut self) -> Result<Option<(u32, u16, Vec<u8>)>, String> {
        let mut header = [0u8; 8];
        if !self.recv_exact(&mut header)? {
            return Ok(None);
        }
        let (object, opcode, mut body) = parse_header(&header)?;
        while !self.recv_exact(&mut body)? {}
        if (object, opcode) == (DISPLAY, 0) {
            return Err(display_error(&body));
        }
        Ok(Some((object, opcode, body)))
    }

    /// The next descriptor that came with an event.
    pub(crate) fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fds.pop_front()
    }

    /// Fills `buf` from the socket, keeping the descriptors that come with the bytes
    /// (`SCM_RIGHTS`: a plain read would drop them). `false` when the read timed out
    /// before the first byte; once a message has begun, the rest is waited for.
    fn recv_exact(&mut self, buf: &mut [u8]) -> Result<bool, String> {
        use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};
        let mut filled = 0;
        while filled < buf.len() {
            let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(8))];
            let mut control = RecvAncillaryBuffer::new(&mut space);
            let got = recvmsg(
                &self.stream,
                &mut [IoSliceMut::new(&mut buf[filled..])],
                &mut control,
                RecvFlags::CMSG_CLOEXEC,
            );
            let got = match got {
                Ok(r) => r.bytes,
                Err(e) if e == rustix::io::Errno::AGAIN && filled == 0 => return Ok(false),
                Err(e) if e == rustix::io::Errno::AGAIN || e == rustix::io::Errno::INTR => continue,
                Err(e) => return Err(format!("reading an event from {}: {e}", self.socket.display())),
            };
            for message in control.drain() {
                if let RecvAncillaryMessage::ScmRights(fds) = message {
                    self.fds.extend(fds);
                }
            }
            if got == 0 {
                return Err(format!("{} closed the connection", self.socket.display()));
            }
            filled += got;
        }
        Ok(true)
    }

    /// How long a read waits for the first byte of an event.
    pub(crate) fn set_wait(&mut self, wait: Duration) -> Result<(), String> {
        self.stream.set_read_timeout(Some(wait.max(Duration::from_millis(1)))).map_err(|e| e.to_string())
    }

    /// Sends one request whose file descriptor argument is `fd`: the descriptor travels
    /// beside the message (`SCM_RIGHTS`), the body holds the other arguments.
    pub(crate) fn send_with_fd(&mut self, message: &[u8], fd: BorrowedFd<'_>) -> Result<(), String> {
        use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags, sendmsg};
        let fds = [fd];
        let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
            return Err("a descriptor does not fit its message".into());
        }
        sendmsg(&self.stream, &[IoSlice::new(message)], &mut control, SendFlags::empty())
            .map_err(|e| format!("cannot send a descriptor to {}: {e}", self.socket.display()))?;
        Ok(())
    }

    /// Sends `requests` without waiting (a device's destroy as it is dropped).
    pub(crate) fn send_now(&mut self, requests: &[u8]) {
        let _ = self.stream.write_all(requests);
    }
}
