/* The offline permutations in `clperm bench` (Kasagi, Nakano, Ito; cases "permute" in cases.c):
 * the conventional D-designated (scatter) and S-designated (gather) permutations, the scheduled
 * permutation and the specialised regular kernels, on the identity, random, transpose,
 * perfect-shuffle and bit-reversal permutations; the plans' construction; and the summary that
 * lays the figures out as Table 2 of the paper (--table2).
 *
 * A device keeps one permutation at a time with its index arrays and plans (bench_permute_state):
 * the case table lists a permutation's cases together, so that each is made once per size. Its
 * buffers stay while a smaller n fits them: `clperm tune` checks each candidate at a small size
 * before it times it, and would otherwise time every candidate on fresh allocations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DATA_SEED 0x5eed0008u
#define PERM_SEED 0x5eed0007u

static const char *const perm_names[BENCH_PERM_KINDS] = {"identity", "random", "transpose", "shuffle",
                                                         "bit-reversal"};

struct bench_permute_state {
    uint64_t n;         /* items of the permutation, 0: none */
    uint64_t cap;       /* items src and dst (16 bytes each), p_buf and q_buf have room for, 0: none */
    int perm;           /* the permutation p and the index buffers hold, -1: none */
    int default_fusion; /* the device's pass structure of the scheduled permutation, 0: not known */
    uint32_t *p;        /* dst[p[i]] = src[i] */
    cl_mem src, dst, p_buf, q_buf;
    clperm_perm_plan *plans[3]; /* of p, by fusion (0: the device's default) */
};

static void release(cl_mem *m) {
    if (*m) clReleaseMemObject(*m);
    *m = NULL;
}

/* Forgets the permutation and its plans; the index buffers stay for the next one. */
static void forget_perm(bench_permute_state *s) {
    for (int f = 0; f < 3; f++) clperm_perm_plan_free(s->plans[f]);
    memset(s->plans, 0, sizeof s->plans);
    free(s->p);
    s->p = NULL;
    s->perm = -1;
}

void bench_permute_free(bench_permute_state *s) {
    if (!s) return;
    forget_perm(s);
    release(&s->p_buf);
    release(&s->q_buf);
    release(&s->src);
    release(&s->dst);
    free(s);
}

static bench_permute_state *state(bench_dev *d, char *err, size_t errcap) {
    if (!d->permute) {
        d->permute = calloc(1, sizeof *d->permute);
        if (!d->permute) snprintf(err, errcap, "out of host memory");
        else d->permute->perm = -1;
    }
    return d->permute;
}

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

static int is_pow2(uint64_t n) { return n && !(n & (n - 1)); }

/* p (dst[p[i]] = src[i]) of permutation `perm` on n items (a power of two for the shuffle and the
 * bit reversal). */
static void make_perm(uint32_t *p, uint64_t n, int perm) {
    unsigned k = log2_of(n);
    uint64_t rows = square_rows(n), cols = n / rows, z = PERM_SEED;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = i;
        if (perm == BENCH_PERM_TRANSPOSE) d = (i % cols) * rows + i / cols;
        if (perm == BENCH_PERM_SHUFFLE && k) d = ((i << 1) | (i >> (k - 1))) & (n - 1);
        if (perm == BENCH_PERM_BIT_REVERSAL) {
            d = 0;
            for (unsigned b = 0; b < k; b++) d |= (i >> b & 1) << (k - 1 - b);
        }
        p[i] = (uint32_t)d;
    }
    for (uint64_t i = n; perm == BENCH_PERM_RANDOM && i > 1; i--) {
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
}

/* The input: `bytes` pseudo-random bytes, the same for every item size (its first n * es bytes). */
static void make_data(unsigned char *buf, size_t bytes) {
    uint64_t z = DATA_SEED;
    for (size_t i = 0; i < bytes; i += 8) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t x = z ^ (z >> 29);
        memcpy(buf + i, &x, bytes - i < 8 ? bytes - i : 8);
    }
}

static cl_mem upload(bench_dev *d, const void *host, size_t bytes, char *err, size_t errcap) {
    cl_int e;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem m = clCreateBuffer(d->context, flags, bytes, (void *)host, &e);
    if (!m) snprintf(err, errcap, "allocating %zu bytes: %s", bytes, clperm_status_name(e));
    return m;
}

