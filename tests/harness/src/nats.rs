//! A real NATS server for a test: Debian's `nats-server` with JetStream, on a free loopback
//! port, its store in a scratch directory; stopped when dropped. The fleet's queue in
//! deft-fleet's contract tests and agent-cli's fleet tests.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `nats-server -js`.
pub struct NatsServer {
    child: Child,
    /// Where clients connect (`nats://127.0.0.1:PORT`).
    pub url: String,
    store: PathBuf,
}

fn binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join("nats-server"))
        .find(|p| p.is_file());
    on_path
        .unwrap_or_else(|| panic!("nats-server is not installed: run `cargo xtask setup` (Debian package nats-server)"))
}

impl NatsServer {
    /// Start one; panics with what to install when it is missing.
    pub fn start() -> NatsServer {
        NatsServer::start_with(None)
    }

    /// [`NatsServer::start`] with a configuration file's text (`authorization { ... }`,
    /// `tls { ... }`), written beside its store.
    pub fn start_with(config: Option<&str>) -> NatsServer {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let store = std::env::temp_dir().join(format!("deft-fleet-nats-{}-{port}", std::process::id()));
        let mut cmd = Command::new(binary());
        if let Some(text) = config {
            std::fs::create_dir_all(&store).expect("the server's scratch directory");
            let file = store.join("server.conf");
            std::fs::write(&file, text).expect("the server's configuration");
            cmd.arg("-c").arg(file);
        }
        let child = cmd
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(store.join("js"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        let until = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "nats-server did not listen on port {port} within 20 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        NatsServer { child, url: format!("nats://127.0.0.1:{port}"), store }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}
