//! Models of external (body-less) functions: what they do to pointers and to memory.
//!
//! Policy for an external function without a model (documented in the README): its pointer
//! arguments *escape*. Every object reachable from an escaped pointer may be read and
//! written by it, may come to point to any other escaped object, and any escaped function
//! pointer may be called with escaped arguments. Its result may point to any escaped object
//! or to a fresh object of the call site. This is sound for code that only sees what it is
//! given; each such call is counted in the statistics (`unknown_externals`).

/// One effect of an external call. Argument indices are 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The result points to a fresh object of the call site (`heap:F:LINE`).
    Alloc,
    /// Like `Alloc`, and the new object receives the contents of the object of arg i.
    Realloc(usize),
    /// Writes the object the result points to (strdup fills its copy, calloc zeroes).
    ModRet,
    /// The result is argument i.
    RetArg(usize),
    /// The result points somewhere inside the object of argument i (unknown offset).
    RetInto(usize),
    /// The result points to a library-owned object, one per call site (`getenv`, `fopen`).
    RetStatic,
    /// Writes / reads the objects argument i points to.
    Mod(usize),
    /// Writes the objects argument i points to with input (`klee_make_symbolic` of an
    /// object with pointer-typed cells, `SYMBOLIC_POINTERS`): a cell of theirs read as a
    /// pointer may then hold any address. Their contents point to the
    /// `unknown` object, which points to itself, as a state's symbolic pointer-typed cell
    /// is read (`Target::Unknown`): a set that names it says "anything".
    Symbolic(usize),
    /// Ends the objects argument i points to (`free`): a write of all their bytes for
    /// mod/ref, and the call's may-free set (chopping recovers a skipped call before a
    /// write into an object it may have freed).
    Free(usize),
    Ref(usize),
    /// Writes / reads the objects of every argument from i on (variadic functions).
    ModFrom(usize),
    RefFrom(usize),
    /// Reads every object reachable from argument i (a `va_list`, a `FILE*` internals).
    RefDeep(usize),
    /// Writes every object reachable from argument i (`vsscanf` through a `va_list`).
    ModDeep(usize),
    /// Contents of the objects of argument `dst` ⊇ contents of those of argument `src`.
    Copy(usize, usize),
    /// `*arg[ptr]` = a pointer into the object of `arg[into]` (`strtol`'s `endptr`).
    StoreInto {
        ptr: usize,
        into: usize,
    },
    /// `*arg[ptr]` = a fresh object of the call site (`posix_memalign`, `getline`).
    StoreAlloc(usize),
    /// Calls the function pointer `func` with the given arguments (`usize::MAX`: the
    /// callback's own result is discarded; arguments are indices into the call).
    Callback {
        func: usize,
        args: &'static [usize],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Known(&'static [Effect]),
    /// No model: the conservative escape policy above.
    Unknown,
}

use Effect::*;

