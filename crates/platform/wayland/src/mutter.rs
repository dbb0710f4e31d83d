//! GNOME's mutter: input through its RemoteDesktop D-Bus API (`org.gnome.Mutter.RemoteDesktop`),
//! the API GNOME's own remote desktop and screen sharing use. A client on the session bus
//! needs no consent dialog (the desktop portal asks one; mutter trusts its own session).
//!
//! A remote desktop session lives as long as the D-Bus connection that created it: mutter
//! closes it when its creator leaves the bus. So one [`RemoteDesktop`] owns one connection,
//! on a thread of its own with its own small runtime, and every call is a request to that
//! thread answered once mutter replied (mutter replies after it handled the event). The
//! calls block, as every input backend's do, and never wait on the caller's runtime.
//!
//! Absolute pointer motion is defined relative to a screen-cast stream: the session records
//! the primary monitor (a PipeWire stream, so PipeWire must run) and moves the pointer over
//! it. Keys go as keysyms, which mutter maps to a key of the session's own layout (and the
//! shift level it needs); a keysym with no key on that layout is dropped by mutter with a
//! warning and nothing else, so the caller sends only what every Latin layout has (see
//! [`keysym_of`]).

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use zbus::zvariant::{OwnedObjectPath, Value};

const RD: &str = "org.gnome.Mutter.RemoteDesktop";
const RD_PATH: &str = "/org/gnome/Mutter/RemoteDesktop";
const RD_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
const SC: &str = "org.gnome.Mutter.ScreenCast";
const SC_PATH: &str = "/org/gnome/Mutter/ScreenCast";
const SC_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const SC_STREAM: &str = "org.gnome.Mutter.ScreenCast.Stream";

/// How long a call may take before it counts as unanswered.
const CALL_LIMIT: Duration = Duration::from_secs(5);

/// One input event, as the RemoteDesktop session takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The pointer to `(x, y)` in the recorded monitor's pixels.
    Motion(f64, f64),
    /// A pointer button (a Linux input code such as `BTN_LEFT`) pressed or released.
    Button(u32, bool),
    /// Wheel steps on an axis (0 vertical, 1 horizontal); positive is down or right.
    Axis(u32, i32),
    /// A key, named by its keysym, pressed or released.
    Keysym(u32, bool),
}

/// The monitor the session's pointer moves over: where it is on the layout and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Monitor {
    /// Its connector (`Meta-0` for a headless virtual monitor, `eDP-1`, ...).
    pub name: String,
    /// Its origin on the layout.
    pub origin: (i32, i32),
    /// Its size in pixels.
    pub size: (u32, u32),
}

type Reply = Result<(), String>;

/// A session of mutter: a RemoteDesktop session with the primary monitor recorded for the
/// pointer ([`RemoteDesktop::connect`]), or a screen cast of the primary monitor alone
/// ([`RemoteDesktop::record`], for frames: it sends no input). Stopped when dropped.
pub struct RemoteDesktop {
    jobs: tokio::sync::mpsc::UnboundedSender<(Event, mpsc::Sender<Reply>)>,
    thread: Option<std::thread::JoinHandle<()>>,
    monitor: Monitor,
    /// The PipeWire node of the recorded monitor's stream.
    node: Option<u32>,
    /// When the session (and its pointer and keyboard) started.
    since: std::time::Instant,
    /// A portal's token for the next session.
    restore_token: Option<String>,
    who: &'static str,
}

/// What the session thread hands back once the session runs.
struct Started {
    monitor: Monitor,
    node: Option<u32>,
    restore_token: Option<String>,
}

/// How long a portal session may take to start: the person answers its dialog first.
const CONSENT_WAIT: Duration = Duration::from_secs(130);

/// Which session to start.
enum Kind {
    /// mutter's remote desktop, with its monitor recorded for the pointer.
    Input,
    /// mutter's screen cast alone.
    Record,
    /// The desktop portal's remote desktop, with a restore token.
    Portal(Option<String>),
}

