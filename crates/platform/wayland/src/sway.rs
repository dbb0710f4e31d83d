//! sway's IPC: its windows (each view's pid, app id, title and where its content is on the
//! output layout), which Wayland itself never tells a client, and focusing one.
//!
//! The i3 IPC protocol: `i3-ipc`, a payload length and a message type (native-endian
//! u32s), then the payload; the reply has the same header and a JSON body.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::views::View;

/// Why sway's IPC could not be read.
#[derive(Debug)]
pub struct SwayError(pub String);

impl std::fmt::Display for SwayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sway's IPC: {}", self.0)
    }
}

impl std::error::Error for SwayError {}

/// sway's IPC socket for the compositor listening at `wayland_socket`: `SWAYSOCK` when set
/// (sway sets it for what it starts), else the one `sway-ipc.*.sock` in the same directory
/// (sway puts both in its runtime directory). `None` when there is none, or several.
pub fn ipc_socket(wayland_socket: &Path) -> Option<PathBuf> {
    if let Some(s) = std::env::var_os("SWAYSOCK").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(s));
    }
    let dir = wayland_socket.parent()?;
    let mut found = std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).filter(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        name.starts_with("sway-ipc.") && name.ends_with(".sock")
    });
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// How long sway may take to answer: it answers from memory.
const IPC_TIME: Duration = Duration::from_secs(2);

const RUN_COMMAND: u32 = 0;
const GET_TREE: u32 = 4;

/// Sends one message and returns the reply's body.
#[cfg(unix)]
fn ask(ipc: &Path, kind: u32, payload: &[u8]) -> Result<Vec<u8>, SwayError> {
    let fail = |what: &str, e: std::io::Error| SwayError(format!("{what} {}: {e}", ipc.display()));
    let mut s = std::os::unix::net::UnixStream::connect(ipc).map_err(|e| fail("cannot connect to", e))?;
    s.set_read_timeout(Some(IPC_TIME)).map_err(|e| fail("cannot set a timeout on", e))?;
    let mut msg = b"i3-ipc".to_vec();
    msg.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
    msg.extend_from_slice(&kind.to_ne_bytes());
    msg.extend_from_slice(payload);
    s.write_all(&msg).map_err(|e| fail("cannot write to", e))?;
    let mut header = [0u8; 14];
    s.read_exact(&mut header).map_err(|e| fail("no answer from", e))?;
    if &header[..6] != b"i3-ipc" {
        return Err(SwayError(format!("{} does not speak sway's IPC", ipc.display())));
    }
    let len = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(|e| fail("a short answer from", e))?;
    Ok(body)
}

#[cfg(not(unix))]
fn ask(ipc: &Path, _kind: u32, _payload: &[u8]) -> Result<Vec<u8>, SwayError> {
    Err(SwayError(format!("{}: sway runs on Unix systems only", ipc.display())))
}

/// Every window sway shows, tiled ones first, then floating ones (which sway draws above
/// them), each in tree order.
pub fn windows(ipc: &Path) -> Result<Vec<View>, SwayError> {
    let body = ask(ipc, GET_TREE, b"")?;
    parse_tree(&body).map_err(SwayError)
}

/// The output layout's size: the tree's root rectangle (every output, from the layout's
/// origin), which absolute pointer positions are fractions of.
pub fn layout(ipc: &Path) -> Result<(u32, u32), SwayError> {
    let body = ask(ipc, GET_TREE, b"")?;
    let root: Node = serde_json::from_slice(&body).map_err(|e| SwayError(format!("an unreadable tree: {e}")))?;
    let r = root.rect;
    let width = u32::try_from(r.x).unwrap_or(0).saturating_add(r.width);
    let height = u32::try_from(r.y).unwrap_or(0).saturating_add(r.height);
    if width == 0 || height == 0 {
        return Err(SwayError("the output layout is empty: no output is enabled".into()));
    }
    Ok((width, height))
}

/// Gives window `id` the focus (sway raises a floating window it focuses).
pub fn focus(ipc: &Path, id: u64) -> Result<(), SwayError> {
    let body = ask(ipc, RUN_COMMAND, format!("[con_id={id}] focus").as_bytes())?;
    let replies: Vec<CommandReply> =
        serde_json::from_slice(&body).map_err(|e| SwayError(format!("an unreadable reply: {e}")))?;
    match replies.into_iter().find(|r| !r.success) {
        None => Ok(()),
        Some(r) => Err(SwayError(r.error.unwrap_or_else(|| "the focus command failed".into()))),
    }
}

#[derive(Deserialize)]
struct CommandReply {
    success: bool,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Node {
    id: u64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    app_id: Option<String>,
    #[serde(default)]
    window_properties: Option<WindowProperties>,
    rect: Rect,
    #[serde(default)]
    window_rect: Option<Rect>,
    #[serde(default)]
    focused: bool,
    #[serde(default)]
    visible: Option<bool>,
    #[serde(default)]
    nodes: Vec<Node>,
    #[serde(default)]
    floating_nodes: Vec<Node>,
}

#[derive(Deserialize)]
struct WindowProperties {
    class: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
struct Rect {
    x: i32,
    y: i32,
    width: u32,
    height: u32,
}

/// The views of a `get_tree` reply: the nodes with a client (a pid), tiled before floating.
pub(crate) fn parse_tree(json: &[u8]) -> Result<Vec<View>, String> {
    let root: Node = serde_json::from_slice(json).map_err(|e| format!("an unreadable tree: {e}"))?;
    let (mut tiled, mut floating) = (Vec::new(), Vec::new());
    collect(&root, false, &mut tiled, &mut floating);
    tiled.extend(floating);
    Ok(tiled)
}

fn collect(node: &Node, floating: bool, tiled: &mut Vec<View>, floats: &mut Vec<View>) {
    if node.pid.is_some() {
        let inner = node.window_rect.unwrap_or(Rect { x: 0, y: 0, width: node.rect.width, height: node.rect.height });
        let window = View {
            id: node.id,
            pid: node.pid,
            app_id: node.app_id.clone().or_else(|| node.window_properties.as_ref().and_then(|p| p.class.clone())),
            title: node.name.clone().unwrap_or_default(),
            content: (node.rect.x + inner.x, node.rect.y + inner.y, inner.width, inner.height),
            focused: node.focused,
            visible: node.visible.unwrap_or(true),
            covered: false,
            restorable: false,
        };
        if floating { floats.push(window) } else { tiled.push(window) }
    }
    for child in &node.nodes {
        collect(child, floating, tiled, floats);
    }
    for child in &node.floating_nodes {
        collect(child, true, tiled, floats);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree sway 1.7 gave with the GTK 3 fixture as a native Wayland client, floating
    /// at 238,100 with a 2-pixel border.
    const FIXTURE_TREE: &[u8] = include_bytes!("sway_tree.json");

    #[test]
    fn a_view_s_content_is_its_rect_plus_its_window_rect() {
        let windows = parse_tree(FIXTURE_TREE).unwrap();
        assert_eq!(windows.len(), 1, "{windows:?}");
        let w = &windows[0];
        assert_eq!((w.title.as_str(), w.app_id.as_deref()), ("Deft Fixture", Some("deft-fixture")));
        assert_eq!(w.content, (240, 100, 800, 600));
        assert!(w.focused && w.visible);
        assert_eq!(w.pid, Some(30126));
    }

    #[test]
    fn what_is_not_a_tree_is_an_error() {
        assert!(parse_tree(b"{}").unwrap_err().contains("unreadable tree"));
        assert!(windows(Path::new("/nonexistent/sway-ipc.sock")).unwrap_err().to_string().contains("cannot connect"));
    }
}
