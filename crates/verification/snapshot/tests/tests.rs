//! The integration tests of deft-snapshot, one module per topic, on random trees of up to a
//! few thousand elements.

mod properties;
mod relevance;
mod serialization;
mod strategies;
