/* Threads and contexts under load, on every device present. Three arrangements:
 *   shared:   THREADS threads share one context (one queue);
 *   contexts: CONTEXTS contexts on the device, each its own cl_context and queue, a thread each;
 *   queues:   two contexts on one cl_context, a queue each, two threads, each op of a chain on the
 *             other queue than the op before, so that every wait crosses queues.
 * Each thread runs rounds on its own buffers: a chain of operations of every family (generator
 * fill, scans, shuffles out of and in place, copies, tile sort, partition, transpose, permutation,
 * reduction), each waiting on the event(s) of the one(s) before; the first of every third chain
 * waits on a user event that the thread completes only after the whole chain is enqueued. Every
 * output is compared with the host's. Sizes rotate through awkward ones.
 *
 * Short by default (a few rounds per thread). CLPERM_TEST_SOAK=S runs each arrangement for S
 * seconds per device instead (ctest -L soak) and logs rounds and operations per second. Threads
 * report failures to the main thread, which asserts (Criterion's asserts belong to it). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define THREADS 4
#define CONTEXTS 3
#define SHORT_ROUNDS 3
#define MAX_CTX 2

static const uint64_t round_sizes[] = {1, 2, 97, 1000, 4097, 20011, 65537, 63, 131072};
#define ROUND_SIZES (sizeof round_sizes / sizeof round_sizes[0])

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double soak_seconds(void) {
    const char *e = getenv("CLPERM_TEST_SOAK");
    return e && *e ? atof(e) : 0.0;
}

typedef struct worker {
    clperm_ctx *ctx[MAX_CTX]; /* op k of a chain runs on ctx[(k + id) % nctx] */
    int nctx, id;
    uint64_t seed;
    double until; /* run rounds until this time (and at least SHORT_ROUNDS) */
    uint64_t rounds, ops;
    char error[512]; /* empty when every round passed */
} worker;

#define FAIL(w, ...)                                                                               \
    do {                                                                                           \
        if (!(w)->error[0]) snprintf((w)->error, sizeof (w)->error, __VA_ARGS__);                   \
    } while (0)

/* The host's side of one chain. */
typedef struct reference {
    uint32_t *a, *b, *c, *d, *e, *t, *i, *f;
    uint64_t *p;
    uint32_t sum;
} reference;

typedef struct round_plan {
    uint64_t n, seed, seg, pseg, tcount;
    clperm_shuffle_opts shuffle, perm;
    clperm_rng_spec spec;
} round_plan;

static const uint32_t T_ROWS = 7, T_COLS = 9;

static int host_chain(const round_plan *r, reference *h) {
    uint64_t n = r->n;
    size_t bytes = (size_t)n * 4;
    h->a = malloc(bytes), h->b = malloc(bytes), h->c = malloc(bytes), h->d = malloc(bytes), h->e = malloc(bytes);
    h->i = malloc(bytes), h->f = malloc(bytes);
    h->t = malloc((size_t)r->tcount * T_ROWS * T_COLS * 4 + 4);
    h->p = malloc((size_t)n * 8);
    if (!h->a || !h->b || !h->c || !h->d || !h->e || !h->t || !h->p || !h->i || !h->f) return -1;
    if (clperm_rng_fill_host(&r->spec, CLPERM_RNG_OUT_U32, h->a, n, r->seed, 7) != CLPERM_SUCCESS) return -1;
    test_scan_ref(h->a, h->b, n, 4, 0);
    if (clperm_shuffle_host(h->b, h->c, n, 4, r->seed, &r->shuffle) != CLPERM_SUCCESS) return -1;
    memcpy(h->d, h->c, bytes);
    memcpy(h->e, h->c, bytes);
    if (clperm_sort_segments_host(CLPERM_KEY_U32, h->d, NULL, n, r->seg) != CLPERM_SUCCESS) return -1;
    if (clperm_partition_segments_host(CLPERM_KEY_U32, h->e, NULL, n, r->pseg, 0, 3) != CLPERM_SUCCESS) return -1;
    for (uint64_t m = 0; m < r->tcount; m++)
        for (uint32_t i = 0; i < T_ROWS; i++)
            for (uint32_t j = 0; j < T_COLS; j++)
                h->t[m * T_ROWS * T_COLS + j * T_ROWS + i] = h->a[m * T_ROWS * T_COLS + i * T_COLS + j];
    if (clperm_permutation_host(CLPERM_TYPE_U64, h->p, n, r->seed ^ 0x5555, &r->perm) != CLPERM_SUCCESS) return -1;
    h->sum = (uint32_t)test_sum_ref(h->a, n, 4);
    test_scan_ref(h->a, h->i, n, 4, 1);
    if (clperm_shuffle_host(h->c, h->f, n, 4, r->seed ^ 0xaaaa, &r->perm) != CLPERM_SUCCESS) return -1;
    return 0;
}

