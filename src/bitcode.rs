//! A structural check of a bitcode file before LLVM reads it.
//!
//! LLVM 14 skips the module block by its declared length (a cut inside it is a clean
//! error) but *enters* the string table and symbol table blocks, and a cut inside one of
//! those reaches `report_fatal_error("Invalid abbrev number")`, which aborts the process.
//! So the loader walks the top level first: the optional wrapper header, the magic, then
//! every top-level block's header and declared length, which must fit in the file. A cut
//! anywhere inside a block is caught here; LLVM only ever sees files whose top-level
//! blocks are whole.
//!
//! The format is LLVM's bitstream (llvm.org/docs/BitCodeFormat.html): bits are read least
//! significant first; at the top level an abbreviation id is 2 bits wide, and
//! ENTER_SUBBLOCK (1) is followed by the block id (vbr8), the block's abbreviation width
//! (vbr4), alignment to 32 bits, and the block's length in 32-bit words.

/// The raw wrapper's magic (`0x0B17C0DE`, little-endian) and header size.
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];
const WRAPPER_HEADER: usize = 20;
/// `BC` 0xC0DE.
pub const MAGIC: [u8; 4] = *b"BC\xC0\xDE";

const ENTER_SUBBLOCK: u64 = 1;
pub const MODULE_BLOCK: u64 = 8;
pub const IDENTIFICATION_BLOCK: u64 = 13;
pub const STRTAB_BLOCK: u64 = 23;
pub const SYMTAB_BLOCK: u64 = 25;

/// Whether the bytes start like bitcode (raw or wrapped), or are a piece of its magic
/// (a file cut within its first word).
pub fn looks_like_bitcode(bytes: &[u8]) -> bool {
    let piece = |m: &[u8]| {
        if bytes.len() < m.len() {
            !bytes.is_empty() && m.starts_with(bytes)
        } else {
            bytes.starts_with(m)
        }
    };
    piece(&MAGIC) || piece(&WRAPPER_MAGIC)
}

/// A top-level block's name, for messages.
fn block_name(id: u64) -> String {
    match id {
        0 => "BLOCKINFO block".into(),
        MODULE_BLOCK => "module block".into(),
        IDENTIFICATION_BLOCK => "identification block".into(),
        STRTAB_BLOCK => "string table block (STRTAB)".into(),
        SYMTAB_BLOCK => "symbol table block (SYMTAB)".into(),
        _ => format!("block {id}"),
    }
}

struct Bits<'a> {
    bytes: &'a [u8],
    /// Position in bits.
    pos: usize,
}

impl Bits<'_> {
    fn bits_left(&self) -> usize {
        (self.bytes.len() * 8).saturating_sub(self.pos)
    }

    fn fixed(&mut self, width: usize) -> Option<u64> {
        if width > 64 || self.bits_left() < width {
            return None;
        }
        let mut v = 0u64;
        for k in 0..width {
            let b = self.pos + k;
            v |= (((self.bytes[b / 8] >> (b % 8)) & 1) as u64) << k;
        }
        self.pos += width;
        Some(v)
    }

    fn vbr(&mut self, width: usize) -> Option<u64> {
        let hi = 1u64 << (width - 1);
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let chunk = self.fixed(width)?;
            if shift >= 64 {
                return None;
            }
            v |= (chunk & (hi - 1)) << shift;
            if chunk & hi == 0 {
                return Some(v);
            }
            shift += width - 1;
        }
    }

    fn align32(&mut self) {
        self.pos = self.pos.div_ceil(32) * 32;
    }
}

/// A top-level block: its id and where its body lies in the file (bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub id: u64,
    /// Where its header starts.
    pub header: usize,
    pub body: std::ops::Range<usize>,
}

impl Block {
    pub fn name(&self) -> String {
        block_name(self.id)
    }
}

