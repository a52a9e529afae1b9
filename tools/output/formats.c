/*
 * psnrhvs: the output formats, the one list of them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "output/output.h"

const Muxer *const output_muxers[] = {&muxer_xml, &muxer_json, &muxer_csv, &muxer_sub, NULL};

const Muxer *output_muxer(const char *const name) {
    for (int i = 0; output_muxers[i]; i++)
        if (!strcmp(name, output_muxers[i]->name)) return output_muxers[i];
    return NULL;
}

const Muxer *output_muxer_for_path(const char *const path) {
    const char *const dot = strrchr(path, '.');
    const char *const slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        for (int i = 0; output_muxers[i]; i++)
            if (!strcasecmp(dot + 1, output_muxers[i]->name)) return output_muxers[i];
    return &muxer_xml;
}

const char *output_muxer_names(char *const buf, const size_t size) {
    buf[0] = '\0';
    for (int i = 0; output_muxers[i]; i++) {
        const char *const sep = !i ? "" : output_muxers[i + 1] ? ", " : " or ";
        const size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", sep, output_muxers[i]->name);
    }
    return buf;
}
