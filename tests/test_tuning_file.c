/* Tuning files and the tunables' API on every device: files with every kind of damage are refused
 * whole, nothing changed; the order of precedence (rows, then the file, then the caller); and
 * extreme but valid values, written to a file and loaded, leave every family's results equal to
 * the host's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common.h"

#define MAX_TUNABLES 128

static char *tmp_path(const char *tag) {
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    const char *dir = getenv("TMPDIR");
    snprintf(p, 256, "%s/clperm_tuning_%s_%ld.json", dir && *dir ? dir : "/tmp", tag, (long)getpid());
    return p;
}

static void write_text(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* A JSON string's body (quotes and backslashes escaped). */
static void json_escape(char *out, size_t cap, const char *s) {
    size_t o = 0;
    for (; *s && o + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') out[o++] = '\\';
        out[o++] = *s;
    }
    out[o] = '\0';
}

/* A file with one entry, for device name and driver, whose "families" object is `families`. */
static void write_entry(const char *path, const char *name, const char *driver, const char *families) {
    char n[300], d[300];
    json_escape(n, sizeof n, name);
    json_escape(d, sizeof d, driver);
    size_t cap = strlen(families) + 1024;
    char *text = malloc(cap);
    int len = snprintf(text, cap,
                       "{\"clperm_tuning\": 1, \"entries\": [\n"
                       " {\"device\": {\"name\": \"another device\", \"driver\": \"1.0\"}, \"families\": {}},\n"
                       " {\"device\": {\"name\": \"%s\", \"driver\": \"%s\", \"vendor\": \"any\"},\n"
                       "  \"families\": %s}]}\n",
                       n, d, families);
    write_text(path, text, (size_t)len);
    free(text);
}

static size_t snapshot(clperm_ctx *ctx, int *values) {
    size_t count = clperm_tunable_count();
    cr_assert(count > 0 && count <= MAX_TUNABLES);
    for (size_t i = 0; i < count; i++) {
        clperm_tunable t;
        cr_assert_eq(clperm_tunable_info(i, &t), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_get_tunable(ctx, t.family, t.name, &values[i]), CLPERM_SUCCESS);
    }
    return count;
}

/* ---- the API ---- */

