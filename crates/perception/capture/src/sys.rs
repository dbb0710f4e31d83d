//! The only unsafe code of the crate: a shared memory mapping for MIT-SHM, and the clock.
//!
//! Why unsafe at all: the X server writes captured pixels straight into memory we share
//! with it, and reading them without a copy means mapping that memory (`mmap`), which no
//! safe std API does. The mapping is created from a memfd (no SysV IPC ids to leak when
//! the process dies), handed to the server as a file descriptor, and read only between a
//! request and its reply. Reading `CLOCK_MONOTONIC` also goes through libc here, because
//! `std::time::Instant` cannot be turned into an absolute reading of that clock.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

/// A read-only view of a `MAP_SHARED` memfd mapping, unmapped when dropped.
pub(crate) struct SharedMemory {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; nothing in it is tied to a thread.
unsafe impl Send for SharedMemory {}

impl SharedMemory {
    /// A new mapping of `len` bytes (at least 1), and a file descriptor for the X server.
    pub(crate) fn new(len: usize) -> io::Result<(SharedMemory, OwnedFd)> {
        let len = len.max(1);
        // SAFETY: the name is a valid NUL-terminated string; the flags are valid.
        let raw = unsafe { libc::memfd_create(c"deft-capture-shm".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        std::fs::File::from(fd.try_clone()?).set_len(len as u64)?;
        // SAFETY: a new mapping (null hint) of a descriptor we own, with a length that the
        // file has; the result is checked against MAP_FAILED before use.
        let ptr =
            unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, fd.as_raw_fd(), 0) };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok((SharedMemory { ptr, len }, fd))
    }

    /// The mapped bytes.
    ///
    /// The X server writes into them only while it handles one of our `ShmGetImage`
    /// requests; callers read them only after that request's reply, on the same connection,
    /// so no write is in flight while the slice is alive.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live mapping of `len` readable bytes until `drop`, and the
        // returned borrow cannot outlive `self`. See above for why nothing writes meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Size of the mapping in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; no borrow of it can be alive
        // because `bytes` borrows `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// Now, in microseconds of `CLOCK_MONOTONIC`: the clock Python's `time.monotonic()` and most
/// Linux tools read, so frame timestamps compare directly with their logs.
pub(crate) fn monotonic_us() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0) / 1_000
}
