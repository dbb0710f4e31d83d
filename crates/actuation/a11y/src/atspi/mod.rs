//! The AT-SPI2 backend (Linux): atspi 0.30 types over zbus 5, every call bounded in time.

pub(crate) mod call;
pub(crate) mod convert;
mod events;
mod ops;
mod skeleton;
mod snapshot;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deft_types::{Element, ElementId, Logical, Point};
use tokio::sync::OnceCell;
use zbus::Connection;

use self::call::{Fail, ROOT_PATH, iface};
use crate::Accessibility;
use crate::backend::{AppInfo, EventStream, Hit, Operation, Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::events::EventFilter;
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
    pub config: AtSpiConfig,
    /// Per application bus name: its direct connection, or the bus when it has none.
    peers: Mutex<HashMap<String, Arc<OnceCell<Connection>>>>,
    /// Per application bus name: whether its actions are named in English.
    english: Mutex<HashMap<String, bool>>,
    /// Per registry event name: how many live event streams want it.
    registrations: Mutex<HashMap<&'static str, usize>>,
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
            let bus = zbus::connection::Builder::address(address.as_str())
                .map(|b| b.max_queued(4096))
                .map_err(|e| unavailable(format!("bad accessibility bus address {address:?}: {e}")))?
                .build()
                .await
                .map_err(|e| unavailable(format!("cannot connect to the accessibility bus at {address}: {e}")))?;
            Ok::<_, A11yError>(bus)
        };
        let bus = tokio::time::timeout(limit, connect)
            .await
            .map_err(|_| unavailable(format!("connecting took longer than {limit:?}")))??;
        Ok(AtSpi {
            inner: Arc::new(Inner {
                bus,
                config,
                peers: Mutex::new(HashMap::new()),
                english: Mutex::new(HashMap::new()),
                registrations: Mutex::new(HashMap::new()),
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
    .map_err(|f| unavailable(format!("the session bus does not announce an accessibility bus (org.a11y.Bus): {f:?}")))
}

impl Inner {
    pub fn timeout(&self) -> Duration {
        self.config.call_timeout
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
                        detail: format!("the bus stopped answering while {what} ({fail:?})"),
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

    /// Whether app `bus_name` names its actions in English (its locale), cached.
    pub async fn english(&self, conn: &Connection, bus_name: &str) -> bool {
        if let Some(&e) = self.english.lock().unwrap_or_else(|p| p.into_inner()).get(bus_name) {
            return e;
        }
        let locale: Result<String, Fail> =
            call::property(conn, self.timeout(), bus_name, ROOT_PATH, iface::ACCESSIBLE, "Locale").await;
        let english = locale.map(|l| convert::english(&l)).unwrap_or(false);
        self.english.lock().unwrap_or_else(|p| p.into_inner()).insert(bus_name.to_string(), english);
        english
    }
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

    async fn toolkit(&self, id: &ElementId) -> Result<Option<String>, A11yError> {
        self.bounded("reading the toolkit name", ops::toolkit(&self.inner, id)).await
    }

    async fn events(&self, filter: &EventFilter) -> Result<EventStream, A11yError> {
        self.bounded("subscribing to events", events::subscribe(self.inner.clone(), filter)).await
    }
}
