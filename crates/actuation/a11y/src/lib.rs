//! Accessibility for Deft: tree reads, selectors, actions, set text and value, focus, hit
//! test and events, behind one narrow trait ([`Accessibility`]) with an AT-SPI2 backend
//! ([`AtSpi`], pure Rust: atspi 0.30 types over zbus 5).
//!
//! # The key decision: one cache call, then every call in flight
//!
//! A tree read is the cheapest observation Deft has, and verification reads the tree
//! before and after every action, so it must cost milliseconds. Walking the tree one D-Bus
//! call at a time (what pyatspi and dogtail do) pays a round trip per property per element:
//! hundreds of milliseconds for an ordinary window. Instead a snapshot:
//!
//! 1. asks the application's `org.a11y.atspi.Cache.GetItems` once: every cached element
//!    with its parent, index, child count, interfaces, role, name, description and states;
//! 2. walks from the scope's root issuing, for every element at once, only the calls it
//!    needs: extents only for showing components (hidden ones have no bounds), text only
//!    for the Text interface, the value only for Value (and combo boxes), actions only for
//!    Action, relations only when asked; what the toolkit does not cache (children of
//!    `manages-descendants` containers, such as GTK list boxes) is read on the way, one
//!    round trip more per uncached level.
//!
//! The calls are pipelined on one connection, which is the application's own peer-to-peer
//! socket when it offers one, skipping the bus daemon's hop. On gtk3-widget-factory (261
//! elements) that is 356 calls answered in 10-25 ms on a shared 2-core machine, 10-30x
//! faster than pyatspi in the same run (`docs/BENCHMARKS.md`); the application's own time
//! per call is then most of what is left.
//!
//! Action names come from one `GetActions` call per element; those are the localized
//! names, which in an English locale are the names up to case (GTK: "Click" for `click`),
//! so they are lowercased; in another locale each name is asked for.
//! [`Accessibility::do_action`] matches an action by those names, and by the real names
//! (`GetName`) when they differ, case-insensitively.
//!
//! Every D-Bus call has a timeout ([`AtSpiConfig::call_timeout`]) and every read a
//! deadline ([`AtSpiConfig::read_deadline`]): an application that hangs gives
//! [`A11yError::Timeout`], one that exits gives [`A11yError::AppGone`], never a hang.
//!
//! # Element ids
//!
//! An AT-SPI element is identified by its application's bus name and its object path; both
//! are stable for the life of the object, so the id is `"bus_name|path"` (e.g.
//! `:1.12|/org/a11y/atspi/accessible/42`) and it stays the same across reads. When the
//! object is destroyed (or its widget is, leaving it defunct), any call on the id gives
//! [`A11yError::Stale`]: re-read and resolve the selector again.
//!
//! # Selectors
//!
//! A selector ([`deft_types::Selector`]) names one element. Its text form, used by the
//! CLI, is a list of `key op value` terms separated by spaces; every term must match.
//!
//! ```text
//! selector = term { " " term }
//! term     = key op value
//! key      = "app" | "window" | "role" | "name" | "text" | "path" | "id" | "index"
//! op       = "="          exact                        (every key)
//!          | "~="         contains, ignoring case      (app, window, name, text)
//!          | "/="         regular expression           (app, window, name, text)
//! value    = bare | quoted
//! bare     = one or more characters other than white space and '"'
//! quoted   = '"' { any character but '"' and '\' | '\"' | '\\' } '"'
//! ```
//!
//! - `app`: the application's name (`deft-fixture`, `gtk3-widget-factory`);
//! - `window`: the title of the top-level window the element is in;
//! - `role`: the role in any spelling (`push_button`, `"push button"`, `Push-Button`);
//! - `name`: the accessible name; `text`: the name, text or value a person sees;
//! - `path`: child indices from the window (`0/2/1`; `/` is the window itself);
//! - `id`: an element id from an earlier read;
//! - `index`: which of several matches (0-based, tree order). Without it, more than one
//!   match is an error that lists every match; Deft never silently picks the first.
//!
//! ```
//! use deft_a11y::selector;
//!
//! let sel = selector::parse(r#"window="Deft Fixture" role=push_button name~=submit"#).unwrap();
//! assert_eq!(selector::format(&sel), r#"window="Deft Fixture" role=push_button name~=submit"#);
//! let err = selector::parse("role=push_button name=").unwrap_err();
//! assert_eq!(err.to_string(), "selector error at column 23: expected a value after 'name='");
//! ```
//!
//! A selector that matches nothing fails with the closest elements ranked by similarity
//! ([`selector::ResolveError::NotFound`]); one that matches several, with all of them
//! ([`selector::ResolveError::Ambiguous`]).
//!
//! # Layout
//!
//! [`Accessibility`] is the seam; [`Tree`] is what a snapshot returns (backend
//! independent, so [`selector`] matching is pure); [`find()`] resolves a selector against a
//! live backend reading only the apps and windows it names; [`events`] has the typed
//! events and [`events::forward_to_bus`]; [`FakeAccessibility`] is an in-memory backend
//! for tests of the layers above.

mod any;
#[cfg(feature = "atspi")]
mod atspi;
mod backend;
mod error;
pub mod events;
mod fake;
mod find;
mod labels;
pub mod roles;
pub mod secret;
pub mod selector;
mod tree;

#[cfg(feature = "atspi")]
pub use crate::atspi::{AtSpi, AtSpiConfig};
pub use any::AnyAccessibility;
pub use backend::{Accessibility, AppInfo, Caret, Hit, Operation, Scope, SnapshotOptions, WindowInfo};
pub use error::A11yError;
pub use events::{A11yEvent, EventFilter, EventKind, EventStream};
pub use fake::{FakeAccessibility, demo_tree};
pub use find::{
    Found, Scoped, app_as_window, conveniences_in, find, find_all, find_with, is_short_id, read_scope, short_id,
    window_candidate, windows_for,
};
pub use labels::labelled_field;
pub use tree::{BuildId, Node, Relation, RootContext, Tree, TreeBuilder, element};
