//! The pixels of a wlroots compositor's outputs (`zwlr_screencopy_manager_v1`), copied into
//! shared memory (`wl_shm`): what grim does, spoken over the wire directly as the virtual
//! devices are.
//!
//! One connection for the capturer's life and one memory file grown only when a larger
//! capture needs it, so the cost of the next capture is one frame of the compositor (it
//! copies on its next render) and one read. The memory file is read with `pread`, not
//! mapped: no unsafe code, and the copy is one pass either way.

use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::client::Client;
use crate::registry::{read_string, request};

const MANAGER: &str = "zwlr_screencopy_manager_v1";
/// Version 3 announces every buffer kind, then `buffer_done`; version 1 and 2 send the
/// shared-memory buffer alone.
const MANAGER_VERSION: u32 = 3;
const XDG_OUTPUT_MANAGER: &str = "zxdg_output_manager_v1";

/// The `wl_shm` formats read here: 32 bits a pixel, little-endian words.
const ARGB8888: u32 = 0;
const XRGB8888: u32 = 1;
const ABGR8888: u32 = 0x3432_4241;
const XBGR8888: u32 = 0x3432_4258;

/// `zwlr_screencopy_frame_v1.flags`: the rows come bottom first.
const Y_INVERT: u32 = 1;

/// An output (a monitor) of the compositor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// Its name (`HEADLESS-1`, `DP-1`), or `output-N` when the compositor names none.
    pub name: String,
    /// Where it lies on the output layout (the coordinates the pointer moves in).
    pub position: (i32, i32),
    /// Its size on the output layout.
    pub size: (u32, u32),
    /// Its scale: layout units to pixels.
    pub scale: i32,
}

/// Pixels copied from an output: RGBA, row by row from the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` RGBA pixels.
    pub rgba: Vec<u8>,
}

/// A capturer of a wlroots compositor's outputs, connected for its lifetime.
pub struct Screencopy {
    client: Client,
    manager: u32,
    version: u32,
    shm: u32,
    /// Each output's `wl_output` id, and what is known of it, in the same order.
    ids: Vec<u32>,
    outputs: Vec<Output>,
    /// The shared memory the compositor copies into, and its size.
    pool: Option<(std::fs::File, u32, u32)>,
}

impl std::fmt::Debug for Screencopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Screencopy({}, {} outputs)", self.client.socket().display(), self.outputs.len())
    }
}

/// A `u32` argument at word `i` of an event body.
fn word(body: &[u8], i: usize) -> Result<u32, String> {
    body.get(i * 4..i * 4 + 4)
        .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
        .ok_or_else(|| "a short event".to_string())
}

impl Screencopy {
    /// Connects to the compositor at `socket` and learns its outputs. Fails when it offers
    /// no `zwlr_screencopy_manager_v1` or no output.
    pub fn connect(socket: &Path) -> Result<Screencopy, String> {
        let mut client = Client::connect(socket)?;
        let global = |c: &Client, name: &str| c.globals().iter().find(|g| g.interface == name).cloned();
        let manager_global = global(&client, MANAGER)
            .ok_or_else(|| format!("the compositor at {} offers no {MANAGER}", socket.display()))?;
        let (manager, version, mut out) = client.bind_global(&manager_global, MANAGER_VERSION);
        let (shm, bind) = client.bind("wl_shm", 1)?;
        out.extend(bind);
        let output_globals: Vec<_> = client.globals().iter().filter(|g| g.interface == "wl_output").cloned().collect();
        if output_globals.is_empty() {
            return Err(format!("the compositor at {} has no output to capture", socket.display()));
        }
        let mut outputs = Vec::new();
        for (i, g) in output_globals.iter().enumerate() {
            let (id, _, bind) = client.bind_global(g, 4);
            out.extend(bind);
            let output = Output { name: format!("output-{}", i + 1), position: (0, 0), size: (0, 0), scale: 1 };
            outputs.push((id, output));
        }
        // xdg-output tells where each output lies on the layout and its name (wl_output's
        // own position is not the layout's on wlroots).
        let mut xdg = Vec::new();
        if let Some(g) = global(&client, XDG_OUTPUT_MANAGER) {
            let (xdg_manager, _, bind) = client.bind_global(&g, 3);
            out.extend(bind);
            for (output, _) in &outputs {
                let id = client.take_id();
                let mut args = id.to_ne_bytes().to_vec();
                args.extend_from_slice(&output.to_ne_bytes());
                out.extend(request(xdg_manager, 1, &args));
                xdg.push(id);
            }
        }
        let mut pixel_size = vec![(0u32, 0u32); outputs.len()];
        client.round_trip_with(out, |object, opcode, body| {
            if let Some(i) = outputs.iter().position(|(id, _)| *id == object) {
                match opcode {
                    // mode(flags, width, height, refresh): the current one has flag 1.
                    1 if word(body, 0)? & 1 == 1 => pixel_size[i] = (word(body, 1)?, word(body, 2)?),
                    3 => outputs[i].1.scale = word(body, 0)? as i32,
                    4 => outputs[i].1.name = read_string(body)?.0,
                    _ => {}
                }
            } else if let Some(i) = xdg.iter().position(|id| *id == object) {
                match opcode {
                    0 => outputs[i].1.position = (word(body, 0)? as i32, word(body, 1)? as i32),
                    1 => outputs[i].1.size = (word(body, 0)?, word(body, 1)?),
                    3 => outputs[i].1.name = read_string(body)?.0,
                    _ => {}
                }
            }
            Ok(())
        })?;
        for ((_, output), pixels) in outputs.iter_mut().zip(pixel_size) {
            if output.size == (0, 0) {
                // No xdg-output: the layout size is the pixel size over the scale.
                let scale = output.scale.max(1) as u32;
                output.size = (pixels.0 / scale, pixels.1 / scale);
            }
        }
        let (ids, outputs) = outputs.into_iter().unzip();
        Ok(Screencopy { client, manager, version, shm, ids, outputs, pool: None })
    }