const ALLOC: &[Effect] = &[Alloc];
const NOTHING: &[Effect] = &[];
const READ0: &[Effect] = &[Ref(0)];
const READ01: &[Effect] = &[Ref(0), Ref(1)];
const WRITE0: &[Effect] = &[Mod(0)];
/// `klee_make_symbolic` of an object whose cells hold pointers (the front end's choice):
/// they may then hold any address.
pub const SYMBOLIC_POINTERS: &[Effect] = &[Symbolic(0), Ref(2)];
const STRCPY: &[Effect] = &[RetArg(0), Mod(0), Ref(0), Ref(1)];
const MEMCPY: &[Effect] = &[RetArg(0), Mod(0), Ref(1), Copy(0, 1)];
/// mempcpy returns dst + n: a pointer into dst, not dst itself.
const MEMPCPY: &[Effect] = &[RetInto(0), Mod(0), Ref(1), Copy(0, 1)];
const PRINTF: &[Effect] = &[RefFrom(0)];
const FPRINTF: &[Effect] = &[Mod(0), Ref(0), RefFrom(1)];
const SPRINTF: &[Effect] = &[Mod(0), RefFrom(1)];
const SNPRINTF: &[Effect] = &[Mod(0), RefFrom(2)];
const SCANF: &[Effect] = &[Ref(0), ModFrom(1)];
const SSCANF: &[Effect] = &[Ref(0), Ref(1), ModFrom(2)];
const STRCHR: &[Effect] = &[RetInto(0), Ref(0)];
const STRSTR: &[Effect] = &[RetInto(0), Ref(0), Ref(1)];
const STRTOL: &[Effect] = &[Ref(0), Mod(1), StoreInto { ptr: 1, into: 0 }];
const STATIC: &[Effect] = &[RetStatic];
const STATIC_R0: &[Effect] = &[RetStatic, Ref(0)];
const FOPEN: &[Effect] = &[RetStatic, Ref(0), Ref(1)];
const FILE_RW: &[Effect] = &[Mod(0), Ref(0)];
const FGETS: &[Effect] = &[RetArg(0), Mod(0), Mod(2), Ref(2)];
const FREAD: &[Effect] = &[Mod(0), Mod(3), Ref(3)];
const FWRITE: &[Effect] = &[Ref(0), Mod(3), Ref(3)];
const FPUTS: &[Effect] = &[Ref(0), Mod(1), Ref(1)];
const READ_FD: &[Effect] = &[Mod(1)];
const WRITE_FD: &[Effect] = &[Ref(1)];
const QSORT: &[Effect] = &[
    Mod(0),
    Ref(0),
    Callback {
        func: 3,
        args: &[0, 0],
    },
];
const BSEARCH: &[Effect] = &[
    RetInto(1),
    Ref(0),
    Ref(1),
    Callback {
        func: 4,
        args: &[0, 1],
    },
];
const PTHREAD_CREATE: &[Effect] = &[
    Mod(0),
    Callback {
        func: 2,
        args: &[3],
    },
];
const ATEXIT: &[Effect] = &[Callback { func: 0, args: &[] }];
const SIGNAL: &[Effect] = &[Callback { func: 1, args: &[] }];
const POSIX_MEMALIGN: &[Effect] = &[Mod(0), StoreAlloc(0)];
const GETLINE: &[Effect] = &[Mod(0), Ref(0), Mod(1), StoreAlloc(0), Mod(2), Ref(2)];
const VPRINTF: &[Effect] = &[Ref(0), RefDeep(1)];
const VFPRINTF: &[Effect] = &[Mod(0), Ref(0), Ref(1), RefDeep(2)];
const VSPRINTF: &[Effect] = &[Mod(0), Ref(1), RefDeep(2)];
const VSNPRINTF: &[Effect] = &[Mod(0), Ref(2), RefDeep(3)];
const VSSCANF: &[Effect] = &[Ref(0), Ref(1), ModDeep(2)];
const STAT: &[Effect] = &[Ref(0), Mod(1)];
const TIME: &[Effect] = &[Mod(0)];
/// Freeing ends the object: a write, for mod/ref (chopping must not move a free
/// past a skipped call that frees or reads the same object), and a free.
const FREE: &[Effect] = &[Free(0)];
const REALLOC: &[Effect] = &[Realloc(0), Ref(0), Free(0), ModRet];
const STRDUP: &[Effect] = &[Alloc, Ref(0), ModRet];
const CALLOC: &[Effect] = &[Alloc, ModRet];
const LOCALTIME: &[Effect] = &[RetStatic, Ref(0)];
const STRTOK: &[Effect] = &[RetInto(0), Mod(0), Ref(0), Ref(1)];
const MEMSET: &[Effect] = &[RetArg(0), Mod(0)];
const SETJMP: &[Effect] = &[Mod(0)];
const LONGJMP: &[Effect] = &[Ref(0)];
const SETVBUF: &[Effect] = &[Mod(0), Ref(0), Mod(1)];
const ERRNO: &[Effect] = &[RetStatic];
const STPCPY: &[Effect] = &[RetInto(0), Mod(0), Ref(1)];

