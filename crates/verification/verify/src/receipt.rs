//! Receipt: whether the app showed it received the pending input, by the channels only the
//! executor watches (a pressed look that came and went, an accepted accessibility action,
//! pixels drawn where text went in). Each told once as evidence.

use deft_types::{Channel, Evidence};

use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::run::Run;

impl Executor {
    /// Whether the target's pixels changed after text typed where it cannot be read back:
    /// the keys arrived (a terminal, a canvas editor drew something). Told once as evidence.
    pub(crate) fn pixels_received(&self, run: &mut Run<'_>) -> bool {
        if run.pending.pixels_changed {
            return true;
        }
        let Some((what, region)) = run.pending.receipt_pixels.as_ref().and_then(|w| self.pixel_change(w)) else {
            return false;
        };
        run.pending.pixels_changed = true;
        let e = Evidence {
            channel: Channel::Pixels,
            what: format!("{}{what} at the target", deft_types::RECEIPT),
            region: Some(region),
            after_ms: run.clock.ms().saturating_sub(run.pending.sent_ms),
        };
        run.evidence.push(e.clone());
        self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
        true
    }

    /// Whether the pending input showed that the app received it, by the channels only the
    /// executor watches (a pressed look that came and went, an accepted accessibility
    /// action); reported once as evidence.
    pub(crate) fn received(&self, run: &mut Run<'_>) -> bool {
        let (channel, what) = match &run.pending.press {
            Some(look) if look.received() => (Channel::Pixels, look.describe()),
            _ if run.pending.acked => (
                Channel::Accessibility,
                "the app accepted the accessibility action (or the space bar on the focused target in its stead)"
                    .to_string(),
            ),
            _ => return false,
        };
        if !std::mem::replace(&mut run.pending.receipt_told, true) {
            let e = run.evidence(channel, format!("{}{what}", deft_types::RECEIPT));
            self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
        }
        true
    }
}
