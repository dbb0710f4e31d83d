//! The test model's HTTP: one request per connection (`Connection: close`), enough of
//! HTTP/1.1 for the model clients (reqwest) to talk to it over loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// A request as received.
pub struct HttpRequest {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The path, query included.
    pub path: String,
    /// The body.
    pub body: Vec<u8>,
    /// The credential sent: the `x-api-key` header, or the token of `Authorization: Bearer`.
    pub credential: Option<String>,
}

/// Read one request from `stream`.
pub fn read_request(stream: &TcpStream) -> std::io::Result<HttpRequest> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut len = 0;
    let mut credential = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        let Some((k, v)) = h.split_once(':') else { continue };
        let (k, v) = (k.trim(), v.trim());
        if k.eq_ignore_ascii_case("content-length") {
            len = v.parse().unwrap_or(0);
        } else if k.eq_ignore_ascii_case("x-api-key") {
            credential = Some(v.to_string());
        } else if k.eq_ignore_ascii_case("authorization") {
            credential = Some(v.strip_prefix("Bearer ").unwrap_or(v).to_string());
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    Ok(HttpRequest { method, path, body, credential })
}

/// Write a whole response.
pub fn respond(mut stream: &TcpStream, status: u16, content_type: &str, body: &[u8]) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

/// Write a server-sent event stream, each event flushed as it goes.
pub fn respond_sse(mut stream: &TcpStream, events: &[String]) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    )?;
    for e in events {
        stream.write_all(e.as_bytes())?;
        stream.flush()?;
    }
    Ok(())
}