/// Built-in models, by name. Allocators added with `--allocator` use `ALLOC`.
static MODELS: &[(&str, &[Effect])] = &[
    // allocation
    ("malloc", ALLOC),
    ("calloc", CALLOC),
    ("valloc", ALLOC),
    ("pvalloc", ALLOC),
    ("aligned_alloc", ALLOC),
    ("memalign", ALLOC),
    ("_Znwm", ALLOC),
    ("_Znam", ALLOC),
    ("_ZnwmRKSt9nothrow_t", ALLOC),
    ("_ZnamRKSt9nothrow_t", ALLOC),
    ("realloc", REALLOC),
    ("reallocarray", REALLOC),
    ("strdup", STRDUP),
    ("strndup", STRDUP),
    ("__strdup", STRDUP),
    ("posix_memalign", POSIX_MEMALIGN),
    ("getline", GETLINE),
    ("getdelim", GETLINE),
    ("free", FREE),
    ("cfree", FREE),
    ("_ZdlPv", FREE),
    ("_ZdaPv", FREE),
    // strings and memory
    ("strcpy", STRCPY),
    ("strncpy", STRCPY),
    ("strcat", STRCPY),
    ("strncat", STRCPY),
    ("stpcpy", STPCPY),
    ("stpncpy", STPCPY),
    ("memcpy", MEMCPY),
    ("memmove", MEMCPY),
    ("mempcpy", MEMPCPY),
    ("bcopy", &[Mod(1), Ref(0), Copy(1, 0)]),
    ("memset", MEMSET),
    ("bzero", WRITE0),
    ("explicit_bzero", WRITE0),
    ("strlen", READ0),
    ("strnlen", READ0),
    ("strcmp", READ01),
    ("strncmp", READ01),
    ("strcasecmp", READ01),
    ("strncasecmp", READ01),
    ("memcmp", READ01),
    ("bcmp", READ01),
    ("strcoll", READ01),
    ("strspn", READ01),
    ("strcspn", READ01),
    ("strchr", STRCHR),
    ("strrchr", STRCHR),
    ("memchr", STRCHR),
    ("memrchr", STRCHR),
    ("rawmemchr", STRCHR),
    ("strchrnul", STRCHR),
    ("index", STRCHR),
    ("rindex", STRCHR),
    ("strstr", STRSTR),
    ("strcasestr", STRSTR),
    ("strpbrk", STRSTR),
    // memmem(haystack, haystacklen, needle, needlelen): the needle is argument 2 (tests/
    // uclibc.rs found uclibc's body reading it, which strstr's model missed).
    ("memmem", &[RetInto(0), Ref(0), Ref(2)]),
    ("strtok", STRTOK),
    (
        "strtok_r",
        &[
            RetInto(0),
            Mod(0),
            Ref(0),
            Ref(1),
            Mod(2),
            StoreInto { ptr: 2, into: 0 },
        ],
    ),
    ("strsep", &[Mod(0), Ref(0), Ref(1)]),
    ("strerror", STATIC),
    ("strsignal", STATIC),
    // numbers
    ("atoi", READ0),
    ("atol", READ0),
    ("atoll", READ0),
    ("atof", READ0),
    ("strtol", STRTOL),
    ("strtoul", STRTOL),
    ("strtoll", STRTOL),
    ("strtoull", STRTOL),
    ("strtod", STRTOL),
    ("strtof", STRTOL),
    ("strtold", STRTOL),
    ("strtoimax", STRTOL),
    ("strtoumax", STRTOL),
    ("abs", NOTHING),
    ("labs", NOTHING),
    ("rand", NOTHING),
    ("srand", NOTHING),
    ("random", NOTHING),
    ("toupper", NOTHING),
    ("tolower", NOTHING),
    ("isalpha", NOTHING),
    ("isdigit", NOTHING),
    ("isspace", NOTHING),
    ("isalnum", NOTHING),
    ("isupper", NOTHING),
    ("islower", NOTHING),
    ("isprint", NOTHING),
    ("isxdigit", NOTHING),
    ("ispunct", NOTHING),
    ("iscntrl", NOTHING),
    ("__ctype_b_loc", ERRNO),
    ("__ctype_tolower_loc", ERRNO),
    ("__ctype_toupper_loc", ERRNO),
    ("__errno_location", ERRNO),
    // stdio
    ("printf", PRINTF),
    ("puts", READ0),
    ("putchar", NOTHING),
    ("perror", READ0),
    ("fprintf", FPRINTF),
    ("dprintf", &[RefFrom(1)]),
    ("sprintf", SPRINTF),
    ("snprintf", SNPRINTF),
    ("vprintf", VPRINTF),
    ("vfprintf", VFPRINTF),
    ("vsprintf", VSPRINTF),
    ("vsnprintf", VSNPRINTF),
    ("scanf", &[Ref(0), ModFrom(1)]),
    ("fscanf", SCANF),
    ("sscanf", SSCANF),
    ("__isoc99_scanf", &[Ref(0), ModFrom(1)]),
    ("__isoc99_fscanf", SSCANF),
    ("__isoc99_sscanf", SSCANF),
    ("vsscanf", VSSCANF),
    ("fopen", FOPEN),
    ("fopen64", FOPEN),
    ("fdopen", STATIC_R0),
    ("freopen", &[RetArg(2), Ref(0), Ref(1), Mod(2)]),
    ("tmpfile", STATIC),
    ("popen", FOPEN),
    ("fclose", FILE_RW),
    ("pclose", FILE_RW),
    ("fflush", FILE_RW),
    ("fgetc", FILE_RW),
    ("getc", FILE_RW),
    ("_IO_getc", FILE_RW),
    ("ungetc", &[Mod(1), Ref(1)]),
    ("fputc", &[Mod(1), Ref(1)]),
    ("putc", &[Mod(1), Ref(1)]),
    ("_IO_putc", &[Mod(1), Ref(1)]),
    ("feof", READ0),
    ("ferror", READ0),
    ("clearerr", WRITE0),
    ("fileno", READ0),
    ("fseek", FILE_RW),
    ("fseeko", FILE_RW),
    ("ftell", FILE_RW),
    ("ftello", FILE_RW),
    ("rewind", FILE_RW),
    ("fgets", FGETS),
    ("fread", FREAD),
    ("fwrite", FWRITE),
    ("fputs", FPUTS),
    ("getchar", NOTHING),
    ("setvbuf", SETVBUF),
    ("setbuf", SETVBUF),
    ("open", READ0),
    ("open64", READ0),
    ("close", NOTHING),
    ("read", READ_FD),
    ("write", WRITE_FD),
    ("lseek", NOTHING),
    ("lseek64", NOTHING),
    ("unlink", READ0),
    ("remove", READ0),
    ("rename", READ01),
    ("access", READ0),
    ("stat", STAT),
    ("lstat", STAT),
    ("fstat", &[Mod(1)]),
    ("stat64", STAT),
    ("fstat64", &[Mod(1)]),
    ("lstat64", STAT),
    ("fsync", NOTHING),
    ("ftruncate", NOTHING),
    ("ftruncate64", NOTHING),
    ("truncate64", READ0),
    ("fcntl", NOTHING),
    ("fcntl64", NOTHING),
    ("isatty", NOTHING),
    ("getpid", NOTHING),
    ("sleep", NOTHING),
    ("usleep", NOTHING),
    ("getcwd", &[RetArg(0), Mod(0)]),
    ("getenv", STATIC_R0),
    ("secure_getenv", STATIC_R0),
    ("mmap", STATIC),
    ("mmap64", STATIC),
    ("munmap", NOTHING),
    ("getpagesize", NOTHING),
    ("sysconf", NOTHING),
    ("dlopen", STATIC_R0),
    ("dlsym", STATIC_R0),
    ("dlclose", NOTHING),
    ("dlerror", STATIC),
    // time
    ("time", TIME),
    ("gettimeofday", WRITE0),
    ("clock_gettime", &[Mod(1)]),
    ("clock", NOTHING),
    ("localtime", LOCALTIME),
    ("gmtime", LOCALTIME),
    ("localtime_r", &[RetArg(1), Ref(0), Mod(1)]),
    ("gmtime_r", &[RetArg(1), Ref(0), Mod(1)]),
    ("mktime", &[Mod(0), Ref(0)]),
    ("strftime", &[Mod(0), Ref(2), Ref(3)]),
    ("ctime", LOCALTIME),
    ("asctime", LOCALTIME),
    // control
    ("exit", NOTHING),
    ("_exit", NOTHING),
    ("abort", NOTHING),
    ("__assert_fail", READ01),
    ("__stack_chk_fail", NOTHING),
    ("setjmp", SETJMP),
    ("_setjmp", SETJMP),
    ("sigsetjmp", SETJMP),
    ("longjmp", LONGJMP),
    ("_longjmp", LONGJMP),
    ("siglongjmp", LONGJMP),
    ("qsort", QSORT),
    ("bsearch", BSEARCH),
    ("pthread_create", PTHREAD_CREATE),
    ("atexit", ATEXIT),
    ("signal", SIGNAL),
    ("pthread_mutex_lock", FILE_RW),
    ("pthread_mutex_unlock", FILE_RW),
    ("pthread_mutex_init", FILE_RW),
    ("pthread_mutex_destroy", FILE_RW),
    ("pthread_self", NOTHING),
    ("pthread_join", &[Mod(1)]),
    // POSIX file system and process calls: they read paths and fill caller buffers only.
    ("mkdir", READ0),
    ("rmdir", READ0),
    ("chdir", READ0),
    ("chmod", READ0),
    ("fchmod", NOTHING),
    ("chown", READ0),
    ("fchown", NOTHING),
    ("lchown", READ0),
    ("symlink", READ01),
    ("link", READ01),
    ("readlink", &[Ref(0), Mod(1)]),
    ("realpath", &[RetArg(1), Ref(0), Mod(1)]),
    ("utimes", READ01),
    ("utime", READ01),
    ("truncate", READ0),
    ("system", READ0),
    ("raise", NOTHING),
    ("kill", NOTHING),
    ("getuid", NOTHING),
    ("geteuid", NOTHING),
    ("getgid", NOTHING),
    ("getegid", NOTHING),
    ("getppid", NOTHING),
    ("getrusage", &[Mod(1)]),
    ("getrlimit", &[Mod(1)]),
    ("setrlimit", &[Ref(1)]),
    ("umask", NOTHING),
    ("getpwuid", STATIC),
    ("getpwnam", STATIC_R0),
    ("gethostname", WRITE0),
    ("uname", WRITE0),
    ("opendir", STATIC_R0),
    ("fdopendir", STATIC),
    ("readdir", &[RetStatic, Mod(0), Ref(0)]),
    ("readdir64", &[RetStatic, Mod(0), Ref(0)]),
    ("closedir", FILE_RW),
    ("rewinddir", FILE_RW),
    ("pread", READ_FD),
    ("pread64", READ_FD),
    ("pwrite", WRITE_FD),
    ("pwrite64", WRITE_FD),
    ("ioctl", &[ModFrom(2), RefFrom(2)]),
    ("mremap", &[RetInto(0), Ref(0)]),
    ("msync", NOTHING),
    ("madvise", NOTHING),
    ("fdatasync", NOTHING),
    ("dup", NOTHING),
    ("dup2", NOTHING),
    ("pipe", WRITE0),
    ("fork", NOTHING),
    ("waitpid", &[Mod(1)]),
    ("wait", WRITE0),
    ("execvp", READ01),
    ("execv", READ01),
    ("execl", &[RefFrom(0)]),
    ("execlp", &[RefFrom(0)]),
    ("select", &[Mod(1), Mod(2), Mod(3), Ref(4)]),
    ("poll", FILE_RW),
    ("nanosleep", &[Ref(0), Mod(1)]),
    ("alarm", NOTHING),
    ("sigaction", &[Ref(1), Mod(2)]),
    ("sigemptyset", WRITE0),
    ("sigaddset", WRITE0),
    ("sigprocmask", &[Ref(1), Mod(2)]),
    ("fputs_unlocked", FPUTS),
    ("fwrite_unlocked", FWRITE),
    ("putc_unlocked", &[Mod(1), Ref(1)]),
    ("getc_unlocked", FILE_RW),
    ("fflush_unlocked", FILE_RW),
    ("__uflow", FILE_RW),
    ("__overflow", FILE_RW),
    ("isnan", NOTHING),
    ("isinf", NOTHING),
    ("sqrt", NOTHING),
    ("log", NOTHING),
    ("exp", NOTHING),
    ("pow", NOTHING),
    ("floor", NOTHING),
    ("ceil", NOTHING),
    ("fabs", NOTHING),
    ("fmod", NOTHING),
    ("log10", NOTHING),
    ("sin", NOTHING),
    ("cos", NOTHING),
    ("tan", NOTHING),
    ("atan", NOTHING),
    ("atan2", NOTHING),
    ("modf", &[Mod(1)]),
    ("frexp", &[Mod(1)]),
    ("ldexp", NOTHING),
    ("round", NOTHING),
    ("trunc", NOTHING),
    ("log2", NOTHING),
    ("exp2", NOTHING),
    ("acos", NOTHING),
    ("asin", NOTHING),
    ("sinh", NOTHING),
    ("cosh", NOTHING),
    ("tanh", NOTHING),
    ("asinh", NOTHING),
    ("acosh", NOTHING),
    ("atanh", NOTHING),
    ("hypot", NOTHING),
    ("cbrt", NOTHING),
    ("isalnum_l", NOTHING),
    ("localeconv", STATIC),
    ("setlocale", STATIC_R0),
    ("iswspace", NOTHING),
    ("isblank", NOTHING),
    ("isgraph", NOTHING),
    // KLEE's intrinsics, so that drivers written for KLEE analyse statically too.
    // Input into an object with pointer-typed cells: `SYMBOLIC_POINTERS`, chosen per call
    // by the front end from the object's type.
    ("klee_make_symbolic", &[Mod(0), Ref(2)]),
    ("klee_assume", NOTHING),
    ("klee_int", READ0),
    ("klee_range", READ0),
    ("klee_report_error", READ01),
    ("klee_warning", READ0),
    ("klee_silent_exit", NOTHING),
    ("klee_abort", NOTHING),
    ("klee_print_expr", READ0),
    ("klee_is_symbolic", NOTHING),
    ("klee_get_value_i32", NOTHING),
    // KLEE's handlers return a concrete value of the argument, which may be an address
    // (the POSIX runtime's `__concretize_ptr` does `(char*) klee_get_valuel((long) p)`).
    ("klee_get_value_i64", &[RetArg(0)]),
    ("klee_get_valuel", &[RetArg(0)]),
    ("klee_get_valuell", &[RetArg(0)]),
    // Handled inside KLEE without touching memory (the warning reads its message).
    ("klee_mark_global", NOTHING),
    ("klee_prefer_cex", NOTHING),
    ("klee_posix_prefer_cex", NOTHING),
    ("klee_warning_once", READ0),
    ("klee_stack_trace", NOTHING),
    ("klee_check_memory_access", READ0),
];

