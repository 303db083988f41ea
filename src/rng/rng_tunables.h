/* The tunables of the generator fills: each an int, set per device by the rows of rng_rows.c
 * (src/runtime/rows.h says how rows apply) and read from clperm_ctx.tuning.rng. */
#ifndef CLPERM_RNG_TUNABLES_H
#define CLPERM_RNG_TUNABLES_H

#include "rows.h"

#define CLPERM__RNG_TUNABLES(X)                                                           \
    X(wg_size, 1, 1024, CLPERM_PARAM_POW2, "generator fills: work-items per work-group (a multiple of k)")            \
    X(k, 0, 64, CLPERM_PARAM_POW2, "generators: default k; 0 the subgroup width (8..64, else 32)")                    \
    X(kernel, 1, 2, 0, "clperm_kernel_kind of the generator fills")

CLPERM__FAMILY_TUNING(rng, CLPERM__RNG_TUNABLES);

#endif /* CLPERM_RNG_TUNABLES_H */