impl Kind {
    fn who(&self) -> &'static str {
        match self {
            Kind::Input | Kind::Record => "mutter",
            Kind::Portal(_) => "the desktop portal",
        }
    }
}

/// The session on its thread: mutter's, or the portal's.
enum Backend {
    Mutter(Session),
    Portal(crate::portal::Session),
}

impl Backend {
    async fn start(address: Option<&str>, kind: Kind) -> Result<Backend, String> {
        match kind {
            Kind::Input => Session::start(address, true).await.map(Backend::Mutter),
            Kind::Record => Session::start(address, false).await.map(Backend::Mutter),
            Kind::Portal(restore) => {
                crate::portal::Session::start(address, restore.as_deref()).await.map(Backend::Portal)
            }
        }
    }

    fn started(&self) -> Started {
        match self {
            Backend::Mutter(s) => Started { monitor: s.monitor.clone(), node: s.node, restore_token: None },
            Backend::Portal(s) => {
                Started { monitor: s.monitor.clone(), node: None, restore_token: s.restore_token.clone() }
            }
        }
    }

    async fn send(&self, event: Event) -> Result<(), String> {
        match self {
            Backend::Mutter(s) => s.send(event).await,
            Backend::Portal(s) => s.send(event).await,
        }
    }

    async fn stop(self) {
        match self {
            Backend::Mutter(s) => s.stop().await,
            Backend::Portal(s) => s.stop().await,
        }
    }
}

/// Without the restore token, which is a credential.
impl std::fmt::Debug for RemoteDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteDesktop")
            .field("who", &self.who)
            .field("monitor", &self.monitor)
            .field("node", &self.node)
            .field("restore_token", &self.restore_token.as_ref().map(|_| "(kept)"))
            .finish()
    }
}

impl RemoteDesktop {
    /// Starts a session on the session bus at `address` (`None`: the session's own bus).
    /// Fails with what is missing: mutter's API on the bus, PipeWire for the stream, ...
    pub fn connect(address: Option<&str>) -> Result<RemoteDesktop, String> {
        RemoteDesktop::open(address, Kind::Input)
    }

    /// Records the primary monitor as a PipeWire stream ([`RemoteDesktop::node`]), with no
    /// input: a screen cast session of its own, so frames never wait on input.
    pub fn record(address: Option<&str>) -> Result<RemoteDesktop, String> {
        RemoteDesktop::open(address, Kind::Record)
    }

    /// A session of the desktop portal's remote desktop instead of mutter's (any desktop
    /// whose portal implements it; `crate::portal`), the same events sent the same way.
    /// `restore`: the token an earlier session gave ([`RemoteDesktop::restore_token`]), so
    /// the portal need not ask the person again.
    pub fn through_portal(address: Option<&str>, restore: Option<&str>) -> Result<RemoteDesktop, String> {
        RemoteDesktop::open(address, Kind::Portal(restore.map(str::to_string)))
    }

