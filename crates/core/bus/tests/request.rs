//! Request/reply: round trip, concurrency, timeout, no responder, unanswered, registration.

use std::time::{Duration, Instant};

use deft_bus::{RegisterError, RequestChannel, RequestConfig, RequestError};

fn channel(timeout: Duration) -> RequestChannel<String, usize> {
    RequestChannel::new(RequestConfig { queue: 4, timeout })
}

#[tokio::test]
async fn round_trip_through_a_handler() {
    let ch = channel(Duration::from_secs(10));
    tokio::spawn(ch.responder().unwrap().serve(|q: String| q.len()));
    assert_eq!(ch.request("four".into()).await, Ok(4));
    assert_eq!(ch.request("".into()).await, Ok(0));
}

#[tokio::test]
async fn concurrent_requests_each_get_their_own_reply() {
    let ch = channel(Duration::from_secs(10));
    let mut requests = ch.responder().unwrap();
    tokio::spawn(async move {
        while let Some((q, responder)) = requests.next().await {
            // Answer out of arrival order would still pair correctly; answer as they come.
            responder.reply(q.len() * 10).unwrap();
        }
    });
    let asks = (0..20).map(|n| {
        let ch = ch.clone();
        async move { ch.request("x".repeat(n)).await }
    });
    let replies: Vec<_> = futures_join(asks).await;
    for (n, r) in replies.into_iter().enumerate() {
        assert_eq!(r, Ok(n * 10));
    }
}

/// Joins futures without a `futures` dependency: spawn each on the current runtime.
async fn futures_join<F>(futs: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test]
async fn without_a_responder_a_request_fails_at_once() {
    let ch = channel(Duration::from_secs(30));
    let started = Instant::now();
    assert_eq!(ch.request("anyone?".into()).await, Err(RequestError::NoResponder));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(!ch.has_responder());

    // A responder that went away counts as none.
    let requests = ch.responder().unwrap();
    assert!(ch.has_responder());
    drop(requests);
    assert_eq!(ch.request("still?".into()).await, Err(RequestError::NoResponder));
}

#[tokio::test]
async fn a_responder_that_never_answers_times_out() {
    let ch = channel(Duration::from_secs(30));
    let mut requests = ch.responder().unwrap();
    let timeout = Duration::from_millis(50);
    let started = Instant::now();
    let err = ch.request_within("hello?".into(), timeout).await.unwrap_err();
    assert_eq!(err, RequestError::Timeout { after: timeout });
    assert!(err.is_retryable());
    assert!(started.elapsed() >= timeout);
    // The abandoned request is not handed to the responder.
    assert!(requests.try_next().is_none());
}

#[tokio::test]
async fn a_dropped_responder_fails_the_request() {
    let ch = channel(Duration::from_secs(10));
    let mut requests = ch.responder().unwrap();
    tokio::spawn(async move {
        let (_, responder) = requests.next().await.unwrap();
        assert!(!responder.is_abandoned());
        drop(responder);
    });
    assert_eq!(ch.request("q".into()).await, Err(RequestError::Unanswered));
}

#[tokio::test]
async fn a_late_reply_comes_back_to_the_responder() {
    let ch = channel(Duration::from_secs(10));
    let mut requests = ch.responder().unwrap();
    let asked = tokio::spawn({
        let ch = ch.clone();
        async move { ch.request_within("q".into(), Duration::from_millis(20)).await }
    });
    let (_, responder) = requests.next().await.unwrap();
    assert!(matches!(asked.await.unwrap(), Err(RequestError::Timeout { .. })));
    assert!(responder.is_abandoned());
    assert_eq!(responder.reply(1), Err(1));
}

#[test]
fn only_one_responder_at_a_time() {
    let ch = channel(Duration::from_secs(1));
    let first = ch.responder().unwrap();
    assert_eq!(ch.responder().unwrap_err(), RegisterError::AlreadyRegistered);
    drop(first);
    assert!(ch.responder().is_ok());
}

#[test]
fn requests_end_when_every_channel_handle_is_dropped() {
    let ch = channel(Duration::from_secs(1));
    let mut requests = ch.responder().unwrap();
    drop(ch);
    assert!(requests.blocking_next().is_none());
}

#[test]
fn errors_say_what_to_do() {
    for (err, hint) in [
        (RequestError::NoResponder, "register one"),
        (RequestError::Timeout { after: Duration::from_secs(2) }, "retry later"),
        (RequestError::Unanswered, "still running"),
    ] {
        assert!(err.to_string().contains(hint), "{err}");
    }
    assert!(!RequestError::NoResponder.is_retryable());
}
