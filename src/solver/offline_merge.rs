//! Offline merging of single-definition variables: before a constraint is installed, a
//! variable it alone defines shares the set of an earlier one defined the same way. A
//! pre-pass over constraints (`Program::single_def`), not part of propagation.

use super::{Node, Solver};
use crate::facts::*;

/// What defines a single-definition variable (see `Program::single_def`). At -O0 every
/// use of a local reloads it: many variables share a key and so one set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum MergeKey<'p> {
    Addr(ObjId, i64),
    Load(Node, u64),
    Gep(Node, &'p Gep),
}

impl<'p> Solver<'p> {
    /// Before installing c: the variable its result variable is merged with instead, when
    /// that variable is defined by c alone (`Program::single_def`) and an earlier variable
    /// is defined by the same constraint over the same inputs, or c is a plain copy (then
    /// the result is its source). A first occurrence is remembered and installed as usual.
    /// A seeded variable (non-empty set) may hold more than c gives: never merged.
    pub(super) fn merge_with(
        &mut self,
        c: &'p Constraint,
        single: &[bool],
    ) -> Option<(Node, Node)> {
        let dst = c.dst()?;
        if !single.get(dst as usize).copied().unwrap_or(false) {
            return None;
        }
        let r = self.find(dst);
        if !self.pts[r as usize].is_empty() {
            return None;
        }
        let key = match c {
            Constraint::Copy { src, .. } => return Some((dst, *src)),
            Constraint::AddrOf { obj, offset, .. } => MergeKey::Addr(*obj, *offset),
            Constraint::Load { ptr, size, .. } => MergeKey::Load(self.find(*ptr), *size),
            Constraint::Gep { src, gep, .. } => MergeKey::Gep(self.find(*src), gep),
            _ => return None,
        };
        match self.merge_keys.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Some((dst, *e.get())),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(dst);
                None
            }
        }
    }
}
