/* Internal helpers of the permutation quality tests (quality.c), declared for the tests. */
#ifndef CLPERM_QUALITY_H
#define CLPERM_QUALITY_H

#include <stdint.h>

#include "clperm.h"

/* Number of pairs i < j that a and b, two permutations of 0..n-1, order differently (the Kendall
 * distance), by counting the inversions of b after a's inverse with a merge sort: O(n log n).
 * `work` holds 2 * n uint32_t. Returns CLPERM_ERROR_INVALID_ARGUMENT, with *ndis untouched, when a
 * or b is not a permutation of 0..n-1. */
clperm_status clperm__perm_ndis(const uint32_t *a, const uint32_t *b, uint32_t n, uint32_t *work,
                                uint64_t *ndis);

/* Moments of the Mallows kernel K = exp(-lambda n_dis(I, s) / (n choose 2)) for s uniform over
 * the permutations of n >= 2 items, in a form that neither overflows nor cancels for large n:
 *   E[K] = exp(*log_mean),  E[K^2] / E[K]^2 = exp(*log_ratio),
 * so that Var K = E[K]^2 * expm1(*log_ratio). *log_ratio >= 0. */
void clperm__mallows_moments(uint32_t n, double lambda, double *log_mean, double *log_ratio);

/* log Gamma(x) for x > 0 (thread-safe, unlike lgamma(), which sets signgam). */
double clperm__log_gamma(double x);

/* Regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0:
 * the chi-squared p-value is Q(dof / 2, statistic / 2). NaN for arguments out of range. */
double clperm__gamma_q(double a, double x);

/* Inverse error functions: erf(clperm__erfinv(y)) = y for -1 < y < 1 (+-HUGE_VAL at +-1, NaN
 * beyond), erfc(clperm__erfcinv(c)) = c for 0 < c < 2. erfcinv keeps full precision for tiny c,
 * where 1 - c would round to 1. */
double clperm__erfinv(double y);
double clperm__erfcinv(double c);

/* The law of the cycle count of a uniform permutation of n >= 1 items: law[c] = |s(n, c)| / n!
 * for c < top, law[top] = P(top or more cycles), law[0] = 0, by the recurrence of the cycle count
 * as a sum of independent Bernoulli(1 / i), i = 1 .. n (O(n top) time). top >= 1. */
void clperm__cycle_law(uint32_t n, uint32_t top, double *law);

/* Two-sided exact binomial test of k successes in count trials of probability 1/2:
 * min(1, 2 P(X <= min(k, count - k))). k <= count. */
double clperm__binomial_half_p(uint64_t count, uint64_t k);

#endif /* CLPERM_QUALITY_H */
