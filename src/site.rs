//! The label format, printed and parsed here and nowhere else (docs/analysis-format.md).
//!
//! A *site* names an allocation site: `global:NAME`, `func:NAME`, `stack:F:VAR`,
//! `heap:F:LINE`, `heap:klee:0` (objects KLEE makes itself) or `unknown`. An *object*
//! label is a site, or `SITE@ID` for an object of a state (a unique site). A *location*
//! label is an object and a field: `OBJECT.N`, or `OBJECT.*` for a field-insensitive
//! object. Names may hold dots (`global:.str.1`), so a location splits at its last dot and
//! an object label is never split at a dot.

use std::fmt;

/// The site of the object standing for "anywhere" (`Target::Unknown`).
pub const UNKNOWN: &str = "unknown";
/// The site of the objects KLEE allocates itself (argv, environment, errno, ...).
pub const KLEE: &str = "heap:klee:0";

const PREFIXES: [&str; 4] = ["global:", "stack:", "heap:", "func:"];

pub fn global(name: &str) -> String {
    format!("global:{name}")
}

pub fn func(name: &str) -> String {
    format!("func:{name}")
}

pub fn stack(function: &str, var: &str) -> String {
    format!("stack:{function}:{var}")
}

pub fn heap(function: &str, line: u32) -> String {
    format!("heap:{function}:{line}")
}

/// The variable name of a `global:` site.
pub fn global_name(site: &str) -> Option<&str> {
    site.strip_prefix("global:")
}

/// The kind part of a label: `heap`, `stack`, `global`, `func` (or the whole label when it
/// has none, like `unknown`).
pub fn kind_name(label: &str) -> &str {
    label.split(':').next().unwrap_or(label)
}

/// The kind of object a site allocates: a state's objects are heap objects unless their
/// site says otherwise.
pub fn kind(site: &str) -> crate::facts::ObjKind {
    use crate::facts::ObjKind;
    // Prefixes, not `kind_name`: its search for `:` was a fifth of the abstraction.
    let b = site.as_bytes();
    if b.starts_with(b"global:") || b == b"global" {
        ObjKind::Global
    } else if b.starts_with(b"stack:") || b == b"stack" {
        ObjKind::Stack
    } else if b.starts_with(b"func:") || b == b"func" {
        ObjKind::Func
    } else {
        ObjKind::Heap
    }
}

/// Whether `s` is a site of one of the four kinds a state may hold.
pub fn is_site(s: &str) -> bool {
    PREFIXES
        .iter()
        .any(|p| s.starts_with(p) && s.len() > p.len())
}

/// The field part of a location label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    At(u32),
    /// Every field (a field-insensitive object).
    All,
}

/// A parsed location label `SITE[@ID].FIELD`, borrowing the text it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label<'a> {
    pub site: &'a str,
    pub uid: Option<u64>,
    pub field: Field,
}

/// An object label `SITE[@ID]`, split. The `@` must be followed by digits only: `@` in a
/// site's own text (none today) stays part of it.
pub fn split_object(object: &str) -> (&str, Option<u64>) {
    match object.rfind('@') {
        Some(i) if i + 1 < object.len() && object[i + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            match object[i + 1..].parse() {
                Ok(id) => (&object[..i], Some(id)),
                Err(_) => (object, None),
            }
        }
        _ => (object, None),
    }
}

/// `SITE@ID`, or `SITE` for a static site.
pub fn object(site: &str, uid: Option<u64>) -> String {
    match uid {
        Some(id) => format!("{site}@{id}"),
        None => site.to_string(),
    }
}

/// `OBJECT.N` or `OBJECT.*`.
pub fn location(object: &str, field: Field) -> String {
    match field {
        Field::At(n) => format!("{object}.{n}"),
        Field::All => format!("{object}.*"),
    }
}

/// A location label split into its object label and field part (`*` or digits): what
/// set comparisons key on. None when there is no dot.
pub fn split_location(label: &str) -> Option<(&str, &str)> {
    label.rsplit_once('.')
}

impl<'a> Label<'a> {
    /// Parse a location label; None when it has no field part.
    pub fn parse(label: &'a str) -> Option<Label<'a>> {
        let (obj, field) = split_location(label)?;
        let field = match field {
            "*" => Field::All,
            n => Field::At(n.parse().ok()?),
        };
        let (site, uid) = split_object(obj);
        Some(Label { site, uid, field })
    }

    /// The same location with its unique site made static (`SITE.N`): how the paper
    /// compares PSPA's sets with SPA's (Table 1).
    pub fn stripped(&self) -> Label<'a> {
        Label { uid: None, ..*self }
    }
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.site)?;
        if let Some(id) = self.uid {
            write!(f, "@{id}")?;
        }
        match self.field {
            Field::At(n) => write!(f, ".{n}"),
            Field::All => f.write_str(".*"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for l in [
            "heap:f:3.1",
            "heap:f:3@12.*",
            "global:.str.1.0",
            "global:.str.1@4.0",
            "func:main.*",
            "stack:f:x@7.2",
        ] {
            assert_eq!(Label::parse(l).unwrap().to_string(), l);
        }
    }

    #[test]
    fn names_with_dots_split_at_the_last_dot() {
        // String literals have dots in their names: global:.str.1 field 0.
        let l = Label::parse("global:.str.1.0").unwrap();
        assert_eq!(
            (l.site, l.uid, l.field),
            ("global:.str.1", None, Field::At(0))
        );
        assert_eq!(split_location("func:main.*"), Some(("func:main", "*")));
    }

    #[test]
    fn unique_sites_need_digits() {
        assert_eq!(split_object("heap:f:3@12"), ("heap:f:3", Some(12)));
        // Not an id: part of the site.
        assert_eq!(split_object("heap:f@x:3"), ("heap:f@x:3", None));
        assert_eq!(split_object("heap:f:3@"), ("heap:f:3@", None));
        assert_eq!(
            Label::parse("heap:f:3@12.2")
                .unwrap()
                .stripped()
                .to_string(),
            "heap:f:3.2"
        );
        assert!(Label::parse("heap:f:3").is_none());
        assert!(Label::parse("heap:f:3.x").is_none());
    }

    #[test]
    fn sites_are_checked_by_kind() {
        assert!(
            is_site(&heap("f", 3))
                && is_site(&global("g"))
                && is_site(&stack("f", "x"))
                && is_site(&func("f"))
        );
        assert!(!is_site("heap:") && !is_site("anything") && !is_site(UNKNOWN));
        assert_eq!(global_name(&global("tab")), Some("tab"));
    }
}
