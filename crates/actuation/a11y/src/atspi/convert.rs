//! AT-SPI wire values to Deft's vocabulary: roles, states, interfaces, bounds, relations.

use deft_types::{Logical, Rect, Role, State, States};

/// The role named by AT-SPI role number `n`.
pub(crate) fn role(n: u32) -> Role {
    Role(crate::roles::ATSPI_ROLES.get(n as usize).copied().unwrap_or("unknown").to_string())
}

/// AT-SPI state numbers (`AtspiStateType`) Deft reads.
pub(crate) mod st {
    pub const ACTIVE: u32 = 1;
    pub const ARMED: u32 = 2;
    pub const BUSY: u32 = 3;
    pub const CHECKED: u32 = 4;
    pub const DEFUNCT: u32 = 6;
    pub const EDITABLE: u32 = 7;
    pub const ENABLED: u32 = 8;
    pub const EXPANDABLE: u32 = 9;
    pub const EXPANDED: u32 = 10;
    pub const FOCUSABLE: u32 = 11;
    pub const FOCUSED: u32 = 12;
    pub const MODAL: u32 = 16;
    pub const PRESSED: u32 = 20;
    pub const SELECTED: u32 = 23;
    pub const SENSITIVE: u32 = 24;
    pub const SHOWING: u32 = 25;
    pub const SINGLE_LINE: u32 = 26;
    pub const VISIBLE: u32 = 30;
}

/// An AT-SPI state set: the `au` of the wire as one 64-bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bits(pub u64);

impl Bits {
    pub fn from_words(words: &[u32]) -> Bits {
        let lo = u64::from(words.first().copied().unwrap_or(0));
        let hi = u64::from(words.get(1).copied().unwrap_or(0));
        Bits(lo | (hi << 32))
    }

    pub fn has(self, state: u32) -> bool {
        state < 64 && self.0 & (1 << state) != 0
    }

    /// Deft's states. Enabled is AT-SPI `enabled` or `sensitive`: a greyed-out widget lacks
    /// both on every toolkit seen, but GTK 4.8 never sets `enabled` and LibreOffice's
    /// document and paragraphs (VCL) never set `sensitive` (docs/real-apps.md).
    pub fn states(self) -> States {
        let mut out = States::new();
        if self.has(st::ENABLED) || self.has(st::SENSITIVE) {
            out.insert(State::Enabled);
        }
        let map = [
            (st::SHOWING, State::Showing),
            (st::VISIBLE, State::Visible),
            (st::FOCUSED, State::Focused),
            (st::FOCUSABLE, State::Focusable),
            (st::SELECTED, State::Selected),
            (st::CHECKED, State::Checked),
            (st::PRESSED, State::Pressed),
            (st::ARMED, State::Armed),
            (st::EXPANDED, State::Expanded),
            (st::EXPANDABLE, State::Expandable),
            (st::BUSY, State::Busy),
            (st::EDITABLE, State::Editable),
            (st::SINGLE_LINE, State::SingleLine),
            (st::MODAL, State::Modal),
            (st::ACTIVE, State::Active),
        ];
        out.extend(map.iter().filter(|(bit, _)| self.has(*bit)).map(|(_, s)| *s));
        out
    }
}

/// The Deft state an AT-SPI state name (`checked`, `single-line`, ...) stands for.
pub(crate) fn state_by_name(name: &str) -> Option<State> {
    Some(match name.replace('_', "-").as_str() {
        "enabled" | "sensitive" => State::Enabled,
        "showing" => State::Showing,
        "visible" => State::Visible,
        "focused" => State::Focused,
        "focusable" => State::Focusable,
        "selected" => State::Selected,
        "checked" => State::Checked,
        "pressed" => State::Pressed,
        "armed" => State::Armed,
        "expanded" => State::Expanded,
        "expandable" => State::Expandable,
        "busy" => State::Busy,
        "editable" => State::Editable,
        "single-line" => State::SingleLine,
        "modal" => State::Modal,
        "active" => State::Active,
        _ => return None,
    })
}

/// The AT-SPI interfaces Deft reads, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ifaces(u16);