    /// The outputs, as the compositor described them when connecting.
    pub fn outputs(&self) -> &[Output] {
        &self.outputs
    }

    /// Copies the output at `index` (of [`Screencopy::outputs`]), the whole of it, or the
    /// part `region` names (x, y, width, height in layout units, relative to the output).
    pub fn capture(&mut self, index: usize, region: Option<(i32, i32, u32, u32)>) -> Result<Image, String> {
        let output = *self.ids.get(index).ok_or("no such output")?;
        let name = self.outputs[index].name.clone();
        let frame = self.client.take_id();
        // capture_output(frame, overlay_cursor: 0, output), or capture_output_region(.., x, y, w, h)
        let mut args = frame.to_ne_bytes().to_vec();
        args.extend_from_slice(&0u32.to_ne_bytes());
        args.extend_from_slice(&output.to_ne_bytes());
        let opcode = match region {
            Some((x, y, w, h)) => {
                for v in [x as u32, y as u32, w, h] {
                    args.extend_from_slice(&v.to_ne_bytes());
                }
                1
            }
            None => 0,
        };
        self.client.send(&request(self.manager, opcode, &args))?;
        let result = self.copy_frame(frame, &name);
        // destroy the frame whatever happened: the compositor keeps it otherwise.
        self.client.send_now(&request(frame, 1, &[]));
        result
    }

    /// Reads the frame's buffer offer, has the frame copied into shared memory, and reads
    /// it back as RGBA.
    fn copy_frame(&mut self, frame: u32, name: &str) -> Result<Image, String> {
        let failed = || format!("the compositor could not copy output {name} (it may have gone)");
        let mut spec = None;
        loop {
            let (object, opcode, body) = self.client.next_event()?;
            if object != frame {
                continue;
            }
            match opcode {
                // buffer(format, width, height, stride): the shared-memory kind.
                0 => {
                    spec = Some((word(&body, 0)?, word(&body, 1)?, word(&body, 2)?, word(&body, 3)?));
                    if self.version < 3 {
                        break;
                    }
                }
                3 => return Err(failed()),
                // buffer_done: every kind offered.
                6 => break,
                _ => {}
            }
        }
        let (format, width, height, stride) = spec.ok_or("the compositor offered no shared-memory buffer")?;
        if ![ARGB8888, XRGB8888, ABGR8888, XBGR8888].contains(&format) {
            return Err(format!("the compositor offered pixel format 0x{format:08x}, which Deft does not read"));
        }
        if stride < width.saturating_mul(4) || height == 0 {
            return Err(format!("the compositor offered a {width}x{height} buffer of stride {stride}"));
        }
        let size = stride.checked_mul(height).ok_or("a buffer larger than 4 GiB")?;
        let pool = self.pool_of(size)?;
        let buffer = self.client.take_id();
        // wl_shm_pool.create_buffer(new_id, offset, width, height, stride, format), then copy(buffer)
        let mut args = buffer.to_ne_bytes().to_vec();
        for v in [0, width, height, stride, format] {
            args.extend_from_slice(&v.to_ne_bytes());
        }
        let mut out = request(pool, 0, &args);
        out.extend(request(frame, 0, &buffer.to_ne_bytes()));
        self.client.send(&out)?;
        let mut flags = 0;
        let outcome = loop {
            let (object, opcode, body) = self.client.next_event()?;
            match (object == frame, opcode) {
                (true, 1) => flags = word(&body, 0)?,
                (true, 2) => break Ok(()),
                (true, 3) => break Err(failed()),
                _ => {}
            }
        };
        self.client.send_now(&request(buffer, 0, &[]));
        outcome?;
        let file = &self.pool.as_ref().ok_or("the shared memory went away")?.0;
        let mut raw = vec![0u8; size as usize];
        file.read_exact_at(&mut raw, 0).map_err(|e| format!("reading the copied pixels: {e}"))?;
        Ok(to_rgba(&raw, format, width, height, stride, flags & Y_INVERT != 0))
    }

