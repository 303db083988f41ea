/* `clperm bench`: plans the steps (each a case at a size on a device, or on the host), runs them
 * with progress on stderr, and prints the rows; the default run then prints each device's
 * headline table and a summary. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* One measurement: a case at size n (and segment) on device dev, or on the host (dev < 0). */
typedef struct bench_step {
    int dev;
    const bench_case *c;
    uint64_t n, segment;
    int headline; /* the headline row of bench_headlines[headline], or -1 */
    int peer;     /* a headline row's peer: the step that measures it, or -1 */
    int row;      /* the row it produced, or -1 */
    int printed;  /* its JSON line is written */
} bench_step;

typedef struct bench_run {
    const bench_opts *o;
    bench_dev *devs[BENCH_MAX_DEVICES]; /* NULL once done */
    char names[BENCH_MAX_DEVICES][128];
    int is_cpu[BENCH_MAX_DEVICES];
    int ndevs;
    bench_step *steps;
    int nsteps, cap;
    bench_row *rows;
    int nrows;
    int failures;
    int unopened; /* devices that could not be opened */
    char date[24], command[256]; /* for every row */
} bench_run;

static bench_step *add_step(bench_run *r, int dev, const bench_case *c, uint64_t n) {
    if (r->nsteps == r->cap) {
        int cap = r->cap ? 2 * r->cap : 256;
        bench_step *s = realloc(r->steps, (size_t)cap * sizeof *s);
        if (!s) return NULL;
        r->steps = s;
        r->cap = cap;
    }
    bench_step *s = &r->steps[r->nsteps++];
    memset(s, 0, sizeof *s);
    s->dev = dev;
    s->c = c;
    s->n = n;
    s->headline = s->peer = s->row = -1;
    return s;
}

/* Whether device d (NULL: the host) runs case c at size n and this segment in this run. */
static int case_runs(const bench_opts *o, bench_dev *d, const bench_case *c, uint64_t n, uint64_t segment) {
    if (c->flags & BENCH_HOST) return o->host && !d;
    if (!d) return 0;
    /* The look-back waits for other work-groups: where they may not progress, only in the
     * detailed run; where loops are capped (clperm_profile.loop_limit), never (unsupported). */
    if ((c->flags & BENCH_PROGRESS) && (d->profile.loop_limit || (!d->profile.forward_progress && !o->detailed)))
        return 0;
    if (((c->flags & BENCH_RANDOM123) && !bench_have_philox()) ||
        ((c->flags & BENCH_BOOST) && !bench_have_boost_compute()))
        return !o->detailed ? 0 : 1; /* listed as skipped in the detailed run, as before */
    if (c->kind == BENCH_KIND_RNG_FILL || c->kind == BENCH_KIND_RNG_INKERNEL) {
        clperm_rng_spec spec = {c->rng_family, c->rng_k, c->rng_scramble};
        if (c->rng_k && !clperm_rng_state_bits(&spec)) return 0;
    }
    if (c->kind == BENCH_KIND_TILE) {
        uint64_t max = 0;
        clperm_status st = c->bits ? clperm_partition_segment_max(d->ctx, CLPERM_KEY_U32, c->bits, c->tile, &max)
                                   : clperm_sort_segment_max(d->ctx, CLPERM_KEY_U32, 0, c->tile, &max);
        if (st != CLPERM_SUCCESS || segment > max) return 0;
    }
    if (c->kind == BENCH_KIND_PERMUTE || c->kind == BENCH_KIND_PERMUTE_PLAN)
        return bench_permute_runs(d, c, n, o->table2 ? o->table2_max : 0);
    return 1;
}

/* ---- planning ------------------------------------------------------------------------------- */

