/* The offline permutations in `clperm bench` (op permute): the conventional D-designated
 * (scatter) and S-designated (gather) permutations, the scheduled permutation and the specialised
 * regular kernels, on the identity, random, transpose, perfect-shuffle and bit-reversal
 * permutations; and the mode that lays the figures out as Table 2 of Kasagi, Nakano and Ito. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { P_IDENTITY, P_RANDOM, P_TRANSPOSE, P_SHUFFLE, P_BIT_REVERSAL, P_KINDS };
static const char *const perm_names[P_KINDS] = {"identity", "random", "transpose", "shuffle", "bit-reversal"};

enum { A_D, A_S, A_SCHED, A_SCHED_OTHER, A_SPECIAL, A_KINDS };

/* The most square rows x cols = n: the transpose permutation's matrix. */
static uint64_t square_rows(uint64_t n) {
    uint64_t r = (uint64_t)sqrt((double)n);
    while (r * r > n) r--;
    while ((r + 1) * (r + 1) <= n) r++;
    while (r > 1 && n % r) r--;
    return r ? r : 1;
}

static unsigned log2_of(uint64_t n) {
    unsigned k = 0;
    while ((UINT64_C(1) << k) < n) k++;
    return k;
}

/* p (dst[p[i]] = src[i]) of `kind` on n items; 0 when the kind needs a power of two. */
static int make_perm(uint32_t *p, uint64_t n, int kind) {
    int pow2 = !(n & (n - 1));
    if ((kind == P_SHUFFLE || kind == P_BIT_REVERSAL) && !pow2) return 0;
    unsigned k = log2_of(n);
    uint64_t rows = square_rows(n), cols = n / rows, z = 0x5eed0007;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = i;
        if (kind == P_TRANSPOSE) d = (i % cols) * rows + i / cols;
        if (kind == P_SHUFFLE && k) d = ((i << 1) | (i >> (k - 1))) & (n - 1);
        if (kind == P_BIT_REVERSAL) {
            d = 0;
            for (unsigned b = 0; b < k; b++) d |= (i >> b & 1) << (k - 1 - b);
        }
        p[i] = (uint32_t)d;
    }
    for (uint64_t i = n; kind == P_RANDOM && i > 1; i--) {
        z += 0x9e3779b97f4a7c15ull;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        uint64_t j = x % i;
        uint32_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    return 1;
}

typedef struct pb_state {
    clperm_ctx *ctx;
    cl_command_queue queue;
    uint64_t n;
    size_t es;
    int kind;
    cl_mem src, dst, p, q;
    clperm_perm_plan *plan;
} pb_state;

typedef struct pb_call {
    pb_state *s;
    int algorithm;
} pb_call;

/* One run of an algorithm. */
static cl_int pb_run(bench_dev *d, void *arg) {
    (void)d;
    const pb_call *c = arg;
    pb_state *s = c->s;
    switch (c->algorithm) {
    case A_D: return clperm_permute_scatter(s->ctx, s->src, s->dst, s->n, s->es, CLPERM_TYPE_U32, s->p, 0, NULL, NULL);
    case A_S: return clperm_permute_gather(s->ctx, s->src, s->dst, s->n, s->es, CLPERM_TYPE_U32, s->q, 0, NULL, NULL);
    case A_SPECIAL:
        if (s->kind == P_TRANSPOSE) {
            uint64_t rows = square_rows(s->n);
            return clperm_transpose(s->ctx, s->src, s->dst, rows, s->n / rows, s->es, 0, NULL, NULL);
        }
        if (s->kind == P_SHUFFLE) return clperm_permute_shuffle(s->ctx, s->src, s->dst, s->n, s->es, 0, 0, NULL, NULL);
        return clperm_permute_bit_reversal(s->ctx, s->src, s->dst, s->n, s->es, 0, NULL, NULL);
    default: return clperm_perm_plan_execute(s->plan, s->src, s->dst, s->es, 0, NULL, NULL);
    }
}

