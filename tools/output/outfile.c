/*
 * psnrhvs: the -o destination. Decided once, before any frame is scored,
 * from what the path is (see output.h): a regular file is replaced
 * atomically, anything else is written where it is, and nothing in /dev is
 * ever replaced by a regular file.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* fallocate (FALLOC_FL_KEEP_SIZE) is Linux's; it brings the XSI calls too. */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "output/output.h"
#include "test_hooks.h"

enum OutputMode {
    OUTPUT_STREAM,   ///< an open descriptor (stdout, /dev/fd/N), written at its offset
    OUTPUT_ATOMIC,   ///< a temporary file renamed over the target
    OUTPUT_IN_PLACE, ///< the target opened at once, truncated (regular files) only at commit
    OUTPUT_FIFO,     ///< the target opened at commit, when a reader may be waiting
};

struct OutputFile {
    enum OutputMode mode;
    FILE *f;
    int fd;         ///< before f takes it over; -1 when none
    char *name;     ///< as given, for messages
    char *target;   ///< the path written, after symbolic links
    char *tmp;      ///< OUTPUT_ATOMIC: the temporary file
    int truncate;   ///< OUTPUT_IN_PLACE on a regular file
    int existed;    ///< OUTPUT_ATOMIC over an existing file: keep its mode and owner
    struct stat st; ///< of the existing target
};

/* ---- fatal signals: remove the temporary file, then die of the signal ---- */

/* Every signal whose default action ends the process (SIGKILL cannot be caught). */
static const int fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGBUS,  SIGFPE,    SIGUSR1, SIGSEGV,
    SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
};
#define NUM_FATAL_SIGNALS (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static int handled[NUM_FATAL_SIGNALS];
/* Computed before the handlers are installed: the handler only calls unlink().
 * Several at once: a ladder writes an output and a plot per rendition. */
#define MAX_PENDING 2048 /* a ladder's outputs and plots, or batch's jobs at once */
static char *volatile pending_tmp[MAX_PENDING];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;

void output_remove_temporaries(void) {
    for (int i = 0; i < MAX_PENDING; i++) {
        char *const tmp = pending_tmp[i];
        if (tmp) unlink(tmp); /* async-signal-safe */
    }
}

static void remove_tmp_and_die(const int sig) {
    const int saved_errno = errno;
    output_remove_temporaries();
    /* SA_RESETHAND restored the default action and the signal stays blocked
     * while this handler runs: raised again, it ends the process as soon as
     * the handler returns (a fault that repeats ends it the same way). */
    raise(sig);
    errno = saved_errno;
}

static void watch_signals(void) {
    /* A stack overflow's SIGSEGV needs a stack of its own (main thread). */
    static char altstack[64 * 1024];
    stack_t old_stack;
    if (!sigaltstack(NULL, &old_stack) && (old_stack.ss_flags & SS_DISABLE)) {
        stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
        sigaltstack(&ss, NULL);
    }
    for (size_t i = 0; i < NUM_FATAL_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old)) continue;
        /* Only over the default action: a signal inherited as ignored (nohup,
         * a script's background job) stays ignored, and the handlers of a
         * sanitizer or profiler stay in place. */
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = remove_tmp_and_die;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
        handled[i] = !sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* Forget tmp; the handlers go once no temporary file is left (batch's jobs
 * write outputs on several threads), each only if it is still ours: the
 * mapped-file guard (input.c) may sit on top of SIGBUS's. */
static void unwatch_signals(const char *const tmp) {
    pthread_mutex_lock(&tmp_lock);
    int left = 0;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending_tmp[i] == tmp) pending_tmp[i] = NULL;
        left += pending_tmp[i] != NULL;
    }
    for (size_t i = 0; i < NUM_FATAL_SIGNALS && !left; i++) {
        if (!handled[i]) continue;
        struct sigaction cur;
        if (!sigaction(fatal_signals[i], NULL, &cur) && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == remove_tmp_and_die)
            signal(fatal_signals[i], SIG_DFL);
        handled[i] = 0;
    }
    pthread_mutex_unlock(&tmp_lock);
}

/* ---- deciding what the path is ---- */

static void report(const char *const fmt, const char *const name, const int err) {
    fprintf(cli_err(), "psnrhvs: ");
    fprintf(cli_err(), fmt, name, strerror(err));
    fprintf(cli_err(), "\n");
}