Test(tuning_file, tunables_listed_once_with_bounds) {
    size_t count = clperm_tunable_count();
    cr_assert(count >= 30, "%zu tunables", count);
    for (size_t i = 0; i < count; i++) {
        clperm_tunable a;
        cr_assert_eq(clperm_tunable_info(i, &a), CLPERM_SUCCESS);
        cr_assert(a.family && a.name && a.meaning && a.lo <= a.hi, "%s.%s", a.family, a.name);
        for (size_t j = 0; j < i; j++) {
            clperm_tunable b;
            clperm_tunable_info(j, &b);
            cr_assert(strcmp(a.family, b.family) || strcmp(a.name, b.name), "%s.%s twice", a.family, a.name);
        }
    }
    clperm_tunable t;
    cr_assert_eq(clperm_tunable_info(count, &t), CLPERM_ERROR_INVALID_PARAM);
    cr_assert_eq(clperm_tunable_info(0, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    cr_assert_str_eq(clperm_tuning_source_name(CLPERM_TUNING_FILE), "tuning file");
    cr_assert_null(clperm_tuning_source_name((clperm_tuning_source)42));
}

Test(tuning_file, set_and_get_checked) {
    TEST_EACH_DEVICE(ctx) {
        int v = 0, before = 0;
        clperm_tuning_source src;
        cr_assert_eq(clperm_ctx_get_tunable(ctx, "scan", "wg_size", &before), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "scan", "wg_size", 1025), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "scan", "wg_size", 0), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "scan", "no_such", 1), CLPERM_ERROR_INVALID_PARAM);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "nosuch", "wg_size", 1), CLPERM_ERROR_INVALID_PARAM);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "scan", NULL, 1), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_ctx_get_tunable(ctx, "scan", "wg_size", NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(clperm_ctx_get_tunable(ctx, "scan", "wg_size", &v), CLPERM_SUCCESS);
        cr_assert_eq(v, before, "a refused set changed nothing");
        cr_assert_eq(clperm_ctx_tuning_source(ctx, "scan", &src, NULL), CLPERM_SUCCESS);
        cr_assert_neq(src, CLPERM_TUNING_SET);
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "scan", "wg_size", 32), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_get_tunable(ctx, "scan", "wg_size", &v), CLPERM_SUCCESS);
        cr_assert_eq(v, 32);
        cr_assert_eq(clperm_ctx_tuning_source(ctx, "scan", &src, NULL), CLPERM_SUCCESS);
        cr_assert_eq(src, CLPERM_TUNING_SET);
        cr_assert_eq(clperm_ctx_tuning_source(ctx, "nosuch", &src, NULL), CLPERM_ERROR_INVALID_PARAM);
        /* A reset of one family leaves the others as set. */
        int items, items_set;
        clperm_ctx_get_tunable(ctx, "sort", "items_64", &items);
        items_set = items == 7 ? 5 : 7;
        cr_assert_eq(clperm_ctx_set_tunable(ctx, "sort", "items_64", items_set), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_reset_tuning(ctx, "scan", CLPERM_TUNING_DEVICE_ROW), CLPERM_SUCCESS);
        clperm_ctx_get_tunable(ctx, "scan", "wg_size", &v);
        cr_assert_eq(v, before, "the scan's reset");
        clperm_ctx_get_tunable(ctx, "sort", "items_64", &v);
        cr_assert_eq(v, items_set, "the sort kept its value over the scan's reset");
        cr_assert_eq(clperm_ctx_tuning_source(ctx, "scan", &src, NULL), CLPERM_SUCCESS);
        cr_assert_neq(src, CLPERM_TUNING_SET);
        cr_assert_eq(clperm_ctx_reset_tuning(ctx, "fft", CLPERM_TUNING_DEVICE_ROW), CLPERM_ERROR_INVALID_PARAM);
        /* A reset to every row gives the creation's values back. */
        cr_assert_eq(clperm_ctx_reset_tuning(ctx, NULL, CLPERM_TUNING_DEVICE_ROW), CLPERM_SUCCESS);
        cr_assert_eq(clperm_ctx_get_tunable(ctx, "scan", "wg_size", &v), CLPERM_SUCCESS);
        cr_assert_eq(v, before);
        clperm_ctx_get_tunable(ctx, "sort", "items_64", &v);
        cr_assert_eq(v, items, "the sort's too, with every family reset");
        cr_assert_eq(clperm_ctx_reset_tuning(ctx, NULL, CLPERM_TUNING_FILE), CLPERM_ERROR_INVALID_ARGUMENT);
    }
    cr_assert_eq(clperm_ctx_set_tunable(NULL, "scan", "wg_size", 32), CLPERM_ERROR_INVALID_CONTEXT);
}

/* ---- damaged files ---- */

typedef struct damage {
    const char *what;
    const char *text; /* the whole file; NULL: the device's entry with `families` */
    const char *families;
    int other_name, other_driver;
} damage;

static const damage damages[] = {
    {"empty", "", NULL, 0, 0},
    {"truncated", "{\"clperm_tuning\": 1, \"entries\": [{\"device\": {\"name\": ", NULL, 0, 0},
    {"not an object", "[1, 2, 3]", NULL, 0, 0},
    {"binary", "\x7f" "ELF\x02\x01\x01\x00\x00", NULL, 0, 0},
    {"another format", "{\"clperm_tuning\": 2, \"entries\": []}", NULL, 0, 0},
    {"no entries", "{\"clperm_tuning\": 1}", NULL, 0, 0},
    {"entries not an array", "{\"clperm_tuning\": 1, \"entries\": {}}", NULL, 0, 0},
    {"another device", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32}}}", 1, 0},
    {"another driver", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32}}}", 0, 1},
    {"no families", NULL, "7", 0, 0},
    {"unknown family", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32}}, \"fft\": {\"values\": {}}}", 0, 0},
    {"unknown tunable", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32, \"warp_magic\": 3}}}", 0, 0},
    {"values missing", NULL, "{\"scan\": {\"wg_size\": 32}}", 0, 0},
    {"above its bound", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32}}, \"sort\": {\"values\": {\"items_32\": 33}}}", 0, 0},
    {"below its bound", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32}}, \"sort\": {\"values\": {\"wg_size_32\": 16}}}", 0, 0},
    {"not an integer", NULL, "{\"scan\": {\"values\": {\"wg_size\": 32.5}}}", 0, 0},
    {"a string", NULL, "{\"scan\": {\"values\": {\"wg_size\": \"32\"}}}", 0, 0},
    {"huge number", NULL, "{\"scan\": {\"values\": {\"wg_size\": 1e300}}}", 0, 0},
};

