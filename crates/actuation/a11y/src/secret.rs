//! Which fields hold secrets, decided where elements are made, so their text never leaves
//! the backend: a password field always; any text field whose accessible name the user's
//! policy lists (an API token, a PIN). Backend-independent: every backend calls [`mark`].

use deft_types::{Element, State};

/// The mask character a secret's text is read as, one per character (what GTK shows
/// accessibility for a password field, so a length can still be checked).
pub const MASK_CHAR: char = '●';

/// Marks `e` [`State::Secret`] when it holds a secret, and for a field only the policy
/// names, replaces its text and value with one [`MASK_CHAR`] per character (a password
/// field's text is read as its count of characters in the first place: the AT-SPI backend
/// never asks for its content).
pub fn mark(e: &mut Element, secret_fields: &[String]) {
    if e.role.as_str() == "password_text" {
        e.states.insert(State::Secret);
        return;
    }
    if !holds_text(e) || !named(&e.name, secret_fields) {
        return;
    }
    e.states.insert(State::Secret);
    let masked = |t: &String| MASK_CHAR.to_string().repeat(t.chars().count());
    e.text = e.text.as_ref().map(masked);
    e.value = e.value.as_ref().map(masked);
}

/// A field a person types into: editable text, an entry, a spin button or an editable
/// combo box. Labels and buttons that merely show the same name are not secrets.
fn holds_text(e: &Element) -> bool {
    e.has(State::Editable) || matches!(e.role.as_str(), "text" | "entry" | "spin_button")
}

fn named(name: &str, secret_fields: &[String]) -> bool {
    let name = name.trim();
    !name.is_empty() && secret_fields.iter().any(|f| f.trim().eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::element;

    #[test]
    fn password_fields_and_named_fields_are_secret() {
        let policy = vec!["API token".to_string()];
        let mut pw = element("a|1", "password_text", "Password");
        pw.text = Some("●●●".into());
        mark(&mut pw, &policy);
        assert!(pw.has(State::Secret) && pw.is_secret());

        let mut token = element("a|2", "text", "Api Token ");
        token.states.insert(State::Editable);
        token.text = Some("sk-live-42".into());
        mark(&mut token, &policy);
        assert!(token.is_secret());
        assert_eq!(token.text.as_deref(), Some("●●●●●●●●●●"), "one mask character per character");
        assert_eq!(token.visible_text(), "Api Token ");

        // A label with the same name, and a field the policy does not name, stay as they are.
        let mut label = element("a|3", "label", "API token");
        label.text = Some("API token".into());
        mark(&mut label, &policy);
        assert!(!label.is_secret() && label.text.as_deref() == Some("API token"));
        let mut name = element("a|4", "text", "Name");
        name.text = Some("Ada".into());
        mark(&mut name, &policy);
        assert!(!name.is_secret() && name.text.as_deref() == Some("Ada"));
    }
}
