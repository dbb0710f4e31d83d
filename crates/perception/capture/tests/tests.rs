//! deft-capture on real headless desktops: what is drawn is what is captured.
//!
//! Each test starts its own desktop, draws known pixels with tools independent of Deft
//! (`xsetroot`, a small GTK window), and checks the frames pixel by pixel.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use deft_capture::{Capture, CaptureError, CaptureTarget, WindowRef, X11Capture, X11Options};
use deft_harness::{Desktop, DesktopConfig};
use deft_types::{Frame, Rect};

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];

/// A desktop without accessibility (not needed here, and slower to start).
fn desktop(window_manager: bool) -> Desktop {
    let config = DesktopConfig { accessibility: false, window_manager, ..DesktopConfig::default() };
    Desktop::start_with(&config).expect("a headless desktop starts")
}

/// Paint the root window one colour.
fn set_root(desktop: &Desktop, colour: &str) {
    let status =
        desktop.command("xsetroot").args(["-solid", colour]).status().expect("xsetroot runs (x11-xserver-utils)");
    assert!(status.success(), "xsetroot -solid {colour}: {status}");
}

fn connect(desktop: &Desktop, shm: bool) -> X11Capture {
    X11Capture::connect_with(Some(desktop.display()), &X11Options { shm }).expect("connects to the test display")
}

/// Whether every pixel of `frame` is `rgba`.
fn all_pixels(frame: &Frame, rgba: [u8; 4]) -> bool {
    frame.pixels().chunks_exact(4).all(|p| p == rgba)
}