/* "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor, else -1. */
static int named_descriptor(const char *const path) {
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr")) return STDERR_FILENO;
    const char *num = NULL;
    if (!strncmp(path, "/dev/fd/", 8))
        num = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        num = path + 14;
    if (!num || !*num) return -1;
    long v = 0;
    for (const char *p = num; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT_MAX / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    return (int)v;
}

/* The directory part of path ("." for a bare name). */
static char *dir_of(const char *const path) {
    const char *const slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    const size_t len = slash == path ? 1 : (size_t)(slash - path);
    char *const dir = malloc(len + 1);
    if (!dir) return NULL;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return dir;
}

/* The kernel's protected_symlinks rule, whatever the sysctl says: in a
 * sticky world-writable folder (/tmp) a link is followed only if it is ours
 * or the folder owner's; another user's may point anywhere we can write. */
static int link_followable(const char *const link, const struct stat *const st) {
    if (st->st_uid == geteuid()) return 1;
    char *const dir = dir_of(link);
    struct stat sd;
    const int ok = dir && !stat(dir, &sd) &&
                   (!(sd.st_mode & S_ISVTX) || !(sd.st_mode & S_IWOTH) || sd.st_uid == st->st_uid);
    free(dir);
    return ok;
}

/*
 * Follow symbolic links in the last component, as open() would, to the path
 * written: the link stays a link and its target (even one still to be
 * created) gets the scores. @return the path (malloc'd), or NULL with errno
 * (EPERM: another user's link in a sticky world-writable folder).
 */
static char *resolve_links(const char *const path) {
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        /* A link to /dev/stdout means its descriptor: /proc's magic links say "pipe:[N]". */
        if (named_descriptor(cur) >= 0) return cur;
        struct stat st;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) return cur; /* stat() reports errors */
        if (hops == 40 || !link_followable(cur, &st)) {
            free(cur);
            errno = hops == 40 ? ELOOP : EPERM;
            return NULL;
        }
        /* /proc links report size 0: read into PATH_MAX then. */
        const size_t cap = (size_t)(st.st_size > 0 ? st.st_size : PATH_MAX) + 1;
        char *const link = malloc(cap);
        if (!link) break;
        const ssize_t n = readlink(cur, link, cap);
        if (n < 0 || (size_t)n >= cap) {
            free(link);
            free(cur);
            if (n >= 0) errno = ENAMETOOLONG;
            return NULL;
        }
        link[n] = '\0';
        char *next = link;
        if (link[0] != '/' && strchr(cur, '/')) {
            char *const dir = dir_of(cur);
            next = dir ? malloc(strlen(dir) + strlen(link) + 2) : NULL;
            if (next) sprintf(next, "%s/%s", strcmp(dir, "/") ? dir : "", link);
            free(dir);
            free(link);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ENOMEM;
    return NULL;
}

/* ---- outputs that would write over an input ---- */

/* The regular file a path names as the run opens it: an input "-" is stdin,
 * an output's named descriptor its descriptor, else the path, links
 * followed. @return 1 with *st, or 0 (no such file, or not a regular one). */
static int regular_file_of(const char *const path, const int input, struct stat *const st) {
    const int fd = input ? (strcmp(path, "-") ? -1 : STDIN_FILENO) : named_descriptor(path);
    /* An output descriptor open read-only writes nothing: opening it says so. */
    if (fd >= 0 && !input && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) return 0;
    const int res = fd >= 0 ? fstat(fd, st) : stat(path, st);
    return !res && S_ISREG(st->st_mode);
}

/* Where a new output would go: its folder's real path and its name. */
static char *future_path(const char *const path) {
    char *const target = resolve_links(path);
    if (!target) return NULL;
    char *const dir = dir_of(target), *const real = dir ? realpath(dir, NULL) : NULL;
    const char *const slash = strrchr(target, '/'), *const base = slash ? slash + 1 : target;
    char *out = NULL;
    if (real && (out = malloc(strlen(real) + strlen(base) + 2))) sprintf(out, "%s/%s", real, base);
    free(real);
    free(dir);
    if (!out) return target;
    free(target);
    return out;
}

/* name against the file part of an image sequence's pattern, as FFmpeg's
 * image2 fills it in: %d and %0Nd a number (%Nd pads with spaces), %% a '%'. */
static int pattern_matches(const char *pat, const char *name) {
    for (; *pat; pat++, name++) {
        if (*pat == '%' && pat[1] == '%') {
            pat++;
        } else if (*pat == '%') {
            const char *q = pat + 1;
            while (*q >= '0' && *q <= '9') q++;
            if (*q == 'd') {
                while (*name == ' ') name++;
                const char *end = name;
                while (*end >= '0' && *end <= '9') end++;
                for (; end > name; end--)
                    if (pattern_matches(q + 1, end)) return 1;
                return 0;
            }
        }
        if (*pat != *name) return 0;
    }
    return !*name;
}

/* out a name of the pattern's folder (sd) that its file part pat would read as a frame. */
static int new_frame_name(const char *const out, const char *const pat,
                          const struct stat *const sd) {
    if (named_descriptor(out) >= 0) return 0;
    char *const future = future_path(out), *const fdir = future ? dir_of(future) : NULL;
    const char *const slash = future ? strrchr(future, '/') : NULL;
    struct stat sf;
    const int res = fdir && !stat(fdir, &sf) && sf.st_dev == sd->st_dev &&
                    sf.st_ino == sd->st_ino && pattern_matches(pat, slash ? slash + 1 : future);
    free(fdir);
    free(future);
    return res;
}

/* An input that names no file but holds a '%' is read as an image sequence
 * (frames/%05d.png): is the output (so: its file, NULL if none yet) one of
 * the files of the pattern's folder that the pattern names, or a new name
 * there that it would read as a frame? @return 1 if so. */
static int in_sequence(const char *const out, const struct stat *const so,
                       const char *const pattern) {
    struct stat st, sd;
    if (!strchr(pattern, '%') || !stat(pattern, &st) || errno != ENOENT) return 0;
    char *const dir = dir_of(pattern);
    const char *const slash = strrchr(pattern, '/'), *const pat = slash ? slash + 1 : pattern;
    int res = dir && !stat(dir, &sd) && new_frame_name(out, pat, &sd);
    DIR *const d = dir && so && !res ? opendir(dir) : NULL;
    for (struct dirent *e; d && !res && (e = readdir(d));) {
        if (!pattern_matches(pat, e->d_name)) continue;
        res = !fstatat(dirfd(d), e->d_name, &st, 0) && st.st_dev == so->st_dev &&
              st.st_ino == so->st_ino;
    }
    if (d) closedir(d);
    free(dir);
    return res;
}

/* "output file a.xml", "stdout", "the input stdin" */
static const char *shown(char *const buf, const size_t size, const NamedFile *const f,
                         const int input) {
    if (strcmp(f->path, "-"))
        snprintf(buf, size, "%s %s", f->role, f->path);
    else if (input)
        snprintf(buf, size, "%s stdin", f->role);
    else
        snprintf(buf, size, "stdout");
    return buf;
}

int output_check_clobber(const NamedFile *const outs, const int nout, const NamedFile *const ins,
                         const int nin, char *const err, const size_t err_size) {
    char a[2048], b[2048];
    for (int o = 0; o < nout; o++) {
        struct stat so, si;
        const int exists = regular_file_of(outs[o].path, 0, &so);
        for (int i = 0; exists && i < nin; i++) {
            if (regular_file_of(ins[i].path, 1, &si) && so.st_dev == si.st_dev &&
                so.st_ino == si.st_ino) {
                snprintf(err, err_size, "%s is %s: it is not written over",
                         shown(a, sizeof(a), &outs[o], 0), shown(b, sizeof(b), &ins[i], 1));
                return -1;
            }
        }
        for (int i = 0; i < nin; i++) {
            if (in_sequence(outs[o].path, exists ? &so : NULL, ins[i].path)) {
                snprintf(err, err_size,
                         "%s is a file of %s, an image sequence: it is not written there",
                         shown(a, sizeof(a), &outs[o], 0), shown(b, sizeof(b), &ins[i], 1));
                return -1;
            }
        }
        for (int p = 0; p < o; p++) {
            int same = 0;
            if (exists && regular_file_of(outs[p].path, 0, &si)) {
                same = so.st_dev == si.st_dev && so.st_ino == si.st_ino;
            } else if (!exists && named_descriptor(outs[o].path) < 0 &&
                       named_descriptor(outs[p].path) < 0) {
                char *const a = future_path(outs[o].path), *const b = future_path(outs[p].path);
                same = a && b && !strcmp(a, b);
                free(a);
                free(b);
            }
            if (same) {
                snprintf(err, err_size, "%s and %s are the same file",
                         shown(a, sizeof(a), &outs[p], 0), shown(b, sizeof(b), &outs[o], 0));
                return -1;
            }
        }
    }
    return 0;
}

/* ---- folders for outputs ---- */

static int under_system_tree(const char *const real) {
    static const char *const trees[] = {"/dev", "/proc", "/sys"};
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        const size_t n = strlen(trees[i]);
        if (!strncmp(real, trees[i], n) && (real[n] == '/' || !real[n])) return 1;
    }
    return 0;
}

