/*
 * ISA choice of the CPU backend: settings.isa picks the path, psnrhvs_isa_name
 * reports it, and an ISA the CPU lacks (simulated with the CPU flag mask) is
 * refused with ENOSYS and a message naming it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "psnrhvs.h"

static char last_msg[1024];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int failures;

/* Opens with isa under the CPU flag mask; want_err 0 means it must open and
 * run want_name; otherwise the error must be want_err with a message. */
static void check(const unsigned mask, const enum PsnrHvsIsa isa, const int want_err,
                  const char *want_name) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = 64;
    s.height = 48;
    s.isa = isa;
    s.threads = 1;
    s.logger.callback = logger;
    last_msg[0] = 0;
    psh_set_cpu_flags_mask(mask);
    PsnrHvsContext *c = NULL;
    const int err = psnrhvs_open(&c, &s);
    if (err != want_err) {
        printf("mask %#x isa %d: open returned %d, want %d (%s)\n", mask, (int)isa, err, want_err,
               last_msg);
        failures++;
    } else if (!err && strcmp(psnrhvs_isa_name(c), want_name)) {
        printf("mask %#x isa %d: runs %s, want %s\n", mask, (int)isa, psnrhvs_isa_name(c),
               want_name);
        failures++;
    } else if (err && !strstr(last_msg, want_name)) {
        printf("mask %#x isa %d: message \"%s\" does not name %s\n", mask, (int)isa, last_msg,
               want_name);
        failures++;
    } else {
        printf("mask %#x isa %d: %s\n", mask, (int)isa, err ? last_msg : psnrhvs_isa_name(c));
    }
    psnrhvs_close(&c);
}

int main(void) {
    psh_set_cpu_flags_mask(~0u);
    const unsigned have = psh_get_cpu_flags();
    const unsigned avx2 = PSNRHVS_CPU_FLAG_AVX2, avx512 = PSNRHVS_CPU_FLAG_AVX512;
    const unsigned neon = PSNRHVS_CPU_FLAG_NEON;

    check(~0u, PSNRHVS_ISA_SCALAR, 0, "scalar");
    check(0, PSNRHVS_ISA_SCALAR, 0, "scalar");
    check(0, PSNRHVS_ISA_AUTO, 0, "c");
    check(0, PSNRHVS_ISA_AVX2, PSNRHVS_ERR(ENOSYS), "avx2");
    check(0, PSNRHVS_ISA_AVX512, PSNRHVS_ERR(ENOSYS), "avx512");
    check(0, PSNRHVS_ISA_NEON, PSNRHVS_ERR(ENOSYS), "neon");
    check(0, (enum PsnrHvsIsa)(PSNRHVS_ISA_NEON + 1), PSNRHVS_ERR(EINVAL), "unknown isa");
    /* Another architecture's ISA: never built here, whatever the flags. */
#if defined(__aarch64__)
    check(~0u, PSNRHVS_ISA_AVX2, PSNRHVS_ERR(ENOSYS), "avx2");
    check(~0u, PSNRHVS_ISA_AVX512, PSNRHVS_ERR(ENOSYS), "avx512");
#elif defined(__x86_64__)
    check(~0u, PSNRHVS_ISA_NEON, PSNRHVS_ERR(ENOSYS), "neon");
#endif
    if (have & neon) {
        check(neon, PSNRHVS_ISA_AUTO, 0, "neon");
        check(~0u, PSNRHVS_ISA_AUTO, 0, "neon");
        check(~0u, PSNRHVS_ISA_NEON, 0, "neon");
    }
    if (have & avx2) {
        check(avx2, PSNRHVS_ISA_AUTO, 0, "avx2");
        check(~0u, PSNRHVS_ISA_AVX2, 0, "avx2");
        check(avx2, PSNRHVS_ISA_AVX512, PSNRHVS_ERR(ENOSYS), "avx512");
    }
    if ((have & (avx2 | avx512)) == (avx2 | avx512)) {
        check(~0u, PSNRHVS_ISA_AUTO, 0, "avx512");
        check(~0u, PSNRHVS_ISA_AVX512, 0, "avx512");
    }
    printf("isa_select: %d failures\n", failures);
    return failures != 0;
}
