/* The families' device rows (src/<family>/<family>_rows.c) without a device: every value a row
 * sets, and every value the rows give the devices we know of, within its tunable's bounds; and the
 * order rows apply in (defaults, then type and vendor rows, then what the probes found). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static clperm_profile profile_of(clperm_vendor vendor, cl_device_type type, const char *name, cl_uint loop_limit) {
    clperm_profile p;
    memset(&p, 0, sizeof p);
    p.vendor = vendor;
    p.device_type = type;
    snprintf(p.device_name, sizeof p.device_name, "%s", name);
    p.loop_limit = loop_limit;
    return p;
}

/* Fields of one family's values outside their bounds, each reported with its name. */
#define CHECK_FIELD(name, lo, hi, flags, text)                                                            \
    if (t->name < (lo) || t->name > (hi)) {                                                        \
        cr_log_info("%s: %s.%s = %d, outside [%d, %d]", where, family, #name, t->name, lo, hi);   \
        bad++;                                                                                     \
    }
#define FAMILY_CHECKER(fam, LIST)                                                                  \
    static int check_##fam(const clperm__##fam##_tuning *t, const char *where) {                   \
        const char *family = #fam;                                                                 \
        int bad = 0;                                                                               \
        LIST(CHECK_FIELD)                                                                          \
        return bad;                                                                                \
    }
FAMILY_CHECKER(scan, CLPERM__SCAN_TUNABLES)
FAMILY_CHECKER(shuffle, CLPERM__SHUFFLE_TUNABLES)
FAMILY_CHECKER(tile, CLPERM__TILE_TUNABLES)
FAMILY_CHECKER(rng, CLPERM__RNG_TUNABLES)
FAMILY_CHECKER(sort, CLPERM__SORT_TUNABLES)
FAMILY_CHECKER(permute, CLPERM__PERMUTE_TUNABLES)

static int check_all(const clperm__tuning *t, const char *where) {
    return check_scan(&t->scan, where) + check_shuffle(&t->shuffle, where) + check_tile(&t->tile, where) +
           check_rng(&t->rng, where) + check_sort(&t->sort, where) + check_permute(&t->permute, where);
}

