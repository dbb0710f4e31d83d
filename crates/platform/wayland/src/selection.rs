//! Text handed to an application as the primary selection (what a middle click pastes),
//! for fields that ignore key events, on compositors with wlroots' data-control protocol
//! (`zwlr_data_control_manager_v1`, version 2 for the primary selection).
//!
//! A Wayland client may set a selection only while it has the keyboard focus; data-control
//! is the compositor's way for a tool without a window (a clipboard manager, `wl-copy`) to
//! set it. [`paste_primary`] offers `text` as the seat's primary selection, has the caller
//! send the middle click, hands the text to whoever asks for it until the asking goes
//! quiet, then clears the primary selection (as on X11, it is left empty, not given back;
//! the clipboard is never touched). Unlike X11, the compositor does not say who asks: a
//! clipboard manager listening on data-control may take a copy too.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::client::Client;
use crate::registry::{request, string_arg};

const MANAGER: &str = "zwlr_data_control_manager_v1";
/// Version 2 adds the primary selection.
const PRIMARY_SINCE: u32 = 2;

/// The text types offered: what GTK, Qt, Chromium and Firefox ask for.
const MIME_TYPES: [&str; 5] = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"];

/// How long the asking may go quiet after the text was handed over before the selection
/// is cleared: an application may ask again (for another type) right after.
const QUIET_AFTER: Duration = Duration::from_millis(60);

/// The longest text handed over: what a pipe takes without waiting for its reader (the
/// answer is written whole, from this thread).
const MAX_TEXT: usize = 60 * 1024;

/// Why a paste did not happen.
#[derive(Debug)]
pub enum PasteError<E> {
    /// The text could not be offered; nothing was sent.
    Offer(String),
    /// The caller's click failed.
    Click(E),
}

/// Offers `text` as the primary selection of the compositor at `socket`, calls `paste`
/// (which should make an application ask for it: a middle click over a text field), and
/// hands the text to every request until they went quiet after the first, or until
/// `limit` passed; then clears the primary selection. Returns how many times the text was
/// handed over (0: nothing asked for it).
pub fn paste_primary<E>(
    socket: &Path,
    text: &str,
    limit: Duration,
    paste: impl FnOnce() -> Result<(), E>,
) -> Result<usize, PasteError<E>> {
    let offer = PasteError::Offer;
    if text.len() > MAX_TEXT {
        return Err(offer(format!("a paste of {} bytes is over the {MAX_TEXT} a pipe takes at once", text.len())));
    }
    let mut client = Client::connect(socket).map_err(offer)?;
    let global = client.globals().iter().find(|g| g.interface == MANAGER).cloned().ok_or_else(|| {
        offer(format!(
            "the compositor at {} offers no {MANAGER}, through which a tool sets the primary selection",
            socket.display()
        ))
    })?;
    if global.version < PRIMARY_SINCE {
        return Err(offer(format!(
            "the compositor's {MANAGER} is version {}, without the primary selection",
            global.version
        )));
    }
    let (manager, _, mut out) = client.bind_global(&global, PRIMARY_SINCE);
    let (seat, bind) = client.bind("wl_seat", 1).map_err(offer)?;
    out.extend(bind);
    // get_data_device(new_id, seat), create_data_source(new_id), offer(mime) each,
    // set_primary_selection(source).
    let device = client.take_id();
    let mut args = device.to_ne_bytes().to_vec();
    args.extend_from_slice(&seat.to_ne_bytes());
    out.extend(request(manager, 1, &args));
    let source = client.take_id();
    out.extend(request(manager, 0, &source.to_ne_bytes()));
    for mime in MIME_TYPES {
        out.extend(request(source, 0, &string_arg(mime)));
    }
    out.extend(request(device, 2, &source.to_ne_bytes()));
    client.round_trip(out).map_err(offer)?;
    let handed = match paste() {
        Err(e) => Err(PasteError::Click(e)),
        Ok(()) => Ok(serve(&mut client, source, text.as_bytes(), limit)),
    };
    // Clear the primary selection if it is still ours (set_primary_selection(null)), then
    // let the source and device go.
    let mut out = request(device, 2, &0u32.to_ne_bytes());
    out.extend(request(source, 1, &[]));
    out.extend(request(device, 1, &[]));
    let _ = client.set_wait(Duration::from_secs(2));
    let _ = client.round_trip(out);
    handed
}

/// Answers the source's `send` events with `bytes` until the asking went quiet after the
/// first answer, the selection was taken by someone else, or `limit` passed.
fn serve(client: &mut Client, source: u32, bytes: &[u8], limit: Duration) -> usize {
    let start = Instant::now();
    let mut handed = 0;
    let mut last = None::<Instant>;
    loop {
        let until = match last {
            Some(at) => (at + QUIET_AFTER).min(start + limit),
            None => start + limit,
        };
        let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else { break };
        if client.set_wait(left).is_err() {
            break;
        }
        let (object, opcode, _) = match client.event_within() {
            Ok(Some(event)) => event,
            Ok(None) | Err(_) => break,
        };
        match (object == source, opcode) {
            // send(mime_type, fd): every type offered is the same text; the descriptor came
            // beside the message.
            (true, 0) => {
                if let Some(fd) = client.take_fd() {
                    let mut pipe = std::fs::File::from(fd);
                    if pipe.write_all(bytes).is_ok() {
                        handed += 1;
                    }
                }
                last = Some(Instant::now());
            }
            // cancelled: another client set the primary selection.
            (true, 1) => break,
            _ => {}
        }
    }
    handed
}
