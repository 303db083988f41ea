/* Device rows: what each family's table of per-device tunables is made of. A family lists its
 * tunables once (src/<family>/<family>_tunables.h: an X-macro of names and meanings, each an int),
 * keeps its rows beside them (<family>_rows.c) and reads the values at run time from
 * clperm_ctx.tuning. The runtime knows only the key: which devices a row matches
 * (clperm__row_matches) and the order rows apply in (clperm__tuning_rows, tuning.c). */
#ifndef CLPERM_ROWS_H
#define CLPERM_ROWS_H

#include <stddef.h>

#include "clperm.h"

/* A row matches a device when every key it sets does: vendor (CLPERM_VENDOR_OTHER: any), device
 * type (0: any), a text the device name, driver version or platform version contains (NULL: any),
 * and loop_limited (1: only devices that end long loops early, clperm_profile.loop_limit). source
 * names the section of docs/performance.md (or docs/devices.md) whose figures chose the row. */
typedef struct clperm__row_key {
    clperm_vendor vendor;
    cl_device_type type;
    const char *text;
    const char *source;
    int loop_limited;
} clperm__row_key;

/* The classes of device that every family's table has a row for; a family's own measurements
 * are rows with keys of their own. */
#define CLPERM__KEY_DEFAULTS {CLPERM_VENDOR_OTHER, 0, NULL, "defaults for devices not measured", 0}
#define CLPERM__KEY_GPUS {CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_GPU, NULL, "GPUs not measured: work-groups of 256", 0}
#define CLPERM__KEY_CPUS                                                                           \
    {CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, NULL,                                                \
     "Scan, Shuffle, Tile sorts, Generators, Offline permutations on PoCL 3.1 (serial kernels; "  \
     "bitonic and serial runs of tiles, as a CPU has no banks; no register network of segments: " \
     "24.6 ms for 2^20 u32 keys in segments of 2048, against 19.5 for the tile sort and 4.7 for " \
     "the work-item-per-segment kernels)",                                                         \
     0}
#define CLPERM__KEY_LOOP_LIMITED                                                                   \
    {CLPERM_VENDOR_OTHER, 0, NULL,                                                                 \
     "devices that end a kernel's loops after a count (Mesa's llvmpipe: 65535 iterations in "     \
     "all; docs/devices.md): work-group kernels, whose loops are short, in place of the serial "  \
     "ones",                                                                                       \
     1}
#define CLPERM__KEY_OCLGRIND                                                                       \
    {CLPERM_VENDOR_OCLGRIND, 0, NULL,                                                              \
     "a simulator, whatever type it reports: small work-group tiles keep the tests short", 0}

/* Rows apply in order to values starting at 0: the first row of a family holds every default, and
 * each later row that matches overrides the fields it sets (0 leaves a field alone, -1 sets 0).
 * A family's list gives each tunable as X(name, lo, hi, flags, meaning): the values it may take
 * once the rows are applied, lo to hi and as the flags say (CLPERM_PARAM_POW2: 0 or a power of
 * two; CLPERM_PARAM_SG_MULTIPLE: 0 or a multiple of the device's subgroup width; 0 only where lo
 * is): tests/test_tuning.c holds every row of every family to them, and tuning files and
 * clperm_ctx_set_tunable are checked against them (clperm__tunable_valid). */
#define CLPERM__TUNABLE_FIELD(name, lo, hi, flags, text) int name;
#define CLPERM__TUNABLE_COUNT(name, lo, hi, flags, text) +1

/* The types of a family's tunables and rows, and its table, from its list: FAM names the family
 * (scan, shuffle, ...), LIST its X-macro. */
#define CLPERM__FAMILY_TUNING(fam, LIST)                                                           \
    typedef struct clperm__##fam##_tuning {                                                        \
        LIST(CLPERM__TUNABLE_FIELD)                                                                \
    } clperm__##fam##_tuning;                                                                      \
    typedef struct clperm__##fam##_row {                                                           \
        clperm__row_key key;                                                                       \
        clperm__##fam##_tuning set;                                                                \
    } clperm__##fam##_row;                                                                         \
    enum { clperm__##fam##_tunables = 0 LIST(CLPERM__TUNABLE_COUNT) };                             \
    extern const clperm__##fam##_row clperm__##fam##_rows[];                                       \
    extern const size_t clperm__##fam##_rows_count

int clperm__row_matches(const clperm__row_key *key, const clperm_profile *p);

#endif /* CLPERM_ROWS_H */