Test(tuning_file, damaged_files_change_nothing) {
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        int before[MAX_TUNABLES], after[MAX_TUNABLES];
        size_t count = snapshot(ctx, before);
        const char *path = tmp_path("damaged");
        for (size_t i = 0; i < sizeof damages / sizeof damages[0]; i++) {
            const damage *d = &damages[i];
            if (d->text)
                write_text(path, d->text, strlen(d->text));
            else
                write_entry(path, d->other_name ? "not this device" : p.device_name,
                            d->other_driver ? "not this driver" : p.driver_version, d->families);
            clperm_status st = clperm_ctx_load_tuning(ctx, path);
            cr_assert_eq(st, CLPERM_ERROR_TUNING_FILE, "%s: %s", d->what, clperm_status_name(st));
            snapshot(ctx, after);
            cr_assert_arr_eq(before, after, count * sizeof before[0], "%s: values changed", d->what);
            clperm_tuning_source src;
            clperm_ctx_tuning_source(ctx, "scan", &src, NULL);
            cr_assert_neq(src, CLPERM_TUNING_FILE, "%s", d->what);
        }
        /* Over the size limit, and missing. */
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        cr_assert_eq(fseek(f, (long)(17u << 20), SEEK_SET), 0);
        fputc('}', f);
        fclose(f);
        cr_assert_eq(clperm_ctx_load_tuning(ctx, path), CLPERM_ERROR_TUNING_FILE, "a file over 16 MiB");
        unlink(path);
        cr_assert_eq(clperm_ctx_load_tuning(ctx, path), CLPERM_ERROR_TUNING_FILE, "a missing file");
        cr_assert_eq(clperm_ctx_load_tuning(ctx, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
        snapshot(ctx, after);
        cr_assert_arr_eq(before, after, count * sizeof before[0]);
        /* The checks can fail: the same file undamaged is applied. */
        write_entry(path, p.device_name, p.driver_version, "{\"scan\": {\"values\": {\"wg_size\": 32}}}");
        cr_assert_eq(clperm_ctx_load_tuning(ctx, path), CLPERM_SUCCESS);
        int v;
        clperm_ctx_get_tunable(ctx, "scan", "wg_size", &v);
        cr_assert_eq(v, 32);
        unlink(path);
    }
}

/* ---- precedence ---- */

/* A file read at creation (CLPERM_TUNING_FILE) changes exactly the values it names, over the rows;
 * a parameter set by the caller still wins over it; "off" reads none. */
Test(tuning_file, file_over_rows_caller_over_file) {
    const char *path = tmp_path("precedence");
    TEST_EACH_DEVICE_INDEX(d) {
        clperm_ctx *ctx = test_open(d);
        cr_assert(ctx, "device %zu", d);
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        int rows[MAX_TUNABLES], got[MAX_TUNABLES];
        size_t count = snapshot(ctx, rows);
        int scan_wg, sort_items;
        clperm_ctx_get_tunable(ctx, "scan", "wg_size", &scan_wg);
        clperm_ctx_get_tunable(ctx, "sort", "items_64", &sort_items);
        int new_wg = scan_wg == 64 ? 128 : 64, new_items = sort_items == 7 ? 5 : 7;
        char families[256];
        snprintf(families, sizeof families,
                 "{\"scan\": {\"values\": {\"wg_size\": %d}, \"figures\": {\"ignored\": 1}},"
                 " \"sort\": {\"values\": {\"items_64\": %d}}}",
                 new_wg, new_items);
        write_entry(path, p.device_name, p.driver_version, families);
        char sel[32];
        snprintf(sel, sizeof sel, "%zu", d);
        setenv("CLPERM_TUNING_FILE", path, 1);
        clperm_ctx *tuned = NULL;
        cr_assert_eq(clperm_ctx_create_device(&tuned, sel), CLPERM_SUCCESS);
        snapshot(tuned, got);
        size_t changed = 0;
        for (size_t i = 0; i < count; i++) changed += rows[i] != got[i];
        cr_assert_eq(changed, 2, "the file changed %zu values, not the 2 it names", changed);
        int v;
        clperm_ctx_get_tunable(tuned, "scan", "wg_size", &v);
        cr_assert_eq(v, new_wg);
        clperm_ctx_get_tunable(tuned, "sort", "items_64", &v);
        cr_assert_eq(v, new_items);
        clperm_tuning_source src;
        const char *detail = NULL;
        cr_assert_eq(clperm_ctx_tuning_source(tuned, "sort", &src, &detail), CLPERM_SUCCESS);
        cr_assert_eq(src, CLPERM_TUNING_FILE);
        cr_assert_str_eq(detail, path);
        cr_assert_eq(clperm_ctx_tuning_source(tuned, "rng", &src, NULL), CLPERM_SUCCESS);
        cr_assert_neq(src, CLPERM_TUNING_FILE, "a family the file does not name keeps its row");
        /* The caller's parameter over the file's value, where the work-group kernels run. */
        int kernel = 0;
        clperm_ctx_get_param(tuned, CLPERM_PARAM_SCAN_KERNEL, &kernel);
        if (kernel == CLPERM_KERNEL_WORK_GROUP) {
            clperm_ctx_get_param(tuned, CLPERM_PARAM_SCAN_WG_SIZE, &v);
            cr_assert_eq(v, new_wg <= (int)p.max_work_group_size ? new_wg : v);
            cr_assert_eq(clperm_ctx_set_param(tuned, CLPERM_PARAM_SCAN_WG_SIZE, 32), CLPERM_SUCCESS);
            clperm_ctx_get_param(tuned, CLPERM_PARAM_SCAN_WG_SIZE, &v);
            cr_assert_eq(v, 32);
        }
        /* Generic rows only: no file, no vendor or device rows. */
        cr_assert_eq(clperm_ctx_reset_tuning(tuned, NULL, CLPERM_TUNING_CLASS_ROW), CLPERM_SUCCESS);
        for (size_t f = 0; f < 6; f++) {
            static const char *const fams[] = {"scan", "shuffle", "tile", "rng", "sort", "permute"};
            cr_assert_eq(clperm_ctx_tuning_source(tuned, fams[f], &src, NULL), CLPERM_SUCCESS);
            cr_assert(src <= CLPERM_TUNING_CLASS_ROW, "%s: %s", fams[f], clperm_tuning_source_name(src));
        }
        clperm_ctx_free(tuned);
        setenv("CLPERM_TUNING_FILE", "off", 1);
        cr_assert_eq(clperm_ctx_create_device(&tuned, sel), CLPERM_SUCCESS);
        snapshot(tuned, got);
        cr_assert_arr_eq(rows, got, count * sizeof rows[0], "\"off\" reads no file");
        clperm_ctx_free(tuned);
        /* A damaged file at creation: the context opens with its rows. */
        write_text(path, "{\"clperm_tuning\": 1, \"entr", 26);
        setenv("CLPERM_TUNING_FILE", path, 1);
        cr_assert_eq(clperm_ctx_create_device(&tuned, sel), CLPERM_SUCCESS);
        snapshot(tuned, got);
        cr_assert_arr_eq(rows, got, count * sizeof rows[0], "a damaged file is ignored");
        clperm_ctx_free(tuned);
        unsetenv("CLPERM_TUNING_FILE");
        clperm_ctx_free(ctx);
    }
    unlink(path);
}

/* ---- extreme values: the same results ---- */

static int check_scan(clperm_ctx *ctx, size_t es, uint64_t n, int inclusive) {
    clperm_type type = es == 8 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32;
    void *in = malloc(n * es), *want = malloc(n * es), *got = malloc(n * es);
    test_fill_random(in, n * es, test_seed() + n);
    test_scan_ref(in, want, n, es, inclusive);
    cl_mem a = test_buffer(ctx, n * es, in), b = test_buffer(ctx, n * es, NULL);
    clperm_status st = inclusive ? clperm_scan_inclusive(ctx, type, a, b, n, 0, NULL, NULL)
                                 : clperm_scan_exclusive(ctx, type, a, b, n, 0, NULL, NULL);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, b, n * es, got) != 0 || memcmp(got, want, n * es) != 0;
    if (bad) cr_log_error("scan u%zu n=%llu: %s", es * 8, (unsigned long long)n, clperm_status_name(st));
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(in), free(want), free(got);
    return bad;
}

