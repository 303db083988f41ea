/* The bench's input generator (SplitMix64's finaliser), shared by its kernel files. */

inline ulong clperm_bench_mix(ulong z) {
    z += 0x9e3779b97f4a7c15ul;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
    return z ^ (z >> 31);
}

