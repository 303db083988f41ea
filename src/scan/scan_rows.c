/* The device rows of the device-wide scan and reduction (scan_tunables.h lists the fields): the
 * first holds every default; each later row that matches the device overrides what it sets. */
#include "scan_tunables.h"

const clperm__scan_row clperm__scan_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items_u32 = 8, .items_u64 = 8, .stage = 1,
      .serial_u32 = 4096, .serial_u64 = 2048, .groups_per_cu = 4}},
    {CLPERM__KEY_GPUS,
     {.wg_size = 256, .items_u32 = 9, .items_u64 = 5}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Scan, Shuffle, Tile sorts (segments of 256: 8 x 32, m >= 4w), Generators on the NVIDIA H200", 0},
     {.items_u32 = 31, .items_u64 = 15, .groups_per_cu = 8}},
    {{CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, NULL,
      "not measured: scan tiles sized for 64-wide wavefronts", 0},
     {.items_u32 = 15, .items_u64 = 7, .groups_per_cu = 8}},
    {{CLPERM_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, NULL,
      "not measured", 0},
     {.items_u32 = 11, .groups_per_cu = 8}},
    {CLPERM__KEY_CPUS,
     {.kernel = CLPERM_KERNEL_SERIAL, .items_u32 = 16, .items_u64 = 16, .stage = -1, .serial_u32 = 8192,
      .serial_u64 = 4096}},
    {{CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, "PoCL 3.1",
      "Tuning on PoCL 3.1 (the 2-core Debian 12 machine): serial tiles of 16384 and 8192 items, "
      "found by clperm tune and confirmed in six alternating runs, 1.06x to 1.14x at 2^22 and 2^24",
      0},
     {.serial_u32 = 16384, .serial_u64 = 8192}},
    {{CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, "PoCL 5",
      "Tuning on PoCL 5.0 (the H100 machine's 16-core host): serial tiles of 12288 u32 items, found by clperm "
      "tune (1.25x at 2^22) and faster in three alternating runs at 2^22 and 2^24 (1.1x to 2x; that host's "
      "timings spread widely)",
      0},
     {.serial_u32 = 12288}},
    {CLPERM__KEY_LOOP_LIMITED,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items_u32 = 8, .items_u64 = 8, .stage = 1}},
    {CLPERM__KEY_OCLGRIND,
     {.kernel = CLPERM_KERNEL_WORK_GROUP, .wg_size = 64, .items_u32 = 4, .items_u64 = 4, .stage = 1,
      .serial_u32 = 256, .serial_u64 = 256, .groups_per_cu = 2}},
};
const size_t clperm__scan_rows_count = sizeof clperm__scan_rows / sizeof clperm__scan_rows[0];
