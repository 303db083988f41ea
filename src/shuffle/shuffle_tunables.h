/* The tunables of the shuffle: each an int, set per device by the rows of shuffle_rows.c
 * (src/runtime/rows.h says how rows apply) and read from clperm_ctx.tuning.shuffle. */
#ifndef CLPERM_SHUFFLE_TUNABLES_H
#define CLPERM_SHUFFLE_TUNABLES_H

#include "rows.h"

#define CLPERM__SHUFFLE_TUNABLES(X)                                                       \
    X(kernel, 1, 2, 0, "clperm_kernel_kind of the shuffle")                                           \
    X(wg_size, 1, 1024, CLPERM_PARAM_POW2, "work-group kernels: work-items per work-group")                           \
    X(items, 1, 32, 0, "work-group kernels: domain indices per work-item (<= 32)")                    \
    X(serial_items, 1, 65536, 0, "serial kernels: domain indices per tile")

CLPERM__FAMILY_TUNING(shuffle, CLPERM__SHUFFLE_TUNABLES);

#endif /* CLPERM_SHUFFLE_TUNABLES_H */
