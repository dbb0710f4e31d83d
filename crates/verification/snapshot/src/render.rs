//! Short human renderings of diffs and judgements, for the `observed` line of an outcome.

use std::fmt;

use deft_types::{Element, Role, State};

use crate::diff::{FieldChange, RegionChange, SnapshotDiff, WindowChange, topmost};
use crate::relevance::{EffectKind, Judgement};
use crate::snapshot::WindowState;

/// How much a rendering may say.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RenderConfig {
    /// Phrases shown before the rest is summed up as `and N more`.
    pub max_items: usize,
    /// Characters of a text value shown before it is cut with `…`.
    pub max_text: usize,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig { max_items: 6, max_text: 40 }
    }
}

/// Every change of `diff`, relevant or not: `dialog "Saved" appeared; "Submit" gone`.
pub fn render_diff(diff: &SnapshotDiff, cfg: &RenderConfig) -> String {
    let r = Renderer(cfg);
    let mut phrases = Vec::new();
    let (dialogs, windows): (Vec<_>, Vec<_>) = diff.windows_opened.iter().partition(|w| w.is_dialog());
    phrases.extend(dialogs.into_iter().chain(windows).map(|w| r.window_opened(w)));
    phrases.extend(diff.windows_closed.iter().map(|w| r.window_closed(w)));
    let opened = |e: &Element| diff.windows_opened.iter().any(|w| w.id == e.id);
    for (added, _) in topmost(&diff.added).into_iter().filter(|(a, _)| !opened(&a.element)) {
        phrases.push(r.appeared(&added.element, &[]));
    }
    let closed = |e: &Element| diff.windows_closed.iter().any(|w| w.id == e.id);
    for (removed, _) in topmost(&diff.removed).into_iter().filter(|(a, _)| !closed(&a.element)) {
        phrases.push(r.gone(&removed.element));
    }
    phrases.extend(diff.changed.iter().map(|c| r.changed(&c.role, &c.name, &c.changes)));
    phrases.extend(diff.windows_changed.iter().map(|c| r.window_changed(c)));
    phrases.extend(r.pixels(&diff.regions_changed));
    r.join(phrases, "no change".into())
}

/// The effects of a judgement, most telling first: `dialog "Saved" appeared; "Submit" gone`.
/// With no effect, `no change`, naming the kinds of noise that were ignored.
pub fn render_observed(judgement: &Judgement, cfg: &RenderConfig) -> String {
    let r = Renderer(cfg);
    let mut phrases = Vec::new();
    let mut regions = Vec::new();
    for effect in &judgement.effects {
        phrases.push(match &effect.kind {
            EffectKind::WindowOpened(w) => r.window_opened(w),
            EffectKind::WindowClosed(w) => r.window_closed(w),
            EffectKind::WindowChanged(c) => r.window_changed(c),
            EffectKind::Appeared { element, texts, .. } => r.appeared(element, texts),
            EffectKind::Gone { element, .. } => r.gone(element),
            EffectKind::Changed { role, name, changes, .. } => r.changed(role, name, changes),
            EffectKind::PixelsChanged(c) => {
                regions.push(*c);
                continue;
            }
        });
    }
    phrases.extend(r.pixels(&regions));
    let kinds = judgement.noise_kinds();
    let nothing = if kinds.is_empty() {
        "no change".to_owned()
    } else {
        let kinds: Vec<_> = kinds.iter().map(|k| k.as_str()).collect();
        format!("no change (ignored: {})", kinds.join(", "))
    };
    r.join(phrases, nothing)
}

impl fmt::Display for SnapshotDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_diff(self, &RenderConfig::default()))
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_observed(self, &RenderConfig::default()))
    }
}

struct Renderer<'a>(&'a RenderConfig);

