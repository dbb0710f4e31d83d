//! deft-input on real headless desktops, judged only by the fixture app's ground-truth log.

mod keyboard;
mod paste;
mod ping;
mod pointer;
mod scale;
mod support;
mod sway;
