/*
 * psnrhvs: where each rendition of a ladder (several -d) writes.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "output/outname.h"

/* dist's file name without its folder and extension ("a/b.1080p.y4m": "b.1080p"). */
static void base_name(char *const out, const size_t size, const char *const dist) {
    if (!strcmp(dist, "-")) {
        snprintf(out, size, "stdin");
        return;
    }
    const char *const slash = strrchr(dist, '/');
    const char *const base = slash ? slash + 1 : dist;
    const char *const dot = strrchr(base, '.');
    /* ".y4m" alone is a hidden file's name, not an extension */
    const size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, size, "%.*s", (int)len, base);
}

static int is_folder(const char *const spec) {
    const size_t len = strlen(spec);
    struct stat st;
    return (len && spec[len - 1] == '/') || (!stat(spec, &st) && S_ISDIR(st.st_mode));
}

int output_name(char *const out, const size_t size, const char *const spec, const char *const dist,
                const int idx, const char *const ext, char *const err, const size_t err_size) {
    char base[4096];
    base_name(base, sizeof(base), dist);
    if (!base[0]) {
        snprintf(err, err_size, "cannot name an output after '%s'", dist);
        return -1;
    }
    int n;
    if (strchr(spec, '%')) {
        size_t o = 0;
        for (const char *p = spec; *p; p++) {
            char piece[32];
            const char *add = piece;
            if (*p != '%') {
                piece[0] = *p, piece[1] = '\0';
            } else if (p[1] == 's') {
                add = base, p++;
            } else if (p[1] == 'd') {
                snprintf(piece, sizeof(piece), "%d", idx), p++;
            } else if (p[1] == '%') {
                piece[0] = '%', piece[1] = '\0', p++;
            } else {
                snprintf(err, err_size,
                         "bad output pattern '%s': '%%%.1s' (expected %%s, the distorted name "
                         "without extension, %%d, its index, or %%%%)",
                         spec, p + 1);
                return -1;
            }
            const size_t len = strlen(add);
            if (o + len >= size) {
                snprintf(err, err_size, "output pattern '%s' gives a name too long", spec);
                return -1;
            }
            memcpy(out + o, add, len + 1);
            o += len;
        }
        return 0;
    }
    if (!strcmp(spec, "-") || !strncmp(spec, "/dev/", 5) || !strncmp(spec, "/proc/self/fd/", 14)) {
        snprintf(err, err_size,
                 "-o %s with several -d: the renditions' scores would be mixed in one stream; "
                 "give a folder (-o DIR/) or a pattern (-o 'out/%%s.json')",
                 spec);
        return -1;
    }
    if (!is_folder(spec)) {
        snprintf(err, err_size,
                 "-o %s is one file and there are several -d: give a folder (-o DIR/, each "
                 "rendition in DIR/<name>.%s) or a pattern with %%s (the distorted name) or %%d "
                 "(its index)",
                 spec, ext);
        return -1;
    }
    const size_t len = strlen(spec);
    n = snprintf(out, size, "%s%s%s.%s", spec, spec[len - 1] == '/' ? "" : "/", base, ext);
    if (n < 0 || (size_t)n >= size) {
        snprintf(err, err_size, "output name in '%s' too long", spec);
        return -1;
    }
    return 0;
}