static int check_shuffle(clperm_ctx *ctx, int fusion, uint64_t n) {
    if (clperm_ctx_set_param(ctx, CLPERM_PARAM_SHUFFLE_FUSION, fusion) != CLPERM_SUCCESS) return 0;
    uint64_t *in = malloc(n * 8), *want = malloc(n * 8), *got = malloc(n * 8);
    for (uint64_t i = 0; i < n; i++) in[i] = i * 0x9e3779b97f4a7c15ull;
    clperm_shuffle_host(in, want, n, 8, test_seed(), NULL);
    cl_mem a = test_buffer(ctx, n * 8, in), b = test_buffer(ctx, n * 8, NULL);
    clperm_status st = clperm_shuffle(ctx, a, b, n, 8, test_seed(), NULL, 0, NULL, NULL);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, b, n * 8, got) != 0 || memcmp(got, want, n * 8) != 0;
    if (bad) cr_log_error("shuffle fusion %d n=%llu: %s", fusion, (unsigned long long)n, clperm_status_name(st));
    clperm_ctx_set_param(ctx, CLPERM_PARAM_SHUFFLE_FUSION, 0);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(in), free(want), free(got);
    return bad;
}

static int check_sort(clperm_ctx *ctx, clperm_key_type key, clperm_type value, uint64_t n) {
    size_t ks = key == CLPERM_KEY_U64 ? 8 : 4, vs = value == CLPERM_TYPE_U64 ? 8 : 4;
    void *keys = malloc(n * ks), *vals = malloc(n * vs), *gk = malloc(n * ks), *gv = malloc(n * vs);
    test_fill_random(keys, n * ks, test_seed() + 7 * n);
    for (uint64_t i = 0; i < n; i++) {
        if (vs == 8) ((uint64_t *)vals)[i] = i;
        else ((uint32_t *)vals)[i] = (uint32_t)i;
    }
    cl_mem k = test_buffer(ctx, n * ks, keys), v = value ? test_buffer(ctx, n * vs, vals) : NULL;
    clperm_sort_request req = {key, k, value, v, n, {0}, NULL, NULL, 0};
    clperm_status st = clperm_sort(ctx, &req, 0, NULL, NULL);
    clperm_sort_host_request host = {key, keys, value, value ? vals : NULL, n, {0}};
    clperm_sort_host(&host);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, k, n * ks, gk) != 0 || memcmp(gk, keys, n * ks) != 0 ||
              (value && (test_read(ctx, v, n * vs, gv) != 0 || memcmp(gv, vals, n * vs) != 0));
    if (bad)
        cr_log_error("sort keys %zu B values %zu B n=%llu: %s", ks, value ? vs : 0, (unsigned long long)n,
                     clperm_status_name(st));
    clReleaseMemObject(k);
    if (v) clReleaseMemObject(v);
    free(keys), free(vals), free(gk), free(gv);
    return bad;
}