static void reference_free(reference *h) {
    free(h->a), free(h->b), free(h->c), free(h->d), free(h->e), free(h->t), free(h->p), free(h->i), free(h->f);
}

enum { BA, BB, BC, BD, BE, BT, BP, BS, BI, BF, BUFS };
static const char *const buf_names[BUFS] = {"fill", "scan", "shuffle", "sort", "partition", "transpose",
                                            "permutation", "sum", "inclusive scan", "shuffle in place"};

/* One chain: enqueue everything, release the user event, wait, read back, compare. */
static void run_round(worker *w) {
    uint64_t k = w->rounds;
    round_plan r;
    memset(&r, 0, sizeof r);
    r.n = round_sizes[(k + (uint64_t)w->id) % ROUND_SIZES];
    r.seed = w->seed + 1000003 * k + (uint64_t)w->id;
    static const clperm_shuffle_opts opts[] = {{CLPERM_BIJECTION_FEISTEL, 0, 0}, {CLPERM_BIJECTION_PHILOX, 0, 0},
                                               {CLPERM_BIJECTION_LCG, 0, 0}};
    r.shuffle = opts[k % 3];
    r.perm = opts[(k + 1) % 3];
    r.tcount = r.n / (T_ROWS * T_COLS);
    clperm_ctx *c0 = w->ctx[0];
    uint64_t max = 0;
    if (clperm_rng_default(c0, &r.spec) != CLPERM_SUCCESS ||
        clperm_sort_segment_max(c0, CLPERM_KEY_U32, 0, CLPERM_TILE_SORT_AUTO, &max) != CLPERM_SUCCESS) {
        FAIL(w, "thread %d: device queries failed", w->id);
        return;
    }
    r.seg = 256 + 7 * (uint64_t)w->id < max ? 256 + 7 * (uint64_t)w->id : max;
    if (clperm_partition_segment_max(c0, CLPERM_KEY_U32, 3, CLPERM_TILE_SORT_AUTO, &max) != CLPERM_SUCCESS) {
        FAIL(w, "thread %d: partition query failed", w->id);
        return;
    }
    r.pseg = 200 + 5 * (uint64_t)w->id < max ? 200 + 5 * (uint64_t)w->id : max;

    reference h;
    memset(&h, 0, sizeof h);
    if (host_chain(&r, &h) != 0) {
        FAIL(w, "thread %d: host chain failed", w->id);
        reference_free(&h);
        return;
    }

    uint64_t n = r.n;
    size_t sizes[BUFS] = {n * 4, n * 4, n * 4, n * 4, n * 4, r.tcount * T_ROWS * T_COLS * 4 + 4, n * 8, 4, n * 4, n * 4};
    cl_context cl = clperm_ctx_cl_context(c0);
    cl_mem b[BUFS] = {NULL};
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < BUFS && err == CL_SUCCESS; i++) b[i] = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizes[i], NULL, &err);
    cl_event user = NULL, ev[16] = {NULL};
    int nev = 0;
    if (err == CL_SUCCESS && k % 3 == 0) user = clCreateUserEvent(cl, &err);
    if (err != CL_SUCCESS) FAIL(w, "thread %d: buffers: %d", w->id, err);