int output_make_parents(const char *const path, char *const err, const size_t err_size) {
    char *const dir = dir_of(path);
    if (!dir) return snprintf(err, err_size, "out of memory"), -1;
    struct stat st;
    int res = 0;
    if (!stat(dir, &st)) goto done; /* there (open() says if it is not a folder) */
    /* The deepest folder that exists must not be a system tree's. */
    size_t exists_len = 0;
    for (size_t i = 1; dir[i]; i++) {
        if (dir[i] != '/') continue;
        dir[i] = '\0';
        const int there = !stat(dir, &st);
        dir[i] = '/';
        if (!there) break;
        exists_len = i;
    }
    char *const base = exists_len ? strndup(dir, exists_len) : strdup(dir[0] == '/' ? "/" : ".");
    char *const real = base ? realpath(base, NULL) : NULL;
    free(base);
    if (!real || under_system_tree(real)) {
        snprintf(err, err_size, "cannot create folder %s: %s", dir,
                 real ? "folders are not made under /dev, /proc or /sys" : strerror(errno));
        free(real);
        res = -1;
        goto done;
    }
    free(real);
    for (size_t i = exists_len + 1;; i++) {
        const char c = dir[i];
        if (c != '/' && c) continue;
        dir[i] = '\0';
        if (mkdir(dir, 0777) && errno != EEXIST) {
            snprintf(err, err_size, "cannot create folder %s: %s", dir, strerror(errno));
            res = -1;
            goto done;
        }
        dir[i] = c;
        if (!c) break;
    }
done:
    free(dir);
    return res;
}

