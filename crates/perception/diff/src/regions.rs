//! From changed tiles to merged regions: a union-find over the tile grid, then a fixed point.

/// A set of changed pixels: their bounding box in frame coordinates (exclusive ends) and
/// how many there are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Cluster {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    pub count: u64,
}

impl Cluster {
    /// Whether at most `gap` pixels separate the two boxes, horizontally and vertically
    /// (overlapping or touching boxes, diagonally too, are 0 apart).
    pub fn close(&self, o: &Cluster, gap: u32) -> bool {
        let gx = self.x0.max(o.x0).saturating_sub(self.x1.min(o.x1));
        let gy = self.y0.max(o.y0).saturating_sub(self.y1.min(o.y1));
        gx <= gap && gy <= gap
    }

    /// Take in the other cluster's pixels.
    pub fn absorb(&mut self, o: &Cluster) {
        self.x0 = self.x0.min(o.x0);
        self.y0 = self.y0.min(o.y0);
        self.x1 = self.x1.max(o.x1);
        self.y1 = self.y1.max(o.y1);
        self.count += o.count;
    }
}

const NONE: u32 = u32::MAX;

/// Changed tiles, added one band (row of tiles) at a time, each joined with its already
/// added neighbours (left, and the three above) when their boxes are close.
///
/// Every join here is of two close boxes, so it is one the fixed point makes too; joining
/// only neighbours is a shortcut, not the definition: [`merge_close`] afterwards joins
/// whatever is still close, so the result does not depend on the tile size.
pub(crate) struct TileGraph {
    gap: u32,
    nodes: Vec<Cluster>,
    parent: Vec<u32>,
    /// Node of each tile column in the band above, or `NONE`.
    above: Vec<u32>,
    /// Node of each tile column in the band being added, or `NONE`.
    here: Vec<u32>,
}

impl TileGraph {
    pub fn new(tiles_x: usize, gap: u32) -> Self {
        TileGraph { gap, nodes: Vec::new(), parent: Vec::new(), above: vec![NONE; tiles_x], here: vec![NONE; tiles_x] }
    }

    /// Add the changed tile in column `tx` of the current band; columns come left to right.
    #[inline]
    pub fn add(&mut self, tx: usize, c: Cluster) {
        // A tile close to the one on its left is absorbed into its node: dense changes
        // then make one node per band rather than one per tile.
        let left = tx.checked_sub(1).map_or(NONE, |l| self.here[l]);
        let id = if left != NONE && self.nodes[left as usize].close(&c, self.gap) {
            self.nodes[left as usize].absorb(&c);
            left
        } else {
            self.nodes.push(c);
            self.parent.push(self.nodes.len() as u32 - 1);
            self.nodes.len() as u32 - 1
        };
        self.here[tx] = id;
        let mut last = NONE;
        for i in tx.saturating_sub(1)..(tx + 2).min(self.above.len()) {
            let n = self.above[i];
            // Neighbours above often share a node: check each once.
            if n != NONE && n != last && self.nodes[n as usize].close(&c, self.gap) {
                self.union(id, n);
            }
            last = n;
        }
    }

    /// The current band is complete: it becomes the band above.
    pub fn end_band(&mut self) {
        std::mem::swap(&mut self.above, &mut self.here);
        self.here.fill(NONE);
    }

    /// A band with no changed tile.
    pub fn empty_band(&mut self) {
        self.above.fill(NONE);
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra as usize] = rb;
        }
    }

    fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let p = self.parent[i as usize];
            self.parent[i as usize] = self.parent[p as usize];
            i = p;
        }
        i
    }

    /// One cluster per component.
    pub fn into_clusters(mut self) -> Vec<Cluster> {
        let mut out: Vec<Cluster> = Vec::new();
        let mut slot = vec![NONE; self.nodes.len()];
        for i in 0..self.nodes.len() as u32 {
            let r = self.find(i) as usize;
            let c = self.nodes[i as usize];
            if slot[r] == NONE {
                slot[r] = out.len() as u32;
                out.push(c);
            } else {
                out[slot[r] as usize].absorb(&c);
            }
        }
        out
    }
}

/// Join clusters while any two are close, until none are: the fixed point is unique
/// (closeness only grows as boxes grow, so every join is forced whatever the order), and
/// the result has no two regions within `gap` of each other.
///
/// Sweep and prune: sorted by left edge, a cluster is compared only with those starting
/// at most `gap` past its right edge.
pub(crate) fn merge_close(mut cs: Vec<Cluster>, gap: u32) -> Vec<Cluster> {
    let mut alive = Vec::new();
    loop {
        cs.sort_unstable_by_key(|c| (c.x0, c.y0));
        alive.clear();
        alive.resize(cs.len(), true);
        let mut merged = false;
        for i in 0..cs.len() {
            if !alive[i] {
                continue;
            }
            let mut j = i + 1;
            while j < cs.len() && cs[j].x0 <= cs[i].x1 + gap {
                if alive[j] && cs[i].close(&cs[j], gap) {
                    let o = cs[j];
                    cs[i].absorb(&o);
                    alive[j] = false;
                    merged = true;
                }
                j += 1;
            }
        }
        if !merged {
            return cs;
        }
        let mut k = 0;
        cs.retain(|_| {
            k += 1;
            alive[k - 1]
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x0: u32, y0: u32, x1: u32, y1: u32) -> Cluster {
        Cluster { x0, y0, x1, y1, count: 1 }
    }

    #[test]
    fn closeness_counts_the_pixels_between() {
        assert!(c(0, 0, 1, 1).close(&c(1, 1, 2, 2), 0), "diagonal neighbours touch");
        assert!(!c(0, 0, 1, 1).close(&c(2, 0, 3, 1), 0));
        assert!(c(0, 0, 1, 1).close(&c(2, 0, 3, 1), 1));
        assert!(!c(0, 0, 1, 1).close(&c(2, 5, 3, 6), 3), "close in x is not enough");
    }

    #[test]
    fn growth_makes_new_neighbours() {
        // a and b join into a box that reaches c; c was close to neither alone.
        let out = merge_close(vec![c(12, 0, 13, 1), c(0, 0, 1, 10), c(0, 9, 10, 10)], 2);
        assert_eq!(out, vec![Cluster { x0: 0, y0: 0, x1: 13, y1: 10, count: 3 }]);
        let out = merge_close(vec![c(13, 0, 14, 1), c(0, 0, 1, 10), c(0, 9, 10, 10)], 2);
        assert_eq!(out, vec![Cluster { x0: 0, y0: 0, x1: 10, y1: 10, count: 2 }, c(13, 0, 14, 1)]);
    }

    #[test]
    fn tile_graph_joins_close_neighbours_only() {
        let mut g = TileGraph::new(3, 1);
        g.add(0, c(0, 0, 2, 2));
        g.add(2, c(6, 0, 8, 2));
        g.end_band();
        g.add(1, c(2, 4, 4, 5)); // 2 rows below the first tile: too far for gap 1
        g.end_band();
        let mut out = g.into_clusters();
        out.sort_by_key(|c| c.x0);
        assert_eq!(out.len(), 3);
    }
}
