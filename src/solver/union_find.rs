//! Union-find over nodes, and the difference sets (`pdelta`, `cdelta`) that record what
//! joined a set since it was last handled: merging two nodes must keep both differences
//! exact, so the growth of sets and the merging of nodes live together.

use super::{Node, PtsSet, Solver};

impl<'p> Solver<'p> {
    pub(super) fn add_pts(&mut self, n: Node, loc: Node) {
        let r = self.find(n);
        if self.pts[r as usize].insert(loc) {
            if !self.succ[r as usize].is_empty() {
                self.pdelta[r as usize].insert(loc);
            }
            if !self.complex[r as usize].is_empty() {
                self.cdelta[r as usize].insert(loc);
            }
            self.mark_changed(r);
        }
    }

    /// pts(r) ⊇ add, recording what is new for propagation and complex constraints.
    /// Returns whether r grew.
    pub(super) fn grow(&mut self, r: Node, add: &PtsSet) -> bool {
        let ru = r as usize;
        self.stats.work += add.len();
        // A few elements (a walk's one new cell, a seeded field): inserted in place, with no
        // difference set built (allocating one per offer was most of a small analysis).
        if add.len() <= 8 {
            let mut grew = false;
            for x in add {
                if self.pts[ru].insert(x) {
                    grew = true;
                    if !self.succ[ru].is_empty() {
                        self.pdelta[ru].insert(x);
                    }
                    if !self.complex[ru].is_empty() {
                        self.cdelta[ru].insert(x);
                    }
                }
            }
            if grew {
                self.mark_changed(r);
            }
            return grew;
        }
        // Most calls offer a set equal to the target's (on SQLite, 8 of the 9 billion
        // elements offered): comparing is a memcmp, the difference a merge and an allocation.
        let have = &self.pts[ru];
        if add.len() == have.len() && add == have {
            return false;
        }
        // A walk down a list offers one new cell a round to a set of thousands: a merge
        // of the whole set per round made the walk quadratic. Small offers are looked up
        // and inserted one by one instead.
        let small = |a: u64, b: u64| a.saturating_mul(16) < b;
        let new = if have.is_empty() {
            add.clone()
        } else if small(add.len(), have.len()) {
            PtsSet::from_sorted(add.iter().filter(|&x| !have.contains(x)))
        } else {
            add.difference(have)
        };
        if new.is_empty() {
            return false;
        }
        if small(new.len(), self.pts[ru].len()) {
            for x in &new {
                self.pts[ru].insert(x);
            }
        } else {
            self.pts[ru].union_with(&new);
        }
        if !self.succ[ru].is_empty() {
            self.pdelta[ru].union_with(&new);
        }
        if !self.complex[ru].is_empty() {
            self.cdelta[ru].union_with(&new);
        }
        self.mark_changed(r);
        true
    }

    pub(super) fn find(&mut self, mut n: Node) -> Node {
        let mut root = n;
        while self.rep[root as usize] != root {
            root = self.rep[root as usize];
        }
        while self.rep[n as usize] != root {
            let next = self.rep[n as usize];
            self.rep[n as usize] = root;
            n = next;
        }
        root
    }

    pub fn find_ro(&self, mut n: Node) -> Node {
        while self.rep[n as usize] != n {
            n = self.rep[n as usize];
        }
        n
    }

    pub(super) fn unite(&mut self, a: Node, b: Node) -> Node {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return ra;
        }
        let (r, o) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.rep[o as usize] = r;
        let (ru, ou) = (r as usize, o as usize);
        let seen_p = self.handled_by_both(
            &self.pdelta,
            !self.succ[ru].is_empty(),
            !self.succ[ou].is_empty(),
            ru,
            ou,
        );
        let seen_c = self.handled_by_both(
            &self.cdelta,
            !self.complex[ru].is_empty(),
            !self.complex[ou].is_empty(),
            ru,
            ou,
        );
        let po = std::mem::take(&mut self.pts[ou]);
        self.pts[ru].union_with(&po);
        self.pdelta[ou] = PtsSet::new();
        self.cdelta[ou] = PtsSet::new();
        self.pdelta[ru] = seen_p
            .map(|h| self.pts[ru].difference(&h))
            .unwrap_or_default();
        self.cdelta[ru] = seen_c
            .map(|h| self.pts[ru].difference(&h))
            .unwrap_or_default();
        let so = std::mem::take(&mut self.succ[o as usize]);
        self.succ[r as usize].extend(so);
        self.succ_dirty[r as usize] = true;
        self.note_succ(r);
        let co = std::mem::take(&mut self.complex[o as usize]);
        self.complex[r as usize].extend(co);
        if self.ext == o {
            self.ext = r;
        }
        self.mark_changed(r);
        r
    }

    /// Before nodes a and b merge: what the successors (or complex constraints) of both have
    /// already seen, given each node's pending differences `d`. A node without successors
    /// (constraints), `has_*` false, makes no demand; None when neither has any.
    fn handled_by_both(
        &self,
        d: &[PtsSet],
        has_a: bool,
        has_b: bool,
        a: usize,
        b: usize,
    ) -> Option<PtsSet> {
        let handled = |n: usize| self.pts[n].difference(&d[n]);
        match (has_a, has_b) {
            (true, true) => Some(handled(a).intersection(&handled(b))),
            (true, false) => Some(handled(a)),
            (false, true) => Some(handled(b)),
            (false, false) => None,
        }
    }
}
