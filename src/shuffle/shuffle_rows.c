/* The device rows of the shuffle (shuffle_tunables.h lists the fields): the first holds every
 * default; each later row that matches the device overrides what it sets. */
#include "shuffle_tunables.h"

const clperm__shuffle_row clperm__shuffle_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items = 8, .serial_items = 4096}},
    {CLPERM__KEY_GPUS,
     {.wg_size = 256}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Scan, Shuffle, Tile sorts (segments of 256: 8 x 32, m >= 4w), Generators on the NVIDIA H200", 0},
     {.items = 8}},
    {{CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL,
      "not measured: scan tiles sized for 64-wide wavefronts", 0},
     {.items = 16}},
    {CLPERM__KEY_CPUS,
     {.kernel = CLPERM_KERNEL_SERIAL, .items = 16}},
    {CLPERM__KEY_LOOP_LIMITED,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items = 8}},
    {CLPERM__KEY_OCLGRIND,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items = 4, .serial_items = 256}},
};
const size_t clperm__shuffle_rows_count = sizeof clperm__shuffle_rows / sizeof clperm__shuffle_rows[0];