static cl_mem upload(clperm_ctx *ctx, const void *host, size_t bytes, char *err, size_t errcap) {
    cl_int e;
    cl_mem m = clCreateBuffer(clperm_ctx_cl_context(ctx), CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &e);
    if (!m) snprintf(err, errcap, "allocating %zu bytes: %s", bytes, clperm_status_name(e));
    return m;
}

static void release(cl_mem *m) {
    if (*m) clReleaseMemObject(*m);
    *m = NULL;
}

static const char *type_name(size_t es) { return es == 4 ? "u32" : es == 8 ? "u64" : "16B"; }

static void variant_name(char *buf, size_t cap, int a, int fusion, int kind, size_t es) {
    const char *algo = a == A_D ? "d-designated" : a == A_S ? "s-designated" : NULL;
    if (a == A_SPECIAL) {
        snprintf(buf, cap, "%s-%zuB", perm_names[kind], es);
        return;
    }
    if (!algo) algo = a == A_SCHED ? "scheduled" : fusion == 1 ? "scheduled5" : "scheduled3";
    snprintf(buf, cap, "%s-%s-%zuB", algo, perm_names[kind], es);
}

/* Builds the plan of p with the device's default passes (other = 0) or the other structure. */
static clperm_perm_plan *make_plan(clperm_ctx *ctx, const uint32_t *p, uint64_t n, int other, clperm_status *st) {
    clperm_perm_plan_opts opts = {NULL, NULL, 0, 0};
    clperm_perm_plan *plan = NULL;
    clperm_perm_plan_info info;
    *st = clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, n, &opts);
    if (*st != CLPERM_SUCCESS || !other) return plan;
    clperm_perm_plan_query(plan, &info);
    clperm_perm_plan_free(plan);
    plan = NULL;
    opts.fusion = info.fusion == 1 ? 2 : 1;
    *st = clperm_perm_plan_create(ctx, &plan, CLPERM_TYPE_U32, p, n, &opts);
    return plan;
}

