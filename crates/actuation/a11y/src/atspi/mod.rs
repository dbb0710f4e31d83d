//! The AT-SPI2 backend (Linux): atspi 0.30 types over zbus 5, every call bounded in time.

pub(crate) mod call;
mod children;
pub(crate) mod convert;
mod events;
mod ops;
mod placement;
mod skeleton;
mod snapshot;
mod stacking;
mod text;
pub(crate) mod toolkit;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_types::{Element, ElementId, Logical, Point, Rect};
use tokio::sync::OnceCell;
use zbus::Connection;

use self::call::{Fail, ROOT_PATH, iface};
use self::toolkit::Toolkit;
use crate::Accessibility;
use crate::backend::{AppInfo, Hit, Operation, Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::events::EventFilter;
use crate::events::EventStream;
use crate::tree::Tree;

/// How to reach the accessibility bus, and how long to wait for it.
#[derive(Clone, Debug)]
pub struct AtSpiConfig {
    /// The session bus address that announces the accessibility bus; `None` for the
    /// platform's default (zbus reads `DBUS_SESSION_BUS_ADDRESS`).
    pub session_bus: Option<String>,
    /// The accessibility bus address itself, skipping the session bus.
    pub a11y_bus: Option<String>,
    /// The longest one D-Bus call may take.
    pub call_timeout: Duration,
    /// The longest a whole read (snapshot, application list, hit test) may take.
    pub read_deadline: Duration,
    /// The longest connecting may take.
    pub connect_timeout: Duration,
    /// Talk to each application over its own peer-to-peer socket when it offers one
    /// (`GetApplicationBusAddress`), skipping the bus daemon's hop; signals still come
    /// through the bus.
    pub peer_to_peer: bool,
    /// The X display the applications show their windows on (`:7`), to place the windows
    /// of toolkits whose extents are window-relative (GTK 4); `None` for `DISPLAY`.
    pub display: Option<String>,
    /// Where a Wayland compositor's window list comes from (sway's IPC, Deft's GNOME Shell
    /// extension): every toolkit's extents are window-relative there (Wayland never tells a
    /// client where its window is), and the windows are placed from the compositor's own
    /// list. `None` elsewhere.
    pub views: Option<deft_wayland::ViewSource>,
    /// A Wayland session: every toolkit's extents are window-relative, and only the
    /// compositor knows where the windows are. Without its list (`views`), no window is
    /// placed and no element has bounds (never an X display's list: XWayland's windows are
    /// not the native clients').
    pub wayland: bool,
    /// The Wayland compositor's own process: its accessible elements (GNOME Shell's panel
    /// and overview) are drawn by the compositor itself, which knows where they are, so
    /// their extents are the screen's, never relative to a window of the list.
    pub compositor_pid: Option<u32>,
    /// Accessible names of fields whose text is a secret like a password's (an API token,
    /// a PIN): such a field is marked [`deft_types::State::Secret`] and its text is read as
    /// one mask character per character, so the text itself never leaves the backend.
    /// Compared trimmed and ignoring case. Password fields are secret without being named.
    pub secret_fields: Vec<String>,
}

impl Default for AtSpiConfig {
    fn default() -> Self {
        AtSpiConfig {
            session_bus: None,
            a11y_bus: None,
            call_timeout: Duration::from_secs(2),
            read_deadline: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            peer_to_peer: true,
            display: None,
            views: None,
            compositor_pid: None,
            wayland: false,
            secret_fields: Vec::new(),
        }
    }
}

/// The AT-SPI2 accessibility backend.
///
/// Cheap to clone; clones share the connections.
#[derive(Clone)]
pub struct AtSpi {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub bus: Connection,
    /// The accessibility bus's address.
    address: String,
    /// A second connection to the bus that carries only event streams
    /// ([`Inner::events_bus`]).
    events_bus: OnceCell<Connection>,
    pub config: AtSpiConfig,
    /// Per application bus name: its direct connection, or the bus when it has none.
    peers: Mutex<HashMap<String, Arc<OnceCell<Connection>>>>,
    /// Per application bus name: what is read once about it.
    facts: Mutex<HashMap<String, AppFacts>>,
    /// Connections that carried an operation (see [`Inner::operation_conn`]), kept open and
    /// unused until the backend is dropped, oldest first.
    spent: Mutex<Vec<Connection>>,
    /// Per registry event name: how many live event streams want it.
    registrations: Mutex<HashMap<&'static str, usize>>,
    /// Where windows with window-relative extents lie on screen (GTK 4).
    pub placement: placement::Placement,
}

impl AtSpi {
    /// Connect to the accessibility bus.
    pub async fn connect(config: AtSpiConfig) -> Result<AtSpi, A11yError> {
        let limit = config.connect_timeout;
        let connect = async {
            let address = match &config.a11y_bus {
                Some(a) => a.clone(),
                None => a11y_address(&config).await?,
            };
            Ok::<_, A11yError>((open_bus(&address).await?, address))
        };
        let (bus, address) = tokio::time::timeout(limit, connect)
            .await
            .map_err(|_| unavailable(format!("connecting took longer than {limit:?}")))??;
        let placement = placement::Placement::new(config.display.clone(), config.views.clone(), config.wayland);
        Ok(AtSpi {
            inner: Arc::new(Inner {
                bus,
                address,
                events_bus: OnceCell::new(),
                config,
                peers: Mutex::new(HashMap::new()),
                facts: Mutex::new(HashMap::new()),
                spent: Mutex::new(Vec::new()),
                registrations: Mutex::new(HashMap::new()),
                placement,
            }),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &AtSpiConfig {
        &self.inner.config
    }

    async fn bounded<T>(&self, what: &str, f: impl Future<Output = Result<T, A11yError>>) -> Result<T, A11yError> {
        let limit = self.inner.config.read_deadline;
        tokio::time::timeout(limit, f)
            .await
            .unwrap_or_else(|_| Err(A11yError::Timeout { what: what.to_string(), after: limit }))
    }
}

/// A connection to the accessibility bus at `address`.
async fn open_bus(address: &str) -> Result<Connection, A11yError> {
    zbus::connection::Builder::address(address)
        .map(|b| b.max_queued(4096))
        .map_err(|e| unavailable(format!("bad accessibility bus address {address:?}: {e}")))?
        .build()
        .await
        .map_err(|e| unavailable(format!("cannot connect to the accessibility bus at {address}: {e}")))
}

fn unavailable(detail: String) -> A11yError {
    A11yError::BusUnavailable { detail }
}

/// Ask the session bus where the accessibility bus is.
async fn a11y_address(config: &AtSpiConfig) -> Result<String, A11yError> {
    let session = match &config.session_bus {
        Some(a) => {
            zbus::connection::Builder::address(a.as_str())
                .map_err(|e| unavailable(format!("bad session bus address {a:?}: {e}")))?
                .build()
                .await
        }
        None => Connection::session().await,
    }
    .map_err(|e| unavailable(format!("cannot connect to the session bus: {e}")))?;
    call::call_as::<_, String>(
        &session,
        config.call_timeout,
        "org.a11y.Bus",
        "/org/a11y/bus",
        "org.a11y.Bus",
        "GetAddress",
        &(),
    )
    .await
    .map_err(|f| unavailable(format!("the session bus does not announce an accessibility bus (org.a11y.Bus): {f}")))
}

impl Inner {
    pub fn timeout(&self) -> Duration {
        self.config.call_timeout
    }

    /// The connection event streams read from, connected on first use. Not the bus
    /// connection that carries calls: zbus's reader waits while a stream's queue is full,
    /// so a stream nobody polls for a while (1024 events of a kind: LibreOffice sends more
    /// than that during one full read) would hold up every reply behind it.
    pub async fn events_bus(&self) -> Result<Connection, A11yError> {
        self.events_bus.get_or_try_init(|| open_bus(&self.address)).await.cloned()
    }

    /// The connection to talk to application `bus_name` on: its direct socket when it
    /// offers one, else the bus. Connected once per application.
    pub async fn conn_for(&self, bus_name: &str) -> Connection {
        if !self.config.peer_to_peer || bus_name == call::REGISTRY {
            return self.bus.clone();
        }
        let cell = {
            let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
            peers.entry(bus_name.to_string()).or_default().clone()
        };
        cell.get_or_init(|| async {
            match self.direct(bus_name).await {
                Some(c) => c,
                None => self.bus.clone(),
            }
        })
        .await
        .clone()
    }

    async fn direct(&self, bus_name: &str) -> Option<Connection> {
        // Asked over the bus first (once per application): some toolkits' direct sockets
        // are not safe to close (Chromium's).
        if !self.facts(&self.bus, bus_name).await.toolkit.direct_socket_is_safe() {
            return None;
        }
        let t = self.timeout();
        let address: String =
            call::call_as(&self.bus, t, bus_name, ROOT_PATH, iface::APPLICATION, "GetApplicationBusAddress", &())
                .await
                .ok()?;
        if address.is_empty() {
            return None;
        }
        let build = async { zbus::connection::Builder::address(address.as_str()).ok()?.p2p().build().await.ok() };
        tokio::time::timeout(t, build).await.ok().flatten()
    }

    /// Forget a broken direct connection, so the next call reconnects or uses the bus.
    pub fn forget(&self, bus_name: &str) {
        self.peers.lock().unwrap_or_else(|p| p.into_inner()).remove(bus_name);
    }

    /// Whether `bus_name` still has an owner on the bus (tells a hung app from a dead
    /// one); `None` when the bus itself does not answer.
    pub async fn alive(&self, bus_name: &str) -> Option<bool> {
        call::call_as::<_, bool>(
            &self.bus,
            self.timeout(),
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameHasOwner",
            &(bus_name,),
        )
        .await
        .ok()
    }

    /// Turn a failure into the error callers see, finding out first whether a timeout or
    /// a broken connection means the app died, or the bus did.
    pub async fn error(&self, fail: Fail, what: &str, id: Option<&ElementId>, bus_name: &str) -> A11yError {
        let fail = match fail {
            Fail::Timeout(_) | Fail::Gone(_) | Fail::Other(_) => match self.alive(bus_name).await {
                Some(true) => fail,
                Some(false) => {
                    self.forget(bus_name);
                    Fail::Gone("its bus name has no owner any more".into())
                }
                None if matches!(fail, Fail::Timeout(_)) => fail,
                None => {
                    return A11yError::BusUnavailable {
                        detail: format!("the bus stopped answering while {what} ({fail})"),
                    };
                }
            },
            f => f,
        };
        if matches!(fail, Fail::Gone(_)) {
            self.forget(bus_name);
        }
        fail.into_error(what, id, bus_name)
    }

    /// Count one more stream wanting `event`; `true` when it is the first.
    pub fn register(&self, event: &'static str) -> bool {
        let mut r = self.registrations.lock().unwrap_or_else(|p| p.into_inner());
        let n = r.entry(event).or_insert(0);
        *n += 1;
        *n == 1
    }

    /// Count one stream fewer wanting `event`; `true` when it was the last.
    pub fn unregister(&self, event: &'static str) -> bool {
        let mut r = self.registrations.lock().unwrap_or_else(|p| p.into_inner());
        match r.get_mut(event) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            Some(_) => {
                r.remove(event);
                true
            }
            None => false,
        }
    }

    /// What Deft reads once about app `bus_name`: the language of its action names (its
    /// `Locale`) and its toolkit (`Application.ToolkitName` and `Version`), the properties
    /// libatspi reads for the same purposes. Cached; a failed read is not.
    pub async fn facts(&self, conn: &Connection, bus_name: &str) -> AppFacts {
        if let Some(f) = self.facts.lock().unwrap_or_else(|p| p.into_inner()).get(bus_name) {
            return *f;
        }
        let t = self.timeout();
        let locale = call::property::<String>(conn, t, bus_name, ROOT_PATH, iface::ACCESSIBLE, "Locale");
        let name = call::property::<String>(conn, t, bus_name, ROOT_PATH, iface::APPLICATION, "ToolkitName");
        let version = call::property::<String>(conn, t, bus_name, ROOT_PATH, iface::APPLICATION, "Version");
        let pid = self.pid(bus_name);
        let (locale, name, version, pid) = tokio::join!(locale, name, version, pid);
        let answered = |r: &Result<String, Fail>| !matches!(r, Err(Fail::Timeout(_) | Fail::Gone(_)));
        let complete = answered(&locale) && answered(&name) && answered(&version);
        let toolkit = Toolkit::from_name(&name.unwrap_or_default(), &version.unwrap_or_default());
        let facts = AppFacts {
            english: locale.map(|l| convert::english(&l)).unwrap_or(false),
            toolkit,
            pid,
            window_relative: toolkit.window_relative_extents()
                || (self.placement.on_wayland() && (pid.is_none() || pid != self.config.compositor_pid)),
        };
        if complete {
            self.facts.lock().unwrap_or_else(|p| p.into_inner()).insert(bus_name.to_string(), facts);
        }
        facts
    }

    /// The process behind application `bus_name`, as the bus daemon knows it.
    pub async fn pid(&self, bus_name: &str) -> Option<u32> {
        call::call_as::<_, u32>(
            &self.bus,
            self.timeout(),
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetConnectionUnixProcessID",
            &(bus_name,),
        )
        .await
        .ok()
    }

    /// A connection for one operation on app `bus_name`.
    ///
    /// An application whose toolkit runs actions inside the D-Bus dispatch of the
    /// connection that carried them ([`Toolkit::acts_inside_dispatch`]: GTK 3, Chromium,
    /// Firefox, through atk-bridge) gets a fresh direct connection that carries this one
    /// call and nothing else, and that stays open, unused, until the backend is dropped. An
    /// action that opens a modal dialog then leaves only that connection stuck: reads go on
    /// answering on the shared one (so the dialog can be seen), and no later call queues
    /// behind the stuck dispatch, which is what freezes atk-bridge for good once a key event
    /// comes (`docs/real-apps.md`, mousepad). Other toolkits use the shared connection.
    pub async fn operation_conn(&self, bus_name: &str, toolkit: Toolkit) -> Connection {
        if !(self.config.peer_to_peer && toolkit.acts_inside_dispatch() && toolkit.direct_socket_is_safe()) {
            return self.conn_for(bus_name).await;
        }
        let Some(conn) = self.direct(bus_name).await else { return self.conn_for(bus_name).await };
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        // Bounded: past this many, the oldest (whose dialog is most likely closed) goes.
        if spent.len() >= MAX_SPENT {
            drop(spent.remove(0));
        }
        spent.push(conn.clone());
        conn
    }
}

/// How many operation connections are kept open at most.
const MAX_SPENT: usize = 64;

/// What is read once per application.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AppFacts {
    /// Its localized action names are the names up to case.
    pub english: bool,
    /// Its toolkit.
    pub toolkit: Toolkit,
    /// Its process (to find its X windows by).
    pub pid: Option<u32>,
    /// Whether its extents are relative to its window: its toolkit's way (GTK 4), or every
    /// toolkit's on Wayland.
    pub window_relative: bool,
}

impl Accessibility for AtSpi {
    async fn applications(&self) -> Result<Vec<AppInfo>, A11yError> {
        self.bounded("listing applications", ops::applications(&self.inner)).await
    }

    async fn snapshot(&self, scope: &Scope, options: &SnapshotOptions) -> Result<Tree, A11yError> {
        self.bounded("reading the accessibility tree", snapshot::snapshot(&self.inner, scope, options)).await
    }

    async fn element(&self, id: &ElementId) -> Result<Element, A11yError> {
        self.bounded("reading an element", ops::element(&self.inner, id)).await
    }

    async fn perform(&self, id: &ElementId, op: &Operation) -> Result<(), A11yError> {
        self.bounded(&op.describe(), ops::perform(&self.inner, id, op)).await
    }

    async fn hit_test(&self, point: Point<Logical>) -> Result<Option<Hit>, A11yError> {
        self.bounded("hit testing", ops::hit_test(&self.inner, point)).await
    }

    async fn text_end(&self, id: &ElementId) -> Result<Option<Rect<Logical>>, A11yError> {
        self.bounded("reading where the text ends", text::text_end(&self.inner, id)).await
    }

    async fn caret(&self, id: &ElementId) -> Result<Option<crate::backend::Caret>, A11yError> {
        self.bounded("reading where the caret is", text::caret(&self.inner, id)).await
    }

    async fn toolkit(&self, id: &ElementId) -> Result<Option<String>, A11yError> {
        self.bounded("reading the toolkit name", ops::toolkit(&self.inner, id)).await
    }

    async fn actions_hold_the_call(&self, id: &ElementId) -> bool {
        let Ok((bus, _)) = call::split_id(id) else { return false };
        let conn = self.inner.conn_for(bus).await;
        // Measured on GTK 3 (mousepad's Save As); Chromium and Firefox, though atk-bridge
        // too, open no dialog from inside the call (a page's dialogs are the renderer's).
        matches!(self.inner.facts(&conn, bus).await.toolkit, toolkit::Toolkit::Gtk2 | toolkit::Toolkit::Gtk3)
    }

    async fn survives_client_leaving_after_input(&self, id: &ElementId) -> bool {
        let Ok((bus, _)) = call::split_id(id) else { return false };
        let conn = self.inner.conn_for(bus).await;
        self.inner.facts(&conn, bus).await.toolkit.survives_client_leaving_after_input()
    }

    async fn reports_held_press(&self, id: &ElementId) -> bool {
        let Ok((bus, _)) = call::split_id(id) else { return false };
        let conn = self.inner.conn_for(bus).await;
        self.inner.facts(&conn, bus).await.toolkit.reports_held_press()
    }

    async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
        self.bounded("subscribing to events", events::subscribe(self.inner.clone(), filter)).await
    }
}