/* Segments of lengths 0 .. about 3 * 4096 (the register network's, the tiles' and the longest). */
static int check_segmented(clperm_ctx *ctx, uint64_t n) {
    uint32_t *keys = malloc(n * 4), *got = malloc(n * 4), offsets[64];
    test_fill_random(keys, n * 4, test_seed() + 11);
    uint64_t count = 0, at = 0;
    static const uint32_t lengths[] = {0, 1, 2, 31, 33, 255, 257, 1000, 4096, 4097, 9000, 17};
    offsets[0] = 0;
    while (count + 1 < 64 && at < n) {
        uint64_t len = lengths[count % (sizeof lengths / sizeof lengths[0])];
        at = at + len < n ? at + len : n;
        offsets[++count] = (uint32_t)at;
    }
    cl_mem k = test_buffer(ctx, n * 4, keys), off = test_buffer(ctx, (count + 1) * 4, offsets);
    clperm_sort_request req = {CLPERM_KEY_U32, k, 0, NULL, n, {0}, NULL, NULL, 0};
    clperm_segments segs = {off, CLPERM_TYPE_U32, count};
    clperm_status st = clperm_sort_segmented(ctx, &req, &segs, 0, NULL, NULL);
    clperm_sort_host_request host = {CLPERM_KEY_U32, keys, 0, NULL, n, {0}};
    clperm_sort_segmented_host(&host, offsets, CLPERM_TYPE_U32, count);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, k, n * 4, got) != 0 || memcmp(got, keys, n * 4) != 0;
    if (bad) cr_log_error("segmented sort n=%llu: %s", (unsigned long long)n, clperm_status_name(st));
    clReleaseMemObject(k);
    clReleaseMemObject(off);
    free(keys), free(got);
    return bad;
}

