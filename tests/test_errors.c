/* Bad input: every call returns a clear status, enqueues nothing and leaves the caller's buffers
 * as they were. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"
#include "internal.h"

#define N 1000
static clperm_ctx *ctx;
static cl_mem src, dst;
static uint32_t poison[N];

static void setup(void) {
    if (!test_device_count()) return;
    ctx = test_open(0);
    cr_assert(ctx);
    uint32_t in[N];
    test_fill_random(in, sizeof in, test_seed());
    memset(poison, 0x5a, sizeof poison);
    src = test_buffer(ctx, sizeof in, in);
    dst = test_buffer(ctx, sizeof poison, poison);
    cr_assert(src && dst);
}

static void teardown(void) {
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    clperm_ctx_free(ctx);
}

/* The destination still holds the poison pattern. */
static void expect_untouched(const char *what) {
    uint32_t out[N];
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(ctx)), CL_SUCCESS);
    cr_assert_eq(test_read(ctx, dst, sizeof out, out), 0);
    cr_assert_eq(memcmp(out, poison, sizeof out), 0, "%s wrote to the destination", what);
}

#define NEED_DEVICE()                                                                              \
    if (!ctx) test_no_device()

#define EXPECT_STATUS(call, want)                                                                  \
    do {                                                                                           \
        clperm_status s_ = (call);                                                                 \
        cr_assert_eq(s_, want, "%s returned %s, want %s", #call, clperm_status_name(s_), clperm_status_name(want)); \
    } while (0)

TestSuite(errors, .init = setup, .fini = teardown);

Test(errors, null_and_freed_context) {
    EXPECT_STATUS(clperm_scan_exclusive(NULL, CLPERM_TYPE_U32, src, dst, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT);
    NEED_DEVICE();
    clperm_ctx *other = test_open(0);
    cr_assert(other);
    clperm_ctx_free(other);
    EXPECT_STATUS(clperm_scan_exclusive(other, CLPERM_TYPE_U32, src, dst, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT);
    EXPECT_STATUS(clperm_reduce_sum(other, CLPERM_TYPE_U32, src, N, dst, 0, NULL, NULL), CLPERM_ERROR_INVALID_CONTEXT);
    EXPECT_STATUS(clperm_ctx_set_param(other, CLPERM_PARAM_SCAN_ALGORITHM, 1), CLPERM_ERROR_INVALID_CONTEXT);
    cr_assert_null(clperm_ctx_cl_queue(other));
    clperm_ctx_free(NULL); /* a no-op */
    expect_untouched("a call on a freed context");
}

Test(errors, null_buffers) {
    NEED_DEVICE();
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, NULL, dst, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_BUFFER);
    EXPECT_STATUS(clperm_scan_inclusive(ctx, CLPERM_TYPE_U32, src, NULL, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_BUFFER);
    EXPECT_STATUS(clperm_reduce_sum(ctx, CLPERM_TYPE_U32, src, N, NULL, 0, NULL, NULL), CLPERM_ERROR_INVALID_BUFFER);
    expect_untouched("a call with a NULL buffer");
}

Test(errors, buffers_too_small) {
    NEED_DEVICE();
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, N + 1, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
    /* Enough u32 items but not enough u64 ones. */
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U64, src, dst, N / 2 + 1, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
    cl_mem tiny = test_buffer(ctx, 4, NULL);
    EXPECT_STATUS(clperm_reduce_sum(ctx, CLPERM_TYPE_U64, src, N / 2, tiny, 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
    clReleaseMemObject(tiny);
    expect_untouched("a call with a short buffer");
}

Test(errors, sizes_that_overflow) {
    NEED_DEVICE();
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, UINT64_MAX / 2, 0, NULL, NULL), CLPERM_ERROR_SIZE_OVERFLOW);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U64, src, dst, UINT64_MAX / 8 + 1, 0, NULL, NULL), CLPERM_ERROR_SIZE_OVERFLOW);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U64, src, dst, (1ull << 60), 0, NULL, NULL), CLPERM_ERROR_BUFFER_TOO_SMALL);
    expect_untouched("a call with an overflowing size");
}

Test(errors, buffer_of_another_context) {
    NEED_DEVICE();
    clperm_ctx *other = test_open(0);
    cr_assert(other);
    cl_mem foreign = test_buffer(other, N * 4, NULL);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, foreign, dst, N, 0, NULL, NULL), CLPERM_ERROR_BUFFER_CONTEXT);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, foreign, N, 0, NULL, NULL), CLPERM_ERROR_BUFFER_CONTEXT);
    clReleaseMemObject(foreign);
    clperm_ctx_free(other);
    expect_untouched("a call with a foreign buffer");
}