/// Check the file's top-level structure (see the module's doc). The error says what is
/// wrong and where (byte offsets in the file).
pub fn check(file: &[u8]) -> Result<(), String> {
    let blocks = top_level_blocks(file)?;
    if !blocks.iter().any(|b| b.id == MODULE_BLOCK) {
        return Err("no module block".into());
    }
    Ok(())
}

/// Why LLVM may have refused a file whose blocks are whole: a module with no string table
/// after it (LLVM 5 and later always write one) was likely cut at a block boundary. Only
/// a hint for LLVM's error: LLVM 4 and earlier wrote no string table.
pub fn hint(file: &[u8]) -> Option<String> {
    let blocks = top_level_blocks(file).ok()?;
    let last_module = blocks.iter().rposition(|b| b.id == MODULE_BLOCK)?;
    if blocks[last_module..].iter().any(|b| b.id == STRTAB_BLOCK) {
        return None;
    }
    let end = blocks.last().map_or(0, |b| b.body.end);
    Some(format!(
        "no string table block (STRTAB) after the module block: is the file cut short at byte {end}?"
    ))
}

/// The top-level blocks of a bitcode file, each checked to fit in it.
pub fn top_level_blocks(file: &[u8]) -> Result<Vec<Block>, String> {
    // The wrapper (Darwin's, or `-fembed-bitcode`): offset and size of the bitcode inside.
    let (base, stream) = if file.starts_with(&WRAPPER_MAGIC) {
        if file.len() < WRAPPER_HEADER {
            return Err(format!(
                "truncated: the wrapper header needs {WRAPPER_HEADER} bytes, the file has {}",
                file.len()
            ));
        }
        let word = |i: usize| u32::from_le_bytes(file[i..i + 4].try_into().unwrap()) as usize;
        let (offset, size) = (word(8), word(12));
        if offset < WRAPPER_HEADER
            || !matches!(offset.checked_add(size), Some(e) if e <= file.len())
        {
            return Err(format!(
                "the wrapper header puts the bitcode at bytes {offset}..{} of a {}-byte file",
                offset.saturating_add(size),
                file.len()
            ));
        }
        (offset, &file[offset..offset + size])
    } else {
        (0, file)
    };
    if stream.len() < MAGIC.len() {
        return Err(format!(
            "truncated: {} bytes, shorter than the bitcode magic",
            stream.len()
        ));
    }
    if !stream.starts_with(&MAGIC) {
        return Err("no bitcode magic (`BC` 0xC0DE)".into());
    }
    // The blocks are walked over the whole words; a partial word at the end is reported
    // after them, so that a cut inside a block names the block.
    let (stream, tail) = stream.split_at(stream.len() & !3);
    let mut r = Bits {
        bytes: stream,
        pos: 32,
    };
    let mut blocks = Vec::new();
    while r.pos / 8 < stream.len() {
        let at = base + r.pos / 8;
        // Zero padding after the last block (LLVM ignores a few trailing bytes).
        if stream[r.pos / 8..].iter().all(|&b| b == 0) {
            break;
        }
        let cut = || format!("truncated: the file ends inside a block header at byte {at}");
        let abbrev = r.fixed(2).ok_or_else(cut)?;
        if abbrev != ENTER_SUBBLOCK {
            return Err(format!(
                "byte {at}: expected a block at the top level, found abbreviation id {abbrev}"
            ));
        }
        let id = r.vbr(8).ok_or_else(cut)?;
        r.vbr(4).ok_or_else(cut)?;
        r.align32();
        let words = r.fixed(32).ok_or_else(cut)? as usize;
        let start = r.pos / 8;
        if words.saturating_mul(4) > stream.len() - start {
            return Err(format!(
                "truncated: the {} at byte {at} declares {} bytes, the file has {} left",
                block_name(id),
                words.saturating_mul(4),
                stream.len() + tail.len() - start
            ));
        }
        blocks.push(Block {
            id,
            header: at,
            body: base + start..base + start + words * 4,
        });
        r.pos = (start + words * 4) * 8;
    }
    if !tail.is_empty() {
        return Err(format!(
            "truncated: {} bytes of bitcode is not a whole number of 32-bit words",
            stream.len() + tail.len()
        ));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Push `width` bits of `v`, least significant first.
    fn push(bits: &mut Vec<bool>, v: u64, width: usize) {
        for k in 0..width {
            bits.push((v >> k) & 1 == 1);
        }
    }

    /// A stream of top-level blocks (id, body words), each body zero words.
    fn stream(blocks: &[(u64, usize)]) -> Vec<u8> {
        let mut bits = Vec::new();
        for b in MAGIC {
            push(&mut bits, b as u64, 8);
        }
        for &(id, words) in blocks {
            push(&mut bits, ENTER_SUBBLOCK, 2);
            push(&mut bits, id, 8); // ids below 128: one vbr8 chunk
            push(&mut bits, 3, 4);
            while bits.len() % 32 != 0 {
                bits.push(false);
            }
            push(&mut bits, words as u64, 32);
            // A non-zero body, so that a cut is not mistaken for padding.
            for _ in 0..words {
                push(&mut bits, 0xFFFF_FFFF, 32);
            }
        }
        bits.chunks(8)
            .map(|c| c.iter().enumerate().map(|(k, &b)| (b as u8) << k).sum())
            .collect()
    }

    #[test]
    fn whole_blocks_pass_and_every_cut_fails() {
        // identification, module, STRTAB, SYMTAB: the blocks clang writes.
        let s = stream(&[(13, 2), (8, 5), (23, 3), (25, 4)]);
        assert_eq!(check(&s), Ok(()));
        let b = top_level_blocks(&s).unwrap();
        assert_eq!(
            b.iter()
                .map(|b| (b.id, b.header, b.body.clone()))
                .collect::<Vec<_>>(),
            vec![
                (13, 4, 12..20),
                (8, 20, 28..48),
                (23, 48, 56..68),
                (25, 68, 76..92)
            ]
        );
        for len in 4..s.len() {
            let cut = &s[..len];
            // A cut at a block boundary leaves whole blocks: fine once the module is in.
            // Magic 4 bytes; a block's header 8 bytes, then its body.
            let boundary = [4, 20, 48, 68];
            if boundary.contains(&len) {
                assert_eq!(check(cut).is_ok(), len >= 48, "cut at {len}");
            } else {
                assert!(check(cut).is_err(), "cut at {len} passed");
            }
        }
        let e = check(&s[..s.len() - 4]).unwrap_err();
        assert!(e.contains("symbol table block (SYMTAB)"), "{e}");
    }

    #[test]
    fn a_piece_of_the_magic_is_cut_bitcode() {
        for len in 1..4 {
            assert!(looks_like_bitcode(&MAGIC[..len]));
            assert!(check(&MAGIC[..len]).unwrap_err().contains("shorter than"));
        }
        assert!(!looks_like_bitcode(b"; ModuleID") && !looks_like_bitcode(b""));
    }

    #[test]
    fn wrapper_and_padding() {
        let s = stream(&[(8, 2)]);
        let mut w = Vec::new();
        w.extend_from_slice(&WRAPPER_MAGIC);
        for v in [0u32, 20, s.len() as u32, 7] {
            w.extend_from_slice(&v.to_le_bytes());
        }
        w.extend_from_slice(&s);
        assert_eq!(check(&w), Ok(()));
        // The wrapper says more than the file holds.
        assert!(check(&w[..w.len() - 4]).unwrap_err().contains("wrapper"));
        // Zero words after the last block are padding.
        let mut p = s.clone();
        p.extend_from_slice(&[0; 8]);
        assert_eq!(check(&p), Ok(()));
        // No module block.
        assert_eq!(check(&stream(&[(13, 1)])), Err("no module block".into()));
        // A module without its string table: a hint for LLVM's error.
        assert!(hint(&stream(&[(13, 1), (8, 2)]))
            .unwrap()
            .contains("STRTAB"));
        assert_eq!(hint(&stream(&[(13, 1), (8, 2), (23, 1)])), None);
    }
}
