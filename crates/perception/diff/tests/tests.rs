//! The integration tests of deft-diff, one module per topic, on random frames up to 200x150
//! checked against a naive pixel-by-pixel reference.

mod bad_input;
mod digests;
mod frames;
mod masks;
mod properties;
mod reference;
mod stability;
