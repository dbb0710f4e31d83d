//! The X11 backend: one persistent connection, MIT-SHM when the server offers it.

mod monitors;
mod shm;
mod windows;

use deft_types::{ErrorClass, Frame, Physical, Rect, ScaleFactor, Size};
use x11rb::connection::Connection;
use x11rb::errors::{ReplyError, ReplyOrIdError};
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    self, ChangeWindowAttributesAux, ConnectionExt as _, EventMask, ImageFormat, ImageOrder,
};
use x11rb::rust_connection::RustConnection;
use x11rb::x11_utils::X11Error;

use crate::Capture;
use crate::error::{CaptureError, show_rect};
use crate::pixels;
use crate::sys::monotonic_us;
use crate::target::{self, CaptureTarget, Monitor};

use self::shm::ShmSegment;

/// Backend name with the MIT-SHM fast path.
const SHM: &str = "x11-shm";
/// Backend name with plain `GetImage`.
const GET_IMAGE: &str = "x11-getimage";

/// How to capture from X11.
#[derive(Clone, Debug)]
pub struct X11Options {
    /// Use MIT-SHM when the server offers it (default). Off, every capture is a plain
    /// `GetImage` whose pixels travel through the socket: what a remote display gets anyway.
    pub shm: bool,
}

impl Default for X11Options {
    fn default() -> Self {
        X11Options { shm: true }
    }
}

/// Captures from an X11 display over one connection kept for its whole life.
///
/// With MIT-SHM (X server 1.2 protocol, local display) the server writes each capture
/// into a memory segment shared with this process, attached once and grown only when a
/// larger capture needs it; the pixels are converted to RGBA straight out of it. Without
/// it (a remote display, or turned off) captures use plain `GetImage`.
///
/// Frames are taken from the root window, so a window's frame shows what is on screen
/// where the window is, including anything on top of it: what the user sees. Timestamps
/// are taken just before the request is sent, so every change the server had drawn by
/// then is in the frame. The scale factor is 1: X11 has no per-monitor scale.
pub struct X11Capture {
    conn: RustConnection,
    display: String,
    root: xproto::Window,
    screen: Size<Physical>,
    shm: Option<ShmSegment>,
    no_shm_because: Option<String>,
    monitors: Vec<Monitor>,
    title_atoms: Option<deft_x11::Atoms>,
}

impl X11Capture {
    /// Connect to `display` (e.g. `":7"`; `None` for the display x11rb finds in `DISPLAY`),
    /// using MIT-SHM when available.
    pub fn connect(display: Option<&str>) -> Result<X11Capture, CaptureError> {
        X11Capture::connect_with(display, &X11Options::default())
    }

    /// Connect to `display` as configured.
    pub fn connect_with(display: Option<&str>, options: &X11Options) -> Result<X11Capture, CaptureError> {
        let display_name = match display {
            Some(d) => format!("the X display '{d}'"),
            None => "the X display that DISPLAY names".to_string(),
        };
        let (conn, screen_num) = x11rb::connect(display)
            .map_err(|e| CaptureError::NoDisplay { display: display_name.clone(), why: e.to_string() })?;
        let setup = conn.setup();
        let screen = setup.roots.get(screen_num).ok_or_else(|| CaptureError::NoDisplay {
            display: display_name.clone(),
            why: format!("the server has no screen {screen_num}"),
        })?;
        check_pixel_format(setup, screen).map_err(|message| CaptureError::Backend {
            backend: GET_IMAGE,
            message,
            transient: false,
        })?;
        let root = screen.root;
        let size = Size::new(u32::from(screen.width_in_pixels), u32::from(screen.height_in_pixels));
        let (shm, no_shm_because) = if options.shm {
            match ShmSegment::attach(&conn, frame_bytes(size.w, size.h)) {
                Ok(segment) => (Some(segment), None),
                Err(why) => (None, Some(why)),
            }
        } else {
            (None, Some("turned off in X11Options".to_string()))
        };
        // Hear about screen resizes (the root's ConfigureNotify), so captures follow them.
        let follow = ChangeWindowAttributesAux::new().event_mask(EventMask::STRUCTURE_NOTIFY);
        conn.change_window_attributes(root, &follow)
            .map_err(ReplyOrIdError::from)
            .map_err(|e| x_error(GET_IMAGE, &display_name, e))?;
        let monitors = monitors::query(&conn, root, size);
        Ok(X11Capture {
            conn,
            display: display_name,
            root,
            screen: size,
            shm,
            no_shm_because,
            monitors,
            title_atoms: None,
        })
    }