/* Every selected variant at every size, host references after every device (as always). */
static int plan_detailed(bench_run *r) {
    const bench_opts *o = r->o;
    for (int dv = 0; dv < r->ndevs; dv++)
        for (int s = 0; s < o->nsizes; s++) {
            uint64_t n = o->sizes[s];
            if (n == 0) continue;
            for (size_t i = 0; i < bench_ncases; i++) {
                const bench_case *c = &bench_cases[i];
                if ((c->flags & BENCH_HOST) || !bench_op_selected(o, c->ops) || !bench_variant_selected(o, c))
                    continue;
                if ((c->flags & BENCH_LAST_SIZE) && s != o->nsizes - 1) continue;
                if (!(c->flags & BENCH_PER_SEGMENT)) {
                    if (case_runs(o, r->devs[dv], c, n, 0) && !add_step(r, dv, c, n)) return -1;
                    continue;
                }
                /* A run of tile cases: every case at each segment size in turn. */
                size_t j = i;
                while (j < bench_ncases && (bench_cases[j].flags & BENCH_PER_SEGMENT)) j++;
                for (int g = 0; g < o->nsegments; g++)
                    for (size_t k = i; k < j; k++) {
                        const bench_case *t = &bench_cases[k];
                        if (!bench_op_selected(o, t->ops) || !bench_variant_selected(o, t)) continue;
                        if (!case_runs(o, r->devs[dv], t, n, o->segments[g])) {
                            if (s == 0)
                                bench_progress_note("%s: %s %s-%llu: the segment is above its largest, not run",
                                                    r->devs[dv]->profile.device_name, t->op, t->variant,
                                                    (unsigned long long)o->segments[g]);
                            continue;
                        }
                        bench_step *st = add_step(r, dv, t, n);
                        if (!st) return -1;
                        st->segment = o->segments[g];
                    }
                i = j - 1;
            }
        }
    for (size_t i = 0; i < bench_ncases; i++) {
        const bench_case *c = &bench_cases[i];
        if (!(c->flags & BENCH_HOST) || !o->host || !bench_op_selected(o, c->ops) || !bench_variant_selected(o, c))
            continue;
        for (int s = 0; s < o->nsizes; s++)
            if (o->sizes[s] && !add_step(r, -1, c, o->sizes[s])) return -1;
    }
    return 0;
}

/* The first of names (op, variant) that device d runs at n in this run. */
static const bench_case *pick(const bench_opts *o, bench_dev *d, const char *op, const char *const *names, uint64_t n,
                              uint64_t segment) {
    for (int i = 0; i < 3 && names[i]; i++) {
        char variant[40];
        snprintf(variant, sizeof variant, "%s", names[i]);
        if (!strcmp(names[i], "default")) {
            clperm_rng_spec spec;
            if (clperm_rng_default(d->ctx, &spec) != CLPERM_SUCCESS) continue;
            bench_rng_variant(&spec, variant, sizeof variant);
        }
        const bench_case *c = bench_case_find(op, variant);
        if (!c) continue;
        int host = (c->flags & BENCH_HOST) != 0;
        if (case_runs(o, host ? NULL : d, c, n, segment)) return c;
    }
    return NULL;
}

static uint64_t headline_n(const bench_opts *o, const bench_dev *d, const bench_headline *h) {
    return o->headline_size ? o->headline_size : bench_dev_is_cpu(d) ? h->n_cpu : h->n_other;
}

/* Per device: the bounds at each of its headline sizes, then each family's row and its peer; a
 * host peer is measured once per size. */
static int plan_headline(bench_run *r) {
    const bench_opts *o = r->o;
    const bench_case *copy = bench_case_find("copy", "bound"), *gather = bench_case_find("gather", "bound");
    for (int dv = 0; dv < r->ndevs; dv++) {
        bench_dev *d = r->devs[dv];
        uint64_t sizes[16];
        int nsizes = 0;
        for (size_t h = 0; h < bench_nheadlines; h++) {
            uint64_t n = headline_n(o, d, &bench_headlines[h]);
            int s = 0;
            while (s < nsizes && sizes[s] != n) s++;
            if (s == nsizes && nsizes < 16) sizes[nsizes++] = n;
        }
        for (int s = 0; s < nsizes; s++) {
            if (!add_step(r, dv, copy, sizes[s]) || !add_step(r, dv, gather, sizes[s])) return -1;
            for (size_t h = 0; h < bench_nheadlines; h++) {
                const bench_headline *hl = &bench_headlines[h];
                uint64_t n = headline_n(o, d, hl);
                if (n != sizes[s]) continue;
                const bench_case *c = pick(o, d, hl->op, hl->variants, n, hl->segment);
                if (!c) {
                    bench_progress_note("%s: no %s variant runs on this device", d->profile.device_name, hl->family);
                    continue;
                }
                const bench_case *p =
                    pick(o, d, hl->op, bench_dev_is_cpu(d) ? hl->peers : hl->gpu_peers, n, hl->segment);
                bench_step *st = add_step(r, dv, c, n);
                if (!st) return -1;
                int row = r->nsteps - 1;
                st->segment = hl->segment;
                st->headline = (int)h;
                if (!p) continue;
                /* A host peer at this size may be measured already, for another device. */
                int host = (p->flags & BENCH_HOST) != 0, found = -1;
                for (int k = 0; host && k < r->nsteps && found < 0; k++)
                    if (r->steps[k].dev < 0 && r->steps[k].c == p && r->steps[k].n == n) found = k;
                if (found < 0) {
                    bench_step *ps = add_step(r, host ? -1 : dv, p, n);
                    if (!ps) return -1;
                    ps->segment = hl->segment;
                    found = r->nsteps - 1;
                }
                r->steps[row].peer = found;
            }
        }
    }
    return 0;
}

