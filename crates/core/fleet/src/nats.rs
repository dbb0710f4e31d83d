//! The queue on NATS JetStream: one work-queue stream per fleet (`<prefix>.tasks.<pool>`),
//! one durable pull consumer per pool with explicit acks, and two key-value buckets: task
//! records (compare-and-set by revision) and the worker registry (entries expire after
//! `worker_ttl` unless said again).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use async_nats::jetstream::{self, AckKind, consumer::PullConsumer, kv, object_store};
use async_trait::async_trait;
use futures_util::{StreamExt, TryStreamExt};

use crate::config::QueueConfig;
use crate::queue::{Delivery, FleetError, Queue, Revision, WorkerInfo};
use crate::task::check_name;

/// Where the fleet's server is and how to sign in to it.
#[derive(Clone, Debug)]
pub struct NatsOptions {
    /// The server (`nats://host:4222`, `tls://host:4222`; `user:password@` may be in it).
    pub url: String,
    /// A NATS credentials file (a user JWT and its nkey seed), when the server wants one.
    pub credentials: Option<PathBuf>,
    /// An nkey seed (`SU...`), when the server signs users in by nkey.
    pub nkey: Option<String>,
    /// Names the fleet's stream, subjects and buckets, so fleets can share a server.
    pub prefix: String,
    /// Timings and limits.
    pub config: QueueConfig,
}

impl NatsOptions {
    /// The server at `url`, no credentials, the fleet `deft`, default timings.
    pub fn new(url: &str) -> NatsOptions {
        NatsOptions {
            url: url.to_string(),
            credentials: None,
            nkey: None,
            prefix: "deft".into(),
            config: QueueConfig::default(),
        }
    }
}

/// The queue, store and registry on a JetStream server.
pub struct NatsQueue {
    stream: jetstream::stream::Stream,
    tasks: kv::Store,
    workers: kv::Store,
    /// Runs' traces, chunked (a trace is larger than a message).
    blobs: object_store::ObjectStore,
    prefix: String,
    config: QueueConfig,
    js: jetstream::Context,
    consumers: tokio::sync::Mutex<HashMap<String, PullConsumer>>,
    /// The ack wait and max deliveries the server's consumers really have (a consumer made
    /// earlier, by another process, keeps its own): the heartbeat follows them.
    effective: std::sync::Mutex<(Duration, u64)>,
}

fn queue_err(what: &str) -> impl Fn(&dyn std::fmt::Display) -> FleetError + '_ {
    move |e| FleetError::Queue(format!("{what}: {e}"))
}

impl NatsQueue {
    /// Connect, and create the fleet's stream and buckets if they are not there.
    pub async fn connect(options: &NatsOptions) -> Result<NatsQueue, FleetError> {
        check_name("fleet prefix", &options.prefix)?;
        check_url(&options.url)?;
        let mut connect = async_nats::ConnectOptions::new().name("deft").connection_timeout(Duration::from_secs(5));
        if let Some(path) = &options.credentials {
            connect = connect.credentials_file(path).await.map_err(|e| {
                FleetError::Invalid(format!("the credentials file {} could not be read: {e}", path.display()))
            })?;
        }
        if let Some(seed) = &options.nkey {
            connect = connect.nkey(seed.clone());
        }
        // The client does not sign in with credentials written in the address: taken out
        // of it here and given as what they are.
        let (url, user, password) = split_credentials(&options.url);
        connect = match (user, password) {
            (Some(user), Some(password)) => connect.user_and_password(user, password),
            (Some(token), None) => connect.token(token),
            _ => connect,
        };
        let shown = shown_url(&options.url);
        let client = connect.connect(url.as_str()).await.map_err(|e| match e.kind() {
            async_nats::ConnectErrorKind::AuthorizationViolation | async_nats::ConnectErrorKind::Authentication => {
                FleetError::Queue(format!(
                    "the NATS server at {shown} refused this client ({e}): it wants credentials it was not given, or \
                     others: a credentials file (--creds FILE, DEFT_FLEET_CREDS), an nkey seed (DEFT_FLEET_NKEY), or \
                     user:password@ in the URL"
                ))
            }
            _ => FleetError::Queue(format!("could not reach the NATS server at {shown}: {e}")),
        })?;
        let js = jetstream::new(client);
        let prefix = options.prefix.clone();
        let tasks_stream = jetstream::stream::Config {
            name: format!("{prefix}_tasks"),
            subjects: vec![format!("{prefix}.tasks.>")],
            retention: jetstream::stream::RetentionPolicy::WorkQueue,
            storage: jetstream::stream::StorageType::File,
            ..Default::default()
        };
        let stream = made_stream(&js, tasks_stream, "the task stream (is JetStream on? `nats-server -js`)").await?;
        let tasks = bucket(&js, &format!("{prefix}_records"), Duration::ZERO).await?;
        let workers = bucket(&js, &format!("{prefix}_workers"), options.config.worker_ttl).await?;
        let blobs = blob_store(&js, &format!("{prefix}_traces"), options.config.blob_max_age).await?;
        Ok(NatsQueue {
            stream,
            tasks,
            workers,
            blobs,
            prefix,
            config: options.config.clone(),
            js,
            consumers: Default::default(),
            effective: std::sync::Mutex::new((options.config.ack_wait, options.config.max_deliver)),
        })
    }