/* The system tree a path's folder is in ("/dev", "/proc", "/sys"), NULL if
 * none: /proc and /sys hold the kernel's settings, /dev its devices (no file
 * is made or replaced there; /dev/shm is a folder for files). */
static const char *system_tree_of(const char *const path) {
    char *const dir = dir_of(path), *const real = dir ? realpath(dir, NULL) : NULL;
    static const char *const trees[] = {"/dev", "/proc", "/sys"};
    const char *tree = NULL;
    for (size_t i = 0; real && !tree && i < sizeof(trees) / sizeof(trees[0]); i++) {
        const size_t n = strlen(trees[i]);
        if (!strncmp(real, trees[i], n) && (real[n] == '/' || !real[n])) tree = trees[i];
    }
    if (tree && !strncmp(real, "/dev/shm", 8) && (real[8] == '/' || !real[8])) tree = NULL;
    free(real);
    free(dir);
    return tree;
}

static int refuse_dev_file(const char *const name) {
    fprintf(cli_err(),
            "psnrhvs: output file %s: no file is made or replaced in /dev (its devices are "
            "written: /dev/null, /dev/stdout, /dev/stderr, /dev/fd/N)\n",
            name);
    return -1;
}

static int writable(const char *const path) {
    return !faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
}

/* A temporary file beside the target, with a short name (the target's may be
 * NAME_MAX long already). Fatal signals remove it from the moment it exists. */
