/*
 * A QEMU TCG plugin (user mode, QEMU 7.2's plugin API version 1) that counts
 * the guest instructions executed between two marker system calls of the
 * program: getppid(MAGIC, 0, ID) opens a region, getppid(MAGIC, 1, ID)
 * closes it and the count is written to QEMU's log (-d plugin -D FILE) as
 * "insns ID N" (getppid is system call 173 on AArch64, 110 on x86-64). Every vCPU (guest thread)
 * has a counter of its own, advanced by a callback as each translation block starts executing: the
 * count is exact for blocks run to their end, which every block is here but
 * one that faults. Debian ships no plugins and no qemu-plugin.h, so the few
 * functions used are declared below, as QEMU 7.2 exports them.
 * Build: gcc -O2 -shared -fPIC -o insn_plugin.so insn_plugin.c
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- QEMU's plugin interface, version 1 (include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t; /* not read */
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index,
                                              int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                                              uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                                              uint64_t a8);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);
#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;
/* ---- end of the interface ---- */

#define AARCH64_NR_GETPPID 173
#define X86_64_NR_GETPPID  110
#define MARKER_MAGIC       0x50534e52u /* "PSNR" */
#define MAX_VCPUS          4096

static uint64_t counts[MAX_VCPUS];
static uint64_t region_start;
static int region_open;

static uint64_t total(void) {
    uint64_t t = 0;
    for (int i = 0; i < MAX_VCPUS; i++) t += __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    return t;
}

static void tb_exec(const unsigned int vcpu, void *const n) {
    counts[vcpu % MAX_VCPUS] += (uint64_t)(uintptr_t)n;
}

static void tb_trans(const qemu_plugin_id_t id, struct qemu_plugin_tb *const tb) {
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
}

static void syscall_cb(const qemu_plugin_id_t id, const unsigned int vcpu, const int64_t num,
                       const uint64_t a1, const uint64_t a2, const uint64_t a3, const uint64_t a4,
                       const uint64_t a5, const uint64_t a6, const uint64_t a7, const uint64_t a8) {
    (void)id, (void)vcpu, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if ((num != AARCH64_NR_GETPPID && num != X86_64_NR_GETPPID) || a1 != MARKER_MAGIC) return;
    char line[128];
    if (a2 == 0) {
        region_start = total();
        region_open = 1;
    } else if (region_open) {
        snprintf(line, sizeof(line), "insns %" PRIu64 " %" PRIu64 "\n", a3, total() - region_start);
        qemu_plugin_outs(line);
        region_open = 0;
    }
}

EXPORT int qemu_plugin_install(const qemu_plugin_id_t id, const qemu_info_t *const info,
                               const int argc, char **const argv) {
    (void)info, (void)argc, (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, syscall_cb);
    return 0;
}