/* Op number `op` on its context, waiting on the events listed. */
#define CTX(op) w->ctx[((op) + w->id) % w->nctx]
#define Q(op) clperm_ctx_cl_queue(CTX(op))
#define STEP(what, call)                                                                           \
    do {                                                                                           \
        if (w->error[0]) break;                                                                    \
        clperm_status st_ = (call);                                                                \
        if (st_ != CLPERM_SUCCESS) FAIL(w, "thread %d n=%llu: %s: %s", w->id, (unsigned long long)n, what, clperm_status_name(st_)); \
        else w->ops++;                                                                             \
    } while (0)

    cl_event e_fill = NULL, e_scan = NULL, e_shuf = NULL, e_cd = NULL, e_ce = NULL, e_sort = NULL, e_part = NULL,
             e_tr = NULL, e_perm = NULL, e_sum = NULL, e_inc = NULL, e_cf = NULL, e_inp = NULL;
    STEP("fill", clperm_rng_fill(CTX(0), &r.spec, CLPERM_RNG_OUT_U32, b[BA], n, r.seed, 7, user ? 1 : 0,
                                   user ? &user : NULL, &e_fill));
    STEP("scan", clperm_scan_exclusive(CTX(1), CLPERM_TYPE_U32, b[BA], b[BB], n, 1, &e_fill, &e_scan));
    STEP("shuffle", clperm_shuffle(CTX(2), b[BB], b[BC], n, 4, r.seed, &r.shuffle, 1, &e_scan, &e_shuf));
    STEP("copy", clEnqueueCopyBuffer(Q(3), b[BC], b[BD], 0, 0, n * 4, 1, &e_shuf, &e_cd));
    STEP("copy", clEnqueueCopyBuffer(Q(4), b[BC], b[BE], 0, 0, n * 4, 1, &e_shuf, &e_ce));
    STEP("sort", clperm_sort_segments(CTX(5), CLPERM_KEY_U32, b[BD], NULL, n, r.seg, CLPERM_TILE_SORT_AUTO, 1, &e_cd,
                                      &e_sort));
    cl_event two[2] = {e_ce, e_sort}; /* the partition waits on its copy and, for a longer chain, the sort */
    STEP("partition", clperm_partition_segments(CTX(6), CLPERM_KEY_U32, b[BE], NULL, n, r.pseg, 0, 3,
                                                CLPERM_TILE_SORT_AUTO, 2, two, &e_part));
    STEP("transpose", clperm_transpose_tiles(CTX(7), CLPERM_TYPE_U32, b[BA], b[BT], r.tcount, T_ROWS, T_COLS, 1,
                                             &e_part, &e_tr));
    STEP("permutation", clperm_permutation(CTX(8), CLPERM_TYPE_U64, b[BP], n, r.seed ^ 0x5555, &r.perm, 1, &e_tr,
                                           &e_perm));
    STEP("reduce", clperm_reduce_sum(CTX(9), CLPERM_TYPE_U32, b[BA], n, b[BS], 1, &e_perm, &e_sum));
    STEP("inclusive scan", clperm_scan_inclusive(CTX(10), CLPERM_TYPE_U32, b[BA], b[BI], n, 1, &e_sum, &e_inc));
    STEP("copy", clEnqueueCopyBuffer(Q(11), b[BC], b[BF], 0, 0, n * 4, 1, &e_inc, &e_cf));
    STEP("shuffle in place", clperm_shuffle_inplace(CTX(12), b[BF], n, 4, r.seed ^ 0xaaaa, &r.perm, 1, &e_cf, &e_inp));
    cl_event *all[] = {&e_fill, &e_scan, &e_shuf, &e_cd, &e_ce, &e_sort, &e_part, &e_tr, &e_perm, &e_sum, &e_inc, &e_cf,
                       &e_inp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ev[nev++] = *all[i];
#undef STEP
#undef Q
#undef CTX
    /* The chain is enqueued: let it start. Nothing above may have waited for it. */
    if (user) clSetUserEventStatus(user, w->error[0] ? -1 : CL_COMPLETE);
    if (!w->error[0] && clWaitForEvents(1, &e_inp) != CL_SUCCESS) FAIL(w, "thread %d: chain failed", w->id);
    if (w->error[0]) {
        /* Whatever was enqueued finishes (or fails) before the buffers go. */
        for (int i = 0; i < MAX_CTX && i < w->nctx; i++) clFinish(clperm_ctx_cl_queue(w->ctx[i]));
    }

    void *want[BUFS] = {h.a, h.b, h.c, h.d, h.e, h.t, h.p, &h.sum, h.i, h.f};
    size_t check[BUFS] = {n * 4, n * 4, n * 4, n * 4, n * 4, r.tcount * T_ROWS * T_COLS * 4, n * 8, 4, n * 4, n * 4};
    void *got = malloc(n * 8 + 64);
    for (int i = 0; i < BUFS && !w->error[0]; i++) {
        if (!check[i]) continue;
        if (!got || clEnqueueReadBuffer(clperm_ctx_cl_queue(w->ctx[0]), b[i], CL_TRUE, 0, check[i], got, 0, NULL,
                                        NULL) != CL_SUCCESS) {
            FAIL(w, "thread %d: read back failed", w->id);
            break;
        }
        if (memcmp(got, want[i], check[i]) != 0)
            FAIL(w, "thread %d round %llu n=%llu seed %#llx: %s differs from the host's", w->id,
                 (unsigned long long)k, (unsigned long long)n, (unsigned long long)r.seed, buf_names[i]);
    }
    free(got);
    for (int i = 0; i < nev; i++)
        if (ev[i]) clReleaseEvent(ev[i]);
    if (user) clReleaseEvent(user);
    for (int i = 0; i < BUFS; i++)
        if (b[i]) clReleaseMemObject(b[i]);
    reference_free(&h);
    w->rounds++;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    while (!w->error[0] && (w->rounds < SHORT_ROUNDS || now() < w->until)) run_round(w);
    return NULL;
}