int bench_permute(bench_dev *d, uint64_t n, int mode, const size_t *sizes, int nsizes, const bench_timing *t,
                  int verify, bench_emit_fn emit, void *user) {
    int failures = 0;
    char err[256] = "", variant[48];
    clperm_ctx *ctx = bench_dev_ctx(d);
    pb_state s = {ctx, clperm_ctx_cl_queue(ctx), n, 0, 0, NULL, NULL, NULL, NULL, NULL};
    size_t max_es = 0;
    for (int e = 0; e < nsizes; e++) max_es = sizes[e] > max_es ? sizes[e] : max_es;
    if (n > UINT32_MAX / 2 || !max_es) return 0;
    verify = verify && n <= (UINT64_C(1) << 24);
    const size_t bytes = (size_t)n * max_es;
    uint32_t *p = malloc((size_t)n * 4), *q = malloc((size_t)n * 4);
    unsigned char *src = malloc(bytes), *want = verify ? malloc(bytes) : NULL, *got = verify ? malloc(bytes) : NULL;
    clperm_perm_plan *plans[2] = {NULL, NULL};
    if (!p || !q || !src || (verify && (!want || !got))) {
        fprintf(stderr, " permute: out of host memory\n  ");
        failures++;
        goto done;
    }
    uint64_t z = 0x5eed0008;
    for (size_t i = 0; i < bytes; i += 8) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t x = z ^ (z >> 29);
        memcpy(src + i, &x, bytes - i < 8 ? bytes - i : 8);
    }
    /* Buffers for the widest item, used by every size. */
    s.src = upload(ctx, src, bytes, err, sizeof err);
    s.dst = s.src ? upload(ctx, NULL, bytes, err, sizeof err) : NULL;
    if (!s.dst) {
        fprintf(stderr, " permute skipped: %s\n  ", err);
        goto done;
    }
    for (int kind = 0; kind < P_KINDS; kind++) {
        if (mode == BENCH_PERMUTE_HEADLINE && kind != P_RANDOM) continue;
        if (!make_perm(p, n, kind)) continue;
        for (uint64_t i = 0; i < n; i++) q[p[i]] = (uint32_t)i;
        release(&s.p), release(&s.q);
        s.kind = kind;
        s.p = upload(ctx, p, (size_t)n * 4, err, sizeof err);
        s.q = s.p ? upload(ctx, q, (size_t)n * 4, err, sizeof err) : NULL;
        if (!s.q) {
            fprintf(stderr, " permute %s skipped: %s\n  ", perm_names[kind], err);
            continue;
        }
        /* The plans, made once and run on every item size; their construction times as rows. */
        for (int other = 0; other < (mode == BENCH_PERMUTE_FULL ? 2 : 1); other++) {
            clperm_status st;
            plans[other] = make_plan(ctx, p, n, other, &st);
            clperm_perm_plan_info info;
            if (st == CLPERM_SUCCESS) st = clperm_perm_plan_query(plans[other], &info);
            if (st != CLPERM_SUCCESS) {
                fprintf(stderr, " permute plan %s FAILED: %s\n  ", perm_names[kind], clperm_status_name(st));
                failures += st != CLPERM_ERROR_UNSUPPORTED;
                continue;
            }
            uint64_t pb = 0;
            clperm_perm_plan_bytes(plans[other], max_es, &pb);
            snprintf(variant, sizeof variant, "build%d-%s-%ux%u", info.fusion == 1 ? 5 : 3, perm_names[kind], info.rows,
                     info.cols);
            emit(user, "permute_plan", variant, "u32", 4, info.seconds_total, 0, pb);
        }
        for (int e = 0; e < nsizes; e++) {
            size_t es = sizes[e];
            s.es = es;
            if (verify) clperm_permute_scatter_host(src, want, n, es, CLPERM_TYPE_U32, p);
            for (int a = 0; a < A_KINDS; a++) {
                if (mode == BENCH_PERMUTE_HEADLINE && a != A_SCHED) continue;
                if (mode != BENCH_PERMUTE_FULL && a == A_SCHED_OTHER) continue;
                if (a == A_SPECIAL && (kind == P_IDENTITY || kind == P_RANDOM)) continue;
                int fusion = 0;
                if (a == A_SCHED || a == A_SCHED_OTHER) {
                    s.plan = plans[a == A_SCHED_OTHER];
                    if (!s.plan) continue;
                    clperm_perm_plan_info info;
                    clperm_perm_plan_query(s.plan, &info);
                    fusion = info.fusion;
                }
                variant_name(variant, sizeof variant, a, fusion, kind, es);
                fprintf(stderr, ", permute %s", variant);
                fflush(stderr);
                pb_call call = {&s, a};
                double sec = bench_timed(d, pb_run, &call, t, err, sizeof err);
                if (sec >= 0 && verify &&
                    (clEnqueueReadBuffer(s.queue, s.dst, CL_TRUE, 0, (size_t)n * es, got, 0, NULL, NULL) != CL_SUCCESS ||
                     memcmp(got, want, (size_t)n * es) != 0)) {
                    snprintf(err, sizeof err, "differs from the host's permutation");
                    sec = -1;
                }
                uint64_t extra = 0;
                if (s.plan) clperm_perm_plan_bytes(s.plan, es, &extra);
                s.plan = NULL;
                if (sec < 0) {
                    fprintf(stderr, " FAILED: %s\n  ", err);
                    failures++;
                    continue;
                }
                emit(user, "permute", variant, type_name(es), (int)es, sec, 2.0 * (double)es, extra);
            }
        }
        clperm_perm_plan_free(plans[0]), clperm_perm_plan_free(plans[1]);
        plans[0] = plans[1] = NULL;
    }
done:
    release(&s.src), release(&s.dst), release(&s.p), release(&s.q);
    free(p), free(q), free(src), free(want), free(got);
    return failures;
}

/* ---- Table 2 ---- */

