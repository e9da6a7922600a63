//! Compile the C++ glue against the SVF wheel that `scripts/svf-setup.sh` installs.
//! PSPA_SVF_DIR (SVF's Release-build) and PSPA_LLVM21_INCLUDE override the venv's paths.
use std::path::PathBuf;

fn setting(stamp: &str, key: &str) -> Option<String> {
    stamp
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_string))
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let venv = std::env::var("PSPA_SVF_VENV")
        .map(PathBuf::from)
        .unwrap_or(root.join(".venv/svf"));
    let stamp = std::fs::read_to_string(venv.join(".pspa-svf-ready")).unwrap_or_default();
    let svf = std::env::var("PSPA_SVF_DIR")
        .ok()
        .or_else(|| setting(&stamp, "SVF_DIR"));
    let llvm = std::env::var("PSPA_LLVM21_INCLUDE")
        .ok()
        .or_else(|| setting(&stamp, "LLVM21_INCLUDE"));
    let (Some(svf), Some(llvm)) = (svf, llvm) else {
        panic!("pspa-svf needs the SVF wheel: run scripts/svf-setup.sh first (or set PSPA_SVF_DIR and PSPA_LLVM21_INCLUDE)");
    };
    let svf = PathBuf::from(svf);
    println!("cargo:rerun-if-changed=glue/glue.cpp");
    println!("cargo:rerun-if-env-changed=PSPA_SVF_DIR");
    println!("cargo:rerun-if-env-changed=PSPA_LLVM21_INCLUDE");
    println!(
        "cargo:rerun-if-changed={}",
        venv.join(".pspa-svf-ready").display()
    );
    cc::Build::new()
        .cpp(true)
        .file("glue/glue.cpp")
        .include(svf.join("include"))
        .include(&llvm)
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .flag("-w") // SVF's and LLVM's headers are not ours to fix
        .compile("pspa_svf_glue");
    let lib = svf.join("lib");
    let z3 = svf.join("../z3.obj/bin");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=SvfLLVM");
    println!("cargo:rustc-link-lib=dylib=SvfCore");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    // LLVM 21 lives inside libSvfLLVM.so; its own needs (z3, the compat shim) resolve at run time.
    println!("cargo:rustc-link-arg=-Wl,--allow-shlib-undefined");
    println!(
        "cargo:rustc-link-arg=-Wl,-rpath,{}:{}",
        lib.display(),
        z3.display()
    );
}