static int check_tiles(clperm_ctx *ctx, uint64_t segment, uint64_t n) {
    uint64_t max = 0;
    if (clperm_sort_segment_max(ctx, CLPERM_KEY_U32, 0, CLPERM_TILE_SORT_AUTO, &max) != CLPERM_SUCCESS || segment > max)
        return 0;
    uint32_t *keys = malloc(n * 4), *got = malloc(n * 4);
    test_fill_random(keys, n * 4, test_seed() + 13);
    cl_mem k = test_buffer(ctx, n * 4, keys);
    clperm_status st = clperm_sort_segments(ctx, CLPERM_KEY_U32, k, NULL, n, segment, CLPERM_TILE_SORT_AUTO, 0, NULL, NULL);
    clperm_sort_segments_host(CLPERM_KEY_U32, keys, NULL, n, segment);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, k, n * 4, got) != 0 || memcmp(got, keys, n * 4) != 0;
    if (bad) cr_log_error("tile sort segment %llu: %s", (unsigned long long)segment, clperm_status_name(st));
    clReleaseMemObject(k);
    free(keys), free(got);
    return bad;
}

static int check_rng(clperm_ctx *ctx, uint32_t k, uint64_t n) {
    clperm_rng_spec spec = {CLPERM_RNG_FAMILY_THREE, k, CLPERM_RNG_SCRAMBLE_NONE};
    uint32_t *want = malloc(n * 4), *got = malloc(n * 4);
    clperm_rng_fill_host(&spec, CLPERM_RNG_OUT_U32, want, n, test_seed(), 3);
    cl_mem b = test_buffer(ctx, n * 4, NULL);
    clperm_status st = clperm_rng_fill(ctx, &spec, CLPERM_RNG_OUT_U32, b, n, test_seed(), 3, 0, NULL, NULL);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, b, n * 4, got) != 0 || memcmp(got, want, n * 4) != 0;
    if (bad) cr_log_error("rng fill k=%u n=%llu: %s", k, (unsigned long long)n, clperm_status_name(st));
    clReleaseMemObject(b);
    free(want), free(got);
    return bad;
}

static int check_transpose(clperm_ctx *ctx, size_t es, uint64_t rows, uint64_t cols) {
    size_t bytes = rows * cols * es;
    void *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    test_fill_random(in, bytes, test_seed() + rows);
    clperm_transpose_host(in, want, rows, cols, es);
    cl_mem a = test_buffer(ctx, bytes, in), b = test_buffer(ctx, bytes, NULL);
    clperm_status st = clperm_transpose(ctx, a, b, rows, cols, es, 0, NULL, NULL);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, b, bytes, got) != 0 || memcmp(got, want, bytes) != 0;
    if (bad)
        cr_log_error("transpose %llu x %llu of %zu B: %s", (unsigned long long)rows, (unsigned long long)cols, es,
                     clperm_status_name(st));
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(in), free(want), free(got);
    return bad;
}

static int check_bit_reversal(clperm_ctx *ctx, size_t es, uint64_t n) {
    void *in = malloc(n * es), *want = malloc(n * es), *got = malloc(n * es);
    test_fill_random(in, n * es, test_seed() + 17);
    clperm_permute_bit_reversal_host(in, want, n, es);
    cl_mem a = test_buffer(ctx, n * es, in), b = test_buffer(ctx, n * es, NULL);
    clperm_status st = clperm_permute_bit_reversal(ctx, a, b, n, es, 0, NULL, NULL);
    int bad = st != CLPERM_SUCCESS || test_read(ctx, b, n * es, got) != 0 || memcmp(got, want, n * es) != 0;
    if (bad) cr_log_error("bit reversal n=%llu of %zu B: %s", (unsigned long long)n, es, clperm_status_name(st));
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    free(in), free(want), free(got);
    return bad;
}