    fn open(address: Option<&str>, kind: Kind) -> Result<RemoteDesktop, String> {
        let who = kind.who();
        let (jobs, mut queue) = tokio::sync::mpsc::unbounded_channel::<(Event, mpsc::Sender<Reply>)>();
        let (ready, started) = mpsc::channel::<Result<Started, String>>();
        let address = address.map(str::to_string);
        let thread = std::thread::Builder::new()
            .name("deft-remote-desktop".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready.send(Err(format!("cannot start the thread's runtime: {e}")));
                        return;
                    }
                };
                runtime.block_on(async move {
                    // A portal may show the person a dialog first: its own limit.
                    let limit = if matches!(kind, Kind::Portal(_)) { CONSENT_WAIT } else { CALL_LIMIT * 2 };
                    let session = match tokio::time::timeout(limit, Backend::start(address.as_deref(), kind)).await {
                        Ok(Ok(s)) => s,
                        Ok(Err(e)) => {
                            let _ = ready.send(Err(e));
                            return;
                        }
                        Err(_) => {
                            let _ = ready.send(Err(format!("{who} did not start a session within {limit:?}")));
                            return;
                        }
                    };
                    let _ = ready.send(Ok(session.started()));
                    while let Some((event, reply)) = queue.recv().await {
                        let done = tokio::time::timeout(CALL_LIMIT, session.send(event))
                            .await
                            .unwrap_or_else(|_| Err(format!("{who} did not answer within {CALL_LIMIT:?}")));
                        let _ = reply.send(done);
                    }
                    session.stop().await;
                });
            })
            .map_err(|e| format!("cannot start a thread for {who}'s session: {e}"))?;
        let started = started
            .recv()
            .map_err(|_| format!("the thread for {who}'s session ended before the session started"))??;
        let since = std::time::Instant::now();
        Ok(RemoteDesktop {
            jobs,
            thread: Some(thread),
            monitor: started.monitor,
            node: started.node,
            since,
            restore_token: started.restore_token,
            who,
        })
    }

    /// What the session is with, in a few words (for errors).
    pub fn who(&self) -> &'static str {
        self.who
    }

    /// The token that starts the next portal session without asking the person again,
    /// when the portal gave one.
    pub fn restore_token(&self) -> Option<&str> {
        self.restore_token.as_deref()
    }

    /// The monitor the pointer moves over.
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// How long ago the session started, and with it its virtual pointer and keyboard
    /// (which the applications take up asynchronously).
    pub fn age(&self) -> Duration {
        self.since.elapsed()
    }

    /// The PipeWire node of the recorded monitor's stream, once mutter announced it.
    pub fn node(&self) -> Option<u32> {
        self.node
    }

    /// Sends `event` and returns once mutter handled it.
    pub fn send(&self, event: Event) -> Result<(), String> {
        let (reply, answer) = mpsc::channel();
        let who = self.who;
        self.jobs.send((event, reply)).map_err(|_| format!("{who}'s session has ended"))?;
        answer
            .recv_timeout(CALL_LIMIT * 2)
            .map_err(|_| format!("{who}'s session did not answer within {:?}", CALL_LIMIT * 2))?
    }
}

