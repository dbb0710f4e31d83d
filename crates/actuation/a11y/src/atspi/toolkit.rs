//! Per-toolkit normalisation, in one place: what each toolkit's raw states, action names and
//! extents mean in Deft's vocabulary, so that nothing above the backend needs to know which
//! toolkit it talks to.
//!
//! The raw values each rule is written for were recorded from the real applications of the
//! corpus (`docs/real-apps.md`); the unit tests below replay them.

use deft_types::{Logical, Rect, Role, State, States};

use super::convert::{Bits, st};

/// The toolkit an application is built with, from its `Application.ToolkitName` and
/// `Version` (read once per application).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Toolkit {
    /// GTK 3: ATK through atk-bridge. Reports `gtk` and `3.24.38`.
    Gtk3,
    /// GTK 2: ATK through GAIL and atk-bridge. Reports `GAIL` and `2.24.33`; as GTK 3 but
    /// for its menus (see [`Toolkit::may_show`]).
    Gtk2,
    /// GTK 4, its own AT-SPI implementation over GDBus. Reports `GTK` and `4.8.3`.
    Gtk4,
    /// Qt 5 or 6, its own bridge over QtDBus. Reports `Qt` and `5.15.8` / `6.4.2`.
    Qt,
    /// Chromium (and Electron apps): ATK through atk-bridge. Reports `Chromium`.
    Chromium,
    /// Firefox: ATK through atk-bridge. Reports `Gecko`.
    Gecko,
    /// Anything else, or an application that does not say.
    #[default]
    Other,
}

impl Toolkit {
    /// The toolkit named by `Application.ToolkitName` and `Application.Version`.
    pub fn from_name(name: &str, version: &str) -> Toolkit {
        let major = version.split('.').next().and_then(|m| m.trim().parse::<u32>().ok());
        match name.trim().to_ascii_lowercase().as_str() {
            "gtk" | "gtk+" | "gail" => match major {
                Some(4..) => Toolkit::Gtk4,
                Some(2) => Toolkit::Gtk2,
                _ => Toolkit::Gtk3,
            },
            "qt" => Toolkit::Qt,
            "chromium" | "chrome" | "electron" => Toolkit::Chromium,
            "gecko" | "firefox" | "mozilla" => Toolkit::Gecko,
            _ => Toolkit::Other,
        }
    }

    /// Whether the application answers AT-SPI through atk-bridge (libdbus). Its
    /// `Action.DoAction` replies at once and then runs the action inside the dispatch of
    /// the connection that carried the call: an action that opens a dialog with a nested
    /// main loop (GTK 3's `gtk_dialog_run`) leaves that connection stuck mid-dispatch until
    /// the dialog closes, and any later traffic on it (a call, or closing it) can deadlock
    /// the application for good once a key event has been handled with event listeners
    /// registered (`docs/real-apps.md`, mousepad). So operations go over a connection of
    /// their own, which carries nothing else. Unknown toolkits are treated the same way.
    pub fn acts_inside_dispatch(self) -> bool {
        !matches!(self, Toolkit::Gtk4 | Toolkit::Qt)
    }

    /// Whether a direct (peer-to-peer) socket to the application is safe to use. Chromium
    /// 156 crashes (SIGSEGV in its own code) when a client's direct socket closes while it
    /// handles the keys that client just sent: `agent-cli type --text a` without
    /// `--verify` on a fresh browser, 3 of 3, alive when the same calls go through the bus
    /// daemon (`docs/real-apps.md`, 3). Its calls go through the bus daemon instead.
    pub fn direct_socket_is_safe(self) -> bool {
        self != Toolkit::Chromium
    }

