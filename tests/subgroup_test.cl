/* Exercises every operation of the subgroup layer (compiled after cl/common/subgroup.h). For work-item
 * g: out32[g*8 + k] and out64[g*6 + k] hold the results of operation k; meta[g] = lane | id << 16. */
__kernel CLPERM_KERNEL_ATTRS void sg_test(const __global uint *in32, const __global ulong *in64,
                                          __global uint *out32, __global ulong *out64,
                                          __global uint *meta) {
    CLPERM_SG_SCRATCH_DECL(scr);
    uint g = (uint)get_global_id(0);
    uint x = in32[g];
    ulong y = in64[g];
    uint lane = clperm_sg_lane(), w = clperm_sg_size();
    uint src = (lane * 7u + 3u) % w;
    out32[g * 8 + 0] = clperm_sg_broadcast_u32(x, 3u % w, scr);
    out32[g * 8 + 1] = clperm_sg_shuffle_u32(x, src, scr);
    out32[g * 8 + 2] = clperm_sg_scan_incl_add_u32(x, scr);
    out32[g * 8 + 3] = clperm_sg_scan_excl_add_u32(x, scr);
    out32[g * 8 + 4] = clperm_sg_reduce_add_u32(x, scr);
    out32[g * 8 + 5] = clperm_sg_first_lane((x & 7u) == 0, scr);
    out32[g * 8 + 6] = (uint)clperm_sg_any((x & 63u) == 0, scr) | ((uint)clperm_sg_all((x & 1u) == 0, scr) << 1);
    out32[g * 8 + 7] = (uint)clperm_sg_ballot((x & 1u) != 0, scr);
    out64[g * 6 + 0] = clperm_sg_broadcast_u64(y, 5u % w, scr);
    out64[g * 6 + 1] = clperm_sg_shuffle_u64(y, src, scr);
    out64[g * 6 + 2] = clperm_sg_scan_incl_add_u64(y, scr);
    out64[g * 6 + 3] = clperm_sg_scan_excl_add_u64(y, scr);
    out64[g * 6 + 4] = clperm_sg_reduce_add_u64(y, scr);
    out64[g * 6 + 5] = clperm_sg_ballot((y & 1u) != 0, scr) >> 32;
    meta[g] = lane | (clperm_sg_id() << 16);
}