/* `bytes` of host into *m, made first with room for cap_bytes where it does not exist yet. */
static int put(bench_dev *d, cl_mem *m, size_t cap_bytes, const void *host, size_t bytes, char *err, size_t errcap) {
    if (!*m && !(*m = upload(d, NULL, cap_bytes, err, errcap))) return -1;
    if (clEnqueueWriteBuffer(d->queue, *m, CL_TRUE, 0, bytes, host, 0, NULL, NULL) != CL_SUCCESS) {
        snprintf(err, errcap, "writing %zu bytes to the device failed", bytes);
        return -1;
    }
    return 0;
}

/* The device's state for permutation `perm` of n items: data buffers for 16-byte items, p and
 * its inverse q on the device. */
static bench_permute_state *prepare(bench_dev *d, uint64_t n, int perm, char *err, size_t errcap) {
    bench_permute_state *s = state(d, err, errcap);
    if (!s) return NULL;
    if (s->cap < n) {
        /* The input is a prefix of one stream (make_data), so any n up to cap reads its own. */
        forget_perm(s);
        release(&s->p_buf);
        release(&s->q_buf);
        release(&s->src);
        release(&s->dst);
        s->cap = s->n = 0;
        unsigned char *data = malloc((size_t)n * 16);
        if (!data) {
            snprintf(err, errcap, "out of host memory");
            return NULL;
        }
        make_data(data, (size_t)n * 16);
        s->src = upload(d, data, (size_t)n * 16, err, errcap);
        free(data);
        s->dst = s->src ? upload(d, NULL, (size_t)n * 16, err, errcap) : NULL;
        if (!s->dst) return NULL;
        s->cap = n;
    }
    if (s->perm != perm || s->n != n) {
        forget_perm(s);
        s->n = n;
        uint32_t *q = malloc((size_t)n * 4);
        s->p = malloc((size_t)n * 4);
        if (!s->p || !q) {
            free(q);
            snprintf(err, errcap, "out of host memory");
            return NULL;
        }
        make_perm(s->p, n, perm);
        for (uint64_t i = 0; i < n; i++) q[s->p[i]] = (uint32_t)i;
        int bad = put(d, &s->p_buf, (size_t)s->cap * 4, s->p, (size_t)n * 4, err, errcap) ||
                  put(d, &s->q_buf, (size_t)s->cap * 4, q, (size_t)n * 4, err, errcap);
        free(q);
        if (bad) return NULL;
        s->perm = perm;
    }
    return s;
}

/* The plan of the state's permutation with `fusion` passes, made on first use. */
static clperm_perm_plan *plan_of(bench_dev *d, bench_permute_state *s, int fusion, char *err, size_t errcap) {
    if (!s->plans[fusion]) {
        clperm_perm_plan_opts opts = {NULL, NULL, 0, fusion};
        clperm_status st = clperm_perm_plan_create(d->ctx, &s->plans[fusion], CLPERM_TYPE_U32, s->p, s->n, &opts);
        if (st != CLPERM_SUCCESS) {
            snprintf(err, errcap, "plan: %s", clperm_status_name(st));
            s->plans[fusion] = NULL;
        }
    }
    return s->plans[fusion];
}

/* The device's default pass structure: 1 (five passes) or 2 (three), 0 when unknown. */
static int default_fusion(bench_dev *d) {
    char err[128];
    bench_permute_state *s = state(d, err, sizeof err);
    if (s && !s->default_fusion) {
        const uint32_t p[4] = {1, 0, 3, 2};
        clperm_perm_plan *plan = NULL;
        clperm_perm_plan_info info;
        if (clperm_perm_plan_create(d->ctx, &plan, CLPERM_TYPE_U32, p, 4, NULL) == CLPERM_SUCCESS &&
            clperm_perm_plan_query(plan, &info) == CLPERM_SUCCESS)
            s->default_fusion = info.fusion;
        clperm_perm_plan_free(plan);
    }
    return s ? s->default_fusion : 0;
}

static size_t case_bytes(const bench_case *c) { return (size_t)bench_type_bytes(c->type); }

int bench_permute_runs(bench_dev *d, const bench_case *c, uint64_t n, uint64_t table2_max) {
    if (n > UINT32_MAX / 2) return 0;
    if ((c->perm == BENCH_PERM_SHUFFLE || c->perm == BENCH_PERM_BIT_REVERSAL) && !is_pow2(n)) return 0;
    /* The other pass structure than the device's default (that one is "scheduled", "build"). */
    if (c->fusion && c->fusion == default_fusion(d)) return 0;
    if (!table2_max) return 1;
    /* Table 2: 32-bit items at sqrt(n) >= 512, 64-bit at sqrt(n) <= half the largest. */
    uint64_t sq = square_rows(n);
    size_t es = case_bytes(c);
    if (!(c->flags & BENCH_TABLE2)) return 0;
    return c->kind == BENCH_KIND_PERMUTE_PLAN || (es == 4 && sq >= 512) || (es == 8 && sq <= table2_max / 2);
}

