/* The device rows of the tile sorts, partitions and the register network of short segments
 * (tile_tunables.h lists the fields): the first holds every default; each later row that matches
 * the device overrides what it sets. */
#include "tile_tunables.h"

const clperm__tile_row clperm__tile_rows[] = {
    {CLPERM__KEY_DEFAULTS,
     {.aspect = 1,
      .auto_sort = CLPERM_TILE_SORT_SHEAR,
      .reg_items = 8,
      .reg_pair_items = 8,
      .reg_pair_items_long = 8}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Tile sorts on the NVIDIA H100 and H200 by segment length, 2^26 u32 keys: Shearsort in tiles of aspect 2 "
      "against 4, H200 1.06x at 128 keys (225 G keys/s), 1.06x to 1.12x at 512 (132), 1.00x to 1.01x at 64, 256, "
      "1024 and 2048; H100 1.11x at 128, 1.07x at 512, 0.95x at 2048 (71.5), 0.98x to 1.00x elsewhere; "
      "partitions within 1%", 0},
     {.aspect = 2}},
    {{CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, NULL,
      "Segmented sort's register network on the NVIDIA H100, 2^28 u32 keys: 16 keys a work-item (segments of "
      "256 / 1024 / 2048 at 259 / 169 / 137 G keys/s, 8 keys at 230 / 152 / 129); u32 pairs on the NVIDIA H200, "
      "2^28: 8 keys a work-item up to 512 keys (64 / 256 / 512 at 193 / 151 / 133 G keys/s, 16 keys at "
      "170 / 137 / 120), 16 from 1024 (1024 / 2048 at 100 / 84, 8 keys at 92 / 80)", 0},
     {.reg_items = 16, .reg_pair_items = 8, .reg_pair_items_long = 16}},
    {CLPERM__KEY_CPUS,
     {.auto_sort = CLPERM_TILE_SORT_BITONIC, .reg_items = -1, .reg_pair_items = -1, .reg_pair_items_long = -1}},
    {CLPERM__KEY_OCLGRIND,
     {.auto_sort = CLPERM_TILE_SORT_SHEAR}},
};
const size_t clperm__tile_rows_count = sizeof clperm__tile_rows / sizeof clperm__tile_rows[0];
