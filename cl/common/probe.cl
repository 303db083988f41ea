/*
 * Probes of what a device does, run once per device in a process (src/runtime/probe.c).
 *
 * clperm_probe_loops: words[0] becomes the number of iterations one loop of n ran, counted
 * through loads (words[1] and words[2] hold 1) so that no compiler folds the loop away. OpenCL
 * bounds no loop, but Mesa's llvmpipe (gallivm) ends every kernel's loops after 65535 iterations
 * in all, without an error: on such a device words[0] comes back below n.
 */
__kernel void clperm_probe_loops(__global uint *words, uint n) {
    uint c = 0;
    for (uint i = 0; i < n; i++) c += words[1 + (i & 1)];
    words[0] = c;
}
