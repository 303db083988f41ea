/* The tunables of the device-wide scan and reduction: each an int, set per device by the rows of
 * scan_rows.c (src/runtime/rows.h says how rows apply) and read from clperm_ctx.tuning.scan. */
#ifndef CLPERM_SCAN_TUNABLES_H
#define CLPERM_SCAN_TUNABLES_H

#include "rows.h"

#define CLPERM__SCAN_TUNABLES(X)                                                          \
    X(kernel, 1, 2, 0, "default clperm_kernel_kind of the scan")                                      \
    X(wg_size, 1, 1024, CLPERM_PARAM_POW2, "work-group kernels: work-items per work-group")                           \
    X(items_u32, 1, 64, 0, "work-group kernels: items per work-item, u32")                            \
    X(items_u64, 1, 64, 0, "work-group kernels: items per work-item, u64")                            \
    X(stage, 0, 1, 0, "work-group kernels: 1 stages tiles through local memory")                      \
    X(serial_u32, 1, 65536, 0, "serial kernels: items per tile, u32")                                 \
    X(serial_u64, 1, 65536, 0, "serial kernels: items per tile, u64")                                 \
    X(groups_per_cu, 1, 64, 0, "passes over ranges of tiles (also the shuffle's): work-groups per compute unit")

CLPERM__FAMILY_TUNING(scan, CLPERM__SCAN_TUNABLES);

#endif /* CLPERM_SCAN_TUNABLES_H */