/* Every family's operations at awkward sizes; the number that differ from the host. */
static int check_all(clperm_ctx *ctx) {
    int bad = 0;
    bad += check_scan(ctx, 4, 1, 0) + check_scan(ctx, 4, 4099, 1) + check_scan(ctx, 4, 70001, 0);
    bad += check_scan(ctx, 8, 70001, 0);
    for (int fusion = 1; fusion <= 3; fusion++) bad += check_shuffle(ctx, fusion, 70001);
    bad += check_shuffle(ctx, 0, 2) + check_shuffle(ctx, 0, 4097);
    bad += check_tiles(ctx, 256, 256 * 9 + 100) + check_tiles(ctx, 33, 1000);
    bad += check_segmented(ctx, 40000);
    bad += check_rng(ctx, 32, 10007) + check_rng(ctx, 8, 1000);
    bad += check_sort(ctx, CLPERM_KEY_U32, 0, 100003) + check_sort(ctx, CLPERM_KEY_U32, CLPERM_TYPE_U32, 30011);
    bad += check_sort(ctx, CLPERM_KEY_U64, 0, 30011) + check_sort(ctx, CLPERM_KEY_U64, CLPERM_TYPE_U64, 5003);
    bad += check_transpose(ctx, 4, 1000, 37) + check_transpose(ctx, 8, 301, 257) + check_transpose(ctx, 16, 65, 33);
    bad += check_bit_reversal(ctx, 4, 4096) + check_bit_reversal(ctx, 8, 1 << 13);
    return bad;
}

/* A tuning file for the device with every tunable at `pick` of its bounds, read at creation. The
 * default generator's k is a choice of numbers, not of speed: it keeps its row. */
static int extreme_run(const char *mode, int (*pick)(const clperm_tunable *t, const clperm_profile *p)) {
    const char *path = tmp_path(mode);
    int total = 0;
    TEST_EACH_DEVICE(ctx) {
        clperm_profile p;
        cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
        char families[8192] = "{";
        const char *family = NULL;
        size_t len = 1;
        for (size_t i = 0; i < clperm_tunable_count(); i++) {
            clperm_tunable t;
            clperm_tunable_info(i, &t);
            if (!strcmp(t.family, "rng") && !strcmp(t.name, "k")) continue;
            int first = !family || strcmp(family, t.family) != 0;
            if (first)
                len += (size_t)snprintf(families + len, sizeof families - len, "%s\"%s\": {\"values\": {",
                                        family ? "}}, " : "", t.family);
            len += (size_t)snprintf(families + len, sizeof families - len, "%s\"%s\": %d", first ? "" : ", ", t.name,
                                    pick(&t, &p));
            family = t.family;
        }
        snprintf(families + len, sizeof families - len, "}}}");
        write_entry(path, p.device_name, p.driver_version, families);
        cr_assert_eq(clperm_ctx_load_tuning(ctx, path), CLPERM_SUCCESS, "%s", families);
        int bad = check_all(ctx);
        if (bad) cr_log_error("%s: %d results differ with the tunables at their %s: %s", test_device_label(ctx), bad, mode, families);
        total += bad;
    }
    unlink(path);
    return total;
}

/* A valid value near v: a power of two, or a multiple of the subgroup width, as the flags ask. */
static int valid_near(const clperm_tunable *t, int v, const clperm_profile *p) {
    if (v <= 0) return t->lo;
    if (t->flags & CLPERM_PARAM_POW2)
        while (v & (v - 1)) v &= v - 1;
    if ((t->flags & CLPERM_PARAM_SG_MULTIPLE) && p->sg_width) {
        int w = (int)p->sg_width;
        v = v / w * w;
        if (v < t->lo) v = (t->lo + w - 1) / w * w;
    }
    return v;
}
static int pick_lo(const clperm_tunable *t, const clperm_profile *p) { return valid_near(t, t->lo, p); }
static int pick_hi(const clperm_tunable *t, const clperm_profile *p) { return valid_near(t, t->hi, p); }
/* Odd values in between: a third and two thirds of the way, made odd where the flags allow. */
static int pick_third(const clperm_tunable *t, const clperm_profile *p) {
    return valid_near(t, (t->lo + (t->hi - t->lo) / 3) | 1, p);
}
static int pick_two_thirds(const clperm_tunable *t, const clperm_profile *p) {
    return valid_near(t, (t->lo + 2 * (t->hi - t->lo) / 3) | 1, p);
}