    /// Whether it is known to survive its accessibility client leaving right after sending
    /// it input. GTK 3, GTK 4 and Qt: every campaign before the grace existed ran one
    /// agent-cli process per action, each leaving as soon as its input was sent, with no
    /// app crashed (60 actions per toolkit, docs/BENCHMARKS.md). Chromium crashed that way
    /// (`docs/real-apps.md`, 3); Firefox shares its bridge and an unknown toolkit is
    /// unknown: they get the grace.
    pub fn survives_client_leaving_after_input(self) -> bool {
        matches!(self, Toolkit::Gtk2 | Toolkit::Gtk3 | Toolkit::Gtk4 | Toolkit::Qt)
    }

    /// Whether `EditableText.SetTextContents` sets a field's text. Firefox answers it with
    /// `true` and leaves the field as it was (the web fixture's text fields, by pyatspi:
    /// `tests/e2e/tests/ports.rs`), so a set there is reported not supported and the
    /// caller types instead, rather than taking a success that changed nothing. Its
    /// `InsertText` is held to the same (never seen to work there).
    pub fn sets_text(self) -> bool {
        self != Toolkit::Gecko
    }

    /// The length `EditableText.InsertText` is given with `text`, in the unit the toolkit
    /// reads it in: Qt cuts the text to that many UTF-16 code units (a byte count past
    /// an umlaut would pad it with garbage), atk-bridge and GTK 4 read UTF-8 bytes (a
    /// shorter count would cut it).
    pub fn insert_length(self, text: &str) -> i32 {
        let units = match self {
            Toolkit::Qt => text.encode_utf16().count(),
            _ => text.len(),
        };
        i32::try_from(units).unwrap_or(i32::MAX)
    }

    /// Whether its `GetAccessibleAtPoint` stops above the element drawn at the point:
    /// Firefox's document answers with itself for a point on one of its buttons, so the
    /// hit test goes on down by the children's extents.
    pub fn hit_test_stops_early(self) -> bool {
        self == Toolkit::Gecko
    }

    /// Deft's role for an element of raw role `role` named `name`, with `child_count`
    /// children (-1: not known).
    ///
    /// - GTK 4.8 gives its spinner no role of its own (`filler`) and names it after its
    ///   type, `GtkSpinner`: a spinner, whose turning (GTK 4 reports the turned box: the
    ///   extents move by some 20 px every frame) is activity, not the effect of a click (a
    ///   click on nothing was "verified" by it).
    /// - Qt lists a menu bar's titles, and an entry that opens a submenu, as `menu item`s
    ///   holding their `popup menu`; GTK (3 and 4) and LibreOffice call them `menu`, and the
    ///   executor treats an entry that closes its menu when chosen apart from one that
    ///   opens one. A Qt menu item with children is a `menu` (Qt's only children of a menu
    ///   item are its submenu: FeatherPad's File, and File > Recently Modified).
    pub fn role(self, role: Role, name: &str, child_count: i32) -> Role {
        match (self, role.as_str(), name) {
            (Toolkit::Gtk4, "filler", "GtkSpinner") => Role::new("spinner"),
            (Toolkit::Qt, "menu_item", _) if child_count > 0 => Role::new("menu"),
            _ => role,
        }
    }

    /// An element's name as Deft shows it. Chromium appends its tab hover card's text to
    /// the window's name while the pointer rests on the tab strip ("Deft Fixture" becomes
    /// "Deft Fixture - Memory usage - 24.0 MB" and back): that is not the page's title,
    /// and a click elsewhere would take the rename for its effect. Measured in an English
    /// locale; other locales keep the suffix.
    pub fn name(self, raw: &str) -> &str {
        const HOVER_CARD: &str = " - Memory usage - ";
        match (self, raw.rfind(HOVER_CARD)) {
            (Toolkit::Chromium, Some(at)) if raw[at + HOVER_CARD.len()..].ends_with('B') => &raw[..at],
            _ => raw,
        }
    }

    /// Whether a button says it is held (`armed` on GTK 3, `pressed` on Qt) as soon as the
    /// toolkit handled a press on it (`tests/fixtures/common/press_probe.py`, per toolkit).
    pub fn reports_held_press(self) -> bool {
        matches!(self, Toolkit::Gtk2 | Toolkit::Gtk3 | Toolkit::Qt)
    }

