//! Desktop tests of the verified executor against the misbehaving fixture app, each on its
//! own headless desktop, judged by the app's ground-truth log (never by Deft's report).

mod support;

mod careful;
mod clicks;
mod own_motion;
mod settling;
mod typing;
mod waits;
