/* The tunables of the offline permutations: each an int, set per device by the rows of
 * permute_rows.c (src/runtime/rows.h says how rows apply) and read from clperm_ctx.tuning.permute. */
#ifndef CLPERM_PERMUTE_TUNABLES_H
#define CLPERM_PERMUTE_TUNABLES_H

#include "rows.h"

#define CLPERM__PERMUTE_TUNABLES(X)                                                       \
    X(kernel, 1, 3, 0, "clperm_permute_kernel of the regular offline permutations")                   \
    X(plan_fusion, 1, 2, 0, "the scheduled permutation's passes: 1 five, 2 three")                    \
    X(tiles_4, 1, 4, CLPERM_PARAM_POW2, "local-tile transpose: tiles per work-group, 4-byte items (CLPERM_PARAM_PERMUTE_TILES)") \
    X(tiles_8, 1, 4, CLPERM_PARAM_POW2, "the same, 8-byte items")                                                     \
    X(rev_tiles_4, 0, 4, CLPERM_PARAM_POW2, "the same for the local-tile bit-reversal, 4-byte items; 0: as the transpose") \
    X(rev_tiles_8, 0, 4, CLPERM_PARAM_POW2, "the same, 8-byte items")                                                 \
    X(tr_rows_4, 4, 16, CLPERM_PARAM_POW2, "transpose of 4-byte items: rows of 32 work-items per work-group")

CLPERM__FAMILY_TUNING(permute, CLPERM__PERMUTE_TUNABLES);

#endif /* CLPERM_PERMUTE_TUNABLES_H */
