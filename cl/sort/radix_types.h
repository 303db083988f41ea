/*
 * What the radix sort's kernels (radix.cl, radix_serial.cl) share: the types their options make.
 * Compiled after cl/sort/sort_key.h.
 *
 * Required: CLPERM_SORT_KEY64 (0: 32-bit keys, 1: 64-bit), CLPERM_SORT_BITS (bits per digit,
 * 1..8). Optional: CLPERM_SORT_VALUE_BYTES (0, 4 or 8; 0 when there are no values),
 * CLPERM_SORT_COUNT64 (the reduce-then-scan counts: 0 u32, 1 u64).
 */
#ifndef CLPERM_SORT_KEY64
#error "CLPERM_SORT_KEY64 must be defined"
#endif
#ifndef CLPERM_SORT_BITS
#error "CLPERM_SORT_BITS must be defined"
#endif
#ifndef CLPERM_SORT_VALUE_BYTES
#define CLPERM_SORT_VALUE_BYTES 0
#endif
#ifndef CLPERM_SORT_COUNT64
#define CLPERM_SORT_COUNT64 0
#endif

#if CLPERM_SORT_KEY64
typedef ulong sort_key;
#define SORT_KEY_BITS 64
#else
typedef uint sort_key;
#define SORT_KEY_BITS 32
#endif
#if CLPERM_SORT_VALUE_BYTES == 8
typedef ulong sort_val;
#else
typedef uint sort_val; /* unused without values */
#endif
#if CLPERM_SORT_COUNT64
typedef ulong sort_count;
#else
typedef uint sort_count;
#endif
#define SORT_R (1u << CLPERM_SORT_BITS)
