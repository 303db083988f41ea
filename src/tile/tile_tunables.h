/* The tunables of the tile sorts, partitions and the register network of short segments: each an
 * int, set per device by the rows of tile_rows.c (src/runtime/rows.h says how rows apply) and read
 * from clperm_ctx.tuning.tile. */
#ifndef CLPERM_TILE_TUNABLES_H
#define CLPERM_TILE_TUNABLES_H

#include "rows.h"

#define CLPERM__TILE_TUNABLES(X)                                                          \
    X(aspect, 1, 64, 0, "tile sorts: columns per row at least this many times the width")             \
    X(auto_sort, 1, 4, 0, "tile sorts: the clperm_tile_sort CLPERM_TILE_SORT_AUTO runs")              \
    X(reg_items, 0, 32, CLPERM_PARAM_POW2, "the register network of short segments: keys per work-item (0: off)")    \
    X(reg_pair_items, 0, 32, CLPERM_PARAM_POW2,                                                       \
      "the register network of short segments with values, up to 512 keys: keys per work-item (0: off)")   \
    X(reg_pair_items_long, 0, 32, CLPERM_PARAM_POW2,                                                  \
      "the register network with values, segments of 1024 keys and more: keys per work-item (0: off)")

CLPERM__FAMILY_TUNING(tile, CLPERM__TILE_TUNABLES);

#endif /* CLPERM_TILE_TUNABLES_H */