/* ---- running -------------------------------------------------------------------------------- */

static void step_variant(const bench_step *s, char *buf, size_t cap) {
    if (s->c->flags & BENCH_PER_SEGMENT)
        snprintf(buf, cap, "%s-%llu", s->c->variant, (unsigned long long)s->segment);
    else
        snprintf(buf, cap, "%s", s->c->variant);
}

/* The default run on a device other than a CPU checks each row bit for bit at this size, in a run
 * of its own before the timed ones, which are checked as far as is cheap at their size (a scan in
 * full, a shuffle to be a permutation): the host's references at 2^26 items took most of a GPU's
 * run. A row whose timed size is checked bit for bit anyway (the offline permutation at 2^24)
 * skips it: its plan for 2^22 items cost a second. */
#define GPU_CHECK_N (UINT64_C(1) << 22)

static double measure(const bench_opts *o, bench_dev *d, const bench_step *s, uint64_t *extra, char *err,
                      size_t errcap) {
    bench_verify verify = o->verify;
    if (!o->detailed && verify == BENCH_VERIFY_ALL && s->dev >= 0 && !bench_dev_is_cpu(d) && s->n > GPU_CHECK_N &&
        !(s->c->flags & BENCH_BOOST) && !bench_check_covers(BENCH_VERIFY_LIMITED, s->c->kind, s->n)) {
        bench_timing once = {0, 1, 0};
        if (bench_measure(d, s->c, GPU_CHECK_N, s->segment, &once, BENCH_VERIFY_ALL, NULL, err, errcap) < 0) return -1;
        verify = BENCH_VERIFY_LIMITED;
    }
    return bench_measure(d, s->c, s->n, s->segment, &o->timing, verify, extra, err, errcap);
}

double bench_measure(bench_dev *d, const bench_case *c, uint64_t n, uint64_t segment, const bench_timing *t,
                     bench_verify verify, uint64_t *extra, char *err, size_t errcap) {
    clperm_type type = bench_type_bytes(c->type) == 8 ? CLPERM_TYPE_U64 : CLPERM_TYPE_U32;
    clperm_rng_spec spec = {c->rng_family, c->rng_k, c->rng_scramble};
    switch (c->kind) {
    case BENCH_KIND_COPY: return bench_copy(d, n, t, err, errcap);
    case BENCH_KIND_GATHER: return bench_gather(d, n, t, err, errcap);
    case BENCH_KIND_SCAN: return bench_scan(d, c->op, type, c->algorithm, n, t, verify, extra, err, errcap);
    case BENCH_KIND_SHUFFLE: return bench_shuffle(d, c->fusion, c->bijection, n, t, verify, extra, err, errcap);
    case BENCH_KIND_SHUFFLE_ITEMS:
        return bench_shuffle_items(d, c->algorithm, (size_t)bench_type_bytes(c->type), n, t, verify, extra, err,
                                   errcap);
    case BENCH_KIND_DART: return bench_dart_throwing(d, n, t, verify, extra, err, errcap);
    case BENCH_KIND_SORT_SHUFFLE: return bench_sort_shuffle(d, n, t, verify, extra, err, errcap);
    case BENCH_KIND_TILE: return bench_tile(d, c->tile, segment, c->bits, n, t, verify, err, errcap);
    case BENCH_KIND_SORT:
        return bench_sort(d, c->key, c->value, c->bits, c->flags & (BENCH_ARGSORT | BENCH_SORT_INTO), n, t, verify,
                          extra, err, errcap);
    case BENCH_KIND_SORT_SEGMENTED:
        return bench_sort_segmented(d, segment, c->value, c->keys, n, t, verify, extra, err, errcap);
    case BENCH_KIND_BOOST: return bench_boost_compute(d, c->op, n, t, err, errcap);
    case BENCH_KIND_RNG_FILL: return bench_rng_fill(d, &spec, n, t, verify, err, errcap);
    case BENCH_KIND_RNG_INKERNEL: return bench_rng_inkernel(d, &spec, n, t, err, errcap);
    case BENCH_KIND_PHILOX_FILL: return bench_philox_fill(d, n, t, verify, err, errcap);
    case BENCH_KIND_PHILOX_INKERNEL: return bench_philox_inkernel(d, n, t, err, errcap);
    case BENCH_KIND_HOST_SCAN: return bench_host_scan(n, t);
    case BENCH_KIND_HOST_FISHER_YATES: return bench_host_fisher_yates(n, t);
    case BENCH_KIND_HOST_XOSHIRO: return bench_host_xoshiro(n, t);
    case BENCH_KIND_HOST_QSORT: return bench_host_qsort(n, t);
    case BENCH_KIND_HOST_RADIX: return bench_host_radix(n, t);
    case BENCH_KIND_PERMUTE: return bench_permute(d, c, n, t, verify, extra, err, errcap);
    case BENCH_KIND_PERMUTE_PLAN: return bench_permute_plan(d, c, n, extra, err, errcap);
    }
    snprintf(err, errcap, "unknown case");
    return -1;
}