Test(errors, read_only_destination) {
    NEED_DEVICE();
    cl_int err;
    cl_mem ro = clCreateBuffer(clperm_ctx_cl_context(ctx), CL_MEM_READ_ONLY, N * 4, NULL, &err);
    cr_assert(ro);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, ro, N, 0, NULL, NULL), CLPERM_ERROR_BUFFER_READ_ONLY);
    clReleaseMemObject(ro);
}

Test(errors, bad_type_and_event_list) {
    NEED_DEVICE();
    EXPECT_STATUS(clperm_scan_exclusive(ctx, (clperm_type)0, src, dst, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, (clperm_type)99, src, dst, N, 0, NULL, NULL), CLPERM_ERROR_INVALID_TYPE);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, N, 2, NULL, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    cl_event none[1] = {NULL};
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, N, 1, none, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, N, 0, none, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    /* An event of another cl_context (a second context on the same device). */
    clperm_ctx *other = test_open(0);
    cr_assert(other);
    cl_int err;
    cl_event foreign[1] = {clCreateUserEvent(clperm_ctx_cl_context(other), &err)};
    cr_assert_eq(err, CL_SUCCESS);
    clSetUserEventStatus(foreign[0], CL_COMPLETE);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, N, 1, foreign, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    EXPECT_STATUS(clperm_shuffle(ctx, src, dst, N, 4, 1, NULL, 1, foreign, NULL), CLPERM_ERROR_INVALID_EVENT_LIST);
    clReleaseEvent(foreign[0]);
    clperm_ctx_free(other);
    expect_untouched("a call with a bad type or event list");
}

Test(errors, zero_items) {
    NEED_DEVICE();
    cl_event ev = NULL;
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, src, dst, 0, 0, NULL, &ev), CLPERM_SUCCESS);
    cr_assert_not_null(ev, "n = 0 still returns an event when asked");
    cr_assert_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    EXPECT_STATUS(clperm_scan_inclusive(ctx, CLPERM_TYPE_U64, src, dst, 0, 0, NULL, NULL), CLPERM_SUCCESS);
    expect_untouched("a scan of no items");
    /* The sum of no items is 0, and only the first item is written. */
    EXPECT_STATUS(clperm_reduce_sum(ctx, CLPERM_TYPE_U32, src, 0, dst, 0, NULL, NULL), CLPERM_SUCCESS);
    uint32_t out[N];
    cr_assert_eq(test_read(ctx, dst, sizeof out, out), 0);
    cr_assert_eq(out[0], 0u);
    cr_assert_eq(memcmp(out + 1, poison + 1, sizeof out - 4), 0);
}

Test(errors, parameters) {
    int lo, hi, v;
    EXPECT_STATUS(clperm_param_bounds((clperm_param)999, &lo, &hi), CLPERM_ERROR_INVALID_PARAM);
    EXPECT_STATUS(clperm_param_bounds(CLPERM_PARAM_SG_WIDTH, &lo, &hi), CLPERM_SUCCESS);
    cr_assert_eq(lo, 1);
    cr_assert_eq(hi, 64);
    NEED_DEVICE();
    EXPECT_STATUS(clperm_ctx_set_param(ctx, (clperm_param)999, 1), CLPERM_ERROR_INVALID_PARAM);
    EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SG_WIDTH, 128), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SG_WIDTH, 24), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, 3), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, -1), CLPERM_ERROR_PARAM_OUT_OF_BOUNDS);
    EXPECT_STATUS(clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
    /* A value set is a value read back. */
    EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, 1), CLPERM_SUCCESS);
    EXPECT_STATUS(clperm_ctx_get_param(ctx, CLPERM_PARAM_SCAN_ALGORITHM, &v), CLPERM_SUCCESS);
    cr_assert_eq(v, 1);
    clperm_profile p;
    EXPECT_STATUS(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
    for (int impl = CLPERM_SG_IMPL_LOCAL; impl <= CLPERM_SG_IMPL_PTX; impl++)
        EXPECT_STATUS(clperm_ctx_set_param(ctx, CLPERM_PARAM_SG_IMPL, impl),
                      (p.sg_impls_available & (1u << impl)) ? CLPERM_SUCCESS : CLPERM_ERROR_UNSUPPORTED);
}

Test(errors, build_failure_keeps_the_log) {
    NEED_DEVICE();
    static const char bad[] = "__kernel void broken(__global int *p) { p[0] = undeclared_name; }";
    const char *texts[1] = {bad};
    size_t lengths[1] = {sizeof bad - 1};
    clperm__source source = {"broken", 1, texts, lengths};
    cl_kernel k = NULL;
    cr_assert_eq(clperm__ctx_enter(ctx), CLPERM_SUCCESS);
    clperm_status st = clperm__kernel_get(ctx, &source, "", "broken", &k);
    clperm__ctx_leave(ctx);
    cr_assert_eq(st, CLPERM_ERROR_BUILD_FAILED, "got %s", clperm_status_name(st));
    cr_assert_null(k);
    cr_assert_neq(strlen(clperm_ctx_build_log(ctx)), 0, "the compiler's log is kept");
}

