/* The bounds every figure is compared with, measured on the device in the same run and at the
 * same size: a copy of 64-bit items (16 bytes moved per item) and a random gather of them
 * through a u32 index array (20 bytes per item); the default run also gathers 4-byte items, the
 * bound of its rows of 4-byte items. */
#include "bench.h"

double bench_copy(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    BENCH_ARG(st, d->copy, 0, d->a);
    BENCH_ARG(st, d->copy, 1, d->b);
    BENCH_ARG(st, d->copy, 2, nn);
    if (st != CL_SUCCESS) {
        snprintf(err, errcap, "copy: %s", clperm_status_name(st));
        return -1;
    }
    return bench_time_launch(d, d->copy, n, 256, t, err, errcap);
}

/* The random gather from src to dst through d->idx with kernel k. */
static double gather(bench_dev *d, cl_kernel k, cl_mem src, cl_mem dst, uint64_t n, const bench_timing *t, char *err,
                     size_t errcap) {
    cl_int st = CL_SUCCESS;
    cl_ulong nn = n;
    BENCH_ARG(st, k, 0, src);
    BENCH_ARG(st, k, 1, d->idx);
    BENCH_ARG(st, k, 2, dst);
    BENCH_ARG(st, k, 3, nn);
    if (st != CL_SUCCESS) {
        snprintf(err, errcap, "gather: %s", clperm_status_name(st));
        return -1;
    }
    return bench_time_launch(d, k, n, 256, t, err, errcap);
}

double bench_gather(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    return gather(d, d->gather, d->a, d->b, n, t, err, errcap);
}

double bench_gather_u32(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    return gather(d, d->gather_u32, d->a, d->b, n, t, err, errcap);
}

double bench_gather_16(bench_dev *d, uint64_t n, const bench_timing *t, char *err, size_t errcap) {
    cl_int e = CL_SUCCESS;
    cl_mem src = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)n * 16, NULL, &e);
    cl_mem dst = src ? clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)n * 16, NULL, &e) : NULL;
    double s = -1;
    if (dst) s = gather(d, d->gather_16, src, dst, n, t, err, errcap);
    else snprintf(err, errcap, "gather of 16-byte items: %s", clperm_status_name(e));
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    return s;
}