/// Capture `target` until `ready` holds for the frame, for at most 10 s (drawing by
/// another process is asynchronous; no fixed sleep guesses how long it takes).
fn capture_until(cap: &mut X11Capture, target: &CaptureTarget, ready: impl Fn(&Frame) -> bool) -> Frame {
    let start = Instant::now();
    loop {
        let frame = cap.capture(target);
        match frame {
            Ok(frame) if ready(&frame) => return frame,
            other if start.elapsed() > Duration::from_secs(10) => panic!("never ready: last capture {other:?}"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// A GTK window of known pixels, killed on drop.
struct ColourWindow {
    child: Child,
    xid: u64,
}

impl ColourWindow {
    fn open(desktop: &Desktop, title: &str, (w, h): (u32, u32), paint: &str) -> ColourWindow {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/colour_window.py");
        let mut child = desktop
            .command(deft_harness::python())
            .arg(script)
            .args([title, &w.to_string(), &h.to_string(), paint])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 with GTK starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(20)).expect("the window reports its id within 20 s");
        let xid = line.trim().parse().unwrap_or_else(|_| panic!("the window printed {line:?}, not its X id"));
        ColourWindow { child, xid }
    }
}

impl Drop for ColourWindow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

mod screen {
    use super::*;

    #[test]
    fn the_screen_is_captured_with_its_metadata() {
        let desktop = desktop(false);
        set_root(&desktop, "#ff0000");
        let mut cap = connect(&desktop, true);
        assert_eq!(cap.backend_name(), "x11-shm", "MIT-SHM on a local Xvfb: {:?}", cap.shm_unavailable());
        let before = monotonic_us();
        let frame = cap.capture(&CaptureTarget::Screen).unwrap();
        let after = monotonic_us();
        assert_eq!((frame.width(), frame.height()), (1280, 800));
        assert_eq!(frame.screen_rect(), Rect::new(0, 0, 1280, 800));
        assert!(all_pixels(&frame, RED), "the root is red everywhere; first pixel {:?}", frame.pixel(0, 0));
        assert!(
            (before..=after).contains(&frame.timestamp_us),
            "the timestamp {} is CLOCK_MONOTONIC, taken during the call ({before}..={after})",
            frame.timestamp_us
        );
        assert_eq!(frame.monitor, None);
        assert_eq!(frame.scale.get(), 1.0);

        // Same connection, same segment: the next capture sees the new colour.
        set_root(&desktop, "#00ff00");
        let frame = cap.capture(&CaptureTarget::Screen).unwrap();
        assert!(all_pixels(&frame, GREEN), "first pixel {:?}", frame.pixel(0, 0));
    }

    #[test]
    fn monitors_cover_the_screen_and_capture_by_name() {
        let desktop = desktop(false);
        set_root(&desktop, "#ff0000");
        let mut cap = connect(&desktop, true);
        let monitors = cap.monitors().unwrap();
        assert!(!monitors.is_empty());
        let first = &monitors[0];
        assert_eq!(first.rect, Rect::new(0, 0, 1280, 800), "{monitors:?}");
        let frame = cap.capture(&CaptureTarget::Monitor(first.name.clone())).unwrap();
        assert_eq!(frame.screen_rect(), first.rect);
        assert_eq!(frame.monitor.as_deref(), Some(first.name.as_str()));
        assert!(all_pixels(&frame, RED));
        let e = cap.capture(&CaptureTarget::Monitor("HDMI-9".into())).unwrap_err();
        assert!(matches!(e, CaptureError::MonitorNotFound { .. }), "{e}");
        assert!(e.to_string().contains(&first.name), "the error lists the monitors: {e}");
    }

    #[test]
    fn shm_and_getimage_give_identical_frames() {
        let desktop = desktop(true);
        set_root(&desktop, "#204060");
        let window = ColourWindow::open(&desktop, "deft-capture-stripes", (300, 120), "stripes");
        let mut shm = connect(&desktop, true);
        let mut plain = connect(&desktop, false);
        assert_eq!((shm.backend_name(), plain.backend_name()), ("x11-shm", "x11-getimage"));
        let target = CaptureTarget::Window(WindowRef::Id(window.xid));
        // Column 1 of the stripes is (1, 7, 13).
        let striped = capture_until(&mut shm, &target, |f| f.pixel(1, 60) == Some([1, 7, 13, 255]));
        assert_eq!(striped.pixel(255, 5), Some([255, (7 * 255 % 256) as u8, (13 * 255 % 256) as u8, 255]));
        for target in [
            CaptureTarget::Screen,
            CaptureTarget::Window(WindowRef::Id(window.xid)),
            CaptureTarget::Region(Rect::new(striped.origin.x - 3, striped.origin.y + 7, 101, 33)),
        ] {
            // The window manager may still be redrawing decorations just after the map:
            // compare only when the SHM frames before and after the plain one agree.
            let mut compared = false;
            for _ in 0..50 {
                let a = shm.capture(&target).unwrap();
                let b = plain.capture(&target).unwrap();
                let c = shm.capture(&target).unwrap();
                if a.pixels() != c.pixels() {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    continue;
                }
                assert_eq!((a.width(), a.height(), a.origin), (b.width(), b.height(), b.origin), "{target:?}");
                assert!(a.pixels() == b.pixels(), "SHM and GetImage frames of {target:?} differ");
                compared = true;
                break;
            }
            assert!(compared, "the screen never held still long enough to compare {target:?}");
        }
    }
}

mod regions {
    use super::*;

    #[test]
    fn regions_are_captured_and_clipped_to_the_screen() {
        let desktop = desktop(false);
        set_root(&desktop, "#ff0000");
        let mut cap = connect(&desktop, true);
        let frame = cap.capture(&CaptureTarget::Region(Rect::new(100, 50, 33, 17))).unwrap();
        assert_eq!(frame.screen_rect(), Rect::new(100, 50, 33, 17));
        assert!(all_pixels(&frame, RED));
        assert!(frame.monitor.is_some(), "a region names the monitor it lies on");

        let frame = cap.capture(&CaptureTarget::Region(Rect::new(1200, -20, 500, 60))).unwrap();
        assert_eq!(frame.screen_rect(), Rect::new(1200, 0, 80, 40), "clipped to the screen");
        assert!(all_pixels(&frame, RED));
    }

    #[test]
    fn empty_and_off_screen_regions_are_clear_errors() {
        let desktop = desktop(false);
        for shm in [true, false] {
            let mut cap = connect(&desktop, shm);
            let e = cap.capture(&CaptureTarget::Region(Rect::new(10, 10, 0, 5))).unwrap_err();
            assert_eq!(
                e.to_string(),
                "cannot capture region 10,10 0x5 of the 1280x800 screen: it is empty (zero width or height)"
            );
            let e = cap.capture(&CaptureTarget::Region(Rect::new(2000, 10, 50, 50))).unwrap_err();
            assert!(matches!(e, CaptureError::BadRegion { .. }), "{e}");
            assert!(e.to_string().contains("2000,10 50x50") && e.to_string().contains("entirely outside"), "{e}");
            let e = cap.capture(&CaptureTarget::Region(Rect::new(i32::MIN, i32::MIN, 10, 10))).unwrap_err();
            assert!(matches!(e, CaptureError::BadRegion { .. }), "{e}");
            // The capturer is still usable after refusing.
            assert!(cap.capture(&CaptureTarget::Region(Rect::new(0, 0, 1, 1))).is_ok());
        }
    }
}

mod windows {
    use super::*;

    #[test]
    fn a_window_is_captured_by_id_and_by_title() {
        let desktop = desktop(true);
        set_root(&desktop, "#ff0000");
        let window = ColourWindow::open(&desktop, "deft-capture-green", (200, 100), "00ff00");
        let mut cap = connect(&desktop, true);
        let by_id = CaptureTarget::Window(WindowRef::Id(window.xid));
        let frame = capture_until(&mut cap, &by_id, |f| all_pixels(f, GREEN));
        assert_eq!((frame.width(), frame.height()), (200, 100), "contents only, no decoration");
        // Around it: decoration or the red root, never green.
        let around = Rect::new(frame.origin.x - 40, frame.origin.y + 10, 30, 30);
        let outside = cap.capture(&CaptureTarget::Region(around)).unwrap();
        assert_eq!(outside.pixel(35, 5), None);
        assert!(!outside.pixels().chunks_exact(4).any(|p| p == GREEN), "the window's frame is exactly its contents");

        let by_title = cap.capture(&CaptureTarget::Window(WindowRef::Title("capture-green".into()))).unwrap();
        assert_eq!(by_title.screen_rect(), frame.screen_rect());
        assert!(all_pixels(&by_title, GREEN));
    }

    #[test]
    fn missing_and_unmapped_windows_are_clear_errors() {
        let desktop = desktop(true);
        let window = ColourWindow::open(&desktop, "deft-capture-hidden", (50, 50), "0000ff");
        let mut cap = connect(&desktop, true);
        let e = cap.capture(&CaptureTarget::Window(WindowRef::Title("no such title".into()))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotFound { .. }), "{e}");
        assert!(e.to_string().contains("deft-capture-hidden"), "the error lists visible titles: {e}");
        let e = cap.capture(&CaptureTarget::Window(WindowRef::Id(0x7fff_fff0))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotFound { .. }), "{e}");
        let e = cap.capture(&CaptureTarget::Window(WindowRef::Id(u64::MAX))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotFound { .. }), "{e}");

        let status = desktop.command("xdotool").args(["windowunmap", "--sync", &window.xid.to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "xdotool unmaps the window");
        let e = cap.capture(&CaptureTarget::Window(WindowRef::Id(window.xid))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotVisible { .. }), "{e}");
        assert!(e.is_retryable(), "a window may come back: {e}");
    }
}

