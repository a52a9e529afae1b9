/*
 * psnrhvs: the -o destination. Decided once, before any frame is scored,
 * from what the path is (see output.h): a regular file is replaced
 * atomically, anything else is written where it is, and nothing in /dev is
 * ever replaced by a regular file.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* sigaltstack, SA_ONSTACK and SA_RESETHAND are XSI; fchown too. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"

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
#define MAX_PENDING (2 * PSNRHVS_MAX_RENDITIONS + 4)
static char *volatile pending_tmp[MAX_PENDING];

static void remove_tmp_and_die(const int sig) {
    const int saved_errno = errno;
    for (int i = 0; i < MAX_PENDING; i++) {
        char *const tmp = pending_tmp[i];
        if (tmp) unlink(tmp); /* async-signal-safe */
    }
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

/* Forget tmp; the handlers go once no temporary file is left. */
static void unwatch_signals(const char *const tmp) {
    int left = 0;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending_tmp[i] == tmp) pending_tmp[i] = NULL;
        left += pending_tmp[i] != NULL;
    }
    if (left) return;
    for (size_t i = 0; i < NUM_FATAL_SIGNALS; i++) {
        if (!handled[i]) continue;
        signal(fatal_signals[i], SIG_DFL);
        handled[i] = 0;
    }
}

/* ---- deciding what the path is ---- */

static void report(const char *const fmt, const char *const name, const int err) {
    fprintf(stderr, "psnrhvs: ");
    fprintf(stderr, fmt, name, strerror(err));
    fprintf(stderr, "\n");
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

/*
 * Follow symbolic links in the last component, as open() would, to the path
 * written: the link stays a link and its target (even one still to be
 * created) gets the scores. @return the path (malloc'd), or NULL with errno.
 */
static char *resolve_links(const char *const path) {
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        /* A link to /dev/stdout means its descriptor: /proc's magic links say "pipe:[N]". */
        if (named_descriptor(cur) >= 0) return cur;
        struct stat st;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) return cur; /* stat() reports errors */
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
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
    int slot = 0;
    while (slot < MAX_PENDING && pending_tmp[slot]) slot++;
    of->fd = slot < MAX_PENDING ? mkstemp(of->tmp) : (errno = EMFILE, -1);
    const int err = errno;
    if (of->fd >= 0) {
        pending_tmp[slot] = of->tmp;
        watch_signals();
        fcntl(of->fd, F_SETFD, FD_CLOEXEC);
    }
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
    /* Never O_TRUNC (a device, or scores not ready yet) and never O_CREAT. */
    of->fd = open(of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
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
        report("cannot create output file %s: %s", name, errno);
        return -1;
    }
    if (named_descriptor(of->target) >= 0) return 1;
    if (stat(of->target, &of->st)) {
        if (errno != ENOENT) {
            report("cannot create output file %s: %s", name, errno);
            return -1;
        }
        of->mode = OUTPUT_ATOMIC;
        if (create_temporary(of) < 0) {
            report("cannot create output file %s: %s", name, errno);
            return -1;
        }
        return 0;
    }

    const mode_t type = of->st.st_mode & S_IFMT;
    if (type == S_IFDIR) {
        fprintf(stderr, "psnrhvs: output file %s is a directory\n", name);
        return -1;
    }
    if (type == S_IFBLK) {
        fprintf(stderr,
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

int psnrhvs_output_open(OutputFile **const of_out, const char *const path) {
    OutputFile *of = calloc(1, sizeof(*of));
    if (!of || !(of->name = strdup(path))) {
        free(of);
        fprintf(stderr, "psnrhvs: out of memory\n");
        return -1;
    }
    of->fd = -1;
    int desc = named_descriptor(path);
    if (desc < 0) {
        const int res = choose_destination(of);
        if (res < 0) {
            psnrhvs_output_abort(&of);
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
            psnrhvs_output_abort(&of);
            return -1;
        }
        if (desc == STDOUT_FILENO) {
            of->f = stdout;
        } else if ((of->fd = fcntl(desc, F_DUPFD_CLOEXEC, 3)) < 0) {
            report("cannot write to %s: %s", path, errno);
            psnrhvs_output_abort(&of);
            return -1;
        }
    }
    if (!of->f && of->fd >= 0 && !(of->f = fdopen(of->fd, "w"))) {
        report("cannot write %s: %s", path, errno);
        psnrhvs_output_abort(&of);
        return -1;
    }
    if (of->f) of->fd = -1; /* f owns it now */
    *of_out = of;
    return 0;
}

void psnrhvs_output_abort(OutputFile **const of_p) {
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

typedef struct MuxerCall {
    const Muxer *m;
    const OutputData *d;
} MuxerCall;

static int muxer_call(FILE *const f, const void *const cookie) {
    const MuxerCall *const c = cookie;
    return c->m->write(f, c->d);
}

int psnrhvs_output_commit(OutputFile **const of_p, const Muxer *const m,
                          const OutputData *const d) {
    const MuxerCall c = {m, d};
    return psnrhvs_output_commit_with(of_p, muxer_call, &c);
}

int psnrhvs_output_commit_with(OutputFile **const of_p,
                               int (*const write)(FILE *f, const void *cookie),
                               const void *const cookie) {
    OutputFile *const of = *of_p;
    const char *const name = of->f == stdout ? "stdout" : of->name;
    if (of->mode == OUTPUT_FIFO) {
        /* Waits for a reader, as any writer of a FIFO does. */
        const int fd = open(of->target, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || !(of->f = fdopen(fd, "w"))) {
            report("cannot write output file %s: %s", name, errno);
            if (fd >= 0) close(fd);
            psnrhvs_output_abort(of_p);
            return -1;
        }
    }
    int err = 0;
    if (of->truncate && ftruncate(fileno(of->f), 0)) err = 1;
    if (!err) err = write(of->f, cookie) < 0 || fflush(of->f) != 0 || ferror(of->f);
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
        psnrhvs_output_abort(of_p);
        return -1;
    }
    if (of->mode == OUTPUT_ATOMIC) {
        if (rename(of->tmp, of->target)) {
            fprintf(stderr, "psnrhvs: cannot rename %s to %s: %s\n", of->tmp, of->target,
                    strerror(errno));
            psnrhvs_output_abort(of_p);
            return -1;
        }
        /* Renamed: nothing is left to remove (a signal now unlinks nothing). */
        unwatch_signals(of->tmp);
        free(of->tmp);
        of->tmp = NULL;
    }
    psnrhvs_output_abort(of_p);
    return 0;
}
