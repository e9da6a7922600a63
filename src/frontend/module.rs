//! Loading a module: `.bc` or `.ll` parsed by LLVM (bitcode checked first), `.c` compiled
//! by clang; a module of the host process borrowed; bitcode written back.

use super::take_message;
use anyhow::{anyhow, bail, Context, Result};
use llvm_sys::core::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An LLVM module with its context: parsed here (disposed on drop) or borrowed from the
/// host process (KLEE's own module, never disposed here).
pub struct Module {
    pub(super) ctx: LLVMContextRef,
    pub(super) module: LLVMModuleRef,
    owned: bool,
    pub path: PathBuf,
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.owned {
            unsafe {
                LLVMDisposeModule(self.module);
                LLVMContextDispose(self.ctx);
            }
        }
    }
}

impl Module {
    /// Borrow a module that lives in this process (an `llvm::Module*` of KLEE).
    ///
    /// # Safety
    /// `module` must be a valid `llvm::Module*` outliving the returned value, of the same
    /// LLVM library this crate links (libLLVM-14.so).
    pub unsafe fn borrowed(module: LLVMModuleRef, path: PathBuf) -> Module {
        Module {
            ctx: LLVMGetModuleContext(module),
            module,
            owned: false,
            path,
        }
    }

    /// The size of a pointer in the module's data layout (address space 0), in bytes.
    pub fn pointer_bytes(&self) -> u64 {
        unsafe { LLVMPointerSize(LLVMGetModuleDataLayout(self.module)) as u64 }
    }

    /// Write the module as bitcode (so that snapshots of it can be replayed).
    pub fn write_bitcode(&self, path: &Path) -> Result<()> {
        let c = CString::new(path.display().to_string())
            .map_err(|_| anyhow!("{}: bad path", path.display()))?;
        if unsafe { llvm_sys::bit_writer::LLVMWriteBitcodeToFile(self.module, c.as_ptr()) } != 0 {
            bail!("{}: cannot write bitcode", path.display());
        }
        Ok(())
    }
}

/// Read a module from `.bc` / `.ll`, or compile a `.c` file with clang-14 first.
pub fn load(path: &Path) -> Result<Module> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("{}: cannot read file", path.display()))?;
    if meta.is_dir() {
        bail!(
            "{}: is a directory, expected a .bc, .ll or .c file",
            path.display()
        );
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "c" {
        let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
        let bc = dir.path().join("input.bc");
        compile_c(path, &bc)?;
        let mut m = parse(&bc).with_context(|| format!("{}: compiled bitcode", path.display()))?;
        m.path = path.to_path_buf();
        return Ok(m);
    }
    parse(path)
}

/// The clang command used for `.c` inputs (overridable with `PSPA_CLANG`).
pub fn clang() -> String {
    std::env::var("PSPA_CLANG").unwrap_or_else(|_| "clang-14".to_string())
}

pub fn compile_c(src: &Path, out: &Path) -> Result<()> {
    let cc = clang();
    let output = Command::new(&cc)
        .args([
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-fno-discard-value-names",
            "-emit-llvm",
            "-c",
        ])
        .arg(src)
        .arg("-o")
        .arg(out)
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "{}: cannot compile C: `{}` not found (install it: apt-get install clang-14)",
                src.display(),
                cc
            )
        }
        Err(e) => bail!("{}: cannot run {}: {}", src.display(), cc, e),
    };
    if !output.status.success() {
        bail!(
            "{}: {} failed:\n{}",
            src.display(),
            cc,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn parse(path: &Path) -> Result<Module> {
    let bytes =
        std::fs::read(path).with_context(|| format!("{}: cannot read file", path.display()))?;
    if bytes.is_empty() {
        // LLVM would read an empty buffer as textual IR of an empty module.
        bail!("{}: empty file, not LLVM bitcode or IR", path.display());
    }
    let is_bc = crate::bitcode::looks_like_bitcode(&bytes);
    if !is_bc && std::str::from_utf8(&bytes).is_err() {
        bail!("{}: not LLVM bitcode or textual IR", path.display());
    }
    if is_bc {
        // LLVM aborts the process on some truncated files (a cut inside the symbol table):
        // their structure is checked first (src/bitcode.rs).
        if let Err(e) = crate::bitcode::check(&bytes) {
            bail!("{}: malformed bitcode: {}", path.display(), e);
        }
    }
    unsafe {
        let ctx = LLVMContextCreate();
        let name = CString::new(path.display().to_string()).unwrap_or_default();
        // LLVMParseIRInContext takes ownership of the buffer.
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            bytes.as_ptr() as *const _,
            bytes.len(),
            name.as_ptr(),
        );
        let mut module = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        if LLVMParseIRInContext(ctx, buf, &mut module, &mut msg) != 0 {
            let err = if msg.is_null() {
                "unknown error".to_string()
            } else {
                take_message(msg)
            };
            LLVMContextDispose(ctx);
            let what = if is_bc {
                "malformed bitcode"
            } else {
                "malformed LLVM IR"
            };
            let hint = is_bc
                .then(|| crate::bitcode::hint(&bytes))
                .flatten()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            bail!("{}: {}: {}{}", path.display(), what, err.trim(), hint);
        }
        Ok(Module {
            ctx,
            module,
            owned: true,
            path: path.to_path_buf(),
        })
    }
}