    /// The pool's id, grown (a new one) when smaller than `size` bytes.
    fn pool_of(&mut self, size: u32) -> Result<u32, String> {
        if let Some((_, pool, have)) = &self.pool
            && *have >= size
        {
            return Ok(*pool);
        }
        if let Some((_, old, _)) = self.pool.take() {
            self.client.send_now(&request(old, 1, &[]));
        }
        use rustix::fs::{MemfdFlags, memfd_create};
        let memfd = memfd_create("deft-screencopy", MemfdFlags::CLOEXEC).map_err(|e| format!("memfd_create: {e}"))?;
        let file = std::fs::File::from(memfd);
        file.set_len(u64::from(size)).map_err(|e| format!("sizing the shared memory: {e}"))?;
        let pool = self.client.take_id();
        // wl_shm.create_pool(new_id, fd, size): the descriptor travels beside the message.
        let mut args = pool.to_ne_bytes().to_vec();
        args.extend_from_slice(&size.to_ne_bytes());
        self.client.send_with_fd(&request(self.shm, 0, &args), file.as_fd())?;
        self.pool = Some((file, pool, size));
        Ok(pool)
    }
}

impl Drop for Screencopy {
    fn drop(&mut self) {
        if let Some((_, pool, _)) = self.pool.take() {
            self.client.send_now(&request(pool, 1, &[]));
        }
        self.client.send_now(&request(self.manager, 2, &[]));
    }
}

/// RGBA rows from the compositor's little-endian 32-bit pixels.
fn to_rgba(raw: &[u8], format: u32, width: u32, height: u32, stride: u32, y_invert: bool) -> Image {
    let (w, stride) = (width as usize, stride as usize);
    let mut rgba = Vec::with_capacity(w * height as usize * 4);
    let opaque = matches!(format, XRGB8888 | XBGR8888);
    let swap = matches!(format, ARGB8888 | XRGB8888);
    for y in 0..height as usize {
        let src_y = if y_invert { height as usize - 1 - y } else { y };
        let row = &raw[src_y * stride..src_y * stride + w * 4];
        for px in row.chunks_exact(4) {
            // In memory: B, G, R, A for (A|X)RGB8888; R, G, B, A for (A|X)BGR8888.
            let (r, b) = if swap { (px[2], px[0]) } else { (px[0], px[2]) };
            rgba.extend_from_slice(&[r, px[1], b, if opaque { 255 } else { px[3] }]);
        }
    }
    Image { width, height, rgba }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_become_rgba_in_every_format_read() {
        // Two pixels, stride padded to 12: (1, 2, 3, 4) and (5, 6, 7, 8) in memory.
        let raw = [1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0];
        let px = |format| to_rgba(&raw, format, 2, 1, 12, false).rgba;
        assert_eq!(px(XRGB8888), vec![3, 2, 1, 255, 7, 6, 5, 255]);
        assert_eq!(px(ARGB8888), vec![3, 2, 1, 4, 7, 6, 5, 8]);
        assert_eq!(px(XBGR8888), vec![1, 2, 3, 255, 5, 6, 7, 255]);
        assert_eq!(px(ABGR8888), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn an_inverted_image_is_read_bottom_row_first() {
        let raw = [1, 1, 1, 0, 2, 2, 2, 0];
        let image = to_rgba(&raw, XRGB8888, 1, 2, 4, true);
        assert_eq!(image.rgba, vec![2, 2, 2, 255, 1, 1, 1, 255]);
    }
}