static int create_temporary(OutputFile *const of) {
    char *const dir = dir_of(of->target);
    if (!dir) return errno = ENOMEM, -1;
    static const char base[] = "/.psnrhvs-XXXXXX";
    of->tmp = malloc(strlen(dir) + sizeof(base));
    if (!of->tmp) {
        free(dir);
        return errno = ENOMEM, -1;
    }
    sprintf(of->tmp, "%s%s", strcmp(dir, "/") ? dir : "", base);
    free(dir);

    /* No signal between creating the file and watching for signals. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NUM_FATAL_SIGNALS; i++) sigaddset(&block, fatal_signals[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_mutex_lock(&tmp_lock);
    int slot = 0;
    while (slot < MAX_PENDING && pending_tmp[slot]) slot++;
    of->fd = slot < MAX_PENDING ? mkstemp(of->tmp) : (errno = EMFILE, -1);
    const int err = errno;
    if (of->fd >= 0) {
        pending_tmp[slot] = of->tmp;
        watch_signals();
        fcntl(of->fd, F_SETFD, FD_CLOEXEC);
    }
    pthread_mutex_unlock(&tmp_lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (of->fd < 0) {
        free(of->tmp);
        of->tmp = NULL;
        errno = err;
        return -1;
    }
    return 0;
}

static int open_in_place(OutputFile *const of) {
    of->mode = OUTPUT_IN_PLACE;
    /* Never O_TRUNC (a device, or scores not ready yet) and never O_CREAT. A
     * regular file is read too, to put its bytes back if the rewrite fails. */
    if (of->truncate) of->fd = open(of->target, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (of->fd < 0) of->fd = open(of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    return of->fd < 0 ? -1 : 0;
}

/* @return 0, 1 when the path leads to a named descriptor (of->target), or -1 (reported) */
static int choose_destination(OutputFile *const of) {
    const char *const name = of->name;
    const size_t len = strlen(name);
    if (!len || name[len - 1] == '/') {
        report("cannot create output file '%s': %s", name, len ? EISDIR : ENOENT);
        return -1;
    }
    if (!(of->target = resolve_links(name))) {
        if (errno == EPERM)
            fprintf(cli_err(),
                    "psnrhvs: output file %s is a symbolic link of another user in a sticky "
                    "world-writable folder: it is not followed\n",
                    name);
        else
            report("cannot create output file %s: %s", name, errno);
        return -1;
    }
    if (named_descriptor(of->target) >= 0) return 1;
    const char *const tree = system_tree_of(of->target);
    if (tree && strcmp(tree, "/dev")) {
        fprintf(cli_err(), "psnrhvs: output file %s is in %s: no output is written there\n", name,
                tree);
        return -1;
    }
    const int in_dev = tree != NULL;
    if (stat(of->target, &of->st)) {
        if (errno != ENOENT) {
            report("cannot create output file %s: %s", name, errno);
            return -1;
        }
        if (in_dev) return refuse_dev_file(name);
        of->mode = OUTPUT_ATOMIC;
        if (create_temporary(of) < 0) {
            report("cannot create output file %s: %s", name, errno);
            return -1;
        }
        return 0;
    }

    const mode_t type = of->st.st_mode & S_IFMT;
    if (type == S_IFDIR) {
        fprintf(cli_err(), "psnrhvs: output file %s is a directory\n", name);
        return -1;
    }
    if (type == S_IFBLK) {
        fprintf(cli_err(),
                "psnrhvs: output file %s is a block device: scores are not written over it\n",
                name);
        return -1;
    }
    if (type == S_IFIFO) {
        /* Opened once the scores are ready: its reader may come later. */
        of->mode = OUTPUT_FIFO;
        if (!writable(of->target)) {
            report("cannot write output file %s: %s", name, errno);
            return -1;
        }
        return 0;
    }
    if (type != S_IFREG) {
        /* A character device (/dev/null, a terminal) or a socket: in place. */
        if (open_in_place(of) < 0) {
            report("cannot write output file %s: %s", name, errno);
            return -1;
        }
        return 0;
    }
    if (in_dev) return refuse_dev_file(name);
    /* A regular file we may not write is not replaced behind its mode's back. */
    if (!writable(of->target)) {
        report("cannot write output file %s: %s", name, errno);
        return -1;
    }
    if (of->st.st_nlink > 1) {
        /* A rename would break the hard link: write in place. */
        of->truncate = 1;
        if (open_in_place(of) < 0) {
            report("cannot write output file %s: %s", name, errno);
            return -1;
        }
        return 0;
    }
    of->mode = OUTPUT_ATOMIC;
    of->existed = 1;
    if (create_temporary(of) < 0) {
        const int err = errno;
        /* A writable file in a directory we may not write: in place. */
        if (err == EACCES || err == EPERM) {
            of->truncate = 1;
            if (!open_in_place(of)) return 0;
        }
        report("cannot create output file %s: %s", name, err);
        return -1;
    }
    return 0;
}

int output_open(OutputFile **const of_out, const char *const path) {
    OutputFile *of = calloc(1, sizeof(*of));
    if (!of || !(of->name = strdup(path))) {
        free(of);
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return -1;
    }
    of->fd = -1;
    int desc = named_descriptor(path);
    if (desc < 0) {
        const int res = choose_destination(of);
        if (res < 0) {
            output_abort(&of);
            return -1;
        }
        if (res == 1) desc = named_descriptor(of->target);
    }
    if (desc >= 0) {
        /* The descriptor itself: opening /dev/stdout again would fail for a
         * socket or another user's pipe, and would truncate a file the shell
         * opened for us (perhaps to append). */
        of->mode = OUTPUT_STREAM;
        const int flags = fcntl(desc, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
            report("cannot write to %s: %s", path, flags < 0 ? errno : EBADF);
            output_abort(&of);
            return -1;
        }
        if (desc == STDOUT_FILENO) {
            of->f = stdout;
        } else if ((of->fd = fcntl(desc, F_DUPFD_CLOEXEC, 3)) < 0) {
            report("cannot write to %s: %s", path, errno);
            output_abort(&of);
            return -1;
        }
    }
    if (!of->f && of->fd >= 0 && !(of->f = fdopen(of->fd, "w"))) {
        report("cannot write %s: %s", path, errno);
        output_abort(&of);
        return -1;
    }
    if (of->f) of->fd = -1; /* f owns it now */
    *of_out = of;
    return 0;
}

void output_abort(OutputFile **const of_p) {
    OutputFile *const of = *of_p;
    if (!of) return;
    if (of->f && of->f != stdout)
        fclose(of->f);
    else if (!of->f && of->fd >= 0)
        close(of->fd);
    if (of->tmp) {
        unlink(of->tmp);
        unwatch_signals(of->tmp);
        free(of->tmp);
    }
    free(of->target);
    free(of->name);
    free(of);
    *of_p = NULL;
}

/* The new file takes the old one's permission bits and owner (best effort:
 * only root may give a file away), else the mode fopen() would give it. */
static void set_mode_and_owner(const OutputFile *const of, const int fd) {
    if (of->existed) {
        if (of->st.st_uid != geteuid() || of->st.st_gid != getegid())
            (void)!fchown(fd, of->st.st_uid, of->st.st_gid);
        fchmod(fd, of->st.st_mode & 0777);
    } else {
        const mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
}

/* ---- a regular file rewritten where it is ---- */

static int write_at(const int fd, const char *p, size_t len, off_t off, const long long fail_at) {
    while (len) {
        size_t n = len;
        if (fail_at >= 0 && (long long)off + (long long)n > fail_at) {
            if ((long long)off >= fail_at) return errno = ENOSPC, -1;
            n = (size_t)(fail_at - off);
        }
        const ssize_t w = pwrite(fd, p, n, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w ? -1 : (errno = ENOSPC, -1);
        p += w, len -= (size_t)w, off += w;
    }
    return 0;
}

/*
 * Hard links (and files in folders we may not write) cannot be replaced by
 * a rename. The new bytes are made in memory, the space they need reserved
 * and the old bytes they cover kept, so that a full disk or any other
 * failure leaves the file as it was. @return 0, or -1 with errno.
 */
static int rewrite_in_place(OutputFile *const of, int (*const write)(FILE *f, const void *cookie),
                            const void *const cookie) {
    char *buf = NULL, *saved = NULL;
    size_t len = 0;
    FILE *const m = open_memstream(&buf, &len);
    if (!m) return -1;
    int err = write(m, cookie) < 0 || fflush(m) != 0 || ferror(m);
    if (fclose(m)) err = 1;
    const int fd = fileno(of->f);
    struct stat st;
    if (err || fstat(fd, &st)) {
        free(buf);
        if (!errno) errno = ENOMEM;
        return -1;
    }
    const size_t old = (size_t)st.st_size, cover = len < old ? len : old;
    size_t kept = 0; /* the old bytes the new ones cover */
    int res = -1;
    if (!(saved = malloc(cover ? cover : 1))) goto done;
    while (kept < cover) {
        const ssize_t r = pread(fd, saved + kept, cover - kept, (off_t)kept);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EBADF) break; /* a file we may write, not read: reserve only */
        if (r <= 0) {
            if (!r) errno = EIO;
            goto done;
        }
        kept += (size_t)r;
    }
    /* Blocks past the end, the size unchanged: no ENOSPC half-way after this. */
    if (len > old && fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)len) && errno != EOPNOTSUPP &&
        errno != ENOSYS) {
        const int e = errno;
        (void)!ftruncate(fd, (off_t)old); /* frees what was reserved */
        errno = e;
        goto done;
    }
    if (write_at(fd, buf, len, 0, test_hook_inplace_fail_at()) ||
        (len < old && ftruncate(fd, (off_t)len))) {
        const int e = errno;
        (void)!write_at(fd, saved, kept, 0, -1);
        (void)!ftruncate(fd, (off_t)old);
        errno = e;
        goto done;
    }
    res = 0;
done:
    free(saved);
    free(buf);
    return res;
}

int output_fwrite(void *const f, const char *const data, const size_t size) {
    return fwrite(data, 1, size, f) != size;
}

int output_format_write(FILE *const f, const void *const cookie) {
    const OutputFormat *const c = cookie;
    return psnrhvs_output_write(c->o, c->f, output_fwrite, f) < 0 ? -1 : 0;
}

int output_commit(OutputFile **const of_p, const enum PsnrHvsScoreFormat f,
                  const PsnrHvsOutput *const o) {
    const OutputFormat c = {f, o};
    return output_commit_with(of_p, output_format_write, &c);
}

const char *output_format_names(char *const buf, const size_t size) {
    buf[0] = '\0';
    for (int i = 0; psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)i); i++) {
        const int last = !psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)(i + 1));
        const size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s",
                 !i     ? ""
                 : last ? " or "
                        : ", ",
                 psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)i));
    }
    return buf;
}

