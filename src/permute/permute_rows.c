/* The device rows of the offline permutations (permute_tunables.h lists the fields): the first
 * holds every default; each later row that matches the device overrides what it sets. */
#include "permute_tunables.h"

const clperm__permute_row clperm__permute_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .plan_fusion = 2, .tiles_4 = 1, .tiles_8 = 1, .tr_rows_4 = 8}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Offline permutations on the NVIDIA H200: the scheduled permutation's five passes beat its three "
      "(2^26 random, 4/8/16-byte items: 64.5/32.2/11.7 against 37.6/17.6/7.4 G items/s)", 0},
     {.plan_fusion = 1}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Offline permutations on the NVIDIA H200, local tiles per work-group: the bit-reversal of 4-byte items "
      "at 2^26 reaches 86.7% of copy with 4 tiles (68.2% with 1); the transpose keeps 1 (83.9%, 68.6% with 4), "
      "8-byte items 1 (102 to 104% of copy at any count)", 0},
     {.rev_tiles_4 = 4}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Offline permutations on the NVIDIA H200, work-item rows per work-group: the transpose of 4-byte items "
      "with 4 rows (8 items a work-item) reaches 90 to 91% of the copy of its bytes at 2^26, 86 to 87% with 8", 0},
     {.tr_rows_4 = 4}},
    {CLPERM__KEY_CPUS,
     {.kernel = CLPERM_PERMUTE_KERNEL_SERIAL, .plan_fusion = 1}},
    {CLPERM__KEY_LOOP_LIMITED,
     {.kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .plan_fusion = 2}},
    {CLPERM__KEY_OCLGRIND,
     {.kernel = CLPERM_PERMUTE_KERNEL_LOCAL, .plan_fusion = 2}},
};
const size_t clperm__permute_rows_count = sizeof clperm__permute_rows / sizeof clperm__permute_rows[0];
