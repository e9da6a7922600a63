//! Memcpy handling: a copy between the objects two pointers reach, field by field when
//! layouts match, else through a merge node, and linear once the pairs get too many.
//! Separate because it keeps its own per-copy state of what was already handled.

use super::{Cx, Node, Solver};
use roaring::RoaringBitmap;

pub(super) struct MemCopyState {
    dst: Node,
    src: Node,
    size: Option<u64>,
    tmp: Node,
    done_d: RoaringBitmap,
    done_s: RoaringBitmap,
    /// Switched to linear (merged) mode.
    merged: bool,
}

/// Above this many (destination, source) object pairs a memcopy goes through its merge node.
const PAIRWISE_MEMCOPY: u64 = 4096;

impl<'p> Solver<'p> {
    pub(super) fn add_memcopy(&mut self, dst: Node, src: Node, size: Option<u64>) {
        let tmp = self.new_node();
        let id = self.memcopies.len() as u32;
        self.memcopies.push(MemCopyState {
            dst,
            src,
            size,
            tmp,
            done_d: RoaringBitmap::new(),
            done_s: RoaringBitmap::new(),
            merged: false,
        });
        self.add_complex(dst, Cx::MemCopy(id));
        self.add_complex(src, Cx::MemCopy(id));
    }

    pub(super) fn apply_memcopy(&mut self, id: u32) -> bool {
        let (dst, src, tmp, size) = {
            let m = &self.memcopies[id as usize];
            (m.dst, m.src, m.tmp, m.size)
        };
        let d_all = self.points_to(dst);
        let s_all = self.points_to(src);
        let new_d = &d_all - &self.memcopies[id as usize].done_d;
        let new_s = &s_all - &self.memcopies[id as usize].done_s;
        if new_d.is_empty() && new_s.is_empty() {
            return false;
        }
        let old_d = self.memcopies[id as usize].done_d.clone();
        let mark = self.edge_adds;
        let pairs = new_d.len() * s_all.len() + old_d.len() * new_s.len();
        if pairs <= PAIRWISE_MEMCOPY || self.memcopies[id as usize].merged {
            if !self.memcopies[id as usize].merged {
                for (ds, ss) in [(&new_d, &s_all), (&old_d, &new_s)] {
                    for ld in ds.iter() {
                        for ls in ss.iter() {
                            self.copy_object_contents(ld, ls, tmp, size);
                        }
                    }
                }
            } else {
                self.merged_memcopy(tmp, size, &new_d, &new_s);
            }
        } else {
            // Many objects on both sides: every source flows to every destination through
            // the merge node, linear instead of quadratic (a superset of the pairwise
            // edges: sound, and the same for differently laid out pairs).
            self.memcopies[id as usize].merged = true;
            self.merged_memcopy(tmp, size, &d_all, &s_all);
        }
        let m = &mut self.memcopies[id as usize];
        m.done_d = d_all;
        m.done_s = s_all;
        self.edge_adds != mark
    }

    /// Merged mode of a memcopy: sources' fields -> tmp -> destinations' fields.
    fn merged_memcopy(
        &mut self,
        tmp: Node,
        size: Option<u64>,
        ds: &RoaringBitmap,
        ss: &RoaringBitmap,
    ) {
        for ls in ss.iter() {
            for f in self.copied_fields(ls, size) {
                self.add_edge(f, tmp);
            }
        }
        for ld in ds.iter() {
            if !self.objs[self.node_obj[ld as usize] as usize].is_writable() {
                continue;
            }
            for f in self.copied_fields(ld, size) {
                self.add_edge(tmp, f);
            }
        }
    }

    /// The canonical fields a copy of `size` bytes at `l` touches (the whole object when
    /// unknown); none for code.
    fn copied_fields(&self, l: Node, size: Option<u64>) -> Vec<Node> {
        let o = self.node_obj[l as usize];
        if self.objs[o as usize].is_code() {
            return Vec::new();
        }
        match size {
            Some(n) => self.covering(l, n).iter().map(|f| self.canon(f)).collect(),
            None => self.field_range(o).collect(),
        }
    }

    /// `size` bytes (whole objects when unknown) at ls flow to ld: field by field when both
    /// have the same layout and position, else through one merge node (sound, linear).
    fn copy_object_contents(&mut self, ld: Node, ls: Node, tmp: Node, size: Option<u64>) {
        let (od, os) = (self.node_obj[ld as usize], self.node_obj[ls as usize]);
        if !self.objs[od as usize].is_writable() || self.objs[os as usize].is_code() {
            return; // code is not data; constant memory is never written
        }
        let (bd, bs) = (self.objs[od as usize].base, self.objs[os as usize].base);
        let same = self.objs[od as usize].layout.is_some()
            && self.objs[od as usize].layout == self.objs[os as usize].layout
            && ld - bd == ls - bs
            && !self.fi[od as usize]
            && !self.fi[os as usize];
        let src_fields = self.copied_fields(ls, size);
        if same {
            for f in src_fields {
                self.add_edge(f, bd + (f - bs));
            }
        } else {
            for f in src_fields {
                self.add_edge(f, tmp);
            }
            for f in self.copied_fields(ld, size) {
                self.add_edge(tmp, f);
            }
        }
    }
}
