//! Collapse of objects accessed at an unknown offset: they become field-insensitive from
//! then on (paper 4.2), their field nodes merge into the base, and sets are rewritten to
//! canonical locations. Kept apart because every query depends on canonical locations.

use super::{Node, Solver};
use crate::facts::*;
use roaring::RoaringBitmap;

impl<'p> Solver<'p> {
    /// Make object `o` field-insensitive now (a seeded state says so).
    pub fn collapse(&mut self, o: ObjId) {
        self.pending_collapse.push(o);
        self.apply_collapses();
    }

    /// Move location `loc` by `gep`, adding the result(s) to `out`.
    pub(super) fn shift(&mut self, loc: Node, gep: u32, out: &mut Vec<Node>) {
        let c = self.canon(loc);
        let o = self.node_obj[c as usize];
        let ob = &self.objs[o as usize];
        let base = ob.base;
        if self.fi[o as usize] || ob.nfields == 1 {
            out.push(base); // one field: nothing to lose, stays `.0`
            return;
        }
        let l = self.layout(o).unwrap();
        let g = &self.geps[gep as usize];
        let f = self.node_field[c as usize];
        let b = l.fields[f as usize].offset as i64 + g.offset;
        let f2 = l.field_at(b);
        if !g.strides.iter().all(|&s| l.stride_keeps_field(f2, s)) {
            // Accessed at an unknown offset: field-insensitive from now on (paper 4.2).
            if log::log_enabled!(log::Level::Debug) {
                log::debug!(
                    "collapse {}: field {} (byte {}) moved by {:+} bytes and strides {:?} ({})",
                    ob.name(),
                    f,
                    l.fields[f as usize].offset,
                    g.offset,
                    g.strides,
                    l.name
                );
            }
            self.pending_collapse.push(o);
            out.push(base);
        } else if l.is_field_start(b) {
            out.push(base + f2);
        } else {
            // A constant move into the middle of a field: a byte walk (`p++` in a loop) or
            // a pointer of another type. The pointer may reach any field; the object keeps
            // its fields for every other pointer.
            self.stats.spread_pointers += 1;
            log::trace!(
                "spread {}: field {} (byte {}) moved by {:+} bytes ({})",
                ob.name(),
                f,
                l.fields[f as usize].offset,
                g.offset,
                l.name
            );
            out.extend(base..base + ob.nfields);
        }
    }

    pub(super) fn apply_collapses(&mut self) {
        let pending = std::mem::take(&mut self.pending_collapse);
        for o in pending {
            if self.fi[o as usize] {
                continue;
            }
            self.fi[o as usize] = true;
            self.stats.collapsed_objects += 1;
            log::debug!(
                "field-insensitive from now on: {}",
                self.objs[o as usize].name()
            );
            let ob = &self.objs[o as usize];
            let (base, nf) = (ob.base, ob.nfields);
            if nf > 1 {
                self.noncanon.insert_range(base + 1..base + nf);
            }
            // Merging the holders is enough: edges already added to or from any field now
            // reach the merged node, and later reads canonicalise to the base.
            for k in 1..nf {
                self.unite(base, base + k);
            }
        }
    }

    /// A set with the fields of collapsed objects replaced by their bases.
    pub(super) fn canonical(&self, p: &RoaringBitmap) -> RoaringBitmap {
        let mut c = p - &self.noncanon;
        let mut bases: Vec<Node> = (p & &self.noncanon).iter().map(|l| self.canon(l)).collect();
        bases.sort_unstable();
        bases.dedup();
        c |= RoaringBitmap::from_sorted_iter(bases).expect("sorted");
        c
    }
}