Test(errors, out_of_order_queue_refused) {
    NEED_DEVICE();
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(clperm_ctx_cl_device(ctx), CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) cr_skip_test("device has no out-of-order queues");
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clperm_ctx_cl_context(ctx), clperm_ctx_cl_device(ctx),
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    cr_assert(q);
    clperm_ctx *c = NULL;
    EXPECT_STATUS(clperm_ctx_create(&c, clperm_ctx_cl_context(ctx), clperm_ctx_cl_device(ctx), q),
                  CLPERM_ERROR_QUEUE_OUT_OF_ORDER);
    cr_assert_null(c);
    clReleaseCommandQueue(q);
}

Test(errors, device_selector) {
    clperm_ctx *c = NULL;
    EXPECT_STATUS(clperm_ctx_create_device(&c, "no such device anywhere"),
                  test_device_count() ? CLPERM_ERROR_DEVICE_NOT_FOUND : CLPERM_ERROR_NO_DEVICE);
    EXPECT_STATUS(clperm_ctx_create_device(&c, "4096"),
                  test_device_count() ? CLPERM_ERROR_DEVICE_NOT_FOUND : CLPERM_ERROR_NO_DEVICE);
    cr_assert_null(c);
    EXPECT_STATUS(clperm_ctx_create(NULL, NULL, NULL, NULL), CLPERM_ERROR_INVALID_ARGUMENT);
}

/* Names and messages come from one list: every code has both, and they are distinct. */
Test(errors, status_names) {
    static const clperm_status codes[] = {
#define X(name, value, msg) value,
        CLPERM_STATUS_MAP(X)
#undef X
    };
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        cr_assert_neq(strcmp(clperm_status_name(codes[i]), "CLPERM_UNKNOWN_STATUS"), 0);
        cr_assert_neq(strcmp(clperm_status_string(codes[i]), "unknown status"), 0);
        for (size_t j = 0; j < i; j++) {
            cr_assert_neq(codes[i], codes[j]);
            cr_assert_neq(strcmp(clperm_status_name(codes[i]), clperm_status_name(codes[j])), 0);
        }
    }
    cr_assert_str_eq(clperm_status_name(CLPERM_ERROR_BUFFER_TOO_SMALL), "CLPERM_ERROR_BUFFER_TOO_SMALL");
    cr_assert_str_eq(clperm_status_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    cr_assert_str_eq(clperm_status_name(-4242), "CLPERM_UNKNOWN_STATUS");
    cr_assert_eq(CLPERM_ERROR_INVALID_ARGUMENT, -1000, "published values are pinned");
}

/* Sub-buffers that share memory are refused where the buffers must be distinct; disjoint ones and
 * an exact in-place range are accepted. */
