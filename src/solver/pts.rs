//! The solver's per-node sets (points-to sets and their pending differences): up to
//! `INLINE` elements held in place, a roaring bitmap beyond.
//!
//! Most nodes of a local analysis point to one or two locations (a variable to its object,
//! a seeded field to its target), and a roaring bitmap of one element is two heap
//! allocations. With three sets per node, allocating and freeing them was a fifth of a
//! `_asn1_find_up` analysis and made the list benchmark super-linear under glibc's
//! allocator.
//!
//! Canonical: a set of at most `INLINE` elements is `Small`, a larger one `Big` (sets only
//! grow in place; every constructor of a smaller set makes it `Small`), so equal sets have
//! the same variant.

use roaring::RoaringBitmap;

/// Three, so that the set is as small as a bitmap (24 bytes: the bitmap's capacity field
/// leaves room for the inline variant), and no box is needed around the bitmap.
const INLINE: usize = 3;

#[derive(Clone, Debug)]
pub enum PtsSet {
    /// `items[..len]`, sorted, without duplicates.
    Small {
        len: u8,
        items: [u32; INLINE],
    },
    Big(RoaringBitmap),
}

impl Default for PtsSet {
    fn default() -> PtsSet {
        PtsSet::Small {
            len: 0,
            items: [0; INLINE],
        }
    }
}

impl PtsSet {
    pub fn new() -> PtsSet {
        PtsSet::default()
    }

    /// The set of a bitmap, in canonical form.
    pub fn from_roaring(b: RoaringBitmap) -> PtsSet {
        if b.len() <= INLINE as u64 {
            PtsSet::from_sorted(b.iter())
        } else {
            PtsSet::Big(b)
        }
    }

    /// The set of strictly increasing elements.
    pub fn from_sorted(it: impl IntoIterator<Item = u32>) -> PtsSet {
        let mut it = it.into_iter();
        let mut items = [0; INLINE];
        let mut len = 0;
        while len < INLINE {
            match it.next() {
                Some(x) => {
                    debug_assert!(len == 0 || items[len - 1] < x, "not strictly increasing");
                    items[len] = x;
                    len += 1;
                }
                None => {
                    return PtsSet::Small {
                        len: len as u8,
                        items,
                    }
                }
            }
        }
        let Some(next) = it.next() else {
            return PtsSet::Small {
                len: len as u8,
                items,
            };
        };
        let b = RoaringBitmap::from_sorted_iter(
            items.into_iter().chain(std::iter::once(next)).chain(it),
        )
        .expect("strictly increasing");
        PtsSet::Big(b)
    }