    /// The display connected to, in words (`the X display ':7'`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Why MIT-SHM is not used, or `None` when it is.
    pub fn shm_unavailable(&self) -> Option<&str> {
        self.no_shm_because.as_deref()
    }

    /// The screen's size, as of the last capture.
    pub fn screen_size(&self) -> Size<Physical> {
        self.screen
    }

    /// Where a target lies on screen, and the monitor to name in its frame.
    fn resolve(&mut self, what: &CaptureTarget) -> Result<(Rect<Physical>, Option<String>), CaptureError> {
        let at =
            |monitors: &[Monitor], r: Rect<Physical>| (r, target::monitor_at(monitors, &r).map(|m| m.name.clone()));
        match what {
            CaptureTarget::Screen => Ok((Rect::new(0, 0, self.screen.w, self.screen.h), None)),
            CaptureTarget::Monitor(name) => {
                if target::find_monitor(&self.monitors, name).is_err() {
                    self.monitors = monitors::query(&self.conn, self.root, self.screen);
                }
                let m = target::find_monitor(&self.monitors, name)?;
                Ok((target::clip_region(m.rect, self.screen)?, Some(m.name.clone())))
            }
            CaptureTarget::Region(region) => Ok(at(&self.monitors, target::clip_region(*region, self.screen)?)),
            CaptureTarget::Window(which) => {
                let backend = self.name();
                let fail = |e: ReplyOrIdError| x_error(backend, &self.display, e);
                let atoms = match self.title_atoms {
                    Some(atoms) => atoms,
                    None => *self.title_atoms.insert(deft_x11::Atoms::intern(&self.conn).map_err(fail)?),
                };
                let (window, rect) = windows::locate(&self.conn, self.root, &atoms, which, &fail)?;
                let by = windows::covering(&self.conn, self.root, &atoms, window, &fail)?;
                if !by.is_empty() {
                    return Err(CaptureError::WindowCovered {
                        window: which.to_string(),
                        id: window.into(),
                        bounds: rect,
                        by,
                    });
                }
                let visible = target::clip_region(rect, self.screen).map_err(|_| CaptureError::WindowNotVisible {
                    window: which.to_string(),
                    why: format!(
                        "it lies entirely outside the {}x{} screen, at {}",
                        self.screen.w,
                        self.screen.h,
                        show_rect(&rect)
                    ),
                })?;
                Ok(at(&self.monitors, visible))
            }
        }
    }

    /// The RGBA pixels of `rect`, which lies within the screen.
    fn grab(&mut self, rect: Rect<Physical>) -> Result<Vec<u8>, CaptureError> {
        let backend = self.name();
        let (x, y, w, h) = wire_rect(rect).ok_or_else(|| CaptureError::Backend {
            backend,
            message: format!("region {} does not fit the X protocol's 16-bit fields", show_rect(&rect)),
            transient: false,
        })?;
        let len = frame_bytes(rect.w, rect.h);
        let fail = |e: ReplyOrIdError| x_error(backend, &self.display, e);
        match &mut self.shm {
            Some(segment) => {
                segment.ensure_len(&self.conn, len).map_err(fail)?;
                segment.get_image(&self.conn, self.root, (x, y, w, h)).map_err(fail)
            }
            None => {
                let reply = self
                    .conn
                    .get_image(ImageFormat::Z_PIXMAP, self.root, x, y, w, h, !0)
                    .map_err(ReplyOrIdError::from)
                    .and_then(|c| c.reply().map_err(ReplyOrIdError::from))
                    .map_err(fail)?;
                let mut data = reply.data;
                if data.len() < len {
                    return Err(CaptureError::Backend {
                        backend,
                        message: format!("GetImage sent {} bytes for {} ({len} needed)", data.len(), show_rect(&rect)),
                        transient: true,
                    });
                }
                data.truncate(len);
                pixels::bgrx_to_rgba_in_place(&mut data);
                Ok(data)
            }
        }
    }

    /// Take in screen resizes the server has told us of (no round trip: only events that
    /// already arrived are read).
    fn follow_resizes(&mut self) {
        let mut resized = None;
        while let Ok(Some(event)) = self.conn.poll_for_event() {
            if let Event::ConfigureNotify(e) = event
                && e.window == self.root
            {
                resized = Some(Size::new(u32::from(e.width), u32::from(e.height)));
            }
        }
        if let Some(size) = resized
            && size != self.screen
        {
            self.screen = size;
            self.monitors = monitors::query(&self.conn, self.root, size);
        }
    }