typedef struct permute_run {
    bench_dev *d;
    bench_permute_state *s;
    int algorithm, perm;
    size_t es;
    clperm_perm_plan *plan;
} permute_run;

static cl_int run_permute(void *arg) {
    const permute_run *r = arg;
    bench_permute_state *s = r->s;
    clperm_ctx *ctx = r->d->ctx;
    switch (r->algorithm) {
    case BENCH_PERMUTE_D:
        return clperm_permute_scatter(ctx, s->src, s->dst, s->n, r->es, CLPERM_TYPE_U32, s->p_buf, 0, NULL, NULL);
    case BENCH_PERMUTE_S:
        return clperm_permute_gather(ctx, s->src, s->dst, s->n, r->es, CLPERM_TYPE_U32, s->q_buf, 0, NULL, NULL);
    case BENCH_PERMUTE_SCHEDULED: return clperm_perm_plan_execute(r->plan, s->src, s->dst, r->es, 0, NULL, NULL);
    default:
        if (r->perm == BENCH_PERM_TRANSPOSE) {
            uint64_t rows = square_rows(s->n);
            return clperm_transpose(ctx, s->src, s->dst, rows, s->n / rows, r->es, 0, NULL, NULL);
        }
        if (r->perm == BENCH_PERM_SHUFFLE)
            return clperm_permute_shuffle(ctx, s->src, s->dst, s->n, r->es, 0, 0, NULL, NULL);
        return clperm_permute_bit_reversal(ctx, s->src, s->dst, s->n, r->es, 0, NULL, NULL);
    }
}

/* dst against the host's scatter of the input through p. */
static int check(bench_dev *d, const bench_permute_state *s, size_t es, char *err, size_t errcap) {
    size_t bytes = (size_t)s->n * es;
    unsigned char *in = malloc(bytes + 1), *want = malloc(bytes + 1), *got = malloc(bytes + 1);
    int bad = -1;
    if (!in || !want || !got) {
        snprintf(err, errcap, "out of host memory to check the result");
    } else if (clEnqueueReadBuffer(d->queue, s->dst, CL_TRUE, 0, bytes, got, 0, NULL, NULL) != CL_SUCCESS) {
        snprintf(err, errcap, "could not read back the result to check it");
    } else {
        make_data(in, bytes);
        clperm_permute_scatter_host(in, want, s->n, es, CLPERM_TYPE_U32, s->p);
        bad = memcmp(got, want, bytes) != 0;
        if (bad) snprintf(err, errcap, "differs from the host's permutation");
    }
    free(in);
    free(want);
    free(got);
    return bad;
}

double bench_permute(bench_dev *d, const bench_case *c, uint64_t n, const bench_timing *t, bench_verify verify,
                     uint64_t *extra_bytes, char *err, size_t errcap) {
    bench_permute_state *s = prepare(d, n, c->perm, err, errcap);
    if (!s) return -1;
    permute_run r = {d, s, c->algorithm, c->perm, case_bytes(c), NULL};
    if (c->algorithm == BENCH_PERMUTE_SCHEDULED && !(r.plan = plan_of(d, s, c->fusion, err, errcap))) return -1;
    double sec = bench_time_device(d->queue, run_permute, &r, t, err, errcap);
    if (sec >= 0 && bench_check_covers(verify, BENCH_KIND_PERMUTE, n) && check(d, s, r.es, err, errcap) != 0)
        return -1;
    if (extra_bytes && r.plan) clperm_perm_plan_bytes(r.plan, r.es, extra_bytes);
    return sec;
}

double bench_permute_plan(bench_dev *d, const bench_case *c, uint64_t n, uint64_t *extra_bytes, char *err,
                          size_t errcap) {
    bench_permute_state *s = prepare(d, n, c->perm, err, errcap);
    clperm_perm_plan *plan = s ? plan_of(d, s, c->fusion, err, errcap) : NULL;
    clperm_perm_plan_info info;
    if (!plan || clperm_perm_plan_query(plan, &info) != CLPERM_SUCCESS) return -1;
    if (extra_bytes) clperm_perm_plan_bytes(plan, 4, extra_bytes);
    return info.seconds_total;
}

/* ---- Table 2 -------------------------------------------------------------------------------- */