    pub fn len(&self) -> u64 {
        match self {
            PtsSet::Small { len, .. } => *len as u64,
            PtsSet::Big(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            PtsSet::Small { len, .. } => *len == 0,
            PtsSet::Big(b) => b.is_empty(),
        }
    }

    pub fn contains(&self, x: u32) -> bool {
        match self {
            PtsSet::Small { len, items } => items[..*len as usize].contains(&x),
            PtsSet::Big(b) => b.contains(x),
        }
    }

    /// Adds `x`; whether it was new.
    pub fn insert(&mut self, x: u32) -> bool {
        match self {
            PtsSet::Small { len, items } => {
                let n = *len as usize;
                let pos = match items[..n].binary_search(&x) {
                    Ok(_) => return false,
                    Err(pos) => pos,
                };
                if n < INLINE {
                    items.copy_within(pos..n, pos + 1);
                    items[pos] = x;
                    *len += 1;
                } else {
                    let mut b =
                        RoaringBitmap::from_sorted_iter(items.iter().copied()).expect("sorted");
                    b.insert(x);
                    *self = PtsSet::Big(b);
                }
                true
            }
            PtsSet::Big(b) => b.insert(x),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match self {
            PtsSet::Small { len, items } => Iter::Small(items[..*len as usize].iter()),
            PtsSet::Big(b) => Iter::Big(b.iter()),
        }
    }

    /// self ∪= other.
    pub fn union_with(&mut self, other: &PtsSet) {
        match (&mut *self, other) {
            (PtsSet::Big(a), PtsSet::Big(b)) => *a |= b,
            (PtsSet::Small { .. }, PtsSet::Big(b)) => {
                let mut u = b.clone();
                for x in self.iter() {
                    u.insert(x);
                }
                *self = PtsSet::Big(u);
            }
            // A merge, not inserts one by one: a bitmap's containers grown by inserts keep
            // up to twice their size, and in libtasn1's largest solve (over its budget)
            // that raised the run's peak memory by 2 MB.
            (PtsSet::Big(a), PtsSet::Small { .. }) => *a |= other.to_roaring(),
            (PtsSet::Small { .. }, PtsSet::Small { .. }) => {
                for x in other.iter() {
                    self.insert(x);
                }
            }
        }
    }

    /// self ∖ other.
    pub fn difference(&self, other: &PtsSet) -> PtsSet {
        match (self, other) {
            (PtsSet::Big(a), PtsSet::Big(b)) => PtsSet::from_roaring(a - b),
            // A copy of the bitmap (container by container) less a few elements, not a
            // rebuild element by element.
            (PtsSet::Big(a), PtsSet::Small { .. }) => {
                let mut d = a.clone();
                for x in other.iter() {
                    d.remove(x);
                }
                PtsSet::from_roaring(d)
            }
            (PtsSet::Small { .. }, _) => {
                PtsSet::from_sorted(self.iter().filter(|&x| !other.contains(x)))
            }
        }
    }

    /// self ∩ other.
    pub fn intersection(&self, other: &PtsSet) -> PtsSet {
        match (self, other) {
            (PtsSet::Big(a), PtsSet::Big(b)) => PtsSet::from_roaring(a & b),
            (PtsSet::Small { .. }, _) => {
                PtsSet::from_sorted(self.iter().filter(|&x| other.contains(x)))
            }
            (_, PtsSet::Small { .. }) => {
                PtsSet::from_sorted(other.iter().filter(|&x| self.contains(x)))
            }
        }
    }

    pub fn to_roaring(&self) -> RoaringBitmap {
        match self {
            PtsSet::Small { len, items } => {
                RoaringBitmap::from_sorted_iter(items[..*len as usize].iter().copied())
                    .expect("sorted")
            }
            PtsSet::Big(b) => b.clone(),
        }
    }

    pub fn is_disjoint_roaring(&self, r: &RoaringBitmap) -> bool {
        match self {
            PtsSet::Small { .. } => self.iter().all(|x| !r.contains(x)),
            PtsSet::Big(b) => b.is_disjoint(r),
        }
    }

    /// A bitmap's serialized size, 0 for a set held in place (memory diagnostics: about
    /// what a bitmap holds on the heap).
    pub fn heap_bytes(&self) -> usize {
        match self {
            PtsSet::Small { .. } => 0,
            PtsSet::Big(b) => b.serialized_size(),
        }
    }
}

impl PartialEq for PtsSet {
    fn eq(&self, other: &PtsSet) -> bool {
        // Canonical forms: equal sets have the same variant.
        match (self, other) {
            (PtsSet::Small { len: a, items: x }, PtsSet::Small { len: b, items: y }) => {
                a == b && x[..*a as usize] == y[..*b as usize]
            }
            (PtsSet::Big(a), PtsSet::Big(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for PtsSet {}

impl FromIterator<u32> for PtsSet {
    fn from_iter<I: IntoIterator<Item = u32>>(it: I) -> PtsSet {
        let mut v: Vec<u32> = it.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        PtsSet::from_sorted(v)
    }
}

pub enum Iter<'a> {
    Small(std::slice::Iter<'a, u32>),
    Big(roaring::bitmap::Iter<'a>),
}

impl Iterator for Iter<'_> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::Small(i) => i.next().copied(),
            Iter::Big(i) => i.next(),
        }
    }
}

impl<'a> IntoIterator for &'a PtsSet {
    type Item = u32;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every operation against BTreeSet, the oracle, over sets straddling INLINE.
    #[test]
    fn matches_btreeset() {
        assert_eq!(
            std::mem::size_of::<PtsSet>(),
            std::mem::size_of::<RoaringBitmap>()
        );
        let sets: Vec<Vec<u32>> = vec![
            vec![],
            vec![7],
            vec![1, 2, 3, 4],
            vec![4, 3, 2, 1, 0],
            vec![10, 20, 30, 40, 50, 60, 70_000],
            (0..100).map(|x| x * 3).collect(),
            vec![2, 4],
        ];
        let mk = |v: &Vec<u32>| -> (PtsSet, BTreeSet<u32>) {
            let mut p = PtsSet::new();
            let mut b = BTreeSet::new();
            for &x in v {
                assert_eq!(p.insert(x), b.insert(x));
                assert!(!p.insert(x), "a second insert adds nothing");
            }
            (p, b)
        };
        let check = |p: &PtsSet, b: &BTreeSet<u32>| {
            assert_eq!(
                p.iter().collect::<Vec<_>>(),
                b.iter().copied().collect::<Vec<_>>()
            );
            assert_eq!(p.len(), b.len() as u64);
            assert_eq!(p.is_empty(), b.is_empty());
            // Canonical form.
            assert_eq!(matches!(p, PtsSet::Small { .. }), b.len() <= INLINE);
            assert_eq!(p.to_roaring().iter().collect::<BTreeSet<_>>(), *b);
        };
        for x in &sets {
            let (px, bx) = mk(x);
            check(&px, &bx);
            for y in &sets {
                let (py, by) = mk(y);
                let mut u = px.clone();
                u.union_with(&py);
                check(&u, &bx.union(&by).copied().collect());
                check(&px.difference(&py), &bx.difference(&by).copied().collect());
                check(
                    &px.intersection(&py),
                    &bx.intersection(&by).copied().collect(),
                );
                assert_eq!(px == py, bx == by);
                assert_eq!(
                    px.is_disjoint_roaring(&py.to_roaring()),
                    bx.is_disjoint(&by)
                );
                for v in by.iter().chain([5, 99_999].iter()) {
                    assert_eq!(px.contains(*v), bx.contains(v));
                }
            }
            check(&x.iter().copied().collect(), &bx);
            check(&PtsSet::from_roaring(px.to_roaring()), &bx);
        }
    }
}
