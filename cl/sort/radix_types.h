/*
 * What the radix sort's kernels (radix.cl, radix_serial.cl) share: the types their options make.
 * Compiled after cl/sort/sort_key.h.
 *
 * Required: CLPERM_SORT_KEY_BYTES (1, 2, 4 or 8: keys of 8 to 64 bits), CLPERM_SORT_BITS (bits
 * per digit, 1..8). Optional: CLPERM_SORT_VALUE_BYTES (0, 4, 8 or 16; 0 when there are no values),
 * CLPERM_SORT_COUNT64 (the reduce-then-scan counts: 0 u32, 1 u64), CLPERM_SORT_LABELS (below).
 *
 * Label programs (CLPERM_SORT_LABELS=1, the bucket shuffle's partition): key i is not read but
 * drawn, clperm__bucket_label(key, i) (clperm_features.h), and no key is written; the kernels'
 * two mask arguments carry the labels' key instead (low and high words), and a digit is the
 * label's bits from `shift` up.
 */
#ifndef CLPERM_SORT_KEY_BYTES
#error "CLPERM_SORT_KEY_BYTES must be defined"
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
#ifndef CLPERM_SORT_LABELS
#define CLPERM_SORT_LABELS 0
#endif

#if CLPERM_SORT_KEY_BYTES == 8
typedef ulong sort_key;
#elif CLPERM_SORT_KEY_BYTES == 4
typedef uint sort_key;
#elif CLPERM_SORT_KEY_BYTES == 2
typedef ushort sort_key;
#else
typedef uchar sort_key;
#endif
#define SORT_KEY_BITS (8 * CLPERM_SORT_KEY_BYTES)
#if CLPERM_SORT_VALUE_BYTES == 16
typedef ulong2 sort_val;
#elif CLPERM_SORT_VALUE_BYTES == 8
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

/* Key i of `keys`, its order-preserving form under masks px and nx and that form's inverse (label
 * programs: the label itself). */
#if CLPERM_SORT_LABELS
#define SORT_LABEL_KEY(px, nx) (((ulong)(nx) << 32) | (ulong)(px))
#define SORT_KEY_AT(keys, i, px, nx) ((sort_key)clperm__bucket_label(SORT_LABEL_KEY(px, nx), (i)))
#define SORT_ORDER(k, px, nx) (k)
#define SORT_UNORDER(o, px, nx) (o)
#else
#define SORT_KEY_AT(keys, i, px, nx) ((keys)[i])
#define SORT_ORDER(k, px, nx) CLPERM_KEY_ORDER((k), SORT_KEY_BITS, (px), (nx))
#define SORT_UNORDER(o, px, nx) CLPERM_KEY_UNORDER((o), SORT_KEY_BITS, (px), (nx))
#endif