mod errors {
    use super::*;

    #[test]
    fn a_missing_display_is_a_clear_error() {
        let e = X11Capture::connect(Some(":999")).err().expect("there is no display :999");
        assert!(matches!(e, CaptureError::NoDisplay { .. }), "{e}");
        let text = e.to_string();
        assert!(text.starts_with("cannot connect to the X display ':999': "), "{text}");
        assert!(text.contains("is DISPLAY set?"), "{text}");
        let e = deft_capture::open_default(Some(":999")).err().expect("no backend for a missing display");
        assert!(matches!(e, CaptureError::NoDisplay { .. }), "{e}");
        let e = X11Capture::connect(Some("not a display")).err().expect("a malformed name");
        assert!(matches!(e, CaptureError::NoDisplay { .. }), "{e}");
    }

    #[test]
    fn open_default_picks_the_shm_fast_path() {
        let desktop = desktop(false);
        let mut cap = deft_capture::open_default(Some(desktop.display())).unwrap();
        assert_eq!(cap.backend_name(), "x11-shm");
        assert_eq!(cap.capture(&CaptureTarget::Screen).unwrap().width(), 1280);
    }
}

#[cfg(feature = "xcap")]
mod xcap {
    use super::*;
    use deft_capture::XcapCapture;

    /// xcap finds its display in the environment only, so the comparison runs in a child
    /// process of this test binary with `DISPLAY` set to the test's desktop.
    #[test]
    fn xcap_and_x11_capture_the_same_screen() {
        const CHILD: &str = "DEFT_CAPTURE_XCAP_CHILD";
        if std::env::var_os(CHILD).is_some() {
            let mut x11 = X11Capture::connect(None).unwrap();
            let mut xcap = XcapCapture::new().unwrap();
            assert_eq!(xcap.backend_name(), "xcap");
            for target in [CaptureTarget::Screen, CaptureTarget::Region(Rect::new(10, 20, 30, 40))] {
                let a = x11.capture(&target).unwrap();
                let b = xcap.capture(&target).unwrap();
                assert_eq!(a.screen_rect(), b.screen_rect(), "{target:?}");
                assert!(a.pixels() == b.pixels(), "x11 and xcap frames of {target:?} differ");
            }
            assert_eq!(xcap.monitors().unwrap().len(), x11.monitors().unwrap().len());
            return;
        }
        let desktop = desktop(false);
        set_root(&desktop, "#123456");
        let exe = std::env::current_exe().unwrap();
        let out = desktop
            .command(exe)
            .args(["--exact", "xcap::xcap_and_x11_capture_the_same_screen", "--nocapture"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && log.contains("1 passed"), "the child test failed:\n{log}");
    }
}

/// CLOCK_MONOTONIC in microseconds as another process reads it: Python's `time.monotonic()`,
/// the clock the fixture app logs by, so frame timestamps must compare with it directly.
fn monotonic_us() -> u64 {
    let out = std::process::Command::new(deft_harness::python())
        .args(["-c", "import time; print(int(time.monotonic() * 1e6))"])
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("python prints microseconds")
}