static void emit(const bench_opts *o, const bench_row *r) {
    bench_progress_hide();
    if (o->json)
        bench_row_json(stdout, r);
    else
        bench_row_table(stdout, r);
    fflush(stdout);
    bench_progress_show();
}

/* Where a device stands: the rows of its copy and gather at size n (-1: none yet), whether that
 * size could be measured at all, and the last copy of other bytes (same_n 64-bit items, its
 * bytes/s; 0: none). */
typedef struct dev_state {
    int copy, gather;
    uint64_t n;
    int ok;
    uint64_t same_n;
    double same_rate;
    double gather32_rate; /* the gather of 4-byte items at n; 0: not yet timed */
    double gather16_rate; /* of 16-byte items */
} dev_state;

static bench_row *new_row(bench_run *r, const bench_step *s, const bench_dev *d, const char *variant, double t,
                          uint64_t extra) {
    bench_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->family, sizeof row->family, "%s", s->c->family);
    snprintf(row->op, sizeof row->op, "%s", s->c->op);
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    snprintf(row->type, sizeof row->type, "%s", s->c->type);
    snprintf(row->platform, sizeof row->platform, "%s", d ? d->profile.platform_name : "host");
    snprintf(row->device, sizeof row->device, "%s", d ? d->profile.device_name : "host CPU, 1 thread");
    snprintf(row->driver, sizeof row->driver, "%s", d ? d->profile.driver_version : "");
    row->n = s->n;
    row->elem_bytes = bench_type_bytes(s->c->type);
    row->seconds = t;
    row->items_per_s = (double)s->n / t;
    row->bytes_per_s = row->items_per_s * s->c->bytes_per_item;
    row->extra_bytes = extra;
    return row;
}

/* A permutation of items under 8 bytes moves fewer bytes than the copy of n 64-bit items that
 * "of copy" compares it with, and a copy's fixed costs weigh more on fewer bytes: the rate of the
 * device's copy of exactly the row's bytes (n * bytes per item / 16 64-bit items), timed once per
 * device and size, goes beside it. */
static void same_bytes_copy(const bench_opts *o, bench_dev *d, dev_state *st, const bench_step *s, bench_row *row) {
    uint64_t m = (uint64_t)((double)s->n * s->c->bytes_per_item / 16);
    if (!m || m >= s->n) return;
    if (st->same_n != m) {
        char err[256];
        double t = bench_copy(d, m, &o->timing, err, sizeof err);
        st->same_n = m;
        st->same_rate = t > 0 ? 16.0 * (double)m / t : 0;
        if (t <= 0) bench_progress_note("%s: copy of %llu 64-bit items: %s", d->profile.device_name,
                                        (unsigned long long)m, err);
    }
    row->same_copy_bytes_per_s = st->same_rate;
}

/* The default run compares each row (and each peer on a device) with the bound of its own bytes:
 * the copy of as many bytes, or the gather of items of its size (4 or 8 bytes), at the same n. */
