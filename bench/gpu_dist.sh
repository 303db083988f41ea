#!/bin/sh
# The distributed shuffle and sort on the GPUs of one host, one MPI rank per GPU: builds clperm
# with MPI (Open MPI's mpicc and mpirun must be installed: openmpi-bin, libopenmpi-dev), checks
# the results against the host's on 2 ranks (test_dist, when the tests are built), then runs
# `clperm bench --dist` at 2^24, 2^26 and 2^28 64-bit items per rank: the distributed rows, the
# single-GPU baseline and the host-staged all-to-all bound, as a table and as JSON lines.
#
#   bench/gpu_dist.sh [RANKS] [BUILD_DIR]      (defaults: 2, build-gpu-dist)
#
# Each rank takes the GPU of its local rank (clperm bench --dist's default); ranks are not bound
# to cores, so that each can stage through the host memory its GPU is near. Open MPI 4.1 cuts an
# exported OCL_ICD_FILENAMES at its first colon when it starts the ranks (a rank may then see
# only the first OpenCL platform), so the ranks get it through env on their command line.
#
# Between ranks of one node the library's exchange does not use MPI's data path (docs/performance.md,
# "The exchange as a pipeline"), but MPI's own all-to-all is measured beside it and carries the
# data between nodes: Open MPI's shared-memory transport is started with a single copy per
# message (CMA, process_vm_readv) instead of copy-in/copy-out, which some images set through
# OMPI_MCA_btl_vader_single_copy_mechanism=none (2.0 against 3.1 GB/s per rank on the H100
# host). CLPERM_MPI_SINGLE_COPY overrides it (none where ptrace between processes is refused).
set -eu
ranks=${1:-2}
build=${2:-build-gpu-dist}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
single_copy=${CLPERM_MPI_SINGLE_COPY:-cma}
mpirun() { command mpirun --mca btl_vader_single_copy_mechanism "$single_copy" "$@"; }
icd=""
if [ -n "${OCL_ICD_FILENAMES:-}" ]; then icd="env OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES"; fi
tests=OFF
if [ -e /usr/include/criterion/criterion.h ]; then tests=ON; fi
cmake -S . -B "$build" -DCLPERM_BUILD_TESTS=$tests -DCLPERM_OCLGRIND_TESTS=OFF
cmake --build "$build" -j
if [ "$tests" = ON ]; then
  mpirun -np "$ranks" --bind-to none $icd "$build/tests/test_dist" --small
fi
mpirun -np "$ranks" --bind-to none $icd "$build/clperm" bench --dist --sizes 2^24,2^26,2^28 --reps 5 --warmup 1
mpirun -np "$ranks" --bind-to none $icd "$build/clperm" bench --dist --sizes 2^28 --reps 5 --warmup 1 --json