impl Renderer<'_> {
    fn join(&self, mut phrases: Vec<String>, nothing: String) -> String {
        if phrases.is_empty() {
            return nothing;
        }
        let max = self.0.max_items.max(1);
        if phrases.len() > max {
            let more = phrases.len() - max;
            phrases.truncate(max);
            phrases.push(format!("and {more} more"));
        }
        phrases.join("; ")
    }

    /// A text in quotes, cut to `max_text` characters.
    fn quote(&self, s: &str) -> String {
        let max = self.0.max_text.max(1);
        if s.chars().count() <= max {
            return format!("{s:?}");
        }
        let cut: String = s.chars().take(max - 1).collect();
        format!("{:?}", cut + "…")
    }

    fn opt(&self, s: &Option<String>) -> String {
        s.as_deref().map_or_else(|| "none".into(), |s| self.quote(s))
    }

    /// `"Submit"` for an element with text; its role when it has none; containers such as
    /// dialogs and menus keep their role in front: `dialog "Saved"`.
    fn subject(&self, el: &Element) -> String {
        let text = el.visible_text().trim();
        let role = words(&el.role);
        match (is_container(&el.role), text.is_empty()) {
            (_, true) => role,
            (true, false) => format!("{role} {}", self.quote(text)),
            (false, false) => self.quote(text),
        }
    }

    fn titled(&self, kind: &str, title: &str) -> String {
        if title.is_empty() { kind.to_owned() } else { format!("{kind} {}", self.quote(title)) }
    }

    fn window_subject(&self, w: &WindowState) -> String {
        let kind = match (w.is_dialog(), w.role.is_dialog_like()) {
            (true, true) => words(&w.role),
            (true, false) => "dialog".into(),
            (false, _) => "window".into(),
        };
        self.titled(&kind, &w.title)
    }

    fn window_opened(&self, w: &WindowState) -> String {
        let verb = if w.is_dialog() { "appeared" } else { "opened" };
        format!("{} {verb}", self.window_subject(w))
    }

    fn window_closed(&self, w: &WindowState) -> String {
        format!("{} closed", self.window_subject(w))
    }

    fn window_changed(&self, c: &WindowChange) -> String {
        let (a, b) = (&c.before, &c.after);
        let mut parts = Vec::new();
        if a.title != b.title {
            parts.push(format!("now titled {}", self.quote(&b.title)));
        }
        if a.active != b.active {
            parts.push(if b.active { "became active" } else { "no longer active" }.to_owned());
        }
        if a.modal != b.modal {
            parts.push(if b.modal { "now modal" } else { "no longer modal" }.to_owned());
        }
        if a.role != b.role {
            parts.push(format!("role {} -> {}", words(&a.role), words(&b.role)));
        }
        if a.bounds != b.bounds {
            parts.push(self.bounds(a.bounds, b.bounds));
        }
        format!("{} {}", self.window_subject(a), parts.join(", "))
    }

    fn appeared(&self, el: &Element, texts: &[String]) -> String {
        let subject = self.subject(el);
        if el.visible_text().trim().is_empty() && !texts.is_empty() {
            let texts: Vec<_> = texts.iter().map(|t| self.quote(t)).collect();
            return format!("{subject} appeared with {}", texts.join(", "));
        }
        format!("{subject} appeared")
    }

    fn gone(&self, el: &Element) -> String {
        let verb = if el.role.is_dialog_like() { "closed" } else { "gone" };
        format!("{} {verb}", self.subject(el))
    }

    fn changed(&self, role: &Role, name: &str, changes: &[FieldChange]) -> String {
        let name = changes
            .iter()
            .find_map(|f| match f {
                FieldChange::Name { old, .. } => Some(old.as_str()),
                _ => None,
            })
            .unwrap_or(name);
        let subject = match (is_container(role), name.trim()) {
            (_, "") => words(role),
            (true, name) => format!("{} {}", words(role), self.quote(name)),
            (false, name) => self.quote(name),
        };
        let parts: Vec<_> = changes.iter().map(|f| self.field(f)).collect();
        format!("{subject} {}", parts.join(", "))
    }

    fn field(&self, f: &FieldChange) -> String {
        match f {
            FieldChange::Role { old, new } => format!("role {} -> {}", words(old), words(new)),
            FieldChange::Name { new, .. } => format!("renamed {}", self.quote(new)),
            FieldChange::Description { old, new } => {
                format!("description {} -> {}", self.quote(old), self.quote(new))
            }
            FieldChange::Text { old, new } => format!("text {} -> {}", self.opt(old), self.opt(new)),
            FieldChange::Value { old, new } => format!("value {} -> {}", self.opt(old), self.opt(new)),
            FieldChange::StateAdded(s) => state_words(*s).0.to_owned(),
            FieldChange::StateRemoved(s) => state_words(*s).1.to_owned(),
            FieldChange::Bounds { old, new } => self.bounds(*old, *new),
            FieldChange::Actions { old, new } => format!("actions [{}] -> [{}]", old.join(", "), new.join(", ")),
            FieldChange::ChildCount { old, new } => format!("children {old} -> {new}"),
            FieldChange::Parent { .. } => "moved to another container".to_owned(),
        }
    }

    fn bounds<S: deft_types::CoordSpace>(
        &self,
        old: Option<deft_types::Rect<S>>,
        new: Option<deft_types::Rect<S>>,
    ) -> String {
        match (old, new) {
            (None, Some(_)) => "now on screen".into(),
            (Some(_), None) => "off screen".into(),
            (Some(a), Some(b)) if (a.w, a.h) == (b.w, b.h) => {
                let dx = i64::from(b.x) - i64::from(a.x);
                let dy = i64::from(b.y) - i64::from(a.y);
                format!("moved by ({dx:+}, {dy:+})")
            }
            (Some(a), Some(b)) if (a.x, a.y) == (b.x, b.y) => {
                format!("resized {}x{} -> {}x{}", a.w, a.h, b.w, b.h)
            }
            (Some(_), Some(b)) => format!("moved to {b}"),
            (None, None) => "bounds unchanged".into(),
        }
    }

    fn pixels(&self, regions: &[RegionChange]) -> Option<String> {
        match regions {
            [] => None,
            [one] => Some(format!("pixels changed in {}", one.rect)),
            many => Some(format!("pixels changed in {} regions", many.len())),
        }
    }
}

