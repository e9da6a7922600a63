//! Object layouts and the paper's field abstraction (section 4.3: AbsFld / AbsSize).
//!
//! A layout is the byte-level shape of one instance of a type. Arrays are "squeezed" to one
//! element (index-insensitive) while struct fields inside array elements stay distinct, and
//! nested structs are flattened. Every object is also treated as an implicit array of its
//! type, so `p + k * sizeof(T)` stays on the same abstract field (heap objects of size
//! `n * sizeof(T)` are the common case).
//!
//! Offsets are in bytes: the front end (LLVM DataLayout) and the snapshot reader (KLEE byte
//! offsets) both speak bytes, and byte arithmetic handles type punning and `container_of`.

use serde::{Deserialize, Serialize};

/// A type as far as the analysis cares: sizes and offsets, nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LType {
    /// An int, float or pointer occupying `size` bytes: one primitive field.
    Prim { size: u64 },
    /// Members at byte offsets; `size` includes tail padding.
    Struct {
        size: u64,
        members: Vec<(u64, LType)>,
    },
    /// `count` elements of `elem` (count 0 for a flexible array member).
    Array { count: u64, elem: Box<LType> },
}

impl LType {
    pub fn size(&self) -> u64 {
        match self {
            LType::Prim { size } | LType::Struct { size, .. } => *size,
            LType::Array { count, elem } => count * elem.size(),
        }
    }

    /// AbsSize of the paper: arrays count as one element, structs sum their members.
    pub fn abs_size(&self) -> u32 {
        match self {
            LType::Prim { .. } => 1,
            LType::Array { elem, .. } => elem.abs_size(),
            // An empty struct still needs one node to be pointed to.
            LType::Struct { members, .. } if members.is_empty() => 1,
            LType::Struct { members, .. } => members.iter().map(|(_, t)| t.abs_size()).sum(),
        }
    }
}

/// One abstract field of a layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// Byte offset of the field in the first element of every enclosing array.
    pub offset: u64,
    /// Bytes the field spans (padding after it is attributed to it).
    pub size: u64,
    /// Strides of the arrays enclosing the field, innermost first, then the whole type
    /// (the implicit top-level array). A variable index with one of these strides (or a
    /// multiple) keeps a pointer on this field.
    pub strides: Vec<u64>,
}

/// A type flattened into its abstract fields, with the byte -> field map of AbsFld.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub ty: LType,
    pub name: String,
    pub fields: Vec<FieldInfo>,
    /// AbsFld of every byte of one instance, and whether a field starts there: computed
    /// once, because the solver asks for them on every load and store (empty for types
    /// larger than `TABLE_LIMIT`, which are walked instead).
    byte_field: Vec<u32>,
    byte_start: Vec<bool>,
    bytes: u64,
}

/// Types up to this many bytes get per-byte tables.
const TABLE_LIMIT: u64 = 1 << 16;

