//! deft-a11y on a real headless desktop: the fixture app (and gtk3-widget-factory) read,
//! selected, acted on and watched through AT-SPI. Effects are judged by the fixture app's
//! ground-truth log, never by what deft-a11y reports. Each test starts its own desktop.

mod support;

mod act;
mod corpus;
mod events;
mod failure;
mod read;
mod select;
mod toolkits;