Test(tuning_extremes, lo) { cr_assert_eq(extreme_run("lowest", pick_lo), 0); }
Test(tuning_extremes, hi) { cr_assert_eq(extreme_run("highest", pick_hi), 0); }
Test(tuning_extremes, third) { cr_assert_eq(extreme_run("third", pick_third), 0); }
Test(tuning_extremes, two_thirds) { cr_assert_eq(extreme_run("two_thirds", pick_two_thirds), 0); }

/* ---- a file from clperm tune (tests/run_tune_tiny.sh) ---- */

/* The file CLPERM_TUNE_OUTPUT, written by `clperm tune` for device CLPERM_TUNE_DEVICE, loads at
 * creation and changes exactly the values it names: each to the file's value, every other
 * tunable as the rows have it. */
Test(tuning_tune, output_loads_and_changes_what_it_names) {
    const char *path = getenv("CLPERM_TUNE_OUTPUT"), *dev = getenv("CLPERM_TUNE_DEVICE");
    if (!path || !dev) cr_skip_test("run by tests/run_tune_tiny.sh, after clperm tune");
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    cr_assert(doc, "clperm tune wrote JSON");
    setenv("CLPERM_TUNING_FILE", "off", 1);
    clperm_ctx *rows = NULL, *tuned = NULL;
    cr_assert_eq(clperm_ctx_create_device(&rows, dev), CLPERM_SUCCESS);
    clperm_profile p;
    clperm_ctx_profile(rows, &p);
    const cJSON *entry = NULL, *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "device");
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));
        const char *driver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "driver"));
        if (name && driver && !strcmp(name, p.device_name) && !strcmp(driver, p.driver_version)) entry = e;
    }
    cr_assert(entry, "an entry for %s", p.device_name);
    const cJSON *families = cJSON_GetObjectItemCaseSensitive(entry, "families");
    cr_assert(cJSON_GetArraySize(families) >= 1, "the file names a family");
    setenv("CLPERM_TUNING_FILE", path, 1);
    cr_assert_eq(clperm_ctx_create_device(&tuned, dev), CLPERM_SUCCESS);
    unsetenv("CLPERM_TUNING_FILE");
    int named = 0;
    for (size_t i = 0; i < clperm_tunable_count(); i++) {
        clperm_tunable t;
        int before, after;
        clperm_tunable_info(i, &t);
        clperm_ctx_get_tunable(rows, t.family, t.name, &before);
        clperm_ctx_get_tunable(tuned, t.family, t.name, &after);
        const cJSON *fam = cJSON_GetObjectItemCaseSensitive(families, t.family);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fam, "values"), t.name);
        if (v) {
            cr_assert(cJSON_IsNumber(v));
            cr_assert_eq(after, (int)v->valuedouble, "%s.%s: %d, the file says %d", t.family, t.name, after,
                         (int)v->valuedouble);
            named++;
        } else {
            cr_assert_eq(after, before, "%s.%s, which the file does not name, changed", t.family, t.name);
        }
        clperm_tuning_source src;
        clperm_ctx_tuning_source(tuned, t.family, &src, NULL);
        cr_assert_eq(src == CLPERM_TUNING_FILE, fam != NULL, "%s: source %s", t.family, clperm_tuning_source_name(src));
    }
    cr_assert(named > 0);
    /* Figures beside the values: tuned, and the built-in rows'. */
    const cJSON *fam;
    cJSON_ArrayForEach(fam, families) {
        const cJSON *fig = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fam, "figures"), 0);
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fig, "tuned_items_per_s")), "%s", fam->string);
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fig, "built_in_items_per_s")), "%s", fam->string);
    }
    clperm_ctx_free(rows);
    clperm_ctx_free(tuned);
    cJSON_Delete(doc);
}