static const char *const t2_algos[] = {"d-designated", "s-designated", "scheduled", NULL};

/* The median ms of the row for (algorithm, permutation, item size, n), or -1. */
static double t2_ms(const bench_row *rows, size_t nrows, const char *device, int a, int kind, size_t es, uint64_t n) {
    char want[48];
    if (t2_algos[a])
        snprintf(want, sizeof want, "%s-%s-%zuB", t2_algos[a], perm_names[kind], es);
    else
        snprintf(want, sizeof want, "%s-%zuB", perm_names[kind], es);
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].n == n && !strcmp(rows[i].op, "permute") && !strcmp(rows[i].variant, want) &&
            !strcmp(rows[i].device, device))
            return rows[i].seconds * 1e3;
    return -1;
}

static double t2_bound(const bench_row *rows, size_t nrows, const char *device, const char *op, uint64_t n) {
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].n == n && !strcmp(rows[i].op, op) && !strcmp(rows[i].device, device)) return rows[i].seconds * 1e3;
    return -1;
}

void bench_permute_table2_print(FILE *f, const bench_row *rows, size_t nrows, const uint64_t *sqrt32, int n32,
                                const uint64_t *sqrt64, int n64) {
    static const char *const algo_titles[] = {"D-designated", "S-designated", "Scheduled", "In-place"};
    static const int order[] = {P_IDENTITY, P_RANDOM, P_TRANSPOSE, P_SHUFFLE, P_BIT_REVERSAL};
    const char *devices[32];
    int ndev = 0;
    for (size_t i = 0; i < nrows && ndev < 32; i++) {
        int seen = 0;
        for (int k = 0; k < ndev; k++) seen |= !strcmp(devices[k], rows[i].device);
        if (!seen && !strcmp(rows[i].op, "permute")) devices[ndev++] = rows[i].device;
    }
    for (int dv = 0; dv < ndev; dv++)
        for (int part = 0; part < 2; part++) {
            size_t es = part ? 8 : 4;
            const uint64_t *sq = part ? sqrt64 : sqrt32;
            int ns = part ? n64 : n32;
            if (!ns) continue;
            fprintf(f, "\nTable 2 (%c) on %s: milliseconds, %s items, sqrt(n) =", part ? 'b' : 'a', devices[dv],
                    part ? "64-bit" : "32-bit");
            for (int s = 0; s < ns; s++) fprintf(f, " %llu", (unsigned long long)sq[s]);
            fprintf(f, "\n%-13s", "");
            for (int a = 0; a < 4; a++) fprintf(f, " | %-*s", 9 * ns - 1, algo_titles[a]);
            fprintf(f, "\n");
            for (int k = 0; k < P_KINDS; k++) {
                fprintf(f, "%-13s", perm_names[order[k]]);
                for (int a = 0; a < 4; a++) {
                    fprintf(f, " |");
                    for (int s = 0; s < ns; s++) {
                        double ms = t2_ms(rows, nrows, devices[dv], a, order[k], es, sq[s] * sq[s]);
                        if (ms < 0) fprintf(f, " %8s", "-");
                        else fprintf(f, " %8.3f", ms);
                    }
                }
                fprintf(f, "\n");
            }
            for (int b = 0; b < 2; b++) {
                fprintf(f, "%-13s", b ? "gather bound" : "copy bound");
                fprintf(f, " |");
                for (int s = 0; s < ns; s++) {
                    /* the bounds move 64-bit items: scaled to this item size */
                    double ms = t2_bound(rows, nrows, devices[dv], b ? "gather" : "copy", sq[s] * sq[s]);
                    if (ms < 0) fprintf(f, " %8s", "-");
                    else fprintf(f, " %8.3f", b ? ms : ms * (double)es / 8.0);
                }
                fprintf(f, "\n");
            }
        }
    fprintf(f, "(copy bound: the device's copy of the same bytes; gather bound: its random gather of as many "
               "64-bit items through a u32 index array)\n");
}
