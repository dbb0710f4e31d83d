//! Policy files: the embedded defaults, a user's file merged over them key by key.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use deft_types::{ActionKind, Method};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{PolicyError, line_col};
use crate::policy::{
    ALL_KINDS, ActionPolicy, BlockedPolicy, EarlyFallback, LoadingPolicy, NoEffectPolicy, StalePolicy, TransientPolicy,
    table_name,
};

/// The built-in policies, documented key by key.
const DEFAULTS_TOML: &str = include_str!("defaults.toml");

/// One resolved [`ActionPolicy`] per action kind.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PolicySet {
    /// Indexed like [`ALL_KINDS`].
    policies: [ActionPolicy; 7],
}

impl PolicySet {
    /// The built-in policies, parsed from the embedded `defaults.toml`.
    pub fn defaults() -> PolicySet {
        static DEFAULTS: OnceLock<PolicySet> = OnceLock::new();
        DEFAULTS
            .get_or_init(|| match load(None) {
                Ok(set) => set,
                // The embedded file is checked by the tests; a broken one is a build bug.
                Err(e) => panic!("deft-retry's built-in defaults.toml is invalid: {e}"),
            })
            .clone()
    }

    /// The text of the built-in policy file, e.g. for a CLI to print as a starting point.
    pub fn defaults_toml() -> &'static str {
        DEFAULTS_TOML
    }

    /// A user's policy file merged over the defaults: it may set a single key.
    pub fn from_toml_str(src: &str) -> Result<PolicySet, PolicyError> {
        load(Some(src))
    }

    /// The policy for one kind of action.
    pub fn get(&self, kind: ActionKind) -> &ActionPolicy {
        &self.policies[kind_index(kind)]
    }
}

fn kind_index(kind: ActionKind) -> usize {
    match kind {
        ActionKind::Click => 0,
        ActionKind::Type => 1,
        ActionKind::SetValue => 2,
        ActionKind::Action => 3,
        ActionKind::Key => 4,
        ActionKind::Scroll => 5,
        ActionKind::Wait => 6,
    }
}

/// A policy file as written: every key optional, each value with its place in the file.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    defaults: RawPolicy,
    #[serde(default)]
    click: RawPolicy,
    #[serde(default, rename = "type")]
    type_: RawPolicy,
    #[serde(default, alias = "set-value")]
    set_value: RawPolicy,
    #[serde(default)]
    action: RawPolicy,
    #[serde(default)]
    key: RawPolicy,
    #[serde(default)]
    scroll: RawPolicy,
    #[serde(default)]
    wait: RawPolicy,
}

impl RawFile {
    fn table(&self, kind: ActionKind) -> &RawPolicy {
        match kind {
            ActionKind::Click => &self.click,
            ActionKind::Type => &self.type_,
            ActionKind::SetValue => &self.set_value,
            ActionKind::Action => &self.action,
            ActionKind::Key => &self.key,
            ActionKind::Scroll => &self.scroll,
            ActionKind::Wait => &self.wait,
        }
    }
}