static void same_bytes_bound(const bench_opts *o, bench_dev *d, dev_state *st, const bench_step *s, bench_row *row) {
    if (s->c->bound == BENCH_BOUND_COPY) same_bytes_copy(o, d, st, s, row);
    if (s->c->bound == BENCH_BOUND_GATHER && (row->elem_bytes == 4 || row->elem_bytes == 16)) {
        double *rate = row->elem_bytes == 4 ? &st->gather32_rate : &st->gather16_rate;
        if (*rate == 0) {
            char err[256];
            double t = row->elem_bytes == 4 ? bench_gather_u32(d, s->n, &o->timing, err, sizeof err)
                                            : bench_gather_16(d, s->n, &o->timing, err, sizeof err);
            *rate = t > 0 ? (double)s->n / t : -1;
            if (t <= 0) bench_progress_note("%s: gather of %llu %d-byte items: %s", d->profile.device_name,
                                            (unsigned long long)s->n, row->elem_bytes, err);
        }
        if (*rate > 0) row->same_gather_items_per_s = *rate;
    }
    row->of_bound = bench_row_of_same_bytes(row);
}

/* Runs step i; its row, if any, goes to r->rows. A device's steps at one size come after its copy
 * and gather at that size. */
static void run_step(bench_run *r, int i, dev_state *ds) {
    bench_step *s = &r->steps[i];
    bench_dev *d = s->dev >= 0 ? r->devs[s->dev] : NULL;
    dev_state *st = d ? &ds[s->dev] : NULL;
    const char *where = d ? d->profile.device_name : "host CPU, 1 thread";
    char variant[40], size[32], err[256] = "";
    step_variant(s, variant, sizeof variant);
    bench_progress_step("%s, n = %s: %s %s %s", where, bench_size_name(s->n, size, sizeof size), s->c->op, variant,
                        s->c->type);
    if (st && s->c->kind == BENCH_KIND_COPY) {
        st->n = s->n;
        st->copy = st->gather = -1;
        st->same_n = 0;
        st->gather32_rate = st->gather16_rate = 0;
        st->ok = bench_dev_prepare(d, s->n, err, sizeof err) == 0;
        if (!st->ok) {
            bench_progress_note("%s, n = %llu: skipped: %s", where, (unsigned long long)s->n, err);
            return;
        }
    }
    if (st && (!st->ok || st->n != s->n || (s->c->kind != BENCH_KIND_COPY && st->copy < 0) ||
               (s->c->kind != BENCH_KIND_COPY && s->c->kind != BENCH_KIND_GATHER && st->gather < 0)))
        return; /* this size could not be measured */
    if ((s->c->flags & BENCH_RANDOM123) && !bench_have_philox()) {
        bench_progress_note("%s: %s %s: skipped: built without Random123 (librandom123-dev)", where, s->c->op, variant);
        return;
    }
    if ((s->c->flags & BENCH_BOOST) && !bench_have_boost_compute()) {
        bench_progress_note("%s: %s %s: skipped: built without Boost.Compute (libboost-dev and a C++ compiler)", where,
                            s->c->op, variant);
        return;
    }
    uint64_t extra = 0;
    double min_s = 0, max_s = 0;
    bench_spread_reset();
    double t = measure(r->o, d, s, &extra, err, sizeof err);
    bench_spread(&min_s, &max_s);
    if (t <= 0) {
        bench_progress_note("%s, n = %llu: %s %s %s: FAILED: %s", where, (unsigned long long)s->n, s->c->op, variant,
                            s->c->type, err[0] ? err : "no time measured");
        r->failures++;
        if (st && (s->c->kind == BENCH_KIND_COPY || s->c->kind == BENCH_KIND_GATHER)) st->ok = 0;
        return;
    }
    bench_row *row = new_row(r, s, d, variant, t, extra);
    row->min_seconds = min_s;
    row->max_seconds = max_s;
    row->headline = s->headline >= 0;
    snprintf(row->date, sizeof row->date, "%s", r->date);
    snprintf(row->command, sizeof row->command, "%s", r->command);
    s->row = r->nrows - 1;
    if (!st) {
        if (r->o->detailed) emit(r->o, row);
        return;
    }
    if (s->c->kind == BENCH_KIND_COPY) {
        st->copy = s->row; /* printed with the gather, whose rate it shows */
        return;
    }
    bench_row *copy = &r->rows[st->copy];
    if (s->c->kind == BENCH_KIND_GATHER) {
        st->gather = s->row;
        bench_row_bounds(copy, BENCH_BOUND_NONE, copy->items_per_s, copy->bytes_per_s, row->items_per_s);
        if (r->o->detailed) emit(r->o, copy);
    }
    bench_row_bounds(row, s->c->bound, copy->items_per_s, copy->bytes_per_s, r->rows[st->gather].items_per_s);
    if (!r->o->detailed || s->c->kind == BENCH_KIND_SHUFFLE_ITEMS) /* the default run's rows and their peers */
        same_bytes_bound(r->o, d, st, s, row);
    else if (s->c->kind == BENCH_KIND_PERMUTE && s->c->bound == BENCH_BOUND_COPY)
        same_bytes_copy(r->o, d, st, s, row);
    if (r->o->detailed) emit(r->o, row);
}