    /// Re-read the screen size after the server refused a capture (the screen may have
    /// been resized); `true` when it changed.
    fn refresh_screen(&mut self) -> bool {
        let Ok(geometry) = self.conn.get_geometry(self.root).map_err(ReplyError::from).and_then(|c| c.reply()) else {
            return false;
        };
        let size = Size::new(u32::from(geometry.width), u32::from(geometry.height));
        let changed = size != self.screen;
        if changed {
            self.screen = size;
            self.monitors = monitors::query(&self.conn, self.root, size);
        }
        changed
    }

    fn name(&self) -> &'static str {
        if self.shm.is_some() { SHM } else { GET_IMAGE }
    }
}

impl Capture for X11Capture {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        self.follow_resizes();
        let (mut rect, mut monitor) = self.resolve(what)?;
        let mut timestamp_us = monotonic_us();
        let pixels = match self.grab(rect) {
            Ok(pixels) => pixels,
            Err(e) if e.class() == ErrorClass::Transient && self.refresh_screen() => {
                // The screen changed size under us: resolve again against the new one, once.
                (rect, monitor) = self.resolve(what)?;
                timestamp_us = monotonic_us();
                self.grab(rect)?
            }
            Err(e) => return Err(e),
        };
        let mut frame = Frame::new(rect.w, rect.h, pixels, rect.origin()).map_err(|e| CaptureError::Backend {
            backend: self.name(),
            message: e.to_string(),
            transient: false,
        })?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = monitor;
        frame.scale = ScaleFactor::ONE;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        self.follow_resizes();
        self.monitors = monitors::query(&self.conn, self.root, self.screen);
        Ok(self.monitors.clone())
    }

    fn backend_name(&self) -> &'static str {
        self.name()
    }
}

/// Bytes of a `w` x `h` frame at 4 bytes a pixel.
fn frame_bytes(w: u32, h: u32) -> usize {
    w as usize * h as usize * 4
}

/// A rectangle as the X protocol's 16-bit fields; it was clipped to the screen, so this
/// fails only for a screen wider than X coordinates reach.
fn wire_rect(r: Rect<Physical>) -> Option<(i16, i16, u16, u16)> {
    Some((i16::try_from(r.x).ok()?, i16::try_from(r.y).ok()?, u16::try_from(r.w).ok()?, u16::try_from(r.h).ok()?))
}

/// Only the pixel format every current X server uses on little-endian machines is
/// converted: 32 bits a pixel, LSB first, masks R=0xff0000 G=0xff00 B=0xff.
fn check_pixel_format(setup: &xproto::Setup, screen: &xproto::Screen) -> Result<(), String> {
    let depth = screen.root_depth;
    let bpp = setup.pixmap_formats.iter().find(|f| f.depth == depth).map(|f| f.bits_per_pixel);
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|d| &d.visuals)
        .find(|v| v.visual_id == screen.root_visual)
        .map(|v| (v.red_mask, v.green_mask, v.blue_mask));
    let lsb = setup.image_byte_order == ImageOrder::LSB_FIRST;
    if bpp == Some(32) && visual == Some((0xff_0000, 0xff00, 0xff)) && lsb {
        Ok(())
    } else {
        Err(format!(
            "unsupported pixel format: depth {depth}, {bpp:?} bits per pixel, masks {visual:x?}, {} byte order; \
             only 32-bit BGRX is converted",
            if lsb { "LSB-first" } else { "MSB-first" }
        ))
    }
}

fn describe_x11_error(e: &X11Error) -> String {
    format!(
        "the X server refused {}: {:?} (value 0x{:x}); the screen or window may have changed meanwhile",
        e.request_name.unwrap_or("a request"),
        e.error_kind,
        e.bad_value
    )
}

/// A failed X request as a capture error: a protocol error is transient (a window or the
/// screen changed meanwhile); a broken connection is not (connect again).
fn x_error(backend: &'static str, display: &str, e: ReplyOrIdError) -> CaptureError {
    match e {
        ReplyOrIdError::X11Error(e) => {
            CaptureError::Backend { backend, message: describe_x11_error(&e), transient: true }
        }
        ReplyOrIdError::ConnectionError(e) => CaptureError::Backend {
            backend,
            message: format!("the connection to {display} failed: {e}; connect again"),
            transient: false,
        },
        ReplyOrIdError::IdsExhausted => {
            CaptureError::Backend { backend, message: "the X connection ran out of ids".into(), transient: false }
        }
    }
}