impl Layout {
    pub fn new(name: impl Into<String>, ty: LType) -> Layout {
        let mut fields = Vec::with_capacity(ty.abs_size() as usize);
        let size = ty.size();
        flatten(&ty, 0, size, &mut Vec::new(), &mut fields);
        if fields.is_empty() {
            fields.push(FieldInfo {
                offset: 0,
                size,
                strides: vec![size],
            });
        }
        for f in &mut fields {
            f.strides.push(size);
        }
        let (byte_field, byte_start) = if size <= TABLE_LIMIT {
            (
                (0..size).map(|b| field_in(&ty, b)).collect(),
                (0..size).map(|b| starts_field(&ty, b)).collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        Layout {
            ty,
            name: name.into(),
            fields,
            byte_field,
            byte_start,
            bytes: size,
        }
    }

    /// `body` placed `header` bytes into the object, the header one field (an allocator
    /// that keeps a size word before what it returns). A body that ends in a (flexible)
    /// array keeps it last, so the bytes past the body are its elements (SQLite's
    /// `ExprList`, `a[1]` and then more items); any other body is a trailing array itself,
    /// so an object of `header + n * size(body)` bytes is a header and n bodies.
    pub fn after(header: u64, body: &Layout) -> Layout {
        let head = (0, LType::Prim { size: header });
        let ty = match &body.ty {
            LType::Struct { size, members } if trailing_array(&body.ty).is_some() => {
                LType::Struct {
                    size: header + size,
                    members: std::iter::once(head)
                        .chain(members.iter().map(|(o, t)| (header + o, t.clone())))
                        .collect(),
                }
            }
            t => LType::Struct {
                size: header + t.size(),
                members: vec![
                    head,
                    (
                        header,
                        LType::Array {
                            count: 1,
                            elem: Box::new(t.clone()),
                        },
                    ),
                ],
            },
        };
        Layout::new(format!("{} after {} bytes", body.name, header), ty)
    }

    pub fn size(&self) -> u64 {
        self.bytes
    }

    pub fn abs_size(&self) -> u32 {
        self.fields.len() as u32
    }

    /// AbsFld on bytes: the abstract field containing byte `b` of the object. Bytes past the
    /// type go to a trailing (flexible) array if there is one, else wrap around (the object
    /// is an array of its type); negative offsets wrap the same way.
    pub fn field_at(&self, b: i64) -> u32 {
        if b >= 0 && (b as usize) < self.byte_field.len() {
            return self.byte_field[b as usize];
        }
        let size = self.size() as i64;
        if size <= 0 {
            return 0;
        }
        if b >= size {
            if let Some((off, elem, first)) = trailing_array(&self.ty) {
                let es = elem.size() as i64;
                if es > 0 {
                    return first + field_in(elem, ((b - off as i64) % es) as u64);
                }
            }
        }
        let r = b.rem_euclid(size) as usize;
        if r < self.byte_field.len() {
            return self.byte_field[r];
        }
        field_in(&self.ty, r as u64)
    }

    /// Whether byte `b` is where a primitive field (of some array element) starts. A
    /// pointer moved by a constant into the middle of a field is walking bytes (a char-wise
    /// loop), which a field abstraction cannot follow.
    pub fn is_field_start(&self, b: i64) -> bool {
        if b >= 0 && (b as usize) < self.byte_start.len() {
            return self.byte_start[b as usize];
        }
        let size = self.size() as i64;
        if size <= 0 {
            return true;
        }
        if b >= size {
            if let Some((off, elem, _)) = trailing_array(&self.ty) {
                let es = elem.size() as i64;
                if es > 0 {
                    return starts_field(elem, ((b - off as i64) % es) as u64);
                }
            }
        }
        starts_field(&self.ty, b.rem_euclid(size) as u64)
    }

    /// Abstract fields overlapped by the byte range `[b, b + len)` (sorted, no duplicates).
    pub fn fields_in(&self, b: i64, len: u64) -> Vec<u32> {
        let size = self.size();
        if len == 0 {
            return vec![self.field_at(b)];
        }
        if len >= size || size == 0 {
            return (0..self.abs_size()).collect();
        }
        // Fast path: the range lies inside one field, within the type.
        let f = self.field_at(b);
        let fi = &self.fields[f as usize];
        if b >= 0
            && (b as u64) + len <= size
            && b as u64 >= fi.offset
            && b as u64 + len <= fi.offset + fi.size
        {
            return vec![f];
        }
        // General case: byte by byte (len < size, so bounded by the type's size). Past the
        // type, `field_at` follows a trailing array, whose element stride need not divide
        // the type's size: striding by fields in type coordinates would skip some.
        let mut out: Vec<u32> = (b..b + len as i64).map(|pos| self.field_at(pos)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether moving by an unknown multiple of `stride` keeps a pointer on field `f`.
    pub fn stride_keeps_field(&self, f: u32, stride: u64) -> bool {
        stride == 0
            || self.fields[f as usize]
                .strides
                .iter()
                .any(|&s| s > 0 && stride % s == 0)
    }
}

/// A struct's last member when it is an array: (offset, element, its first abstract field).
fn trailing_array(t: &LType) -> Option<(u64, &LType, u32)> {
    match t {
        LType::Struct { members, .. } => match members.last() {
            Some((off, LType::Array { elem, .. })) => {
                let first = members[..members.len() - 1]
                    .iter()
                    .map(|(_, m)| m.abs_size())
                    .sum();
                Some((*off, elem, first))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The abstract field (relative to the start of `t`) containing byte `b` (< size of t).
fn field_in(t: &LType, b: u64) -> u32 {
    match t {
        LType::Prim { .. } => 0,
        LType::Array { elem, .. } => {
            let es = elem.size();
            if es == 0 {
                0
            } else {
                field_in(elem, b % es)
            }
        }
        LType::Struct { members, .. } => {
            let mut abs = 0;
            let mut chosen = None;
            for (off, m) in members {
                if *off > b {
                    break;
                }
                chosen = Some((abs, *off, m));
                abs += m.abs_size();
            }
            match chosen {
                Some((abs, off, m)) => {
                    let rel = b - off;
                    // Padding after a member belongs to that member.
                    let ms = m.size();
                    abs + if ms == 0 {
                        0
                    } else if rel >= ms {
                        m.abs_size() - 1
                    } else {
                        field_in(m, rel)
                    }
                }
                None => 0,
            }
        }
    }
}

fn starts_field(t: &LType, b: u64) -> bool {
    match t {
        LType::Prim { .. } => b == 0,
        LType::Array { elem, .. } => {
            let es = elem.size();
            es == 0 || starts_field(elem, b % es)
        }
        LType::Struct { members, .. } => match members.iter().rev().find(|(off, _)| *off <= b) {
            Some((off, m)) => b - off < m.size().max(1) && starts_field(m, b - off),
            None => b == 0,
        },
    }
}

fn flatten(t: &LType, base: u64, span: u64, strides: &mut Vec<u64>, out: &mut Vec<FieldInfo>) {
    match t {
        LType::Prim { .. } => out.push(FieldInfo {
            offset: base,
            size: span,
            strides: strides.iter().rev().copied().collect(),
        }),
        LType::Array { elem, count } => {
            let es = elem.size();
            strides.push(es);
            let _ = count;
            flatten(elem, base, es, strides, out);
            strides.pop();
        }
        LType::Struct { members, .. } => {
            if members.is_empty() {
                out.push(FieldInfo {
                    offset: base,
                    size: span,
                    strides: strides.iter().rev().copied().collect(),
                });
                return;
            }
            for (i, (off, m)) in members.iter().enumerate() {
                // A member spans up to the next member (its padding included).
                let next = members.get(i + 1).map(|(o, _)| *o).unwrap_or(span);
                let mspan = next
                    .saturating_sub(*off)
                    .max(m.size().min(span.saturating_sub(*off)));
                flatten(m, base + off, mspan, strides, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_after_a_header_keeps_its_fields_in_every_element() {
        // struct node { void *a; void *b; int c; } (24 bytes) after an 8-byte size word:
        // byte 0 is the header (field 0), bytes 8/16/24 the body's a, b, c (fields 1-3),
        // and an object of 8 + 3 * 24 bytes holds three nodes whose fields are the first's.
        let node = Layout::new(
            "struct.node",
            LType::Struct {
                size: 24,
                members: vec![(0, prim(8)), (8, prim(8)), (16, prim(4))],
            },
        );
        let l = Layout::after(8, &node);
        assert_eq!(l.name, "struct.node after 8 bytes");
        assert_eq!(l.abs_size(), 4);
        let at = |b: i64| l.field_at(b);
        assert_eq!((at(0), at(7), at(8), at(16), at(24)), (0, 0, 1, 2, 3));
        assert_eq!((at(8 + 24), at(16 + 48), at(24 + 48)), (1, 2, 3));
        assert!(l.is_field_start(8 + 24) && !l.is_field_start(9 + 24));
        // `&nodes[i].b` moves by multiples of 24 and stays on b; 8 bytes would not.
        assert!(l.stride_keeps_field(2, 24) && l.stride_keeps_field(2, 48));
        assert!(!l.stride_keeps_field(2, 8));
        assert_eq!(l.fields_in(8, 16), vec![1, 2]);

        // struct list { int n; struct item { void *p; void *name; } a[1]; } after 8 bytes:
        // items past the first are the flexible array's, not more lists: byte 8 + 8 + 16 k
        // + 8 is a[k].name for every k (the pspa check found a[1].name read as a list's
        // a[0].p on SQLite's `ExprList` when the body was wrapped in an array).
        let item = LType::Struct {
            size: 16,
            members: vec![(0, prim(8)), (8, prim(8))],
        };
        let list = Layout::new(
            "struct.list",
            LType::Struct {
                size: 24,
                members: vec![
                    (0, prim(4)),
                    (
                        8,
                        LType::Array {
                            count: 1,
                            elem: Box::new(item),
                        },
                    ),
                ],
            },
        );
        let l = Layout::after(8, &list);
        let name = l.field_at(8 + 8 + 8);
        assert_eq!(name, 3);
        for k in 1..4 {
            assert_eq!(l.field_at(8 + 8 + 16 * k + 8), name, "a[{k}].name");
            assert_eq!(l.field_at(8 + 8 + 16 * k), 2, "a[{k}].p");
        }
        assert!(l.stride_keeps_field(name, 16));
    }

    fn prim(size: u64) -> LType {
        LType::Prim { size }
    }

    /// struct point { int x; int y; } ; struct poly { int n; struct point pts[3]; char *name; }
    fn poly() -> Layout {
        let point = LType::Struct {
            size: 8,
            members: vec![(0, prim(4)), (4, prim(4))],
        };
        let ty = LType::Struct {
            size: 40,
            members: vec![
                (0, prim(4)),
                (
                    4,
                    LType::Array {
                        count: 3,
                        elem: Box::new(point),
                    },
                ),
                (32, prim(8)),
            ],
        };
        Layout::new("struct.poly", ty)
    }

    #[test]
    fn abs_size_squeezes_arrays_and_flattens_structs() {
        // n, pts[].x, pts[].y, name: the array of three points becomes one (x, y) element.
        let l = poly();
        assert_eq!(l.abs_size(), 4);
        assert_eq!(
            l.fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            vec![0, 4, 8, 32]
        );
    }

    #[test]
    fn field_at_maps_array_elements_to_one_field() {
        let l = poly();
        // pts[2].y is at 4 + 2*8 + 4 = 24: same abstract field as pts[0].y (field 2).
        assert_eq!(l.field_at(24), 2);
        assert_eq!(l.field_at(20), 1); // pts[2].x
        assert_eq!(l.field_at(32), 3); // name
        assert_eq!(l.field_at(2), 0); // inside n
                                      // One whole object further (implicit array of poly): name again.
        assert_eq!(l.field_at(72), 3);
        assert_eq!(l.field_at(-8), 3); // p - 1 element, name
    }

    #[test]
    fn strides_allow_array_indexing_but_not_struct_walks() {
        let l = poly();
        assert!(l.stride_keeps_field(1, 8)); // pts[i].x
        assert!(l.stride_keeps_field(3, 40)); // poly[i].name
        assert!(!l.stride_keeps_field(3, 8)); // name is not inside the points array
        assert!(!l.stride_keeps_field(0, 1)); // char-wise walk of a struct: unknown field
    }

    #[test]
    fn fields_in_covers_ranges() {
        let l = poly();
        assert_eq!(l.fields_in(0, 4), vec![0]);
        assert_eq!(l.fields_in(0, 8), vec![0, 1]);
        assert_eq!(l.fields_in(4, 8), vec![1, 2]);
        assert_eq!(l.fields_in(0, 40), vec![0, 1, 2, 3]);
        assert_eq!(l.fields_in(28, 12), vec![2, 3]);
    }

    #[test]
    fn flexible_array_member_takes_trailing_bytes() {
        // struct vec { long n; char *items[]; } allocated with room for several items.
        let ty = LType::Struct {
            size: 8,
            members: vec![
                (0, prim(8)),
                (
                    8,
                    LType::Array {
                        count: 0,
                        elem: Box::new(prim(8)),
                    },
                ),
            ],
        };
        let l = Layout::new("struct.vec", ty);
        assert_eq!(l.abs_size(), 2);
        assert_eq!(l.field_at(8), 1);
        assert_eq!(l.field_at(32), 1); // items[3], not n
    }

    #[test]
    fn ranges_past_the_type_follow_the_trailing_array() {
        // struct { int a; struct { int x, y, z; } arr[1]; } (16 bytes) allocated larger:
        // arr[1] is at 16, so bytes 19..21 are the end of arr[1].x and the start of
        // arr[1].y. The element stride (12) does not divide the size (16): the range must
        // not be walked in type coordinates (found in review; the check would miss y).
        let elem = LType::Struct {
            size: 12,
            members: vec![(0, prim(4)), (4, prim(4)), (8, prim(4))],
        };
        let ty = LType::Struct {
            size: 16,
            members: vec![
                (0, prim(4)),
                (
                    4,
                    LType::Array {
                        count: 1,
                        elem: Box::new(elem),
                    },
                ),
            ],
        };
        let l = Layout::new("struct.t", ty);
        assert_eq!((l.field_at(19), l.field_at(20)), (1, 2));
        assert_eq!(l.fields_in(19, 2), vec![1, 2]);
        assert_eq!(l.fields_in(16, 12), vec![1, 2, 3]);
    }

    #[test]
    fn field_starts() {
        let l = poly();
        assert!(
            l.is_field_start(0)
                && l.is_field_start(4)
                && l.is_field_start(24)
                && l.is_field_start(32)
        );
        assert!(!l.is_field_start(1)); // inside n
        assert!(!l.is_field_start(36)); // inside name
        assert!(!l.is_field_start(28)); // padding after the points array
        assert!(l.is_field_start(44)); // pts[0].x of the next poly
    }

    #[test]
    fn scalar_and_char_array() {
        let l = Layout::new(
            "[10 x i8]",
            LType::Array {
                count: 10,
                elem: Box::new(prim(1)),
            },
        );
        assert_eq!(l.abs_size(), 1);
        assert!(l.stride_keeps_field(0, 1));
        assert_eq!(l.field_at(7), 0);
    }
}