/* ---- the default run's tables --------------------------------------------------------------- */

static const bench_row *step_row(const bench_run *r, int step) {
    return step >= 0 && r->steps[step].row >= 0 ? &r->rows[r->steps[step].row] : NULL;
}

/* Device dv's row of headline h, or NULL. */
static const bench_row *headline_row(const bench_run *r, int dv, int h) {
    for (int i = 0; i < r->nsteps; i++)
        if (r->steps[i].dev == dv && r->steps[i].headline == h) return step_row(r, i);
    return NULL;
}

/* Gives each headline row of device dv its peer's figure. */
static void attach_peers(bench_run *r, int dv) {
    for (int i = 0; i < r->nsteps; i++) {
        bench_step *s = &r->steps[i];
        bench_row *row = s->row >= 0 ? &r->rows[s->row] : NULL;
        const bench_row *peer = step_row(r, s->peer);
        if (s->dev != dv || s->headline < 0 || !row || !peer) continue;
        snprintf(row->peer, sizeof row->peer, "%s", peer->variant);
        row->peer_items_per_s = peer->items_per_s;
    }
}

/* "58.6%": the row against the bound of its own bytes (row->bound says which); a star past 100%. */
static const char *of_bound_text(const bench_row *row, char *buf, size_t cap) {
    if (row->of_bound > 0)
        snprintf(buf, cap, "%.1f%%%s", 100 * row->of_bound, row->of_bound > 1 ? "*" : "");
    else
        snprintf(buf, cap, "-");
    return buf;
}

static int any_past_bound(const bench_run *r, int dv) {
    for (size_t h = 0; h < bench_nheadlines; h++) {
        const bench_row *row = headline_row(r, dv, (int)h);
        if (row && row->of_bound > 1) return 1;
    }
    return 0;
}

static void headline_table(FILE *f, const bench_run *r, int dv) {
    const bench_dev *d = r->devs[dv];
    fprintf(f, "\n%s (%s, %s)\n", d->profile.device_name, d->profile.platform_name, d->profile.driver_version);
    for (int i = 0; i < r->nsteps; i++) {
        const bench_step *s = &r->steps[i];
        const bench_row *row = step_row(r, i);
        if (s->dev != dv || s->c->kind != BENCH_KIND_GATHER || !row) continue;
        char size[32], a[32], b[32];
        fprintf(f, "  bounds at n = %s: copy %s items/s (%.2f GB/s), random gather %s items/s (64-bit items)\n",
                bench_size_name(row->n, size, sizeof size), bench_rate_name(row->copy_items_per_s, a, sizeof a),
                row->copy_bytes_per_s * 1e-9, bench_rate_name(row->items_per_s, b, sizeof b));
    }
    fprintf(f, "  %-10s %-14s %-22s %-4s %6s %10s %13s %9s %-14s  %-22s %9s %6s\n", "family", "op", "variant", "type",
            "n", "median ms", "spread", "items/s", "of same bytes", "peer", "items/s", "x peer");
    for (size_t h = 0; h < bench_nheadlines; h++) {
        const bench_row *row = headline_row(r, dv, (int)h);
        if (!row) continue;
        char size[32], rate[32], prate[32] = "-", pct[32], x[16] = "-", spread[32];
        if (row->peer_items_per_s > 0) {
            bench_rate_name(row->peer_items_per_s, prate, sizeof prate);
            snprintf(x, sizeof x, "%.2f", row->items_per_s / row->peer_items_per_s);
        }
        fprintf(f, "  %-10s %-14s %-22s %-4s %6s %10.3f %13s %9s %7s %-6s  %-22s %9s %6s\n", row->family, row->op,
                row->variant, row->type, bench_size_name(row->n, size, sizeof size), row->seconds * 1e3,
                bench_row_spread(row, spread, sizeof spread), bench_rate_name(row->items_per_s, rate, sizeof rate),
                of_bound_text(row, pct, sizeof pct), row->bound, row->peer[0] ? row->peer : "-", prate, x);
    }
}

