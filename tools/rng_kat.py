#!/usr/bin/env python3
"""Known answers for clperm's generators, computed apart from the library.

A second transcription of what docs/rng-quality.md and the comments of include/clperm_rng.h say
the generators compute, written from those descriptions and not from the C: the packed
parameters, the five families' word updates, SplitMix64 seeding, the fill layout and the
STARSTAR scrambler. Only the parameter tables are read from the C header.

    rng_kat.py TABLES_H KAT_FILE           check every line of KAT_FILE (exit 1 on a mismatch)
    rng_kat.py TABLES_H FAMILY K SCRAMBLE SEED STREAM   print that line
    rng_kat.py TABLES_H --windows [W B]    each table's smallest dependent window (exit 1 if any)

The last is rng_search's window check done again: W <= 10 successive output words, b bits at one
offset of each (cyclically), W b <= 64, from every start and offset (docs/rng-quality.md).

A line of KAT_FILE: family k scrambler seed stream, then the first 16 u32 of
clperm_rng_fill_host(spec, CLPERM_RNG_OUT_U32, out, 16, seed, stream), in hex.
"""
import re
import sys

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
FAMILIES = {"correlated": 1, "three": 2, "slowmem": 3, "iterated": 4, "buffered": 5}
SCRAMBLERS = ("none", "starstar")
FILL_STEPS = 256  # CLPERM_RNG_FILL_STEPS: draws per block


def read_tables(path):
    """{(family, k): [packed parameters of word 0 .. k-1]} from clperm_rng_tables.h."""
    tables, current = {}, None
    for line in open(path):
        m = re.match(r"#define CLPERM_RNG_TABLE_(\d+)_(\d+) ", line)
        if m:
            current = tables.setdefault((int(m.group(1)), int(m.group(2))), [])
        elif current is not None and line.strip().startswith("0x"):
            current += [int(v, 16) for v in re.findall(r"0x([0-9a-fA-F]+)UL", line)]
        else:
            current = None
    for (family, k), words in tables.items():
        if len(words) != k:
            raise SystemExit("rng_kat.py: table %d_%d has %d words, not %d" % (family, k, len(words), k))
    return tables


def fields(p):
    """Sources q0..q3 (6 bits each from bit 0), shifts z0..z3 (5 bits each from bit 24)."""
    q = [(p >> (6 * i)) & 63 for i in range(4)]
    z = [(p >> (24 + 5 * i)) & 31 for i in range(4)]
    return q, z


def rotr(x, r):
    return ((x >> r) | (x << (32 - r))) & M32 if r else x


def draw(family, params, s, b):
    """One draw: every new word from the old state s (ITERATED: two such passes); b is the
    buffered family's registers. Returns the new state."""
    for second in range(2 if family == 4 else 1):
        new = []
        for j, p in enumerate(params):
            q, z = fields(p)
            if second:  # ITERATED's second pass reads q2, q3 with shifts z2, z3
                q, z = [q[2], q[3]], [z[2], z[3]]
            t0, t1 = s[q[0]], s[q[1]]
            left = (t0 << z[0]) & M32
            if family in (1, 4):
                word = left ^ rotr(t1, z[1])
            elif family == 2:
                word = left ^ (t1 >> z[1]) ^ s[q[2]]
            elif family == 3:
                word = left ^ (t1 >> z[1]) ^ t0 ^ t1
            else:
                word = b[j] ^ left ^ (t1 >> z[1])
            new.append(word)
        if family == 5:  # each register takes the old word q2 after it was used
            b[:] = [s[fields(p)[0][2]] for p in params]
        s = new
    return s


def mix64(z):
    """SplitMix64's output function of z + the golden gamma."""
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def key(seed, stream, block):
    """The generator's key: SplitMix64(g ^ SplitMix64(block ^ C2)), g = SplitMix64(seed ^
    SplitMix64(stream ^ C1))."""
    g = mix64(seed ^ mix64(stream ^ 0x243F6A8885A308D3))
    return mix64(g ^ mix64(block ^ 0x13198A2E03707344))


def seeded(k, seed, stream, block):
    """Word j: the low half of SplitMix64(key + j gamma), word 0 with its low bit set; the
    buffered family's register j: the high half."""
    s, b = [], []
    kk = key(seed, stream, block)
    for j in range(k):
        h = mix64((kk + j * 0x9E3779B97F4A7C15) & M64)
        s.append((h & M32) | (1 if j == 0 else 0))
        b.append(h >> 32)
    return s, b


