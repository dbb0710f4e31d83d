//! Whether an input method stands between the keyboard and the applications of a display.
//!
//! An input method (IBus, Fcitx, any XIM server) takes key events from the application
//! that received them and hands text back later, over a connection of its own: a key has
//! reached the field only once that second round trip came back. So a round trip through
//! the application's X event queue (the [`crate::ping`]) says nothing about where a key
//! is. The input methods of an X display register themselves on the root window's
//! `XIM_SERVERS` (ICCCM's XIM convention: IBus with `--xim`, as GNOME starts it; Fcitx);
//! the environment names the one toolkits load in-process (`GTK_IM_MODULE`,
//! `QT_IM_MODULE`, `XMODIFIERS`).

use x11rb::connection::Connection;
use x11rb::errors::ReplyOrIdError;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window};

/// The input method servers registered on `root`'s `XIM_SERVERS` (`@server=ibus`), in
/// order; empty when none is.
pub fn xim_servers(conn: &impl Connection, root: Window) -> Result<Vec<String>, ReplyOrIdError> {
    let atom = conn.intern_atom(true, b"XIM_SERVERS")?.reply()?.atom;
    if atom == 0 {
        return Ok(Vec::new());
    }
    let reply = conn.get_property(false, root, atom, AtomEnum::ATOM, 0, 64)?.reply()?;
    let Some(atoms) = reply.value32() else { return Ok(Vec::new()) };
    let cookies = atoms.map(|a| conn.get_atom_name(a)).collect::<Result<Vec<_>, _>>()?;
    let mut names = Vec::new();
    for cookie in cookies {
        names.push(String::from_utf8_lossy(&cookie.reply()?.name).into_owned());
    }
    Ok(names)
}

/// The input method the environment names for toolkits to load (`GTK_IM_MODULE=ibus`,
/// `QT_IM_MODULE=fcitx`, `XMODIFIERS=@im=ibus`), as `VARIABLE=value`; `None` when each is
/// unset or names none (GTK's built-in `simple` composer is no input method).
pub fn input_method_in_env(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    const NONE: [&str; 6] = ["", "none", "simple", "gtk-im-context-simple", "@im=none", "@im="];
    ["GTK_IM_MODULE", "QT_IM_MODULE", "XMODIFIERS"].into_iter().find_map(|name| {
        let value = var(name)?;
        (!NONE.contains(&value.trim())).then(|| format!("{name}={value}"))
    })
}

#[cfg(test)]
mod tests {
    use super::input_method_in_env;

    #[test]
    fn the_environment_names_an_input_method_or_none() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_string())
        };
        assert_eq!(input_method_in_env(env(&[])), None);
        assert_eq!(input_method_in_env(env(&[("GTK_IM_MODULE", "simple"), ("XMODIFIERS", "@im=none")])), None);
        assert_eq!(input_method_in_env(env(&[("GTK_IM_MODULE", "ibus")])).as_deref(), Some("GTK_IM_MODULE=ibus"));
        assert_eq!(input_method_in_env(env(&[("XMODIFIERS", "@im=fcitx")])).as_deref(), Some("XMODIFIERS=@im=fcitx"));
    }
}