static const char *const t2_algos[] = {"d-designated", "s-designated", "scheduled", NULL};

/* The median ms of the row for (algorithm, permutation, item size, n) on device, or -1. */
static double t2_ms(const bench_row *rows, size_t nrows, const char *device, int a, int perm, size_t es, uint64_t n) {
    char want[48];
    if (t2_algos[a])
        snprintf(want, sizeof want, "%s-%s-%zuB", t2_algos[a], perm_names[perm], es);
    else
        snprintf(want, sizeof want, "%s-%zuB", perm_names[perm], es);
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

/* The ms of the device's copy of the bytes that a permutation of n items of es bytes reads and
 * writes: measured beside a specialised kernel's row where es < 8 (*scaled = 0), else the copy of
 * n 64-bit items scaled to es bytes (*scaled = 1 where es < 8); -1 when neither was measured. */
static double t2_copy(const bench_row *rows, size_t nrows, const char *device, size_t es, uint64_t n, int *scaled) {
    for (size_t i = 0; es < 8 && i < nrows; i++)
        if (rows[i].n == n && !strcmp(rows[i].op, "permute") && !strcmp(rows[i].device, device) &&
            rows[i].elem_bytes == (int)es && rows[i].same_copy_bytes_per_s > 0)
            return 2.0 * (double)es * (double)n / rows[i].same_copy_bytes_per_s * 1e3;
    double ms = t2_bound(rows, nrows, device, "copy", n);
    if (ms >= 0 && es < 8) *scaled = 1;
    return ms < 0 ? ms : ms * (double)es / 8.0;
}

static void t2_cell(FILE *f, double ms) {
    if (ms < 0) fprintf(f, " %8s", "-");
    else fprintf(f, " %8.3f", ms);
}

void bench_permute_table2(FILE *f, const bench_row *rows, size_t nrows, uint64_t table2_max) {
    static const char *const algo_titles[] = {"D-designated", "S-designated", "Scheduled", "In-place"};
    const char *devices[BENCH_MAX_DEVICES];
    int ndev = 0;
    for (size_t i = 0; i < nrows && ndev < BENCH_MAX_DEVICES; i++) {
        int seen = 0;
        for (int k = 0; k < ndev; k++) seen |= !strcmp(devices[k], rows[i].device);
        if (!seen && !strcmp(rows[i].op, "permute")) devices[ndev++] = rows[i].device;
    }
    int scaled = 0;
    for (int dv = 0; dv < ndev; dv++)
        for (int part = 0; part < 2; part++) {
            size_t es = part ? 8 : 4;
            uint64_t sq[BENCH_MAX_SIZES];
            int ns = 0;
            for (uint64_t v = 256; v <= table2_max && ns < BENCH_MAX_SIZES; v *= 2)
                if (part ? v <= table2_max / 2 : v >= 512) sq[ns++] = v;
            if (!ns) continue;
            fprintf(f, "\nTable 2 (%c) on %s: milliseconds, %s items, sqrt(n) =", part ? 'b' : 'a', devices[dv],
                    part ? "64-bit" : "32-bit");
            for (int s = 0; s < ns; s++) fprintf(f, " %llu", (unsigned long long)sq[s]);
            fprintf(f, "\n%-13s", "");
            for (int a = 0; a < 4; a++) fprintf(f, " | %-*s", 9 * ns - 1, algo_titles[a]);
            fprintf(f, "\n");
            for (int k = 0; k < BENCH_PERM_KINDS; k++) {
                fprintf(f, "%-13s", perm_names[k]);
                for (int a = 0; a < 4; a++) {
                    fprintf(f, " |");
                    for (int s = 0; s < ns; s++) t2_cell(f, t2_ms(rows, nrows, devices[dv], a, k, es, sq[s] * sq[s]));
                }
                fprintf(f, "\n");
            }
            for (int b = 0; b < 2; b++) {
                fprintf(f, "%-13s |", b ? "gather bound" : "copy bound");
                for (int s = 0; s < ns; s++)
                    t2_cell(f, b ? t2_bound(rows, nrows, devices[dv], "gather", sq[s] * sq[s])
                                 : t2_copy(rows, nrows, devices[dv], es, sq[s] * sq[s], &scaled));
                fprintf(f, "\n");
            }
        }
    fprintf(f, "(copy bound: the device's copy of the same bytes%s; gather bound: its random gather of as many "
               "64-bit items through a u32 index array)\n",
            scaled ? " (where no specialised kernel ran beside it, the copy of n 64-bit items scaled to the bytes)"
                   : "");
}