/* Write the bytes: an atomic output's into its temporary file (closed, not
 * renamed yet), any other where it goes. @return 0, or -1 (reported). */
static int write_out(OutputFile *const of, int (*const write)(FILE *f, const void *cookie),
                     const void *const cookie) {
    const char *const name = of->f == stdout ? "stdout" : of->name;
    if (of->mode == OUTPUT_FIFO) {
        /* Waits for a reader, as any writer of a FIFO does. */
        const int fd = open(of->target, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || !(of->f = fdopen(fd, "w"))) {
            report("cannot write output file %s: %s", name, errno);
            if (fd >= 0) close(fd);
            return -1;
        }
    }
    int err = 0;
    if (of->truncate)
        err = rewrite_in_place(of, write, cookie) < 0;
    else
        err = write(of->f, cookie) < 0 || fflush(of->f) != 0 || ferror(of->f);
    int saved_errno = errno;
    if (of->mode == OUTPUT_ATOMIC && !err) set_mode_and_owner(of, fileno(of->f));
    if (of->f != stdout) {
        if (fclose(of->f) && !err) {
            err = 1;
            saved_errno = errno;
        }
        of->f = NULL;
    }
    if (err) {
        report("cannot write %s: %s", name, saved_errno);
        return -1;
    }
    return 0;
}