impl Ifaces {
    pub const ACTION: Ifaces = Ifaces(1);
    pub const COMPONENT: Ifaces = Ifaces(1 << 1);
    pub const TEXT: Ifaces = Ifaces(1 << 2);
    pub const EDITABLE_TEXT: Ifaces = Ifaces(1 << 3);
    pub const VALUE: Ifaces = Ifaces(1 << 4);
    pub const SELECTION: Ifaces = Ifaces(1 << 5);
    pub const TABLE: Ifaces = Ifaces(1 << 6);

    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Ifaces {
        let mut bits = 0;
        for n in names {
            bits |= match n.strip_prefix("org.a11y.atspi.").unwrap_or(n) {
                "Action" => Ifaces::ACTION.0,
                "Component" => Ifaces::COMPONENT.0,
                "Text" => Ifaces::TEXT.0,
                "EditableText" => Ifaces::EDITABLE_TEXT.0,
                "Value" => Ifaces::VALUE.0,
                "Selection" => Ifaces::SELECTION.0,
                "Table" => Ifaces::TABLE.0,
                _ => 0,
            };
        }
        Ifaces(bits)
    }

    pub fn has(self, other: Ifaces) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Screen extents to bounds. GTK reports hidden widgets at `(i32::MIN, i32::MIN, 1, 1)`,
/// and empty extents cover nothing: both are "not on screen".
pub(crate) fn bounds((x, y, w, h): (i32, i32, i32, i32)) -> Option<Rect<Logical>> {
    if x == i32::MIN || y == i32::MIN || w <= 0 || h <= 0 {
        return None;
    }
    Some(Rect::new(x, y, w as u32, h as u32))
}

/// AT-SPI relation type numbers to snake-case names.
pub(crate) fn relation(n: u32) -> String {
    const NAMES: [&str; 23] = [
        "null",
        "label_for",
        "labelled_by",
        "controller_for",
        "controlled_by",
        "member_of",
        "tooltip_for",
        "node_child_of",
        "node_parent_of",
        "extended",
        "flows_to",
        "flows_from",
        "subwindow_of",
        "embeds",
        "embedded_by",
        "popup_for",
        "parent_window_of",
        "description_for",
        "described_by",
        "details",
        "details_for",
        "error_message",
        "error_for",
    ];
    NAMES.get(n as usize).map_or_else(|| format!("relation_{n}"), |s| s.to_string())
}

/// Whether an app's locale names its actions in English, so that a localized action name
/// is the action's name up to case (GTK: "Click" for `click`).
pub(crate) fn english(locale: &str) -> bool {
    locale.is_empty() || locale == "C" || locale.starts_with("C.") || locale == "POSIX" || locale.starts_with("en")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_states_bounds() {
        assert_eq!(role(43).as_str(), "push_button");
        assert_eq!(role(61).as_str(), "text");
        assert_eq!(role(40).as_str(), "password_text");
        assert_eq!(role(999).as_str(), "unknown");
        // A GTK3 button and entry, as GetItems reports them.
        let button = Bits::from_words(&[0x4300_0900, 0]).states();
        assert!(button.contains(&State::Enabled) && button.contains(&State::Showing));
        assert!(button.contains(&State::Visible) && button.contains(&State::Focusable));
        let entry = Bits::from_words(&[0x4700_0980, 0]).states();
        assert!(entry.contains(&State::Editable) && entry.contains(&State::SingleLine));
        // LibreOffice Writer's focused paragraph (editable, enabled, focusable, focused,
        // showing, visible, no sensitive) accepts typing; its greyed-out Cut button
        // (focusable, showing, visible) does not.
        let paragraph = Bits::from_words(&[(1 << 7) | (1 << 8) | (1 << 11) | (1 << 12) | (1 << 25) | (1 << 30), 0]);
        assert!(paragraph.states().contains(&State::Enabled) && paragraph.states().contains(&State::Focused));
        let cut = Bits::from_words(&[(1 << 11) | (1 << 25) | (1 << 30), 0]);
        assert!(!cut.states().contains(&State::Enabled) && cut.states().contains(&State::Showing));
        assert_eq!(bounds((i32::MIN, i32::MIN, 1, 1)), None);
        assert_eq!(bounds((10, 20, 0, 5)), None);
        assert_eq!(bounds((10, 20, 30, 5)), Some(Rect::new(10, 20, 30, 5)));
        assert_eq!(state_by_name("single-line"), Some(State::SingleLine));
        assert_eq!(relation(2), "labelled_by");
        let i = Ifaces::from_names(["org.a11y.atspi.Action", "org.a11y.atspi.Text", "org.a11y.atspi.Other"]);
        assert!(i.has(Ifaces::ACTION) && i.has(Ifaces::TEXT) && !i.has(Ifaces::VALUE));
        assert!(english("C.UTF-8") && english("en_GB.UTF-8") && !english("de_DE.UTF-8"));
    }
}