/// Library functions whose model replaces their body when the module defines them with
/// external linkage (C11 7.1.3 reserves these names: a definition must be the standard
/// function). KLEE links uclibc, so its byte-wise `memcpy` carries every struct copy of the
/// program: analysed as code it would be context-insensitive (every copy's source flowing to
/// every copy's destination) and, copying `char`s, it would drop the pointers it copies.
/// Only functions whose model is complete are listed: they touch nothing but the objects
/// of their arguments (no errno, locale, static state) and allocate nothing (a body's
/// allocation site is what KLEE reports). tests/uclibc.rs checks every model against
/// klee-uclibc's body: a model may replace a body only with the body's effects.
///
/// The body is never analysed. Each call applies the model; the function's own sets (what
/// `pspa analyze` reports for it, what KLEE's SPA mode answers for a call of it, and what
/// the accesses of its body, which KLEE runs, are checked against) are the model's on what
/// its formals point to: every call's arguments in the whole program, the state's when it
/// is the analysed call (`Function::body_replaced`, `Solver::apply_body_model`).
pub const BODY_REPLACED: &[&str] = &[
    "memcpy",
    "memmove",
    "bcopy",
    "memset",
    "bzero",
    "explicit_bzero",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "memcmp",
    "bcmp",
    "strspn",
    "strcspn",
    "strchr",
    "strrchr",
    "memchr",
    "memrchr",
    "rawmemchr",
    "strchrnul",
    "index",
    "rindex",
    "strstr",
    "strpbrk",
    "memmem",
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "stpcpy",
    "stpncpy",
];

