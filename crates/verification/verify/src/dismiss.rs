//! `DismissBlocking`: dismiss a popup that intercepts the input before it is sent, when a
//! configured rule names it.

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_retry::{Report, Symptoms};
use deft_types::Blocking;

use crate::executor::Executor;

impl Executor {
    /// `DismissBlocking`: dismiss a popup that intercepts the input before it is sent, when
    /// a configured rule names it (ordered only when the policy allows dismissing).
    pub(crate) async fn on_dismiss(&self, blocking: Option<&Blocking>) -> Report {
        let refuse = |message: String| {
            Report::Refused(Symptoms { blocking: blocking.cloned(), dialog_appeared: true, ..Symptoms::new(message) })
        };
        let Some(b) = blocking else { return refuse("nothing to dismiss was named".into()) };
        let rule = self.config.dismiss_rules.iter().find(|r| {
            crate::condition::text_matches(&r.title, &b.name) && r.role.as_ref().is_none_or(|role| role == &b.role)
        });
        let Some(rule) = rule else {
            return refuse(format!("no dismiss rule matches {} {:?}", b.role, b.name));
        };
        let Ok(apps) = self.a11y.applications().await else { return refuse("cannot list the windows".into()) };
        let Some(window) = apps.iter().flat_map(|a| a.windows.iter()).find(|w| w.title == b.name) else {
            return Report::Dismissed;
        };
        let window = window.id.clone();
        match &rule.button {
            Some(button) => {
                let tree = match self.a11y.snapshot(&Scope::Subtree(window.clone()), &SnapshotOptions::default()).await
                {
                    Ok(t) => t,
                    Err(e) => return refuse(e.to_string()),
                };
                let Some(node) = tree.nodes.iter().find(|n| n.element.name == *button && !n.element.actions.is_empty())
                else {
                    return refuse(format!("{} {:?} has no button {button:?}", b.role, b.name));
                };
                let action = node.element.actions[0].clone();
                if let Err(e) = self.a11y.do_action(&node.element.id, &action).await {
                    return refuse(e.to_string());
                }
            }
            None => {
                let escape = deft_input::Chord::key(deft_input::Key::Named(deft_input::NamedKey::Escape));
                let sent = crate::executor::lock(&self.input).chord(&escape);
                // Whichever window takes it, it is an input: the grace before leaving applies.
                self.input_sent(None);
                if let Err(e) = sent {
                    return refuse(e.to_string());
                }
            }
        }
        // Dismissed once the window is gone.
        let until = Instant::now() + Duration::from_secs(2);
        let mut waker = self.waker().await;
        loop {
            match self.a11y.applications().await {
                Ok(apps) if !apps.iter().flat_map(|a| a.windows.iter()).any(|w| w.id == window) => {
                    return Report::Dismissed;
                }
                _ => {}
            }
            if Instant::now() >= until {
                return refuse(format!("{} {:?} was still open 2 s after dismissing it", b.role, b.name));
            }
            waker.next(until).await;
        }
    }
}