    /// Whether `Text.GetText` needs the real end offset: GTK 4.8 answers `(0, -1)` (libatspi's
    /// "to the end") with an empty string, and `(0, CharacterCount)` with the text.
    pub fn text_needs_length(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// Whether its extents are relative to the element's window rather than the screen,
    /// whatever coordinate type is asked (GTK 4: `src/atspi/placement.rs`).
    pub fn window_relative_extents(self) -> bool {
        self == Toolkit::Gtk4
    }

    /// Whether an element of (Deft's) role `role` with these raw states may be on screen,
    /// so that its extents are worth asking for (and its text, value and actions, by
    /// default).
    ///
    /// GTK 4.8 sets `showing` only on windows; its `visible` is set on every element in
    /// the tree, and an element that is not drawn (another stack page) reports empty
    /// extents. So on GTK 4 extents decide, see [`Toolkit::states`]. GTK 2 never sets
    /// `showing` on a menu's entries, open or closed: their place is read, and whether
    /// their menu is open is the display server's to say (deft-verify's `popup.rs`).
    pub fn may_show(self, bits: Bits, role: &str) -> bool {
        match self {
            Toolkit::Gtk4 => bits.has(st::VISIBLE) || bits.has(st::SHOWING),
            Toolkit::Gtk2 if is_menu_entry(role) => bits.has(st::VISIBLE) || bits.has(st::SHOWING),
            _ => bits.has(st::SHOWING),
        }
    }

    /// Deft's states from the raw state set and the element's bounds (`None` when it has
    /// none or was not asked; `has_component` tells which).
    ///
    /// - Enabled: AT-SPI `enabled` or `sensitive` ([`Bits::states`]): GTK 4.8 never sets
    ///   `enabled`, LibreOffice's document never sets `sensitive`.
    /// - Showing: AT-SPI `showing`. On GTK 4, `visible` with non-empty extents: a widget on
    ///   a hidden stack page is `visible` at `(x, y, 0, 0)`. On Qt, `showing` with non-empty
    ///   extents: Qt leaves `showing` on widgets it hid (a search bar's fields, the fixture's
    ///   "Loading" label once loaded) and reports them at `(0, 0, 0, 0)`.
    pub fn states(self, bits: Bits, bounds: Option<Rect<Logical>>, has_component: bool) -> States {
        let mut out = bits.states();
        if self == Toolkit::Qt && has_component && bounds.is_none() {
            out.remove(&State::Showing);
        }
        if self == Toolkit::Gtk4 {
            let drawn = if has_component { bounds.is_some() } else { bits.has(st::VISIBLE) };
            if bits.has(st::SHOWING) || (bits.has(st::VISIBLE) && drawn) {
                out.insert(State::Showing);
            } else {
                out.remove(&State::Showing);
            }
        }
        out
    }

    /// The action names Deft lists for an element whose actions are `raw` (the toolkit's
    /// real names, lowercased, in index order), and for each the index it invokes.
    ///
    /// Deft's `click` is the action a primary click does. Chromium and Firefox put their
    /// default action first and name it after what it does (`press` for buttons, `jump` for
    /// links, `check` for check boxes, `open` for select boxes, `activate` for text
    /// fields); Qt names it `press` or `toggle`. Those are listed as they are, preceded by
    /// `click` for the same index, so that a caller asking for a click needs no toolkit
    /// knowledge. GTK already names it `click`.
    pub fn actions(self, raw: &[String]) -> Vec<(String, i32)> {
        // An action without a name (one the toolkit could not name) cannot be asked for.
        let mut out: Vec<(String, i32)> =
            raw.iter().enumerate().filter(|(_, n)| !n.is_empty()).map(|(i, n)| (n.clone(), i as i32)).collect();
        if raw.iter().any(|n| n == "click") {
            return out;
        }
        let default = match self {
            Toolkit::Chromium | Toolkit::Gecko => raw
                .first()
                .filter(|n| !n.is_empty() && !matches!(n.as_str(), "showcontextmenu" | "showmenu" | "scrollintoview"))
                .map(|_| 0),
            Toolkit::Qt => ["press", "toggle"].iter().find_map(|want| raw.iter().position(|n| n == want)),
            _ => None,
        };
        if let Some(i) = default {
            out.insert(0, ("click".to_string(), i as i32));
        }
        out
    }

    /// The index of the action Deft calls `wanted` (matched without regard to case) among
    /// an element's `raw` actions, or `None`.
    pub fn action_index(self, raw: &[String], wanted: &str) -> Option<i32> {
        let wanted = wanted.to_lowercase();
        self.actions(raw).into_iter().find(|(n, _)| *n == wanted).map(|(_, i)| i)
    }
}

/// Roles of a menu's entries (a menu bar's titles and submenus are `menu`).
fn is_menu_entry(role: &str) -> bool {
    role.ends_with("menu_item") || role == "menu"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn insert_lengths_in_the_unit_each_toolkit_reads() {
        assert_eq!(Toolkit::Qt.insert_length("Grüße ✓"), 7);
        assert_eq!(Toolkit::Gtk3.insert_length("Grüße ✓"), 11);
        assert_eq!(Toolkit::Gtk4.insert_length("abc"), 3);
    }

    #[test]
    fn a_gtk4_spinner_is_a_spinner() {
        assert_eq!(Toolkit::Gtk4.role(Role::new("filler"), "GtkSpinner", 0).as_str(), "spinner");
        assert_eq!(Toolkit::Gtk4.role(Role::new("filler"), "Other", 0).as_str(), "filler");
        assert_eq!(Toolkit::Gtk3.role(Role::new("filler"), "GtkSpinner", 0).as_str(), "filler");
    }

    #[test]
    fn a_qt_menu_item_that_opens_a_menu_is_a_menu() {
        // FeatherPad: the menu bar's File holds its popup menu; Save As holds nothing.
        assert_eq!(Toolkit::Qt.role(Role::new("menu_item"), "File", 1).as_str(), "menu");
        assert_eq!(Toolkit::Qt.role(Role::new("menu_item"), "Save As", 0).as_str(), "menu_item");
        assert_eq!(Toolkit::Qt.role(Role::new("menu_item"), "Unknown", -1).as_str(), "menu_item");
        assert_eq!(Toolkit::Gtk3.role(Role::new("menu_item"), "Recent", 1).as_str(), "menu_item");
    }

    #[test]
    fn toolkits_are_told_apart_by_name_and_version() {
        // As the corpus applications report them.
        assert_eq!(Toolkit::from_name("gtk", "3.24.38"), Toolkit::Gtk3);
        assert_eq!(Toolkit::from_name("GTK", "4.8.3"), Toolkit::Gtk4);
        assert_eq!(Toolkit::from_name("Qt", "5.15.8"), Toolkit::Qt);
        assert_eq!(Toolkit::from_name("Qt", "6.4.2"), Toolkit::Qt);
        assert_eq!(Toolkit::from_name("Chromium", "1.0"), Toolkit::Chromium);
        assert_eq!(Toolkit::from_name("Gecko", "153.7.0"), Toolkit::Gecko);
        assert_eq!(Toolkit::from_name("", ""), Toolkit::Other);
        assert!(Toolkit::Gtk3.acts_inside_dispatch() && Toolkit::Chromium.acts_inside_dispatch());
        assert!(!Toolkit::Gtk4.acts_inside_dispatch() && !Toolkit::Qt.acts_inside_dispatch());
    }

    #[test]
    fn only_toolkits_seen_surviving_a_client_that_leaves_after_input_skip_the_grace() {
        let safe: Vec<Toolkit> =
            [Toolkit::Gtk3, Toolkit::Gtk4, Toolkit::Qt, Toolkit::Chromium, Toolkit::Gecko, Toolkit::Other]
                .into_iter()
                .filter(|t| t.survives_client_leaving_after_input())
                .collect();
        assert_eq!(safe, [Toolkit::Gtk3, Toolkit::Gtk4, Toolkit::Qt]);
    }

    #[test]
    fn only_firefox_is_known_to_ignore_a_text_set() {
        assert!(!Toolkit::Gecko.sets_text());
        assert!(
            [Toolkit::Gtk3, Toolkit::Gtk4, Toolkit::Qt, Toolkit::Chromium, Toolkit::Other]
                .iter()
                .all(|t| t.sets_text())
        );
    }

    #[test]
    fn chromium_window_names_lose_the_hover_card() {
        assert_eq!(Toolkit::Chromium.name("Deft Fixture - Memory usage - 24.0 MB"), "Deft Fixture");
        assert_eq!(Toolkit::Chromium.name("Deft Fixture"), "Deft Fixture");
        assert_eq!(Toolkit::Gtk3.name("Notes - Memory usage - 1 MB"), "Notes - Memory usage - 1 MB");
    }

    #[test]
    fn qt_showing_without_extents_is_not_showing() {
        let showing = Bits::from_words(&[1 << st::SHOWING]);
        let bounds = Some(Rect::new(10, 20, 30, 40));
        assert!(Toolkit::Qt.states(showing, bounds, true).contains(&State::Showing));
        assert!(!Toolkit::Qt.states(showing, None, true).contains(&State::Showing));
        assert!(Toolkit::Qt.states(showing, None, false).contains(&State::Showing), "no Component: no extents to ask");
        assert!(Toolkit::Gtk3.states(showing, None, true).contains(&State::Showing));
    }

    #[test]
    fn gtk4_sensitive_is_enabled_and_visible_with_extents_is_showing() {
        let bounds = Some(Rect::new(440, 61, 96, 24));
        // gtk4-widget-factory 4.8.3: an enabled button, a disabled one, a button on a hidden
        // stack page (extents (10, 56, 0, 0): no bounds) and the window.
        let enabled = Bits::from_words(&[0x4100_0800, 0]);
        let s = Toolkit::Gtk4.states(enabled, bounds, true);
        assert!(s.contains(&State::Enabled) && s.contains(&State::Showing), "{s:?}");
        let disabled = Bits::from_words(&[0x4000_0800, 0]);
        let s = Toolkit::Gtk4.states(disabled, bounds, true);
        assert!(!s.contains(&State::Enabled) && s.contains(&State::Showing), "{s:?}");
        let s = Toolkit::Gtk4.states(enabled, None, true);
        assert!(s.contains(&State::Enabled) && !s.contains(&State::Showing), "{s:?}");
        let window = Bits::from_words(&[0x4300_0002, 0]);
        let s = Toolkit::Gtk4.states(window, None, true);
        assert!(s.contains(&State::Showing) && s.contains(&State::Active), "{s:?}");
        assert!(Toolkit::Gtk4.may_show(enabled, "push_button") && !Toolkit::Gtk3.may_show(enabled, "push_button"));
        // The same raw bits mean "enabled, not showing" for any other toolkit.
        let s = Toolkit::Gtk3.states(enabled, bounds, true);
        assert!(s.contains(&State::Enabled) && !s.contains(&State::Showing), "{s:?}");
    }

    #[test]
    fn a_gtk2_menu_s_entries_have_their_place_read() {
        // gtk-demo (GTK 2.24.33): File > New is `enabled sensitive visible`, never
        // `showing`, whether its menu is open or not.
        let bits = Bits::from_words(&[(1 << st::ENABLED) | (1 << st::SENSITIVE) | (1 << st::VISIBLE)]);
        assert_eq!(Toolkit::from_name("GAIL", "2.24.33"), Toolkit::Gtk2);
        assert_eq!(Toolkit::from_name("gtk", "3.24.38"), Toolkit::Gtk3);
        assert!(Toolkit::Gtk2.may_show(bits, "menu_item") && Toolkit::Gtk2.may_show(bits, "check_menu_item"));
        assert!(!Toolkit::Gtk2.may_show(bits, "push_button") && !Toolkit::Gtk3.may_show(bits, "menu_item"));
        // Not taken for showing: that is for the display server to say.
        let s = Toolkit::Gtk2.states(bits, Some(Rect::new(74, 335, 175, 21)), true);
        assert!(!s.contains(&State::Showing) && s.contains(&State::Visible), "{s:?}");
    }

    #[test]
    fn other_toolkits_keep_atspi_meanings() {
        // A GTK 3 entry, a Chromium button, a Qt 6 button (all enabled and showing), a Qt 6
        // entry that is showing but not enabled.
        for (tk, words) in [
            (Toolkit::Gtk3, [0x4700_0980, 0]),
            (Toolkit::Chromium, [0x4300_0900, 0x80]),
            (Toolkit::Qt, [0x4300_0100, 0]),
        ] {
            let s = tk.states(Bits::from_words(&words), Some(Rect::new(0, 0, 10, 10)), true);
            assert!(s.contains(&State::Enabled) && s.contains(&State::Showing), "{tk:?}: {s:?}");
        }
        let s = Toolkit::Qt.states(Bits::from_words(&[0x4200_0880, 0]), Some(Rect::new(0, 0, 10, 10)), true);
        assert!(!s.contains(&State::Enabled) && s.contains(&State::Showing), "{s:?}");
    }

    #[test]
    fn default_actions_are_offered_as_click() {
        // Chromium 156 on the web fixture: real names from Action.GetName (its localized
        // names are empty).
        let link = names(&["jump", "showcontextmenu"]);
        assert_eq!(
            Toolkit::Chromium.actions(&link),
            [("click".into(), 0), ("jump".into(), 0), ("showcontextmenu".into(), 1)]
        );
        assert_eq!(Toolkit::Chromium.action_index(&link, "Click"), Some(0));
        assert_eq!(Toolkit::Chromium.action_index(&link, "jump"), Some(0));
        assert_eq!(Toolkit::Chromium.action_index(&link, "showContextMenu"), Some(1));
        for first in ["press", "check", "activate", "open", "dodefault"] {
            let raw = names(&[first, "showcontextmenu"]);
            assert_eq!(Toolkit::Chromium.action_index(&raw, "click"), Some(0), "{first}");
        }
        assert_eq!(Toolkit::Chromium.action_index(&names(&["showcontextmenu"]), "click"), None);
        // Qt: Press, or Toggle for check boxes; SetFocus is not a click.
        let qt = names(&["setfocus", "press"]);
        assert_eq!(Toolkit::Qt.action_index(&qt, "click"), Some(1));
        assert_eq!(Toolkit::Qt.action_index(&names(&["toggle", "setfocus"]), "click"), Some(0));
        assert_eq!(Toolkit::Qt.action_index(&names(&["setfocus"]), "click"), None);
        // GTK names its clicks; nothing is added, and an entry's activate stays activate.
        let gtk = names(&["click"]);
        assert_eq!(Toolkit::Gtk3.actions(&gtk), [("click".into(), 0)]);
        assert_eq!(Toolkit::Gtk3.action_index(&names(&["activate"]), "click"), None);
        assert_eq!(Toolkit::Gtk4.action_index(&names(&["activate"]), "activate"), Some(0));
        // A name that could not be read is not listed, and the others keep their indices.
        assert_eq!(Toolkit::Gtk4.actions(&names(&["", "menu.popup"])), [("menu.popup".into(), 1)]);
    }
}