type Val<T> = Option<Spanned<T>>;

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    chain: Val<Vec<Method>>,
    verify_delay_ms: Val<u64>,
    window_ms: Val<u64>,
    poll_ms: Val<u64>,
    max_retries: Val<u32>,
    max_total_ms: Val<u64>,
    early_fallback: Val<EarlyFallback>,
    early_fallback_ms: Val<u64>,
    #[serde(default)]
    loading: RawLoading,
    #[serde(default)]
    blocked: RawBlocked,
    #[serde(default)]
    stale: RawStale,
    #[serde(default)]
    transient: RawTransient,
    #[serde(default)]
    no_effect: RawNoEffect,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoading {
    extend_ms: Val<u64>,
    max_extra_ms: Val<u64>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlocked {
    auto_dismiss: Val<bool>,
    max_dismissals: Val<u32>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStale {
    max_reresolves: Val<u32>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransient {
    max_retries: Val<u32>,
    backoff_initial_ms: Val<u64>,
    backoff_factor: Val<u32>,
    backoff_max_ms: Val<u64>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNoEffect {
    fallback: Val<bool>,
    stop_when_received: Val<bool>,
}

fn parse(src: &str) -> Result<RawFile, PolicyError> {
    toml::from_str(src).map_err(|e| {
        let (line, column) = match e.span() {
            Some(span) => {
                let (l, c) = line_col(src, span.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        PolicyError::Parse { line, column, message: e.message().trim().to_string() }
    })
}

/// Where a resolved value was written.
#[derive(Clone, Copy)]
struct Origin {
    table: &'static str,
    /// The line in the user's file; `None` for a built-in value.
    line: Option<usize>,
}

/// One table of one file, in the order values are looked up.
struct Layer<'a> {
    raw: &'a RawPolicy,
    table: &'static str,
    /// The user's source text, to turn spans into lines; `None` for the built-in file.
    user_src: Option<&'a str>,
}

/// Looks each key up through the layers and remembers where its value came from.
struct Resolver<'a> {
    layers: Vec<Layer<'a>>,
    origins: BTreeMap<&'static str, Origin>,
}

impl Resolver<'_> {
    fn pick<T: Clone>(
        &mut self,
        key: &'static str,
        get: impl Fn(&RawPolicy) -> Option<&Spanned<T>>,
    ) -> Result<T, PolicyError> {
        for layer in &self.layers {
            if let Some(v) = get(layer.raw) {
                let line = layer.user_src.map(|src| line_col(src, v.span().start).0);
                self.origins.insert(key, Origin { table: layer.table, line });
                return Ok(v.get_ref().clone());
            }
        }
        Err(PolicyError::Invalid {
            key: key.to_string(),
            line: None,
            reason: "has no value, not even a built-in one".into(),
        })
    }

    fn error(&self, key: &'static str, reason: String) -> PolicyError {
        let origin = self.origins.get(key).copied();
        let (table, line) = origin.map_or(("defaults", None), |o| (o.table, o.line));
        let builtin = if line.is_none() { " (built-in)" } else { "" };
        PolicyError::Invalid { key: format!("{table}.{key}{builtin}"), line, reason }
    }
}

fn load(user_src: Option<&str>) -> Result<PolicySet, PolicyError> {
    let builtin = parse(DEFAULTS_TOML)?;
    let user = user_src.map(parse).transpose()?.unwrap_or_default();
    if let (Some(src), Some(chain)) = (user_src, &user.defaults.chain) {
        return Err(PolicyError::Invalid {
            key: "defaults.chain".into(),
            line: Some(line_col(src, chain.span().start).0),
            reason: "cannot be set: fallback chains are per action ([click], [type], ...)".into(),
        });
    }
    let mut resolved = Vec::with_capacity(ALL_KINDS.len());
    for kind in ALL_KINDS {
        let mut layers = Vec::new();
        if let Some(src) = user_src {
            layers.push(Layer { raw: user.table(kind), table: table_name(kind), user_src: Some(src) });
            layers.push(Layer { raw: &user.defaults, table: "defaults", user_src: Some(src) });
        }
        layers.push(Layer { raw: builtin.table(kind), table: table_name(kind), user_src: None });
        layers.push(Layer { raw: &builtin.defaults, table: "defaults", user_src: None });
        resolved.push(resolve(Resolver { layers, origins: BTreeMap::new() }, kind)?);
    }
    let policies = resolved.try_into().unwrap_or_else(|_| unreachable!("one policy per kind in ALL_KINDS"));
    Ok(PolicySet { policies })
}

fn resolve(mut r: Resolver<'_>, kind: ActionKind) -> Result<ActionPolicy, PolicyError> {
    let policy = ActionPolicy {
        chain: r.pick("chain", |p| p.chain.as_ref())?,
        verify_delay_ms: r.pick("verify_delay_ms", |p| p.verify_delay_ms.as_ref())?,
        window_ms: r.pick("window_ms", |p| p.window_ms.as_ref())?,
        poll_ms: r.pick("poll_ms", |p| p.poll_ms.as_ref())?,
        max_retries: r.pick("max_retries", |p| p.max_retries.as_ref())?,
        max_total_ms: r.pick("max_total_ms", |p| p.max_total_ms.as_ref())?,
        early_fallback: r.pick("early_fallback", |p| p.early_fallback.as_ref())?,
        early_fallback_ms: r.pick("early_fallback_ms", |p| p.early_fallback_ms.as_ref())?,
        loading: LoadingPolicy {
            extend_ms: r.pick("loading.extend_ms", |p| p.loading.extend_ms.as_ref())?,
            max_extra_ms: r.pick("loading.max_extra_ms", |p| p.loading.max_extra_ms.as_ref())?,
        },
        blocked: BlockedPolicy {
            auto_dismiss: r.pick("blocked.auto_dismiss", |p| p.blocked.auto_dismiss.as_ref())?,
            max_dismissals: r.pick("blocked.max_dismissals", |p| p.blocked.max_dismissals.as_ref())?,
        },
        stale: StalePolicy { max_reresolves: r.pick("stale.max_reresolves", |p| p.stale.max_reresolves.as_ref())? },
        transient: TransientPolicy {
            max_retries: r.pick("transient.max_retries", |p| p.transient.max_retries.as_ref())?,
            backoff_initial_ms: r.pick("transient.backoff_initial_ms", |p| p.transient.backoff_initial_ms.as_ref())?,
            backoff_factor: r.pick("transient.backoff_factor", |p| p.transient.backoff_factor.as_ref())?,
            backoff_max_ms: r.pick("transient.backoff_max_ms", |p| p.transient.backoff_max_ms.as_ref())?,
        },
        no_effect: NoEffectPolicy {
            fallback: r.pick("no_effect.fallback", |p| p.no_effect.fallback.as_ref())?,
            stop_when_received: r.pick("no_effect.stop_when_received", |p| p.no_effect.stop_when_received.as_ref())?,
        },
    };
    if let Some(v) = policy.violation(kind) {
        // Point at the key the user wrote, when one of those involved came from their file.
        let key =
            v.keys.iter().copied().find(|k| r.origins.get(k).is_some_and(|o| o.line.is_some())).unwrap_or(v.keys[0]);
        return Err(r.error(key, v.reason));
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_are_complete() {
        let set = PolicySet::defaults();
        for kind in ALL_KINDS {
            set.get(kind).validate(kind).unwrap();
        }
    }

    #[test]
    fn user_value_wins_over_builtin_table() {
        let set = PolicySet::from_toml_str("[defaults]\nwindow_ms = 5000\n").unwrap();
        assert_eq!(set.get(ActionKind::Click).window_ms, 5000);
        // The user's [defaults] beats the built-in [wait] table too: the user's file is on top.
        assert_eq!(set.get(ActionKind::Wait).window_ms, 5000);
    }

    #[test]
    fn user_table_wins_over_user_defaults() {
        let src = "[defaults]\nmax_retries = 1\n[click]\nmax_retries = 5\n";
        let set = PolicySet::from_toml_str(src).unwrap();
        assert_eq!(set.get(ActionKind::Click).max_retries, 5);
        assert_eq!(set.get(ActionKind::Type).max_retries, 1);
    }
}
