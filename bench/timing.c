/* The median of repeated runs after warm-up: the one rule every figure of the bench follows. */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

#define MAX_REPS 256

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double fastest(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
    return m;
}

/* The fastest and slowest of the last series timed, for the spread beside a median. */
static double last_min, last_max;

static void record(const double *v, int n) {
    last_min = last_max = v[0];
    for (int i = 1; i < n; i++) {
        last_min = v[i] < last_min ? v[i] : last_min;
        last_max = v[i] > last_max ? v[i] : last_max;
    }
}

void bench_spread_reset(void) { last_min = last_max = 0; }

int bench_spread(double *min_s, double *max_s) {
    *min_s = last_min;
    *max_s = last_max;
    return last_max > 0;
}

static int reps_of(const bench_timing *t) { return t->reps < 1 ? 1 : (t->reps > MAX_REPS ? MAX_REPS : t->reps); }

double bench_time_device_prepared(cl_command_queue queue, cl_int (*setup)(void *arg), cl_int (*fn)(void *arg),
                                  void *arg, const bench_timing *t, char *err, size_t errcap) {
    double samples[MAX_REPS];
    int reps = reps_of(t);
    for (int i = -t->warmup; i < reps; i++) {
        cl_int st = setup ? setup(arg) : CL_SUCCESS;
        if (st == CL_SUCCESS) st = clFinish(queue);
        double t0 = bench_now();
        if (st == CL_SUCCESS) st = fn(arg);
        if (st == CL_SUCCESS) st = clFinish(queue);
        double t1 = bench_now();
        if (st != CL_SUCCESS) {
            snprintf(err, errcap, "%s", clperm_status_name(st));
            return -1;
        }
        if (i >= 0) samples[i] = t1 - t0;
    }
    record(samples, reps);
    return t->fastest ? fastest(samples, reps) : bench_median(samples, reps);
}

double bench_time_device(cl_command_queue queue, cl_int (*fn)(void *arg), void *arg, const bench_timing *t, char *err,
                         size_t errcap) {
    return bench_time_device_prepared(queue, NULL, fn, arg, t, err, errcap);
}

double bench_time_host_prepared(void (*setup)(void *arg), uint64_t (*fn)(void *arg), void *arg,
                                const bench_timing *t) {
    double samples[MAX_REPS];
    int reps = reps_of(t);
    volatile uint64_t sink = 0;
    for (int i = -t->warmup; i < reps; i++) {
        if (setup) setup(arg);
        double t0 = bench_now();
        uint64_t v = fn(arg);
        double t1 = bench_now();
        sink += v;
        if (i >= 0) samples[i] = t1 - t0;
    }
    (void)sink;
    record(samples, reps);
    return t->fastest ? fastest(samples, reps) : bench_median(samples, reps);
}

double bench_time_host(uint64_t (*fn)(void *arg), void *arg, const bench_timing *t) {
    return bench_time_host_prepared(NULL, fn, arg, t);
}
