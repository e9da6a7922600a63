//! Builds the C++ side of the cxx bridge (src/lib.rs) into the crate, so that the
//! staticlib carries it for the KLEE plugin. It needs only a C++ compiler: the KLEE-facing
//! code is in cpp-shim/ and is built by CMake against a KLEE tree.
fn main() {
    cxx_build::bridge("src/lib.rs")
        .include("../cpp-shim/include")
        .std("c++17")
        .compile("pspa-bridge");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=../cpp-shim/include/pspa/state_view.h");
}