impl Drop for RemoteDesktop {
    fn drop(&mut self) {
        // Closing the queue ends the thread's loop, which stops the session.
        let (closed, _) = tokio::sync::mpsc::unbounded_channel();
        self.jobs = closed;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The session, on its own thread.
struct Session {
    /// The RemoteDesktop session; `None` for a screen cast alone.
    rd: Option<zbus::Proxy<'static>>,
    /// The screen cast session (started and stopped with the RemoteDesktop one, when there is one).
    cast: zbus::Proxy<'static>,
    /// The recorded stream's object path: absolute motion is relative to it.
    stream: OwnedObjectPath,
    monitor: Monitor,
    node: Option<u32>,
    /// Held so the connection (and with it the session) lives as long as this.
    _connection: zbus::Connection,
}

/// Makes the session's virtual pointer and keyboard now. mutter makes each at the first
/// event of its kind. On a seat with no other pointer or keyboard (a headless session) the
/// applications learn of the device only then and take it up when they next run: a press
/// sent before an application has is lost, and it gets a lone release (measured on GNOME
/// Shell 43 with GTK 3); a key is lost the same way, and no window has the keyboard focus
/// before. A motion by nothing, and key code 0 (`KEY_RESERVED`, which no layout gives a
/// symbol: it types nothing), make both while Deft still reads.
async fn make_devices(rd: &zbus::Proxy<'_>) -> Result<(), String> {
    rd.call::<_, _, ()>("NotifyPointerMotionRelative", &(0.0f64, 0.0f64))
        .await
        .map_err(said("mutter refused the session's pointer"))?;
    for pressed in [true, false] {
        rd.call::<_, _, ()>("NotifyKeyboardKeycode", &(0u32, pressed))
            .await
            .map_err(said("mutter refused the session's keyboard"))?;
    }
    Ok(())
}

pub(crate) fn said(what: &str) -> impl Fn(zbus::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// A connection of its own to the session bus at `address` (`None`: the session's own):
/// a remote desktop session lives as long as the connection that made it.
pub(crate) async fn session_bus(address: Option<&str>) -> Result<zbus::Connection, String> {
    match address {
        Some(a) => {
            zbus::connection::Builder::address(a)
                .map_err(|e| format!("bad session bus address {a:?}: {e}"))?
                .build()
                .await
        }
        None => zbus::Connection::session().await,
    }
    .map_err(said("cannot connect to the session bus"))
}

impl Session {
    async fn start(address: Option<&str>, input: bool) -> Result<Session, String> {
        let connection = session_bus(address).await?;
        let proxy = |dest: &'static str, path: OwnedObjectPath, iface: &'static str| {
            let connection = connection.clone();
            async move { zbus::Proxy::new(&connection, dest, path, iface).await.map_err(said("cannot reach mutter")) }
        };
        let path = |p: &str| OwnedObjectPath::try_from(p.to_string()).map_err(|e| e.to_string());
        let mut options: HashMap<&str, Value> = HashMap::new();
        let rd = if input {
            let manager = proxy(RD, path(RD_PATH)?, RD).await?;
            let rd_path: OwnedObjectPath = manager.call("CreateSession", &()).await.map_err(|e| {
                format!("this session bus has no GNOME remote desktop (org.gnome.Mutter.RemoteDesktop): {e}")
            })?;
            let rd = proxy(RD, rd_path, RD_SESSION).await?;
            let id: String = rd.get_property("SessionId").await.map_err(said("mutter's session has no id"))?;
            options.insert("remote-desktop-session-id", Value::from(id));
            Some(rd)
        } else {
            None
        };
        let casts = proxy(SC, path(SC_PATH)?, SC)
            .await
            .map_err(|e| format!("this session bus has no GNOME screen cast (org.gnome.Mutter.ScreenCast): {e}"))?;
        let cast_path: OwnedObjectPath =
            casts.call("CreateSession", &(options,)).await.map_err(said("mutter's screen cast refused a session"))?;
        let cast = proxy(SC, cast_path, SC_SESSION).await?;
        // The primary monitor ("" names it), with no cursor drawn into the frames: a
        // pointer resting on a button would change its pixels as a press does (X11 and
        // wlroots captures leave the cursor out too).
        let options: HashMap<&str, Value> = HashMap::from([("cursor-mode", Value::from(0u32))]);
        let stream: OwnedObjectPath =
            cast.call("RecordMonitor", &("", options)).await.map_err(said("mutter cannot record its monitor"))?;
        let stream_proxy = proxy(SC, stream.clone(), SC_STREAM).await?;
        let parameters: HashMap<String, zbus::zvariant::OwnedValue> =
            stream_proxy.get_property("Parameters").await.map_err(said("the monitor's stream has no parameters"))?;
        let monitor = monitor_of(&parameters)?;
        let mut added =
            stream_proxy.receive_signal("PipeWireStreamAdded").await.map_err(said("cannot watch the stream"))?;
        let started = match &rd {
            Some(rd) => rd.call::<_, _, ()>("Start", &()).await,
            None => cast.call::<_, _, ()>("Start", &()).await,
        };
        started.map_err(|e| {
            let e = e.to_string();
            if e.contains("pipewire") {
                format!(
                    "mutter cannot start a remote desktop session without PipeWire ({e}): start `pipewire` \
                     and `wireplumber` in the session"
                )
            } else {
                format!("mutter refused to start the session: {e}")
            }
        })?;
        use futures_util::StreamExt;
        let node = match tokio::time::timeout(CALL_LIMIT, added.next()).await {
            Ok(Some(message)) => message.body().deserialize::<(u32,)>().ok().map(|(n,)| n),
            _ => None,
        };
        if let Some(rd) = &rd {
            make_devices(rd).await?;
        }
        Ok(Session { rd, cast, stream, monitor, node, _connection: connection })
    }

    async fn send(&self, event: Event) -> Result<(), String> {
        let Some(rd) = &self.rd else {
            return Err("this session of mutter records the screen only: it sends no input".into());
        };
        let sent = match event {
            Event::Motion(x, y) => {
                rd.call::<_, _, ()>("NotifyPointerMotionAbsolute", &(self.stream.as_str(), x, y)).await
            }
            Event::Button(code, pressed) => rd.call::<_, _, ()>("NotifyPointerButton", &(code as i32, pressed)).await,
            Event::Axis(axis, steps) => rd.call::<_, _, ()>("NotifyPointerAxisDiscrete", &(axis, steps)).await,
            Event::Keysym(sym, pressed) => rd.call::<_, _, ()>("NotifyKeyboardKeysym", &(sym, pressed)).await,
        };
        sent.map_err(|e| e.to_string())
    }

    async fn stop(self) {
        let stopped = match &self.rd {
            Some(rd) => rd.call::<_, _, ()>("Stop", &()),
            None => self.cast.call::<_, _, ()>("Stop", &()),
        };
        let _ = tokio::time::timeout(CALL_LIMIT, stopped).await;
    }
}

/// The monitor a stream's `Parameters` describe (`position`, `size`, `output-name`).
fn monitor_of(parameters: &HashMap<String, zbus::zvariant::OwnedValue>) -> Result<Monitor, String> {
    let pair = |key: &str| -> Result<(i32, i32), String> {
        let value = parameters.get(key).ok_or_else(|| format!("the monitor's stream does not say its {key}"))?;
        <(i32, i32)>::try_from(value.try_clone().map_err(|e| e.to_string())?)
            .map_err(|e| format!("the monitor's stream gives its {key} as {value:?}: {e}"))
    };
    let origin = pair("position")?;
    let (w, h) = pair("size")?;
    let name = parameters
        .get("output-name")
        .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
        .unwrap_or_else(|| "the primary monitor".into());
    let size = (u32::try_from(w).map_err(|e| e.to_string())?, u32::try_from(h).map_err(|e| e.to_string())?);
    Ok(Monitor { name, origin, size })
}

/// The keysym of a character every Latin keyboard layout has a key for: printable ASCII
/// (whose keysyms are their code points), newline (Return) and tab. `None` for anything
/// else: mutter drops a keysym its layout has no key for without a word, so such text is
/// never sent as keys.
pub fn keysym_of(c: char) -> Option<u32> {
    match c {
        ' '..='~' => Some(c as u32),
        '\n' => Some(0xff0d),
        '\t' => Some(0xff09),
        _ => None,
    }
}

/// How to type `c` as key events: the keysym to press and whether Shift must be held
/// around it, or `None` when it is not a character [`keysym_of`] allows. Shift is sent as
/// a key event of its own, never left to mutter: mutter applies the shift a keysym needs
/// as a state change with no key event, and GNOME Shell hands keys to the input method
/// (IBus) to process later, by when that state is gone ("A" arrives as "a", "!" as "1").
/// An upper-case letter is Shift and its lower-case letter on every Latin layout; the
/// other shifted characters are taken where the US layout has them, and a layout that
/// puts them elsewhere types something else, which the caller's verification catches.
pub fn keystroke_of(c: char) -> Option<(u32, bool)> {
    const SHIFTED: [(char, char); 21] = [
        ('~', '`'),
        ('!', '1'),
        ('@', '2'),
        ('#', '3'),
        ('$', '4'),
        ('%', '5'),
        ('^', '6'),
        ('&', '7'),
        ('*', '8'),
        ('(', '9'),
        (')', '0'),
        ('_', '-'),
        ('+', '='),
        ('{', '['),
        ('}', ']'),
        ('|', '\\'),
        (':', ';'),
        ('"', '\''),
        ('<', ','),
        ('>', '.'),
        ('?', '/'),
    ];
    let sym = keysym_of(c)?;
    if c.is_ascii_uppercase() {
        return Some((c.to_ascii_lowercase() as u32, true));
    }
    match SHIFTED.iter().find(|(shifted, _)| *shifted == c) {
        Some((_, base)) => Some((*base as u32, true)),
        None => Some((sym, false)),
    }
}

/// Keysyms of the keys Deft names (X11's keysymdef.h values, which mutter takes).
pub mod keysyms {
    /// Return (Enter).
    pub const RETURN: u32 = 0xff0d;
    /// Tab.
    pub const TAB: u32 = 0xff09;
    /// Escape.
    pub const ESCAPE: u32 = 0xff1b;
    /// BackSpace.
    pub const BACKSPACE: u32 = 0xff08;
    /// Delete.
    pub const DELETE: u32 = 0xffff;
    /// The space bar.
    pub const SPACE: u32 = 0x20;
    /// Arrow up.
    pub const UP: u32 = 0xff52;
    /// Arrow down.
    pub const DOWN: u32 = 0xff54;
    /// Arrow left.
    pub const LEFT: u32 = 0xff51;
    /// Arrow right.
    pub const RIGHT: u32 = 0xff53;
    /// Home.
    pub const HOME: u32 = 0xff50;
    /// End.
    pub const END: u32 = 0xff57;
    /// Page up.
    pub const PAGE_UP: u32 = 0xff55;
    /// Page down.
    pub const PAGE_DOWN: u32 = 0xff56;
    /// F1; F2..F35 follow it.
    pub const F1: u32 = 0xffbe;
    /// The left Control key.
    pub const CONTROL_L: u32 = 0xffe3;
    /// The left Shift key.
    pub const SHIFT_L: u32 = 0xffe1;
    /// The left Alt key.
    pub const ALT_L: u32 = 0xffe9;
    /// The left Super (logo) key.
    pub const SUPER_L: u32 = 0xffeb;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_every_latin_layout_types_has_keysyms() {
        assert_eq!(keysym_of('a'), Some(0x61));
        assert_eq!(keysym_of('Z'), Some(0x5a));
        assert_eq!(keysym_of('~'), Some(0x7e));
        assert_eq!(keysym_of('\n'), Some(keysyms::RETURN));
        assert_eq!(keysym_of('é'), None, "not on every layout: mutter would drop it silently");
        assert_eq!(keysym_of('\u{7f}'), None);
    }

    #[test]
    fn shifted_characters_are_their_base_key_with_shift_held() {
        assert_eq!(keystroke_of('a'), Some((0x61, false)));
        assert_eq!(keystroke_of('A'), Some((0x61, true)));
        assert_eq!(keystroke_of('!'), Some(('1' as u32, true)));
        assert_eq!(keystroke_of('?'), Some(('/' as u32, true)));
        assert_eq!(keystroke_of('"'), Some(('\'' as u32, true)));
        assert_eq!(keystroke_of('/'), Some(('/' as u32, false)));
        assert_eq!(keystroke_of('\n'), Some((keysyms::RETURN, false)));
        assert_eq!(keystroke_of('é'), None);
    }

    #[test]
    fn a_streams_parameters_give_its_monitor_or_say_what_is_missing() {
        let owned = |v: Value| zbus::zvariant::OwnedValue::try_from(v).unwrap();
        let mut p = HashMap::from([
            ("position".to_string(), owned(Value::from((0i32, 0i32)))),
            ("size".to_string(), owned(Value::from((1280i32, 800i32)))),
            ("output-name".to_string(), owned(Value::from("Meta-0"))),
        ]);
        assert_eq!(monitor_of(&p).unwrap(), Monitor { name: "Meta-0".into(), origin: (0, 0), size: (1280, 800) });
        p.remove("size");
        assert!(monitor_of(&p).unwrap_err().contains("size"));
    }
}