/* Runs the workers to the end and asserts that all passed. */
static void run_workers(const char *arrangement, clperm_ctx *label_ctx, worker *ws, int count) {
    double soak = soak_seconds(), t0 = now();
    pthread_t tid[THREADS + CONTEXTS];
    for (int i = 0; i < count; i++) {
        ws[i].until = t0 + soak;
        cr_assert_eq(pthread_create(&tid[i], NULL, worker_main, &ws[i]), 0);
    }
    uint64_t rounds = 0, ops = 0;
    for (int i = 0; i < count; i++) {
        pthread_join(tid[i], NULL);
        rounds += ws[i].rounds;
        ops += ws[i].ops;
    }
    double t = now() - t0;
    cr_log_info("%s: %s, %d threads: %llu rounds, %llu operations in %.1f s (%.1f operations/s)",
                test_device_label(label_ctx), arrangement, count, (unsigned long long)rounds,
                (unsigned long long)ops, t, (double)ops / t);
    for (int i = 0; i < count; i++)
        cr_assert(!ws[i].error[0], "%s: %s: %s", test_device_label(label_ctx), arrangement, ws[i].error);
}

/* Runs one arrangement on every device present, with the run's seed. */
typedef void arrangement(size_t device, uint64_t seed);

static void on_every_device(const char *name, arrangement *run) {
    uint64_t seed = test_seed();
    cr_log_info("%s: seed %#llx (set CLPERM_TEST_SEED to replay)", name, (unsigned long long)seed);
    TEST_EACH_DEVICE_INDEX(d) run(d, seed);
}

static clperm_ctx *open_device(size_t d) {
    clperm_ctx *ctx = test_open(d);
    cr_assert(ctx, "cannot open device %zu", d);
    return ctx;
}

/* Whether ctx is Rusticl in a soak run: there one clperm context shared by four threads
 * (one in-order queue, chains behind user events) deadlocked inside Rusticl's locks after
 * minutes (docs/devices.md), so the soak would hang instead of failing; the short run keeps it. */
static int rusticl_soak(clperm_ctx *ctx) {
    clperm_profile p;
    cr_assert_eq(clperm_ctx_profile(ctx, &p), CLPERM_SUCCESS);
    if (soak_seconds() <= 0 || !strstr(p.platform_name, "rusticl")) return 0;
    cr_log_info("%s: soak of one shared context skipped (Rusticl deadlocks)", test_device_label(ctx));
    return 1;
}

static void shared_context(size_t d, uint64_t seed) {
    clperm_ctx *ctx = open_device(d);
    if (rusticl_soak(ctx)) {
        clperm_ctx_free(ctx);
        return;
    }
    worker ws[THREADS];
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < THREADS; i++) ws[i] = (worker){{ctx, NULL}, 1, i, seed, 0, 0, 0, ""};
    run_workers("one context", ctx, ws, THREADS);
    clperm_ctx_free(ctx);
}

static void several_contexts(size_t d, uint64_t seed) {
    clperm_ctx *ctx[CONTEXTS];
    worker ws[CONTEXTS];
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < CONTEXTS; i++) {
        ctx[i] = open_device(d);
        ws[i] = (worker){{ctx[i], NULL}, 1, i, seed, 0, 0, 0, ""};
    }
    run_workers("contexts of their own", ctx[0], ws, CONTEXTS);
    for (int i = 0; i < CONTEXTS; i++) clperm_ctx_free(ctx[i]);
}

static void queues_of_one_cl_context(size_t d, uint64_t seed) {
    clperm_ctx *first = open_device(d);
    clperm_profile p;
    cr_assert_eq(clperm_ctx_profile(first, &p), CLPERM_SUCCESS);
    if (strstr(p.platform_name, "rusticl")) {
        /* Rusticl (Mesa 22.3) deadlocks inside its own locks when two threads enqueue and wait on
         * two queues of one cl_context (docs/devices.md): the arrangement would hang, not fail. */
        cr_log_info("%s: two queues of one cl_context skipped (Rusticl deadlocks)", test_device_label(first));
        clperm_ctx_free(first);
        return;
    }
    cl_context cl = clperm_ctx_cl_context(first);
    cl_device_id dev = clperm_ctx_cl_device(first);
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
    cr_assert_eq(err, CL_SUCCESS);
    clperm_ctx *second = NULL;
    cr_assert_eq(clperm_ctx_create(&second, cl, dev, q), CLPERM_SUCCESS);
    clReleaseCommandQueue(q); /* the context retains it */
    clperm_ctx_set_param(second, CLPERM_PARAM_DISK_CACHE, 0);
    worker ws[2];
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < 2; i++) ws[i] = (worker){{first, second}, 2, i, seed, 0, 0, 0, ""};
    run_workers("two queues of one cl_context", first, ws, 2);
    clperm_ctx_free(second);
    clperm_ctx_free(first);
}

Test(threads, shared_context) { on_every_device("shared_context", shared_context); }
Test(threads, several_contexts) { on_every_device("several_contexts", several_contexts); }
Test(threads, queues_of_one_cl_context) { on_every_device("queues_of_one_cl_context", queues_of_one_cl_context); }
