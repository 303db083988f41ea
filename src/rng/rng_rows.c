/* The device rows of the generator fills (rng_tunables.h lists the fields): the first holds every
 * default; each later row that matches the device overrides what it sets. */
#include "rng_tunables.h"

const clperm__rng_row clperm__rng_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.wg_size = 64, .k = 0, .kernel = CLPERM_KERNEL_WORK_GROUP}},
    {CLPERM__KEY_GPUS,
     {.wg_size = 256}},
    {CLPERM__KEY_CPUS,
     {.k = 32, .kernel = CLPERM_KERNEL_SERIAL}},
    {CLPERM__KEY_LOOP_LIMITED,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64}},
    {CLPERM__KEY_OCLGRIND,
     {.wg_size = 64, .k = 8, .kernel = CLPERM_KERNEL_WORK_GROUP}},
};
const size_t clperm__rng_rows_count = sizeof clperm__rng_rows / sizeof clperm__rng_rows[0];
