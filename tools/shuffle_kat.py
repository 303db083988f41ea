#!/usr/bin/env python3
"""Known answers for clperm's permutations, computed apart from the library.

A transcription of the key derivation and of the three bijections as include/clperm_bijection.h
and docs/shuffle.md describe them (VariablePhilox with its transposition, the LCG, the Feistel
over a x 2^h), and of the permutation they give: the values f(i) below n, in the order of i.

    shuffle_kat.py KAT_FILE                      check every line of KAT_FILE (exit 1 on a mismatch)
    shuffle_kat.py KIND ROUNDS N SEED            print that line (SEED in hex)
    shuffle_kat.py --value KIND ROUNDS N SEED X  print f(X)

A line of KAT_FILE: kind rounds n seed-in-hex, then perm[0] perm[1] ... (all of it when n <= 64,
else the first 64, or 32 from n = 2^20 up).
"""
import sys

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
PHILOX_M0 = 0xD2B74407B1CE6E93
DEFAULT_ROUNDS = {"philox": 24, "feistel": 8, "lcg": 0}
MIN_BITS = 4


def fmix64(z):
    """SplitMix64's finaliser (without the gamma)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class SplitMix:
    def __init__(self, state):
        self.state = state

    def next(self):
        self.state = (self.state + GAMMA) & M64
        return fmix64(self.state)


def ceil_log2(n):
    b = 0
    while b < 64 and (1 << b) < n:
        b += 1
    return b


class Key:
    """The key of (kind, rounds, n, seed): the generator's state starts at
    fmix64(fmix64(seed ^ 0x6A09E667F3BCC909) ^ n), so that one seed's permutations of different n
    are unrelated."""

    def __init__(self, kind, rounds, n, seed):
        self.kind, self.n = kind, n
        self.rounds = rounds or DEFAULT_ROUNDS[kind]
        bits = max(MIN_BITS, ceil_log2(n))
        self.domain = 1 << bits
        self.left, self.right = bits // 2, bits - bits // 2
        g = SplitMix(fmix64(fmix64(seed ^ 0x6A09E667F3BCC909) ^ n))
        if kind == "feistel":
            h = max(4, bits // 2)
            if bits > 31 + h:
                h = bits - 31
            a = max(16, (n + (1 << h) - 1) >> h)
            self.radix, self.right = a, h
            self.domain = a << h
        if kind != "lcg":
            self.keys = [g.next() >> 32 for _ in range(self.rounds)]
        else:
            self.mul = (g.next() | 1) & (self.domain - 1)
            self.add = g.next() & (self.domain - 1)
        self.swap = (0, 0)
        if kind == "philox":
            apply = fmix64(g.next() ^ n) >> 63
            r1, r2 = g.next(), g.next()
            if apply and n >= 2:
                u = r1 % n
                self.swap = (u, (u + 1 + r2 % (n - 1)) % n)

    def philox(self, x):
        lb, rb = self.left, self.right
        lmask, rmask = (1 << lb) - 1, (1 << rb) - 1
        odd = rb - lb
        s0, s1 = x >> rb, x & rmask
        for r in range(self.rounds):
            p = PHILOX_M0 * s0
            hi, lo = (p >> 32) & M32, p & M32
            if odd:
                lo = ((lo << 1) | (s1 >> lb)) & M32
            t = (hi ^ self.keys[r] ^ s1) & lmask
            s1, s0 = lo & rmask, t
        y = (s0 << rb) | s1
        a, b = self.swap
        return b if y == a else a if y == b else y

    def feistel(self, x):
        h, a = self.right, self.radix
        rmask = (1 << h) - 1
        l, r = x >> h, x & rmask

        def fmix32(v, key):
            v ^= key
            v ^= v >> 16
            v = (v * 0x85EBCA6B) & M32
            v ^= v >> 13
            v = (v * 0xC2B2AE35) & M32
            return v ^ (v >> 16)

        def reduce(v):
            return ((v >> 16) * a) >> 16 if a <= 0x10000 else (v * a) >> 32

        for i in range(self.rounds):
            if i % 2 == 0:
                l = (l + reduce(fmix32(r, self.keys[i]))) % a
            else:
                r = (r + (fmix32(l, self.keys[i]) >> (32 - h))) & rmask
        return (l << h) | r

    def apply(self, x):
        if self.kind == "lcg":
            return (self.mul * x + self.add) & (self.domain - 1)
        return self.philox(x) if self.kind == "philox" else self.feistel(x)


def first_values(kind, rounds, n, seed):
    count = n if n <= 64 else 64 if n < (1 << 20) else 32
    key, out, i = Key(kind, rounds, n, seed), [], 0
    while len(out) < count:
        y = key.apply(i)
        if y < n:
            out.append(y)
        i += 1
    return out


def line(kind, rounds, n, seed):
    return "%s %d %d 0x%x %s" % (kind, rounds, n, seed, " ".join(str(v) for v in first_values(kind, rounds, n, seed)))


def main(argv):
    if len(argv) == 7 and argv[1] == "--value":
        print(Key(argv[2], int(argv[3]), int(argv[4]), int(argv[5], 16)).apply(int(argv[6])))
        return 0
    if len(argv) == 5:
        print(line(argv[1], int(argv[2]), int(argv[3]), int(argv[4], 16)))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines = bad = 0
    for text in open(argv[1]):
        if not text.strip() or text.startswith("#"):
            continue
        f = text.split()
        kind, rounds, n, seed = f[0], int(f[1]), int(f[2]), int(f[3], 16)
        want = [int(v) for v in f[4:]]
        got = first_values(kind, rounds, n, seed)[: len(want)]
        lines += 1
        if got != want:
            bad += 1
            print("differs: %s %d %d %#x" % (kind, rounds, n, seed))
    print("%d lines, %d differ" % (lines, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