    async fn consumer(&self, pool: &str) -> Result<PullConsumer, FleetError> {
        let mut consumers = self.consumers.lock().await;
        if let Some(c) = consumers.get(pool) {
            return Ok(c.clone());
        }
        let name = format!("pool_{pool}");
        let consumer = self
            .stream
            .get_or_create_consumer(
                &name,
                jetstream::consumer::pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: self.subject(pool),
                    ack_policy: jetstream::consumer::AckPolicy::Explicit,
                    ack_wait: self.config.ack_wait,
                    max_deliver: i64::try_from(self.config.max_deliver).unwrap_or(i64::MAX),
                    ..Default::default()
                },
            )
            .await;
        // Made meanwhile by another worker of the pool starting at once: take that one.
        let consumer: PullConsumer = match consumer {
            Ok(c) => c,
            Err(first) => self
                .stream
                .get_consumer(&name)
                .await
                .map_err(|_| queue_err(&format!("the consumer of pool {pool}"))(&first))?,
        };
        let made = &consumer.cached_info().config;
        let max = u64::try_from(made.max_deliver).ok().filter(|m| *m > 0).unwrap_or(u64::MAX);
        let mut effective = self.effective.lock().unwrap_or_else(|p| p.into_inner());
        *effective = (effective.0.min(made.ack_wait), effective.1.min(max));
        drop(effective);
        consumers.insert(pool.to_string(), consumer.clone());
        Ok(consumer)
    }

    fn subject(&self, pool: &str) -> String {
        format!("{}.tasks.{pool}", self.prefix)
    }
}

/// The stream `config` names, created if missing. Two clients that connect at once (a worker
/// starting while `agent-cli fleet` looks) may both find it missing and both create it:
/// the server refuses the second ("subjects overlap with an existing stream"), which then
/// takes the one the first made.
async fn made_stream(
    js: &jetstream::Context,
    config: jetstream::stream::Config,
    what: &str,
) -> Result<jetstream::stream::Stream, FleetError> {
    let name = config.name.clone();
    match js.get_or_create_stream(config).await {
        Ok(stream) => Ok(stream),
        Err(first) => js.get_stream(&name).await.map_err(|_| queue_err(what)(&first)),
    }
}

/// The object store `name` (chunks over the stream `OBJ_<name>`), created if missing, or
/// taken from a client that made it meanwhile.
async fn blob_store(
    js: &jetstream::Context,
    name: &str,
    max_age: Duration,
) -> Result<object_store::ObjectStore, FleetError> {
    if let Ok(store) = js.get_object_store(name).await {
        return Ok(store);
    }
    let config = object_store::Config {
        bucket: name.to_string(),
        max_age,
        storage: jetstream::stream::StorageType::File,
        num_replicas: 1,
        ..Default::default()
    };
    match js.create_object_store(config).await {
        Ok(store) => Ok(store),
        Err(first) => {
            js.get_object_store(name).await.map_err(|_| queue_err(&format!("the object store {name}"))(&first))
        }
    }
}