def scrambled(scramble, x):
    if scramble == "starstar":  # rotl(x * 5, 7) * 9 mod 2^32
        y = (x * 5) & M32
        return ((((y << 7) | (y >> 25)) & M32) * 9) & M32
    return x


def fill(tables, family, k, scramble, seed, stream, n=16):
    """The first n items of a u32 fill: block g from key(seed, stream, g), item (t, j) of a block the
    (scrambled) word j after the block's (t + 1)-th draw."""
    params = tables[(FAMILIES[family], k)]
    out = []
    block = 0
    while len(out) < n:
        s, b = seeded(k, seed, stream, block)
        for _ in range(FILL_STEPS):
            s = draw(FAMILIES[family], params, s, b)
            out += [scrambled(scramble, w) for w in s]
            if len(out) >= n:
                break
        block += 1
    return out[:n]


def line(tables, family, k, scramble, seed, stream):
    words = fill(tables, family, k, scramble, seed, stream)
    return "%s %d %s 0x%016x %d %s" % (family, k, scramble, seed, stream, " ".join("%08x" % w for w in words))


def output_forms(family, params, draws):
    """forms[d][j][bit]: output bit `bit` of word j at draw d (d = 0: the state itself) as an
    integer whose bit i says whether state bit i enters it. The generator is linear, so running
    it from each unit state gives the columns."""
    k = len(params)
    n = 32 * k * (2 if family == 5 else 1)
    forms = [[[0] * 32 for _ in range(k)] for _ in range(draws)]
    for i in range(n):
        s = [(1 << (i % 32)) if i // 32 == j else 0 for j in range(k)]
        b = [(1 << (i % 32)) if i // 32 == k + j else 0 for j in range(k)]
        for d in range(draws):
            if d:
                s = draw(family, params, s, b)
            for j in range(k):
                for bit in range(32):
                    if s[j] >> bit & 1:
                        forms[d][j][bit] |= 1 << i
    return forms


def smallest_window(family, params, max_words=10, max_bits=64):
    """(W, b, start, offset, rank) of the dependent window with fewest bits, then fewest words;
    None when there is none."""
    k = len(params)
    draws = (k - 1 + max_words + k - 1) // k + 1
    forms = output_forms(family, params, draws)
    seq = [forms[d][j] for d in range(draws) for j in range(k)]
    best = None
    for b in range(1, 33):
        wmax = min(max_words, max_bits // b)
        for start in range(k):
            if start + wmax <= k:
                continue  # inside one draw: distinct state bits
            for off in range(1 if b == 32 else 32):
                basis, rank = {}, 0
                for w in range(wmax):
                    for i in range(b):
                        v = seq[start + w][(off + i) % 32]
                        while v:
                            h = v.bit_length() - 1
                            if h not in basis:
                                basis[h] = v
                                rank += 1
                                break
                            v ^= basis[h]
                    if rank < (w + 1) * b:
                        if best is None or ((w + 1) * b, w + 1) < (best[0] * best[1], best[0]):
                            best = (w + 1, b, start, off, rank)
                        break
    return best


def main(argv):
    if len(argv) in (3, 5) and argv[2] == "--windows":
        words, bits = (int(argv[3]), int(argv[4])) if len(argv) == 5 else (10, 64)
        names = {v: f for f, v in FAMILIES.items()}
        found = 0
        for (family, k), params in sorted(read_tables(argv[1]).items()):
            w = smallest_window(family, params, words, bits)
            if w:
                print("%s k=%d: dependent window of %d words x %d bits (from word %d, offset %d): rank %d"
                      % (names[family], k, w[0], w[1], w[2], w[3], w[4]))
                found += 1
            else:
                print("%s k=%d: no dependent window of <= %d words, <= %d bits" % (names[family], k, words, bits))
            sys.stdout.flush()
        return 1 if found else 0
    if len(argv) == 3:
        tables, bad, count = read_tables(argv[1]), 0, 0
        for text in open(argv[2]):
            if not text.strip() or text.startswith("#"):
                continue
            f = text.split()
            want = line(tables, f[0], int(f[1]), f[2], int(f[3], 0), int(f[4], 0))
            count += 1
            if want.split()[5:] != f[5:]:
                print("differs: %s\n   here: %s" % (text.strip(), want))
                bad += 1
        print("%d lines, %d differ" % (count, bad))
        return 1 if bad or not count else 0
    if len(argv) == 7 and argv[2] in FAMILIES and argv[4] in SCRAMBLERS:
        print(line(read_tables(argv[1]), argv[2], int(argv[3]), argv[4], int(argv[5], 0), int(argv[6], 0)))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
