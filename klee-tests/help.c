// The plugin's options are KLEE options (MiscCat): `klee --help` lists them once the
// plugin is loaded, and a wrong value is KLEE's own option error.
// RUN: %klee --help 2>&1 | %FileCheck %s
// CHECK: Miscellaneous options:
// CHECK-DAG: --plugin=<path>
// CHECK-DAG: --pspa-analyze=<F,G,...>
// CHECK-DAG: --pspa-analyze-all
// CHECK-DAG: --pspa-dump-snapshots=<DIR>
// CHECK-DAG: --pspa-max-resolutions=<uint>
// CHECK-DAG: --pspa-mode=<value>
// CHECK-DAG: --pspa-no-reuse
// CHECK-DAG: --pspa-no-read-cache
// RUN: %not %klee --pspa-mode=bogus %s 2>&1 | %FileCheck %s --check-prefix=BAD
// BAD: Cannot find option named 'bogus'
//
// CMake refuses a KLEE tree without the patch, and a missing one, with a clear message.
// RUN: rm -rf %t.src %t.b && mkdir -p %t.src/lib/Core && touch %t.src/lib/Core/Executor.h
// (CMake wraps long messages: join the lines first.)
// RUN: %not cmake -S %root -B %t.b -DKLEE_SRC_DIR=%t.src -DKLEE_BUILD_DIR=/nonexistent 2>&1 | tr -s '\n ' ' ' | %FileCheck %s --check-prefix=UNPATCHED
// UNPATCHED: is not patched: run `git apply {{.*}}patches/klee-v3.2-pspa.patch` there and rebuild KLEE
// RUN: %not cmake -S %root -B %t.b -DKLEE_SRC_DIR=/nonexistent 2>&1 | tr -s '\n ' ' ' | %FileCheck %s --check-prefix=MISSING
// MISSING: KLEE source tree not found: set KLEE_SRC_DIR
// A tree patched by an older patch (no bound fingerprint) is refused too.
// RUN: rm -rf %t.old %t.b && mkdir -p %t.old/lib/Core %t.old/include/klee/Core && touch %t.old/lib/Core/Executor.h %t.old/include/klee/Core/Plugin.h %t.old/lib/Core/AddressSpace.h
// RUN: %not cmake -S %root -B %t.b -DKLEE_SRC_DIR=%t.old -DKLEE_BUILD_DIR=/nonexistent 2>&1 | tr -s '\n ' ' ' | %FileCheck %s --check-prefix=OLDPATCH
// OLDPATCH: has an older version of the patch
int main(void) { return 0; }
