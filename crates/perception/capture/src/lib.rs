//! Screen and window capture: the seam between Deft and the pixels on screen.
//!
//! Not built yet (issue #3). The plan: a narrow capture trait; an xcap backend (portable:
//! X11, Wayland, Windows, macOS) and an X11 fast path over a persistent x11rb connection
//! with MIT-SHM, chosen automatically. Frames will carry a timestamp, the monitor, the scale
//! factor and their coordinate space (`deft_types::Physical`). Nothing here pretends to
//! capture anything until then.
