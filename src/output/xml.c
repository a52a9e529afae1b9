/*
 * psnrhvs: libvmaf's XML layout: written and read back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/layout.h"

static void xml_write(Out *const out, const Sheet *const s) {
    char buf[NUMFMT_SIZE];
    out_printf(out, "<VMAF version=\"%s\">\n", s->o->version);
    out_printf(out, "  <params qualityWidth=\"%d\" qualityHeight=\"%d\" />\n", s->o->width,
               s->o->height);
    out_printf(out, "  <fyi fps=\"%.2f\" />\n", s->o->fps);
    out_printf(out, "  <frames>\n");
    for (size_t i = 0; i < s->o->num_frames; i++) {
        const PsnrHvsFrameScore *const fr = &s->o->frames[i];
        out_printf(out, "    <frame frameNum=\"%u\"", fr->frame_num);
        for (int k = 0; k < s->num_keys; k++)
            out_printf(out, " %s=\"%s\"", psnrhvs_key_string(s->keys[k]),
                       numfmt(buf, psnrhvs_key_value(&fr->score, s->keys[k]), s->o->precision, 0));
        if (s->o->raw)
            for (int p = 0; p < s->o->num_planes; p++)
                out_printf(out, " %s=\"%s\"", raw_names[p], rawfmt(buf, fr->score.raw[p]));
        out_printf(out, " />\n");
    }
    out_printf(out, "  </frames>\n");
    out_printf(out, "  <pooled_metrics>\n");
    for (int k = 0; k < s->num_keys; k++) {
        const PsnrHvsPool *const p = &s->pool[s->keys[k]];
        out_printf(out, "    <metric name=\"%s\"", psnrhvs_key_string(s->keys[k]));
        out_printf(out, " min=\"%s\"", numfmt(buf, p->min, s->o->precision, 0));
        out_printf(out, " max=\"%s\"", numfmt(buf, p->max, s->o->precision, 0));
        out_printf(out, " mean=\"%s\"", numfmt(buf, p->mean, s->o->precision, 0));
        out_printf(out, " harmonic_mean=\"%s\"", numfmt(buf, p->harmonic_mean, s->o->precision, 0));
        out_printf(out, " />\n");
    }
    out_printf(out, "  </pooled_metrics>\n");
    out_printf(out, "  <aggregate_metrics />\n");
    out_printf(out, "</VMAF>\n");
}

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

static int parse_xml(Parser *const ps) {
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
            while ((r = xml_attr(ps, &a)) > 0)
                if (attr_is(&a, "version"))
                    snprintf(ps->s->version, sizeof(ps->s->version), "%.*s",
                             (int)(a.value_len < 63 ? a.value_len : 63), a.value);
            if (r < 0) return -1;
            continue;
        }
        if (TAG_IS("frames")) frames = 1;
        if (TAG_IS("frame")) {
            double v[NUM_FIELDS];
            int have[NUM_FIELDS] = {0}, have_num = 0;
            unsigned num = 0;
            while ((r = xml_attr(ps, &a)) > 0) {
                if (attr_is(&a, "frameNum")) {
                    if (reader_frame_num(a.value, a.value_len, &num) < 0)
                        return reader_fail(ps, "bad frameNum \"%.*s\"", (int)a.value_len, a.value);
                    have_num = 1;
                    continue;
                }
                const int k = reader_field_of(a.name, a.name_len);
                if (k < 0) continue;
                if (reader_number(a.value, a.value_len, &v[k]) < 0)
                    return reader_fail(ps, "bad %s value \"%.*s\"", reader_field_name(k),
                                       (int)(a.value_len > 40 ? 40 : a.value_len), a.value);
                have[k] = 1;
            }
            if (r < 0) return -1;
            if (!have_num) return reader_fail(ps, "a frame without frameNum");
            if (reader_add_frame(ps, num, v, have) < 0) return -1;
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
        } else if (TAG_IS("fyi")) {
            while ((r = xml_attr(ps, &a)) > 0)
                if (attr_is(&a, "fps")) reader_number(a.value, a.value_len, &ps->s->fps);
            if (r < 0) return -1;
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

const Layout layout_xml = {.name = "xml", .write = xml_write, .parse = parse_xml};
