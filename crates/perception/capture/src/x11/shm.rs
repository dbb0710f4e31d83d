//! The MIT-SHM segment: attached once per connection, grown when a capture needs more.

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectionError, ParseError, ReplyOrIdError};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{self, ImageFormat};
use x11rb::rust_connection::RustConnection;

use crate::pixels;
use crate::sys::SharedMemory;

/// A shared memory segment the X server writes captures into.
pub(super) struct ShmSegment {
    seg: shm::Seg,
    memory: SharedMemory,
}

impl ShmSegment {
    /// Attach a new segment of `len` bytes, or say in plain words why MIT-SHM cannot be used.
    pub(super) fn attach(conn: &RustConnection, len: usize) -> Result<ShmSegment, String> {
        match conn.extension_information(shm::X11_EXTENSION_NAME) {
            Ok(Some(_)) => {}
            Ok(None) => return Err("the X server has no MIT-SHM extension".into()),
            Err(e) => return Err(format!("asking for MIT-SHM failed: {e}")),
        }
        let version = conn
            .shm_query_version()
            .map_err(ReplyOrIdError::from)
            .and_then(|c| c.reply().map_err(ReplyOrIdError::from))
            .map_err(|e| format!("MIT-SHM did not answer: {e}"))?;
        if (version.major_version, version.minor_version) < (1, 2) {
            return Err(format!(
                "MIT-SHM {}.{} cannot take a file descriptor (1.2 is needed)",
                version.major_version, version.minor_version
            ));
        }
        ShmSegment::attach_new(conn, len).map_err(|e| format!("attaching a shared memory segment failed: {e}"))
    }

    fn attach_new(conn: &RustConnection, len: usize) -> Result<ShmSegment, String> {
        let (memory, fd) = SharedMemory::new(len).map_err(|e| e.to_string())?;
        let seg = conn.generate_id().map_err(|e| e.to_string())?;
        // The server maps the descriptor; a remote display cannot receive one, and says so
        // here (the check waits for the server's verdict).
        conn.shm_attach_fd(seg, fd, false).map_err(|e| e.to_string())?.check().map_err(|e| e.to_string())?;
        Ok(ShmSegment { seg, memory })
    }

    /// Make sure the segment holds at least `len` bytes, replacing it by a larger one.
    pub(super) fn ensure_len(&mut self, conn: &RustConnection, len: usize) -> Result<(), ReplyOrIdError> {
        if len <= self.memory.len() {
            return Ok(());
        }
        let bigger = ShmSegment::attach_new(conn, len)
            .map_err(|_| ReplyOrIdError::ConnectionError(ConnectionError::InsufficientMemory))?;
        conn.shm_detach(self.seg)?;
        *self = bigger;
        Ok(())
    }

    /// Capture `(x, y, w, h)` of `drawable` through the segment, as RGBA.
    pub(super) fn get_image(
        &mut self,
        conn: &RustConnection,
        drawable: xproto::Drawable,
        (x, y, w, h): (i16, i16, u16, u16),
    ) -> Result<Vec<u8>, ReplyOrIdError> {
        let len = usize::from(w) * usize::from(h) * 4;
        let reply = conn.shm_get_image(drawable, x, y, w, h, !0, ImageFormat::Z_PIXMAP.into(), self.seg, 0)?.reply()?;
        // The server wrote the image before it replied; nothing writes to the segment now.
        let image = self.memory.bytes().get(..len).filter(|_| reply.size as usize >= len);
        let image =
            image.ok_or(ReplyOrIdError::ConnectionError(ConnectionError::ParseError(ParseError::InsufficientData)))?;
        Ok(pixels::bgrx_to_rgba(image))
    }
}
