# lit configuration for the KLEE plugin tests (run: lit -v klee-tests).
# Finds the patched KLEE in $KLEE_BUILD_DIR (default /opt/klee/build), the plugin in
# $PSPA_PLUGIN (default build/libpspa-klee.so) and pspa in target/release/pspa.
import os
import shutil
import lit.formats

config.name = "pspa-klee"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".c"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(root, "build", "klee-tests")

klee_build = os.environ.get("KLEE_BUILD_DIR", "/opt/klee/build")
klee = os.path.join(klee_build, "bin", "klee")
plugin = os.environ.get("PSPA_PLUGIN", os.path.join(root, "build", "libpspa-klee.so"))
pspa = os.path.join(root, "target", "release", "pspa")
for what, path in (("klee", klee), ("plugin", plugin), ("pspa", pspa)):
    if not os.path.exists(path):
        lit_config.fatal("%s not found at %s" % (what, path))
filecheck = shutil.which("FileCheck-14") or "/usr/lib/llvm-14/bin/FileCheck"
# LLVM's `not` (llvm-14-tools): succeeds when the command fails.
not_tool = shutil.which("not-14") or "/usr/lib/llvm-14/bin/not"
klee_stats = os.path.join(klee_build, "bin", "klee-stats")
include = os.path.join(os.environ.get("KLEE_SRC_DIR", "/opt/klee/src"), "include")

config.substitutions.append(("%clang", "clang-14 -g -O0 -Xclang -disable-O0-optnone -emit-llvm -c -I" + include))
# the test program compiled natively against KLEE's libkleeRuntest: its tests replay on it
runtest = os.path.join(klee_build, "lib")
config.substitutions.append(("%cc-runtest", "clang-14 -g -O0 -I%s -L%s -Wl,-rpath,%s -Wl,--no-as-needed -lkleeRuntest" % (include, runtest, runtest)))
config.substitutions.append(("%klee-stats", klee_stats))
config.substitutions.append(("%klee", klee + " --plugin=" + plugin))
config.substitutions.append(("%pspa", pspa))
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%python", "python3"))
config.substitutions.append(("%root", root))
config.substitutions.append(("%not", not_tool))
config.substitutions.append(("%checks", os.path.join(config.test_source_root, "checks.py")))
config.environment["PATH"] = os.environ.get("PATH", "")
