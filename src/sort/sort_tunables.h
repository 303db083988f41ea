/* The tunables of the device-wide sort: each an int, set per device by the rows of sort_rows.c
 * (src/runtime/rows.h says how rows apply) and read from clperm_ctx.tuning.sort. */
#ifndef CLPERM_SORT_TUNABLES_H
#define CLPERM_SORT_TUNABLES_H

#include "rows.h"

#define CLPERM__SORT_TUNABLES(X)                                                          \
    X(kernel, 1, 2, 0, "clperm_kernel_kind of the device-wide sort")                                  \
    X(wg_size_32, 32, 1024, CLPERM_PARAM_SG_MULTIPLE, "work-group kernels' tile, work-items: 32-bit keys alone")             \
    X(items_32, 1, 32, 0, "keys per work-item: 32-bit keys alone")                                    \
    X(wg_size_32v, 0, 1024, CLPERM_PARAM_SG_MULTIPLE, "the same with values (0: as the keys alone)")                         \
    X(items_32v, 0, 32, 0, "the same with values (0: as the keys alone)")                             \
    X(wg_size_64, 32, 1024, CLPERM_PARAM_SG_MULTIPLE, "work-items: 64-bit keys alone")                                       \
    X(items_64, 1, 32, 0, "keys per work-item: 64-bit keys alone")                                    \
    X(wg_size_64v, 0, 1024, CLPERM_PARAM_SG_MULTIPLE, "the same with values (0: as the keys alone)")                         \
    X(items_64v, 0, 32, 0, "the same with values (0: as the keys alone)")                             \
    X(regs_32, 0, 255, CLPERM_PARAM_REGISTERS, "NVIDIA: registers per work-item, 32-bit keys alone (0: the compiler's)")   \
    X(regs_32v, 0, 255, CLPERM_PARAM_REGISTERS, "the same with values (no class takes another's)")                         \
    X(regs_64, 0, 255, CLPERM_PARAM_REGISTERS, "the same, 64-bit keys alone")                                              \
    X(regs_64v, 0, 255, CLPERM_PARAM_REGISTERS, "the same, 64-bit keys with values")                                       \
    X(rank, CLPERM_RANK_VOTES, CLPERM_RANK_ORMASK, 0, "CLPERM_PARAM_SORT_RANK")                    \
    X(digit_bits, 1, 8, 0, "bits per digit")

CLPERM__FAMILY_TUNING(sort, CLPERM__SORT_TUNABLES);

#endif /* CLPERM_SORT_TUNABLES_H */