/// Whether an effect is the function's own when the function is bound by calls that each
/// apply the whole model (see `Solver::apply_body_model`): what it reads, writes and frees,
/// and its result. The others (copies and stores into memory, allocations, callbacks) are
/// the calls'.
pub fn own_effect(e: &Effect) -> bool {
    matches!(
        e,
        Mod(_)
            | Ref(_)
            | Free(_)
            | ModFrom(_)
            | RefFrom(_)
            | ModDeep(_)
            | RefDeep(_)
            | RetArg(_)
            | RetInto(_)
    )
}

/// The arguments through which a body that `model` replaces may store (`store`) or load:
/// KLEE runs such a body (uclibc's byte-wise `memcpy`), and its accesses can only go
/// through what its arguments point to. A load may go through anything the model reads
/// or writes (`strcat` reads the end of what it writes). None when the model does not
/// say argument by argument (effects over several or deep arguments, callbacks).
pub fn body_access_args(model: &Model, store: bool) -> Option<Vec<usize>> {
    let Model::Known(es) = model else {
        return None;
    };
    let mut out = Vec::new();
    for e in es.iter() {
        match *e {
            Mod(i) | Free(i) => out.push(i),
            Ref(i) if !store => out.push(i),
            Copy(d, s) => {
                out.push(d);
                if !store {
                    out.push(s);
                }
            }
            Ref(_) | Alloc | RetArg(_) | RetInto(_) | RetStatic => {}
            _ => return None,
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// The model that replaces the body of a defined function `name` (see `BODY_REPLACED`).
pub fn body_model(name: &str) -> Option<Model> {
    if BODY_REPLACED.contains(&name) {
        Some(model_for(name, &[]))
    } else {
        None
    }
}

/// A model for `syscall(nr, ...)` with a constant `nr` (x86_64 numbers), for the system
/// calls of file and directory I/O that KLEE's POSIX runtime passes through. Argument 0 is
/// `nr`. These only read and write the bytes of their buffers and return integers: the
/// kernel stores no pointer in user memory for them. Any other number keeps the unknown
/// policy (mmap returns new memory, rt_sigaction hands back handlers, ...).
pub fn syscall_model(nr: u64) -> Option<Model> {
    const REF1: &[Effect] = &[Ref(1)];
    const REF2: &[Effect] = &[Ref(2)];
    const MOD2: &[Effect] = &[Mod(2)];
    const PATH_STAT: &[Effect] = &[Ref(1), Mod(2)];
    let e: &'static [Effect] = match nr {
        0 | 17 | 217 => MOD2, // read, pread64, getdents64
        1 | 18 => REF2,       // write, pwrite64
        2 | 21 | 76 | 80 | 83 | 84 | 87 | 90 | 92 | 94 => REF1, // open, access, truncate, chdir, mkdir, rmdir, unlink, chmod, chown, lchown
        3 | 8 | 32 | 33 | 74 | 75 | 77 | 81 | 91 | 93 => NOTHING, // close, lseek, dup, dup2, fsync, fdatasync, ftruncate, fchdir, fchmod, fchown
        4 | 6 | 89 | 137 => PATH_STAT,                            // stat, lstat, readlink, statfs
        5 | 138 => MOD2,                                          // fstat, fstatfs
        16 => &[ModDeep(3), RefDeep(3)], // ioctl: as the libc model, deep for buffers in structs
        23 => &[
            Mod(2),
            Ref(2),
            Mod(3),
            Ref(3),
            Mod(4),
            Ref(4),
            Mod(5),
            Ref(5),
        ], // select
        72 => &[Mod(3), Ref(3)],         // fcntl (struct flock)
        79 => &[Mod(1)],                 // getcwd
        82 | 235 => READ_12,             // rename, utimes
        257 => REF2,                     // openat
        261 => &[Ref(2), Ref(3)],        // futimesat
        262 => &[Ref(2), Mod(3)],        // newfstatat
        _ => return None,
    };
    Some(Model::Known(e))
}

const READ_12: &[Effect] = &[Ref(1), Ref(2)];

/// The model for an external function `name`. `allocators` are user-declared allocators.
pub fn model_for(name: &str, allocators: &[String]) -> Model {
    if allocators.iter().any(|a| a == name) {
        return Model::Known(ALLOC);
    }
    // Fortified variants (`__strcpy_chk`) behave like the plain function.
    let base = name
        .strip_prefix("__")
        .and_then(|n| n.strip_suffix("_chk"))
        .unwrap_or(name);
    MODELS
        .iter()
        .find(|(n, _)| *n == base || *n == name)
        .map(|(_, e)| Model::Known(e))
        .unwrap_or(Model::Unknown)
}

impl Model {
    /// Whether its result is the model's static storage (`RetStatic`: errno's cell,
    /// `__ctype_b_loc`'s), memory the program did not allocate there.
    pub fn returns_static(&self) -> bool {
        matches!(self, Model::Known(es) if es.contains(&RetStatic))
    }

    /// Whether its result is the model's static storage and nothing else (not an argument,
    /// nor an allocation): what `writeless.rs` may take for one object in every state.
    pub fn returns_only_static(&self) -> bool {
        self.returns_static()
            && !matches!(self, Model::Known(es) if es.iter().any(|e| matches!(e, RetArg(_) | RetInto(_) | Alloc | Realloc(_))))
    }

    /// Whether calling this model may allocate an object at the call site.
    pub fn allocates(&self) -> bool {
        match self {
            Model::Known(es) => es
                .iter()
                .any(|e| matches!(e, Alloc | Realloc(_) | RetStatic | StoreAlloc(_))),
            Model::Unknown => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortified_and_user_allocators() {
        assert_eq!(model_for("__strcpy_chk", &[]), model_for("strcpy", &[]));
        assert_eq!(model_for("xmalloc", &[]), Model::Unknown);
        assert_eq!(
            model_for("xmalloc", &["xmalloc".into()]),
            Model::Known(ALLOC)
        );
        assert!(model_for("malloc", &[]).allocates());
        assert!(!model_for("strlen", &[]).allocates());
    }

    #[test]
    fn body_access_args_follow_the_effects() {
        // memcpy(dst, src, n): stores through dst only, loads through both.
        let m = model_for("memcpy", &[]);
        assert_eq!(body_access_args(&m, true), Some(vec![0]));
        assert_eq!(body_access_args(&m, false), Some(vec![0, 1]));
        // strcat reads what it writes: loads through both.
        let m = model_for("strcat", &[]);
        assert_eq!(body_access_args(&m, true), Some(vec![0]));
        assert_eq!(body_access_args(&m, false), Some(vec![0, 1]));
        // strlen only reads.
        let m = model_for("strlen", &[]);
        assert_eq!(body_access_args(&m, true), Some(vec![]));
        assert_eq!(body_access_args(&m, false), Some(vec![0]));
        assert_eq!(body_access_args(&Model::Unknown, true), None);
    }

    /// A replaced body's model is known, allocates nothing and calls nothing: a function
    /// bound by calls keeps only the model's own effects (`own_effect`), and the rest must
    /// be flows each call makes itself (copies between its arguments).
    #[test]
    fn body_models_are_complete() {
        for name in BODY_REPLACED {
            let Some(Model::Known(es)) = body_model(name) else {
                panic!("{name} has no model");
            };
            assert!(!Model::Known(es).allocates(), "{name} allocates");
            for e in es {
                assert!(
                    own_effect(e) || matches!(e, Copy(..)),
                    "{name}: {e:?} is neither its own nor a copy"
                );
            }
        }
        assert_eq!(body_model("malloc"), None);
    }

    #[test]
    fn model_names_are_unique() {
        let mut names: Vec<_> = MODELS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
