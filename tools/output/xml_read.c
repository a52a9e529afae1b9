/*
 * psnrhvs: reading libvmaf's XML back into a ScoreSet (tools/scores.c picks the
 * layout; tools/output/xml.c writes it).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "output/reader.h"

/* libvmaf's elements, attribute by attribute. */

typedef struct XmlAttr {
    const char *name, *value;
    size_t name_len, value_len;
} XmlAttr;

/* The next attribute of a tag: 1, or 0 at its end ('>' or "/>"). */
static int xml_attr(Parser *const ps, XmlAttr *const a) {
    while (ps->p < ps->end && reader_is_space(*ps->p)) ps->p++;
    if (ps->p >= ps->end) return reader_fail(ps, "XML ends early, in a tag");
    if (*ps->p == '>') return ps->p++, 0;
    if (*ps->p == '/' || *ps->p == '?') {
        if (ps->p + 1 < ps->end && ps->p[1] == '>') return ps->p += 2, 0;
        return reader_fail(ps, "bad XML tag");
    }
    a->name = ps->p;
    while (ps->p < ps->end && !reader_is_space(*ps->p) && *ps->p != '=' && *ps->p != '>' &&
           *ps->p != '/')
        ps->p++;
    a->name_len = (size_t)(ps->p - a->name);
    while (ps->p < ps->end && reader_is_space(*ps->p)) ps->p++;
    if (!a->name_len || ps->p >= ps->end || *ps->p != '=')
        return reader_fail(ps, "bad XML attribute");
    ps->p++;
    while (ps->p < ps->end && reader_is_space(*ps->p)) ps->p++;
    if (ps->p >= ps->end || (*ps->p != '"' && *ps->p != '\''))
        return reader_fail(ps, "bad XML attribute value");
    const char q = *ps->p++;
    a->value = ps->p;
    while (ps->p < ps->end && *ps->p != q) ps->p++;
    if (ps->p >= ps->end) return reader_fail(ps, "XML ends early, in an attribute");
    a->value_len = (size_t)(ps->p - a->value);
    ps->p++;
    return 1;
}

static int attr_is(const XmlAttr *const a, const char *const name) {
    return a->name_len == strlen(name) && !memcmp(a->name, name, a->name_len);
}

int parse_xml(Parser *const ps) {
    size_t cap = 0;
    int root = 0, closed = 0, frames = 0;
    XmlAttr a;
    int r;
    while (ps->p < ps->end) {
        if (*ps->p != '<') {
            if (closed && !reader_is_space(*ps->p))
                return reader_fail(ps, "bad XML: text after </VMAF>");
            ps->p++;
            continue;
        }
        if (++ps->p >= ps->end) return reader_fail(ps, "XML ends early, in a tag");
        if (*ps->p == '!' || *ps->p == '?') {
            /* a comment or declaration: to its end */
            const char *const gt = memchr(ps->p, '>', reader_left(ps));
            if (!gt) return reader_fail(ps, "XML ends early, in a declaration");
            ps->p = gt + 1;
            continue;
        }
        const int closing = ps->p < ps->end && *ps->p == '/';
        if (closing) ps->p++;
        const char *const name = ps->p;
        while (ps->p < ps->end && !reader_is_space(*ps->p) && *ps->p != '>' && *ps->p != '/')
            ps->p++;
        const size_t name_len = (size_t)(ps->p - name);
#define TAG_IS(s) (name_len == sizeof(s) - 1 && !memcmp(name, s, name_len))
        if (closing) {
            const char *const gt = memchr(ps->p, '>', reader_left(ps));
            if (!gt) return reader_fail(ps, "XML ends early, in a closing tag");
            ps->p = gt + 1;
            if (TAG_IS("VMAF")) closed = 1;
            continue;
        }
        if (closed) return reader_fail(ps, "bad XML: an element after </VMAF>");
        if (!root) {
            if (!TAG_IS("VMAF"))
                return reader_fail(ps, "not libvmaf's XML: the root is not <VMAF>");
            root = 1;
        }
        if (TAG_IS("frames")) frames = 1;
        if (TAG_IS("frame")) {
            double v[OUTPUT_NUM_KEYS];
            int have[OUTPUT_NUM_KEYS] = {0}, have_num = 0;
            unsigned num = 0;
            while ((r = xml_attr(ps, &a)) > 0) {
                if (attr_is(&a, "frameNum")) {
                    if (reader_frame_num(a.value, a.value_len, &num) < 0)
                        return reader_fail(ps, "bad frameNum \"%.*s\"", (int)a.value_len, a.value);
                    have_num = 1;
                    continue;
                }
                const int k = reader_key_of(a.name, a.name_len);
                if (k < 0) continue;
                if (reader_number(a.value, a.value_len, &v[k]) < 0)
                    return reader_fail(ps, "bad %s value \"%.*s\"", output_key_name(k),
                                       (int)(a.value_len > 40 ? 40 : a.value_len), a.value);
                have[k] = 1;
            }
            if (r < 0) return -1;
            if (!have_num) return reader_fail(ps, "a frame without frameNum");
            ScoreFrame *const f = reader_new_frame(ps, &cap, num);
            if (!f) return -1;
            for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
                if (have[k]) reader_set_value(ps->s, f, k, v[k]);
        } else if (TAG_IS("metric")) {
            PsnrHvsPool pool = {NAN, NAN, NAN, NAN};
            int k = -1;
            while ((r = xml_attr(ps, &a)) > 0) {
                double *const dst = attr_is(&a, "min")             ? &pool.min
                                    : attr_is(&a, "max")           ? &pool.max
                                    : attr_is(&a, "mean")          ? &pool.mean
                                    : attr_is(&a, "harmonic_mean") ? &pool.harmonic_mean
                                                                   : NULL;
                if (attr_is(&a, "name")) k = reader_key_of(a.value, a.value_len);
                if (dst && reader_number(a.value, a.value_len, dst) < 0)
                    return reader_fail(ps, "bad pooled value \"%.*s\"",
                                       (int)(a.value_len > 40 ? 40 : a.value_len), a.value);
            }
            if (r < 0) return -1;
            if (k >= 0) {
                ps->s->pool[k] = pool;
                ps->s->pooled_in_file = 1;
            }
        } else if (TAG_IS("params")) {
            while ((r = xml_attr(ps, &a)) > 0) {
                unsigned v;
                if (attr_is(&a, "qualityWidth") && !reader_frame_num(a.value, a.value_len, &v))
                    ps->s->width = (int)v;
                if (attr_is(&a, "qualityHeight") && !reader_frame_num(a.value, a.value_len, &v))
                    ps->s->height = (int)v;
            }
            if (r < 0) return -1;
        } else {
            while ((r = xml_attr(ps, &a)) > 0) continue;
            if (r < 0) return -1;
        }
#undef TAG_IS
    }
    if (!root) return reader_fail(ps, "not libvmaf's XML: no <VMAF> element");
    if (!closed) return reader_fail(ps, "XML ends early: no </VMAF>");
    if (!frames) return reader_fail(ps, "no <frames> in the XML");
    return 0;
}
