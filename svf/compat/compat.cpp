// Symbols the pysvf wheel's libraries expect from glibc 2.38 and libstdc++ 13, provided on
// Debian 12 (glibc 2.36, GCC 12). scripts/svf-setup.sh builds this into
// libpspa-svfcompat.so, adds it as a needed library and rewrites the version requirements.
// The C23 variants differ from the classic functions only on "0b" prefixes and the like,
// which SVF's option and file parsing never meet.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iostream>

extern "C" {
long __isoc23_strtol(const char *s, char **end, int base) { return std::strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return std::strtoul(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return std::strtoull(s, end, base); }
int __isoc23_sscanf(const char *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsscanf(s, fmt, ap);
    va_end(ap);
    return n;
}
}

// GCC 13 moved the iostream initialisation behind this function; with GCC 12 the static
// ios_base::Init of <iostream>, included above, does the work.
namespace std {
void ios_base_library_init() {}
}