/// The keys of `store`, from its stream's subjects: one request and its pages. The
/// client's own `keys()` reads them through a consumer that counts what is left to come,
/// and on a bucket written while it reads (the registry, refreshed by every worker all the
/// time) it waited for minutes: a `submit` hung there in the real-desktop bench.
async fn bucket_keys(store: &kv::Store) -> Result<Vec<String>, async_nats::jetstream::stream::InfoError> {
    let subjects = store.stream.info_with_subjects(format!("{}>", store.prefix)).await?;
    let subjects: Vec<(String, usize)> = subjects.try_collect().await?;
    Ok(subjects.into_iter().filter_map(|(s, _)| s.strip_prefix(store.prefix.as_str()).map(str::to_string)).collect())
}

/// The key-value bucket `name`, created if missing. Created here as the stream the
/// key-value layout defines (`KV_<name>` over `$KV.<name>.>`, one value per key, rollups
/// allowed, deletes denied, direct gets) rather than through the client's
/// `create_key_value`, which first reads account fields Debian's server (2.9) does not send.
async fn bucket(js: &jetstream::Context, name: &str, max_age: Duration) -> Result<kv::Store, FleetError> {
    if let Ok(store) = js.get_key_value(name).await {
        return Ok(store);
    }
    let config = jetstream::stream::Config {
        name: format!("KV_{name}"),
        subjects: vec![format!("$KV.{name}.>")],
        max_messages_per_subject: 1,
        max_age,
        storage: jetstream::stream::StorageType::File,
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        discard: jetstream::stream::DiscardPolicy::New,
        num_replicas: 1,
        ..Default::default()
    };
    made_stream(js, config, &format!("the bucket {name}")).await?;
    js.get_key_value(name).await.map_err(|e| queue_err(&format!("the bucket {name}"))(&e))
}

#[async_trait]
impl Queue for NatsQueue {
    async fn publish(&self, pool: &str, id: &str) -> Result<(), FleetError> {
        check_name("pool", pool)?;
        let ack = self
            .js
            .publish(self.subject(pool), id.to_string().into())
            .await
            .map_err(|e| queue_err("publishing a task")(&e))?;
        ack.await.map_err(|e| queue_err("the server's receipt of a task")(&e))?;
        Ok(())
    }

    async fn next(&self, pool: &str, wait: Duration) -> Result<Option<Box<dyn Delivery>>, FleetError> {
        check_name("pool", pool)?;
        let consumer = self.consumer(pool).await?;
        // A long poll: the server holds the request for up to `wait` and answers with the
        // first task (`batch`; `fetch` marks its request not to wait, which the server
        // version decides how to read). The contract test checks an empty pool is waited on.
        let mut batch = consumer
            .batch()
            .max_messages(1)
            .expires(wait.max(Duration::from_millis(100)))
            .messages()
            .await
            .map_err(|e| queue_err("asking for a task")(&e))?;
        let Some(message) = batch.next().await else { return Ok(None) };
        let message = message.map_err(|e| queue_err("receiving a task")(&e))?;
        let info = message.info().map_err(|e| queue_err("a task's delivery")(&e))?;
        let delivered = u64::try_from(info.delivered).unwrap_or(0);
        let id = String::from_utf8_lossy(&message.payload).into_owned();
        Ok(Some(Box::new(NatsDelivery { message, id, delivered })))
    }

