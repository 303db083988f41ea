/* The device rows of the device-wide sort (sort_tunables.h lists the fields): the first holds
 * every default; each later row that matches the device overrides what it sets. */
#include "sort_tunables.h"

const clperm__sort_row clperm__sort_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size_32 = 64, .items_32 = 8, .wg_size_64 = 64, .items_64 = 8,
      .rank = CLPERM_RANK_VOTES, .digit_bits = 8}},
    {CLPERM__KEY_GPUS,
     {.wg_size_32 = 256, .items_32 = 12, .wg_size_64 = 256}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Device-wide sort on the NVIDIA H200, 2^28 keys, the best tile per class, ranked by match words, keys held "
      "in their ordered form with digits taken again where needed and tiles loaded at constant offsets (no spills "
      "at these caps, 2026-11-28): 512 x 20 u32 keys at 64 registers 44.7 G keys/s (512 x 16 42.2, 512 x 22 44.5), "
      "384 x 24 u32 keys with u32 values at 80 registers 33.5 (384 x 16 30.2, 384 x 23 33.4, 384 x 26 33.3), "
      "256 x 16 u64 keys uncapped 17.4 (384 x 13 at 80 16.1, 256 x 20 17.4), 256 x 20 u64 with u64 values 10.6", 0},
     {.wg_size_32 = 512, .items_32 = 20, .regs_32 = 64, .wg_size_32v = 384, .items_32v = 24, .regs_32v = 80,
      .wg_size_64 = 256, .items_64 = 16, .wg_size_64v = 256, .items_64v = 20, .rank = CLPERM_RANK_ORMASK}},
    {{CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL,
      "not measured: scan tiles sized for 64-wide wavefronts", 0},
     {.items_32 = 16}},
    {CLPERM__KEY_CPUS,
     {.kernel = CLPERM_KERNEL_SERIAL}},
    {{CLPERM_VENDOR_OTHER, 0, NULL,
      "devices that end a kernel's loops after a count (Mesa's llvmpipe: 65535 iterations in all; "
      "docs/devices.md): the serial kernels of CPUs take blocks of at most an eighth of the count (the "
      "sort of 2^20 u32 keys on llvmpipe 150 ms against 2,540 with the work-group kernels, 2026-11-29), "
      "the segmented sort work-group kernels of 64 x 8",
      1},
     {.wg_size_32 = 64, .items_32 = 8, .wg_size_64 = 64, .items_64 = 8}},
    {CLPERM__KEY_OCLGRIND,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size_32 = 64, .items_32 = 4, .wg_size_64 = 64, .items_64 = 4}},
};
const size_t clperm__sort_rows_count = sizeof clperm__sort_rows / sizeof clperm__sort_rows[0];