/* What the peers of device dv's rows are, and the notes its figures need. */
static void summary_notes(FILE *f, const bench_run *r, int dv) {
    int cpu = r->is_cpu[dv];
    for (size_t h = 0; h < bench_nheadlines; h++) {
        const bench_row *row = headline_row(r, dv, (int)h);
        if (row && row->peer[0])
            fprintf(f, "  %-10s peer %s: %s\n", bench_headlines[h].family, row->peer,
                    bench_headlines[h].peer_about[cpu ? 0 : 1]);
    }
    const bench_row *perm = headline_row(r, dv, bench_family_rank("permute"));
    if (cpu && perm && perm->peer_items_per_s > perm->items_per_s)
        fprintf(f, "  %-10s on a CPU the gather wins: at this size its random reads hit the caches, and the\n"
                   "  %-10s scheduled permutation's passes through local memory (built for GPUs' banks) are\n"
                   "  %-10s extra copies there\n",
                "", "", "");
    if (any_past_bound(r, dv))
        fprintf(f, "  * faster than a copy of the same bytes: the data fits in the device's caches at this size\n");
}

static void summary(FILE *f, const bench_run *r) {
    fprintf(f, "\nsummary: items/s, the spread of the timed runs about their median, the rate against a copy of\n"
               "the same bytes (or a gather of items of the same size) at the same n, and against the peer\n");
    for (int dv = 0; dv < r->ndevs; dv++) {
        fprintf(f, "\n%s\n  %-10s %6s %9s %13s %-14s %7s  %s\n", r->names[dv], "family", "n", "items/s", "spread",
                "of same bytes", "x peer", "peer");
        for (size_t h = 0; h < bench_nheadlines; h++) {
            const bench_row *row = headline_row(r, dv, (int)h);
            char size[32] = "-", rate[32] = "-", pct[32] = "-", x[16] = "-", spread[32] = "-";
            const char *bound = row ? row->bound : "";
            if (row) {
                bench_size_name(row->n, size, sizeof size);
                bench_rate_name(row->items_per_s, rate, sizeof rate);
                of_bound_text(row, pct, sizeof pct);
                bench_row_spread(row, spread, sizeof spread);
                if (row->peer_items_per_s > 0) snprintf(x, sizeof x, "%.2f", row->items_per_s / row->peer_items_per_s);
            }
            fprintf(f, "  %-10s %6s %9s %13s %7s %-6s %7s  %s\n", bench_headlines[h].family, size, rate, spread, pct,
                    bound, x, row && row->peer[0] ? row->peer : "-");
        }
        summary_notes(f, r, dv);
    }
}

/* ---- the command ---------------------------------------------------------------------------- */

static int open_devices(bench_run *r) {
    const bench_opts *o = r->o;
    int count = o->ndevices;
    if (!count) {
        size_t n = 0;
        clperm_status st = clperm_device_count(&n);
        if (st != CLPERM_SUCCESS || n == 0) {
            fprintf(stderr, "clperm bench: no OpenCL device (%s)\n",
                    clperm_status_string(st ? st : CLPERM_ERROR_NO_DEVICE));
            return -1;
        }
        count = (int)(n > BENCH_MAX_DEVICES ? BENCH_MAX_DEVICES : n);
    }
    for (int i = 0; i < count; i++) {
        char sel[32], err[256] = "";
        const char *selector = o->ndevices ? o->devices[i] : sel;
        snprintf(sel, sizeof sel, "%d", i);
        fprintf(stderr, "opening device %s ...\n", selector);
        bench_dev *d = bench_dev_open(selector, o->sets, o->nsets, err, sizeof err);
        if (!d) {
            /* Not a measurement: the run goes on with the devices that open, and fails if none. */
            if (o->ndevices)
                fprintf(stderr, "clperm bench: --device %s: %s (`clperm devices` lists them)\n", selector, err);
            else
                fprintf(stderr, "clperm bench: device %s: %s\n", selector, err);
            r->unopened++;
            continue;
        }
        fprintf(stderr, "[%d/%d] %s / %s (%s)\n", i + 1, count, d->profile.platform_name, d->profile.device_name,
                d->profile.driver_version);
        snprintf(r->names[r->ndevs], sizeof r->names[0], "%s", d->profile.device_name);
        r->is_cpu[r->ndevs] = bench_dev_is_cpu(d);
        r->devs[r->ndevs++] = d;
    }
    return r->ndevs ? 0 : -1;
}

