/*
 * psnrhvs: the command-line tool's commands.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "batch.h"
#include "bdrate.h"
#include "cli_parse.h"
#include "parity.h"
#include "report.h"
#include "score.h"
#include "target/target.h"

/* Each backend's own listing, then what auto takes from the library's one
 * device list, and which entries are one GPU. */
static void list_auto(void) {
    PsnrHvsDeviceEntry e[64];
    const int got = psnrhvs_devices(e, 64, 0);
    const int n = got < 64 ? got : 64;
    printf("auto (the default):");
    for (int i = 0, first = 1; i < n; i++) {
        if (!e[i].automatic) continue;
        if (psnrhvs_backend_kind(e[i].backend) == PSNRHVS_KIND_HOST)
            printf("%s %s", first ? "" : ",", cli_backend_name(e[i].backend));
        else
            printf("%s %s:%d", first ? "" : ",", cli_backend_name(e[i].backend), e[i].device);
        first = 0;
    }
    printf("\n");
    for (int i = 0; i < n; i++) {
        if (!e[i].gpu || !e[i].automatic) continue;
        int aliases = 0;
        for (int k = 0; k < n; k++) {
            if (k == i || e[k].physical != e[i].physical) continue;
            printf("%s%s:%d", aliases++ ? ", " : "  the same GPU: ", cli_backend_name(e[k].backend),
                   e[k].device);
        }
        if (aliases)
            printf(" = %s:%d (%s%s%s)\n", cli_backend_name(e[i].backend), e[i].device, e[i].name,
                   e[i].pci[0] ? ", PCI " : "", e[i].pci);
    }
}

static int list_devices(const int verbose) {
    static char buf[65536];
    /* Every backend the library names, auto (which is none) aside. */
    for (int i = 0; psnrhvs_backend_string((enum PsnrHvsBackend)i); i++) {
        const enum PsnrHvsBackend b = (enum PsnrHvsBackend)i;
        if (psnrhvs_backend_kind(b) == PSNRHVS_KIND_AUTO) continue;
        buf[0] = '\0';
        const int res = psnrhvs_list_devices(b, verbose, buf, sizeof(buf));
        if (res == PSNRHVS_ERR(ENOSYS)) {
            printf("%s: not built in\n", cli_backend_name(b));
        } else if (res == PSNRHVS_ERR(ENODEV)) {
            printf("%s: no device\n", cli_backend_name(b));
        } else if (res == PSNRHVS_ERR(ENOENT)) {
            printf("%s: %s", cli_backend_name(b), buf); /* the module's trouble */
        } else if (res < 0) {
            printf("%s: cannot list devices: %s\n", cli_backend_name(b), strerror(-res));
        } else {
            printf("%s:\n", cli_backend_name(b));
            /* one device per line, indented */
            for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next) *next++ = '\0';
                printf("  %s\n", line);
            }
        }
    }
    list_auto();
    return ferror(stdout) ? 1 : 0;
}

/* The score command, or parity (the same flags, backends compared). */
static int score(const int argc, char *const *const argv, const int parity) {
    CLISettings cli;
    PsnrHvsSettings lib;
    psnrhvs_default_settings(&lib);
    cli_parse(argc, argv, parity, &cli, &lib);
    if (cli.list_devices) return list_devices(cli.verbose);
    return cli.parity ? cli_parity(&cli, lib) : cli_score(&cli, lib, NULL);
}

static int parity_cmd(const int argc, char *const *const argv, const char *const prog) {
    (void)prog;
    return score(argc, argv, 1);
}

static int batch_cmd(const int argc, char *const *const argv, const char *const prog) {
    return batch_main(argc, argv, prog);
}

static int report_cmd(const int argc, char *const *const argv, const char *const prog) {
    (void)prog;
    return report_main(argc, argv);
}

static int target_cmd(const int argc, char *const *const argv, const char *const prog) {
    (void)prog;
    return target_main(argc, argv);
}

static int bdrate_cmd(const int argc, char *const *const argv, const char *const prog) {
    (void)prog;
    return bdrate_main(argc, argv);
}

/* The commands after the program's name; without one, the score command
 * (libvmaf's flags). Each parses its own flags (getopt sees the command's
 * name as the program's). */
static const struct {
    const char *name;
    int (*run)(int argc, char *const *argv, const char *prog);
} commands[] = {
    {"parity", parity_cmd}, {"batch", batch_cmd},   {"report", report_cmd},
    {"bdrate", bdrate_cmd}, {"target", target_cmd},
};

/*
 * Descriptors 0-2 closed by whoever started us are opened on /dev/null, so
 * that no file we open takes their number (an output's temporary file on 2
 * would get the warnings). As gnulib's stdopen: the way that fails, stdin
 * write-only and stdout and stderr read-only, so that scores asked of a
 * closed stdout are an error, not a silent success. @return 0, or -1.
 */
static int std_descriptors_safe(void) {
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        const int got = open("/dev/null", fd ? O_RDONLY : O_WRONLY);
        if (got != fd) {
            if (got >= 0) close(got);
            return -1;
        }
    }
    return 0;
}

int main(const int argc, char *const *const argv) {
    if (std_descriptors_safe() < 0) {
        fprintf(stderr, "psnrhvs: cannot open /dev/null for a closed stdin, stdout or stderr\n");
        return 1;
    }
    for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1, argv[0]);
    return score(argc, argv, 0);
}