Test(errors, overlapping_buffers) {
    NEED_DEVICE();
    cl_uint align_bits = 0;
    cr_assert_eq(clGetDeviceInfo(clperm_ctx_cl_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                                 &align_bits, NULL), CL_SUCCESS);
    size_t align = align_bits / 8 < 4096 ? 4096 : align_bits / 8, part = 4 * align;
    unsigned char *fill = malloc(3 * part);
    cr_assert(fill);
    memset(fill, 0x5a, 3 * part);
    cl_mem whole = test_buffer(ctx, 3 * part, fill);
    cr_assert(whole);
    cl_int err;
    cl_buffer_region ra = {0, 2 * part}, rb = {align, 2 * part}, rc = {2 * part, part};
    cl_mem a = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
    cl_mem b = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &err);
    cl_mem c = clCreateSubBuffer(whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rc, &err);
    cr_assert(a && b && c);
    uint64_t n = part / 4;
    EXPECT_STATUS(clperm_shuffle(ctx, a, b, n, 4, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    /* A buffer and a sub-buffer of it: the first 2 parts of `whole` against b, which starts inside them. */
    EXPECT_STATUS(clperm_shuffle(ctx, whole, b, 2 * n, 4, 1, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, a, b, n, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    /* Overlapping objects even where the bytes used are disjoint (7 items from b's start, which lies
     * `align` bytes into a): OpenCL leaves such use undefined, and NVIDIA's driver corrupted its heap. */
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, b, a, 7, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    EXPECT_STATUS(clperm_transpose_tiles(ctx, CLPERM_TYPE_U32, a, b, n / 256, 16, 16, 0, NULL, NULL),
                  CLPERM_ERROR_BUFFER_OVERLAP);
    EXPECT_STATUS(clperm_sort_segments(ctx, CLPERM_KEY_U32, a, b, n, 64, CLPERM_TILE_SORT_AUTO, 0, NULL, NULL),
                  CLPERM_ERROR_BUFFER_OVERLAP);
    clperm_sort_request sort_pairs = {CLPERM_KEY_U32, a, CLPERM_TYPE_U32, b, n, {0, 0, 0}, NULL, NULL, 0};
    clperm_sort_request sort_temp = {CLPERM_KEY_U32, a, 0, NULL, n, {0, 0, 0}, b, NULL, 0};
    EXPECT_STATUS(clperm_sort(ctx, &sort_pairs, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    EXPECT_STATUS(clperm_sort(ctx, &sort_temp, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    /* Out of place: the output over the input. */
    sort_temp.temp_keys = NULL;
    EXPECT_STATUS(clperm_sort_into(ctx, &sort_temp, b, NULL, 0, NULL, NULL), CLPERM_ERROR_BUFFER_OVERLAP);
    unsigned char *back = malloc(3 * part);
    cr_assert(back);
    cr_assert_eq(test_read(ctx, whole, 3 * part, back), 0);
    cr_assert_eq(memcmp(back, fill, 3 * part), 0, "a refused call wrote to the buffers");
    /* Disjoint sub-buffers of one buffer, and an in-place scan of one range, are fine. */
    EXPECT_STATUS(clperm_shuffle(ctx, a, c, n, 4, 1, NULL, 0, NULL, NULL), CLPERM_SUCCESS);
    EXPECT_STATUS(clperm_scan_exclusive(ctx, CLPERM_TYPE_U32, c, c, n, 0, NULL, NULL), CLPERM_SUCCESS);
    cr_assert_eq(clFinish(clperm_ctx_cl_queue(ctx)), CL_SUCCESS);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseMemObject(whole);
    free(fill);
    free(back);
}

/* Every tunable has a name that leads back to it, and the bounds the table gives. */
Test(errors, parameter_names) {
    int count = 0;
#define X(name, value, lo, hi, flags, text)                                                        \
    do {                                                                                           \
        clperm_param p;                                                                            \
        int l, h;                                                                                  \
        cr_assert_str_eq(clperm_param_name(CLPERM_PARAM_##name), text);                            \
        EXPECT_STATUS(clperm_param_from_name(text, &p), CLPERM_SUCCESS);                           \
        cr_assert_eq(p, CLPERM_PARAM_##name);                                                      \
        EXPECT_STATUS(clperm_param_bounds(CLPERM_PARAM_##name, &l, &h), CLPERM_SUCCESS);            \
        cr_assert(l == lo && h == hi);                                                             \
        count++;                                                                                   \
    } while (0);
    CLPERM_PARAM_MAP(X)
#undef X
    cr_assert_gt(count, 10);
    clperm_param p = CLPERM_PARAM_SG_WIDTH;
    EXPECT_STATUS(clperm_param_from_name("no_such_param", &p), CLPERM_ERROR_INVALID_PARAM);
    cr_assert_eq(p, CLPERM_PARAM_SG_WIDTH, "a failed lookup wrote its result");
    cr_assert_null(clperm_param_name((clperm_param)0));
    cr_assert_null(clperm_param_name((clperm_param)999));
}

/* The library names every value of its enums, and nothing else. */
Test(errors, enum_names) {
    cr_assert_str_eq(clperm_bijection_name(CLPERM_BIJECTION_FEISTEL), "feistel");
    cr_assert_str_eq(clperm_rng_family_name(CLPERM_RNG_FAMILY_BUFFERED), "buffered");
    cr_assert_str_eq(clperm_rng_output_name(CLPERM_RNG_OUT_DOUBLE), "double");
    cr_assert_str_eq(clperm_rng_scramble_name(CLPERM_RNG_SCRAMBLE_STARSTAR), "starstar");
    cr_assert_str_eq(clperm_type_name(CLPERM_TYPE_U64), "u64");
    cr_assert_str_eq(clperm_tile_sort_name(CLPERM_TILE_SORT_BITONIC_PADDED), "bitonic-padded");
    cr_assert_str_eq(clperm_shuffle_fusion_name(CLPERM_FUSION_LOOKBACK), "bijective2");
    cr_assert_str_eq(clperm_kernel_kind_name(CLPERM_KERNEL_SERIAL), "serial");
    cr_assert_null(clperm_bijection_name((clperm_bijection)0));
    cr_assert_null(clperm_rng_output_name((clperm_rng_output)5));
    cr_assert_null(clperm_rng_scramble_name((clperm_rng_scramble)2));
    cr_assert_null(clperm_type_name((clperm_type)-1));
    cr_assert_null(clperm_tile_sort_name((clperm_tile_sort)99));
    cr_assert_str_eq(clperm_vendor_name((clperm_vendor)77), "other");
}
