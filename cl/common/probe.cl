/*
 * Probes of what a device does, run once per device in a process (src/runtime/probe.c).
 *
 * clperm_probe_loops: words[0] becomes the number of iterations one loop of n ran, counted
 * through loads (words[1] and words[2] hold 1) so that no compiler folds the loop away. OpenCL
 * bounds no loop, but Mesa's llvmpipe (gallivm) ends every kernel's loops after 65535 iterations
 * in all, without an error: on such a device words[0] comes back below n.
 *
 * clperm_probe_local is never run: it declares 4096 bytes of local memory, and the device's
 * report of what the kernel uses (CL_KERNEL_LOCAL_MEM_SIZE) is read against that. Rusticl on
 * llvmpipe reports twice what a kernel declares.
 */
__kernel void clperm_probe_loops(__global uint *words, uint n) {
    uint c = 0;
    for (uint i = 0; i < n; i++) c += words[1 + (i & 1)];
    words[0] = c;
}

__kernel void clperm_probe_local(__global uint *words) {
    __local uint s[1024];
    uint i = (uint)get_local_id(0) & 1023u;
    s[i] = words[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    words[i] = s[1023u - i];
}
