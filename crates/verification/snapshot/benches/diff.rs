//! Benchmarks: diff and judgement of 300- and 3,000-element snapshots with about 5% of the
//! elements changed, diff of identical snapshots, and bincode of a 3,000-element snapshot.

use std::collections::HashSet;

use deft_snapshot::{Judgement, RelevanceConfig, Snapshot, decode, diff, encode};
use deft_types::{Element, ElementId, Logical, Rect, Role, State};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// xorshift64*: deterministic inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

const ROLES: [&str; 6] = ["panel", "push_button", "label", "text", "check_box", "list_item"];

/// An element as AT-SPI would give it: a long id, a role, a name, a few states, bounds.
fn element(i: usize, rng: &mut Rng) -> Element {
    let role = ROLES[rng.below(ROLES.len())];
    Element {
        id: ElementId(format!(":1.42/org/a11y/atspi/accessible/{i}")),
        role: Role::new(role),
        name: if role == "panel" { String::new() } else { format!("{role} {i}") },
        description: String::new(),
        states: [State::Enabled, State::Showing, State::Visible, State::Focusable].into(),
        bounds: Some(Rect::<Logical>::new((i % 40 * 20) as i32, (i / 40 * 24) as i32, 120, 24)),
        text: (role == "text").then(|| format!("value {i}")),
        value: None,
        actions: vec!["click".into()],
        child_count: 0,
    }
}

fn tree(n: usize, rng: &mut Rng) -> Vec<(Element, Option<ElementId>)> {
    let mut out: Vec<(Element, Option<ElementId>)> = Vec::with_capacity(n);
    for i in 0..n {
        let parent = (i > 0).then(|| out[rng.below(i)].0.id.clone());
        out.push((element(i, rng), parent));
    }
    out
}

/// A snapshot of `n` elements and a copy with about 5% of them changed: text typed,
/// states toggled, bounds moved, names changed, and a few added and removed.
fn pair(n: usize) -> (Snapshot, Snapshot) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let a = tree(n, &mut rng);
    let mut b = a.clone();
    for k in 0..n / 20 {
        let (e, _) = &mut b[rng.below(n)];
        match k % 4 {
            0 => e.text = Some(format!("typed {k}")),
            1 => {
                e.states.insert(State::Focused);
            }
            2 => e.bounds = e.bounds.map(|r| Rect::new(r.x + 30, r.y, r.w, r.h)),
            _ => e.name.push_str(" (changed)"),
        }
    }
    // Remove a few leaves, add as many new elements.
    let k = (n / 300).max(1);
    let parents: HashSet<ElementId> = b.iter().filter_map(|(_, p)| p.clone()).collect();
    let leaves: Vec<usize> = (0..b.len()).filter(|&i| !parents.contains(&b[i].0.id)).take(k).collect();
    for &i in leaves.iter().rev() {
        b.remove(i);
    }
    for j in 0..k {
        let parent = b[rng.below(b.len())].0.id.clone();
        b.push((element(n + j, &mut rng), Some(parent)));
    }
    let snap = |v: Vec<_>| Snapshot::from_parts(v, Vec::new(), Vec::new()).expect("valid tree");
    (snap(a), snap(b))
}

#[divan::bench(args = [300, 3000])]
fn diff_5pct_changed(bencher: Bencher, n: usize) {
    let (a, b) = pair(n);
    bencher.bench(|| diff(black_box(&a), black_box(&b)));
}

#[divan::bench(args = [300, 3000])]
fn diff_identical(bencher: Bencher, n: usize) {
    let (a, _) = pair(n);
    let same = a.clone();
    bencher.bench(|| diff(black_box(&a), black_box(&same)));
}

#[divan::bench(args = [300, 3000])]
fn judge_5pct_changed(bencher: Bencher, n: usize) {
    let (a, b) = pair(n);
    let target = a.preorder().nth(n / 2).expect("a middle element").id().clone();
    let config = RelevanceConfig::for_target(target);
    bencher.bench(|| Judgement::between(black_box(&a), black_box(&b), &config));
}

#[divan::bench]
fn encode_3000(bencher: Bencher) {
    let (a, _) = pair(3000);
    bencher.bench(|| encode(black_box(&a)).expect("encodes"));
}

#[divan::bench]
fn decode_3000(bencher: Bencher) {
    let (a, _) = pair(3000);
    let bytes = encode(&a).expect("encodes");
    bencher.bench(|| decode::<Snapshot>(black_box(&bytes)).expect("decodes"));
}