int bench_main(int argc, char **argv) {
    bench_opts o;
    int rc = bench_parse_args(argc, argv, &o);
    if (rc != 0) return rc > 0 ? 0 : 2;
    if (o.dist) {
#ifdef CLPERM_BENCH_DIST
        return bench_dist_main(&o);
#else
        fprintf(stderr, "clperm bench: --dist needs clperm built with MPI (openmpi-bin, libopenmpi-dev)\n");
        return 2;
#endif
    }
    bench_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(r.date, sizeof r.date, "%Y-%m-%d %H:%M", &utc);
    size_t at = (size_t)snprintf(r.command, sizeof r.command, "clperm bench");
    for (int i = 1; i < argc && at < sizeof r.command; i++)
        at += (size_t)snprintf(r.command + at, sizeof r.command - at, " %s", argv[i]);
    dev_state ds[BENCH_MAX_DEVICES];
    int last[BENCH_MAX_DEVICES];
    for (int i = 0; i < BENCH_MAX_DEVICES; i++) {
        ds[i] = (dev_state){-1, -1, 0, 0, 0, 0, 0, 0};
        last[i] = -1;
    }
    if (open_devices(&r) != 0) goto cleanup;
    if ((o.detailed ? plan_detailed(&r) : plan_headline(&r)) != 0 ||
        !(r.rows = calloc((size_t)r.nsteps + 1, sizeof *r.rows))) {
        fprintf(stderr, "clperm bench: out of memory\n");
        r.failures++;
        goto cleanup;
    }
    /* A device is done after its last step and the last host step its headline rows compare with. */
    for (int i = 0; i < r.nsteps; i++) {
        const bench_step *s = &r.steps[i];
        if (s->dev >= 0) last[s->dev] = i > last[s->dev] ? i : last[s->dev];
        if (s->dev >= 0 && s->peer > last[s->dev]) last[s->dev] = s->peer;
    }
    if (o.detailed && !o.json) bench_row_table_header(stdout);
    bench_progress_begin(r.nsteps);
    for (int i = 0; i < r.nsteps; i++) {
        run_step(&r, i, ds);
        for (int dv = 0; dv < r.ndevs; dv++) {
            if (last[dv] != i) continue;
            if (!o.detailed) {
                attach_peers(&r, dv);
                bench_progress_hide();
                if (o.json) {
                    for (int k = 0; k <= i; k++) {
                        const bench_row *row = step_row(&r, k);
                        if (row && !r.steps[k].printed && (r.steps[k].dev == dv || r.steps[k].dev < 0)) {
                            bench_row_json(stdout, row);
                            r.steps[k].printed = 1;
                        }
                    }
                } else {
                    headline_table(stdout, &r, dv);
                }
                fflush(stdout);
                bench_progress_show();
            }
            bench_dev_close(r.devs[dv]);
            r.devs[dv] = NULL;
        }
    }
    bench_progress_end();
    if (!o.detailed) summary(o.json ? stderr : stdout, &r);
    if (o.table2) bench_permute_table2(o.json ? stderr : stdout, r.rows, (size_t)r.nrows, o.table2_max);
    if (o.plot_dir) {
        char err[256] = "";
        int drawn = o.detailed ? bench_plot(o.plot_dir, r.rows, (size_t)r.nrows, NULL, 0, err, sizeof err)
                               : bench_plot_bars(o.plot_dir, r.rows, (size_t)r.nrows, NULL, 0, err, sizeof err);
        if (drawn <= 0) {
            if (!err[0]) snprintf(err, sizeof err, "nothing to draw (one size per row: no sweep)");
            fprintf(stderr, "clperm bench: --plot: %s\n", err);
            r.failures++;
        } else {
            fprintf(stderr, "figures written to %s\n", o.plot_dir);
        }
    }
cleanup:
    if (r.failures) fprintf(stderr, "clperm bench: %d measurement(s) failed\n", r.failures);
    for (int i = 0; i < r.ndevs; i++) bench_dev_close(r.devs[i]);
    free(r.steps);
    free(r.rows);
    return r.failures || r.unopened || !r.ndevs ? 1 : 0;
}