/* An atomic output's temporary file renamed over the target. @return 0, or -1 (reported). */
static int put_in_place(OutputFile *const of) {
    if (rename(of->tmp, of->target)) {
        fprintf(cli_err(), "psnrhvs: cannot rename %s to %s: %s\n", of->tmp, of->target,
                strerror(errno));
        return -1;
    }
    /* Renamed: nothing is left to remove (a signal now unlinks nothing). */
    unwatch_signals(of->tmp);
    free(of->tmp);
    of->tmp = NULL;
    return 0;
}

int output_commit_many(const OutputWrite *const w, const int n) {
    int err = 0;
    /* Temporary files first, then what is written where it is (a device, a
     * pipe, a hard link), and only when all that went well the renames: a
     * run that fails to write one output replaces none. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n && !err; i++)
            if (*w[i].of && ((*w[i].of)->mode == OUTPUT_ATOMIC) == !pass)
                err = write_out(*w[i].of, w[i].write, w[i].cookie) < 0;
    for (int i = 0; i < n && !err; i++)
        if (*w[i].of && (*w[i].of)->mode == OUTPUT_ATOMIC) err = put_in_place(*w[i].of) < 0;
    for (int i = 0; i < n; i++) output_abort(w[i].of);
    return err ? -1 : 0;
}

int output_commit_with(OutputFile **const of_p, int (*const write)(FILE *f, const void *cookie),
                       const void *const cookie) {
    const OutputWrite w = {of_p, write, cookie};
    return output_commit_many(&w, 1);
}
