/* The public header stands alone under -pedantic -Werror.
 * SPDX-License-Identifier: BSD-2-Clause */
#include "psnrhvs.h"

int psnrhvs_header_test(void);
int psnrhvs_header_test(void) {
    return PSNRHVS_ERR(1) + (int)sizeof(PsnrHvsSettings);
}