/// A role as words: `push_button` -> `push button`.
fn words(role: &Role) -> String {
    role.as_str().replace('_', " ")
}

/// Roles named in front of their title, because the kind of container is the news.
fn is_container(role: &Role) -> bool {
    role.is_dialog_like()
        || matches!(
            role.as_str(),
            "frame" | "window" | "menu" | "popup_menu" | "tool_tip" | "notification" | "info_bar"
        )
}

/// How a state appearing and going away reads.
fn state_words(s: State) -> (&'static str, &'static str) {
    match s {
        State::Enabled => ("enabled", "disabled"),
        State::Showing => ("shown", "hidden"),
        State::Visible => ("visible", "invisible"),
        State::Focused => ("focused", "unfocused"),
        State::Focusable => ("focusable", "not focusable"),
        State::Selected => ("selected", "deselected"),
        State::Checked => ("checked", "unchecked"),
        State::Pressed => ("pressed", "released"),
        State::Armed => ("armed", "disarmed"),
        State::Expanded => ("expanded", "collapsed"),
        State::Expandable => ("expandable", "not expandable"),
        State::Busy => ("busy", "no longer busy"),
        State::Editable => ("editable", "read-only"),
        State::SingleLine => ("single-line", "multi-line"),
        State::Modal => ("modal", "not modal"),
        State::Active => ("active", "inactive"),
        State::Secret => ("secret", "no longer secret"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::diff;
    use crate::snapshot::Snapshot;
    use crate::test_support::{el, id};

    #[test]
    fn long_text_is_cut() {
        let r = Renderer(&RenderConfig { max_items: 6, max_text: 5 });
        assert_eq!(r.quote("abcdef"), "\"abcd…\"");
        assert_eq!(r.quote("abcde"), "\"abcde\"");
        assert_eq!(r.quote("a\"b"), "\"a\\\"b\"");
    }

    #[test]
    fn diff_renders_every_change() {
        let mut field = el("f", "text", "Name");
        field.text = Some(String::new());
        let before = Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), el("s", "push_button", "Submit"))
            .child(&id("w"), field.clone())
            .build()
            .unwrap();
        field.text = Some("John".into());
        let after = Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), field)
            .window(WindowState::new("d", "Saved", "dialog"))
            .build()
            .unwrap();
        assert_eq!(
            diff(&before, &after).to_string(),
            r#"dialog "Saved" appeared; "Submit" gone; "Name" text "" -> "John""#
        );
        assert_eq!(diff(&after, &after).to_string(), "no change");
    }

    #[test]
    fn many_changes_are_summed_up() {
        let before = Snapshot::builder().root(el("w", "frame", "")).build().unwrap();
        let mut b = Snapshot::builder().root(el("w", "frame", ""));
        for i in 0..10 {
            b = b.child(&id("w"), el(&format!("i{i}"), "list_item", &format!("Item {i}")));
        }
        let cfg = RenderConfig { max_items: 2, max_text: 40 };
        assert_eq!(
            render_diff(&diff(&before, &b.build().unwrap()), &cfg),
            r#""Item 0" appeared; "Item 1" appeared; and 8 more"#
        );
    }
}