    fn ack_wait(&self) -> Duration {
        self.effective.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    fn max_deliver(&self) -> u64 {
        self.effective.lock().unwrap_or_else(|p| p.into_inner()).1
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision, FleetError> {
        self.tasks.create(key, value.into()).await.map_err(|e| match e.kind() {
            kv::CreateErrorKind::AlreadyExists => FleetError::Exists(key.to_string()),
            _ => queue_err("storing a record")(&e),
        })
    }

    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, Revision)>, FleetError> {
        let entry = self.tasks.entry(key).await.map_err(|e| queue_err("reading a record")(&e))?;
        Ok(entry.filter(|e| e.operation == kv::Operation::Put).map(|e| (e.value.to_vec(), e.revision)))
    }

    async fn update(&self, key: &str, value: Vec<u8>, revision: Revision) -> Result<Revision, FleetError> {
        self.tasks.update(key, value.into(), revision).await.map_err(|e| match e.kind() {
            kv::UpdateErrorKind::WrongLastRevision => FleetError::Conflict,
            _ => queue_err("writing a record")(&e),
        })
    }

    async fn keys(&self) -> Result<Vec<String>, FleetError> {
        bucket_keys(&self.tasks).await.map_err(|e| queue_err("listing records")(&e))
    }

    async fn put_blob(&self, key: &str, data: Vec<u8>) -> Result<(), FleetError> {
        self.blobs.put(key, &mut data.as_slice()).await.map_err(|e| queue_err(&format!("keeping {key}"))(&e))?;
        Ok(())
    }

    async fn get_blob(&self, key: &str) -> Result<Option<Vec<u8>>, FleetError> {
        use tokio::io::AsyncReadExt;
        let mut object = match self.blobs.get(key).await {
            Ok(o) => o,
            Err(e) if e.kind() == object_store::GetErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(queue_err(&format!("reading {key}"))(&e)),
        };
        // Bounded: an entry replaced or expiring while it is read would leave the read
        // waiting for chunks that never come.
        let mut data = Vec::new();
        let read = tokio::time::timeout(BLOB_READ, object.read_to_end(&mut data)).await;
        match read {
            Ok(Ok(_)) => Ok(Some(data)),
            Ok(Err(e)) => Err(queue_err(&format!("reading {key}"))(&e)),
            Err(_) => Err(FleetError::Queue(format!(
                "reading {key}: no more of it came within {} s (replaced or expiring meanwhile?): try again",
                BLOB_READ.as_secs()
            ))),
        }
    }

    async fn has_blob(&self, key: &str) -> Result<bool, FleetError> {
        match self.blobs.info(key).await {
            Ok(info) => Ok(!info.deleted),
            Err(e) if e.kind() == object_store::InfoErrorKind::NotFound => Ok(false),
            Err(e) => Err(queue_err(&format!("looking for {key}"))(&e)),
        }
    }

    async fn advertise(&self, worker: &WorkerInfo) -> Result<(), FleetError> {
        check_name("worker", &worker.name)?;
        let value = serde_json::to_vec(worker).map_err(|e| FleetError::Corrupt(e.to_string()))?;
        self.workers.put(&worker.name, value.into()).await.map_err(|e| queue_err("the worker registry")(&e))?;
        Ok(())
    }

    async fn workers(&self) -> Result<Vec<WorkerInfo>, FleetError> {
        let keys = bucket_keys(&self.workers).await.map_err(|e| queue_err("the worker registry")(&e))?;
        let mut all = Vec::new();
        for key in keys {
            let Some(bytes) = self.workers.get(&key).await.map_err(|e| queue_err("the worker registry")(&e))? else {
                continue;
            };
            let info = serde_json::from_slice(&bytes).map_err(|e| FleetError::Corrupt(format!("worker {key}: {e}")))?;
            all.push(info);
        }
        all.sort_by(|a: &WorkerInfo, b| a.name.cmp(&b.name));
        Ok(all)
    }
}

struct NatsDelivery {
    message: jetstream::Message,
    id: String,
    delivered: u64,
}

impl NatsDelivery {
    async fn send(&self, kind: AckKind, what: &str) -> Result<(), FleetError> {
        // Acknowledged by the server, so "acked" means the message will not come again.
        self.message.double_ack_with(kind).await.map_err(|e| queue_err(what)(&e))
    }
}

#[async_trait]
impl Delivery for NatsDelivery {
    fn task_id(&self) -> &str {
        &self.id
    }

    fn delivered(&self) -> u64 {
        self.delivered
    }

    async fn heartbeat(&self) -> Result<(), FleetError> {
        // A progress ack is not confirmed by the server (it sends no reply to one).
        self.message.ack_with(AckKind::Progress).await.map_err(|e| queue_err("a heartbeat")(&e))
    }

