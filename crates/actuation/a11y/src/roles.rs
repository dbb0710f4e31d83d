//! The role vocabulary: every role name Deft knows, so that a selector naming a role no
//! element can have (`role=push_buton`) is refused at once with the closest names, instead
//! of waiting for it to appear.

use deft_types::Role;

/// AT-SPI's role names in its own numbering (`AtspiRole`, as libatspi spells them, in snake
/// case): the vocabulary Deft speaks, and what the AT-SPI backend indexes by role number.
/// Other platforms' backends map their roles onto these names.
pub const ATSPI_ROLES: [&str; 131] = [
    "invalid",
    "accelerator_label",
    "alert",
    "animation",
    "arrow",
    "calendar",
    "canvas",
    "check_box",
    "check_menu_item",
    "color_chooser",
    "column_header",
    "combo_box",
    "date_editor",
    "desktop_icon",
    "desktop_frame",
    "dial",
    "dialog",
    "directory_pane",
    "drawing_area",
    "file_chooser",
    "filler",
    "focus_traversable",
    "font_chooser",
    "frame",
    "glass_pane",
    "html_container",
    "icon",
    "image",
    "internal_frame",
    "label",
    "layered_pane",
    "list",
    "list_item",
    "menu",
    "menu_bar",
    "menu_item",
    "option_pane",
    "page_tab",
    "page_tab_list",
    "panel",
    "password_text",
    "popup_menu",
    "progress_bar",
    "push_button",
    "radio_button",
    "radio_menu_item",
    "root_pane",
    "row_header",
    "scroll_bar",
    "scroll_pane",
    "separator",
    "slider",
    "spin_button",
    "split_pane",
    "status_bar",
    "table",
    "table_cell",
    "table_column_header",
    "table_row_header",
    "tearoff_menu_item",
    "terminal",
    "text",
    "toggle_button",
    "tool_bar",
    "tool_tip",
    "tree",
    "tree_table",
    "unknown",
    "viewport",
    "window",
    "extended",
    "header",
    "footer",
    "paragraph",
    "ruler",
    "application",
    "autocomplete",
    "editbar",
    "embedded",
    "entry",
    "chart",
    "caption",
    "document_frame",
    "heading",
    "page",
    "section",
    "redundant_object",
    "form",
    "link",
    "input_method_window",
    "table_row",
    "tree_item",
    "document_spreadsheet",
    "document_presentation",
    "document_text",
    "document_web",
    "document_email",
    "comment",
    "list_box",
    "grouping",
    "image_map",
    "notification",
    "info_bar",
    "level_bar",
    "title_bar",
    "block_quote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "rating",
    "timer",
    "static",
    "math_fraction",
    "math_root",
    "subscript",
    "superscript",
    "description_list",
    "description_term",
    "description_value",
    "footnote",
    "content_deletion",
    "content_insertion",
    "mark",
    "suggestion",
    "push_button_menu",
    "switch",
];

/// Roles Deft gives elements itself, beyond AT-SPI's (`atspi/toolkit.rs`: GTK 4's spinner).
pub const DEFT_ROLES: [&str; 1] = ["spinner"];

/// Whether some element can have `role`.
pub fn is_known(role: &Role) -> bool {
    ATSPI_ROLES.iter().chain(&DEFT_ROLES).any(|r| *r == role.as_str())
}

/// Why `role` names no role, with the closest names, or `None` when it is one.
pub fn unknown(role: &Role) -> Option<String> {
    if is_known(role) {
        return None;
    }
    let mut near: Vec<(f64, &str)> = ATSPI_ROLES
        .iter()
        .chain(&DEFT_ROLES)
        .filter(|r| !matches!(**r, "invalid" | "extended"))
        .map(|r| (strsim::jaro_winkler(r, role.as_str()), *r))
        .collect();
    near.sort_by(|a, b| b.0.total_cmp(&a.0));
    let close: Vec<&str> = near.iter().take(3).filter(|(s, _)| *s > 0.7).map(|(_, r)| *r).collect();
    let hint = match close.as_slice() {
        [] => "see `agent-cli read` for the roles of what is on screen".to_string(),
        names => format!("did you mean {}?", names.join(", ")),
    };
    Some(format!("`{role}` is not a role; {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_in_any_spelling_are_known_and_typos_are_not() {
        assert!(is_known(&Role::new("Push Button")) && is_known(&Role::new("spinner")));
        let why = unknown(&Role::new("push_buton")).unwrap();
        assert!(why.contains("did you mean push_button"), "{why}");
        assert!(unknown(&Role::new("zzzz")).unwrap().contains("agent-cli read"));
    }
}