/* One row's fields as they would stand on their own over the defaults' row. */
#define CHECK_ROWS(fam)                                                                            \
    for (size_t i = 0; i < clperm__##fam##_rows_count; i++) {                                      \
        clperm__##fam##_tuning t = clperm__##fam##_rows[0].set;                                    \
        const int *set = (const int *)&clperm__##fam##_rows[i].set;                                \
        int *out = (int *)&t;                                                                      \
        for (size_t f = 0; f < clperm__##fam##_tunables; f++)                                      \
            if (set[f]) out[f] = set[f] < 0 ? 0 : set[f];                                          \
        bad += check_##fam(&t, clperm__##fam##_rows[i].key.source);                                \
    }

Test(tuning, every_row_within_bounds) {
    int bad = 0;
    CHECK_ROWS(scan)
    CHECK_ROWS(shuffle)
    CHECK_ROWS(tile)
    CHECK_ROWS(rng)
    CHECK_ROWS(sort)
    CHECK_ROWS(permute)
    cr_assert_eq(bad, 0, "%d values of the device rows are outside their tunables' bounds", bad);
}

static const struct known {
    const char *label;
    clperm_vendor vendor;
    cl_device_type type;
    const char *name;
    cl_uint loop_limit;
} known[] = {
    {"NVIDIA H100", CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, "NVIDIA H100 80GB HBM3", 0},
    {"AMD GPU", CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, "gfx1100", 0},
    {"Intel GPU", CLPERM_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Arc(TM) A770 Graphics", 0},
    {"other GPU", CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_GPU, "Mali-G78", 0},
    {"PoCL CPU", CLPERM_VENDOR_POCL, CL_DEVICE_TYPE_CPU, "pthread-skylake-avx512", 0},
    {"llvmpipe", CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_CPU, "llvmpipe (LLVM 15.0.6, 256 bits)", 65535},
    {"Oclgrind", CLPERM_VENDOR_OCLGRIND, CL_DEVICE_TYPE_CPU, "Oclgrind Simulator", 0},
    {"accelerator", CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_ACCELERATOR, "FPGA", 0},
};

Test(tuning, every_known_device_within_bounds) {
    int bad = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        clperm_profile p = profile_of(known[i].vendor, known[i].type, known[i].name, known[i].loop_limit);
        clperm__tuning t;
        clperm__tuning_init(&p, &t);
        bad += check_all(&t, known[i].label);
    }
    cr_assert_eq(bad, 0, "%d values outside their bounds", bad);
}

/* The checker itself: a value past its bound is found. */
Test(tuning, checker_finds_a_value_out_of_bounds) {
    clperm_profile p = profile_of(CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, "NVIDIA H100", 0);
    clperm__tuning t;
    clperm__tuning_init(&p, &t);
    t.sort.items_32 = 33;
    cr_assert_eq(check_all(&t, "planted"), 1);
    t.sort.items_32 = 16;
    t.scan.kernel = 0;
    cr_assert_eq(check_all(&t, "planted"), 1);
}

/* Later rows win: the defaults, then a type's row, then a vendor's, and the row of devices whose
 * loops are capped after the CPUs' row. */
Test(tuning, rows_apply_in_order) {
    clperm__tuning t;
    clperm_profile p = profile_of(CLPERM_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, "NVIDIA H100", 0);
    clperm__tuning_init(&p, &t);
    cr_assert_eq(t.sort.wg_size_32, 512, "NVIDIA's sort tile over the GPUs' 256 and the default 64");
    cr_assert_eq(t.scan.items_u32, 31);
    cr_assert_eq(t.permute.plan_fusion, 1);
    cr_assert_eq(t.tile.reg_items, 16);
    cr_assert_eq(t.tile.reg_pair_items, 8, "NVIDIA's network with values: 8 keys a work-item");
    cr_assert_eq(t.tile.reg_pair_items_long, 16, "and 16 in segments of 1024 keys and more");
    p = profile_of(CLPERM_VENDOR_AMD, CL_DEVICE_TYPE_GPU, "gfx1100", 0);
    clperm__tuning_init(&p, &t);
    cr_assert_eq(t.scan.items_u32, 15);
    cr_assert_eq(t.sort.wg_size_32, 256, "the GPUs' row");
    cr_assert_eq(t.sort.regs_32, 0, "NVIDIA's register cap stays NVIDIA's");
    p = profile_of(CLPERM_VENDOR_OTHER, CL_DEVICE_TYPE_GPU, "Mali-G78", 0);
    clperm__tuning_init(&p, &t);
    cr_assert_eq(t.scan.items_u32, 9);
    cr_assert_eq(t.tile.reg_items, 8, "the defaults' register network");
    p = profile_of(CLPERM_VENDOR_POCL, CL_DEVICE_TYPE_CPU, "pthread", 0);
    clperm__tuning_init(&p, &t);
    cr_assert_eq(t.scan.kernel, CLPERM_KERNEL_SERIAL);
    cr_assert_eq(t.scan.stage, 0, "-1 in a row sets 0");
    cr_assert_eq(t.tile.reg_items, 0, "no register network on CPUs");
    cr_assert_eq(t.tile.reg_pair_items, 0, "no register network on CPUs");
    cr_assert_eq(t.tile.reg_pair_items_long, 0, "no register network on CPUs");
    p.loop_limit = 65535;
    clperm__tuning_init(&p, &t);
    cr_assert_eq(t.scan.kernel, CLPERM_KERNEL_WORK_GROUP, "capped loops: work-group kernels over the CPUs' serial ones");
    cr_assert_eq(t.rng.kernel, CLPERM_KERNEL_WORK_GROUP);
    cr_assert_eq(t.sort.kernel, CLPERM_KERNEL_SERIAL, "capped loops: the sort's serial passes, in blocks under the cap");
    cr_assert_eq(t.sort.wg_size_32, 64, "capped loops: the segmented sort's work-group kernels");
    cr_assert_eq(t.permute.kernel, CLPERM_PERMUTE_KERNEL_LOCAL);
    cr_assert_eq(t.tile.auto_sort, CLPERM_TILE_SORT_BITONIC, "the CPUs' tile sort stays");
}