    async fn ack(&self) -> Result<(), FleetError> {
        self.send(AckKind::Ack, "acking a task").await
    }

    async fn retry_later(&self, delay: Duration) -> Result<(), FleetError> {
        self.send(AckKind::Nak(Some(delay)), "handing a task back").await
    }

    async fn give_up(&self) -> Result<(), FleetError> {
        self.send(AckKind::Term, "ending a task").await
    }
}

/// `url` without the credentials written in it (`user:password@`, or a token `token@`),
/// and them. A bare `HOST:PORT` is `nats://`.
fn split_credentials(url: &str) -> (String, Option<String>, Option<String>) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("nats", url));
    let Some((who, host)) = rest.rsplit_once('@') else { return (url.to_string(), None, None) };
    let (user, password) = match who.split_once(':') {
        Some((u, p)) => (u.to_string(), Some(p.to_string())),
        None => (who.to_string(), None),
    };
    (format!("{scheme}://{host}"), Some(user), password)
}

/// `url` as it may be shown: a password in it (`nats://user:password@host`) as `***`, and
/// a token (`nats://token@host`) too.
pub fn shown_url(url: &str) -> String {
    match split_credentials(url) {
        (bare, Some(user), Some(_)) => bare.replacen("://", &format!("://{user}:***@"), 1),
        (bare, Some(_), None) => bare.replacen("://", "://***@", 1),
        (bare, None, _) => bare,
    }
}

/// How long reading one kept trace or frame may take.
const BLOB_READ: Duration = Duration::from_secs(60);

/// The schemes a NATS client speaks; a bare `HOST:PORT` is `nats://`.
const SCHEMES: [&str; 4] = ["nats", "tls", "ws", "wss"];

/// Refuses an address no NATS server has (a web address, an empty one) with what to write,
/// before any connection is tried (the client's own error names only the parse).
fn check_url(url: &str) -> Result<(), FleetError> {
    let hint = "write the NATS server as nats://HOST:4222 (tls://HOST:4222 for TLS)";
    if url.trim().is_empty() {
        return Err(FleetError::Invalid(format!("the fleet's address is empty: {hint}")));
    }
    match url.split_once("://") {
        Some((scheme, rest)) if SCHEMES.contains(&scheme.to_lowercase().as_str()) && !rest.is_empty() => Ok(()),
        Some((scheme, _)) => Err(FleetError::Invalid(format!(
            "{:?} is not a NATS server's address ({scheme}:// is not a scheme NATS speaks): {hint}",
            shown_url(url)
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::check_url;

    #[test]
    fn an_address_no_nats_server_has_is_refused_with_what_to_write() {
        for ok in ["nats://127.0.0.1:4222", "tls://fleet.example:4222", "NATS://h:1", "host:4222", "ws://h:80"] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        let err = check_url("http://localhost:4222").unwrap_err().to_string();
        assert!(err.contains("http:// is not a scheme NATS speaks") && err.contains("nats://HOST:4222"), "{err}");
        assert!(check_url(" ").unwrap_err().to_string().contains("empty"));
        assert!(check_url("nats://").is_err());
    }

    #[test]
    fn a_password_in_the_address_is_never_shown() {
        assert_eq!(super::shown_url("nats://deft:s3cret@h:4222"), "nats://deft:***@h:4222");
        assert_eq!(super::shown_url("nats://h:4222"), "nats://h:4222");
        assert_eq!(super::shown_url("tls://s3cret-token@h:4222"), "tls://***@h:4222");
        assert_eq!(super::shown_url("deft:s3cret@h:4222"), "nats://deft:***@h:4222");
        let (url, user, password) = super::split_credentials("nats://deft:p@ss@h:4222");
        assert_eq!((url.as_str(), user.as_deref(), password.as_deref()), ("nats://h:4222", Some("deft"), Some("p@ss")));
        assert_eq!(super::split_credentials("h:4222"), ("h:4222".to_string(), None, None));
        let (url, user, password) = super::split_credentials("deft:pw@h:4222");
        assert_eq!((url.as_str(), user.as_deref(), password.as_deref()), ("nats://h:4222", Some("deft"), Some("pw")));
    }
}
