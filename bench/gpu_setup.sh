# Sourced by bench/gpu_permute.sh and bench/gpu_permute_tiles.sh (with root, build and out set):
# builds clperm's command line in $build (Release, without the Criterion tests and the tools),
# sets bin and the program cache, and records the devices, the GPU and the date in $out.
mkdir -p "$out"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCLPERM_BUILD_TESTS=OFF -DCLPERM_BUILD_TOOLS=OFF \
  >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target clperm_cli >>"$out/cmake.log" 2>&1 || { tail -n 40 "$out/cmake.log"; exit 1; }
bin=$build/clperm
export CLPERM_CACHE_DIR="$build/cache"

"$bin" devices | tee "$out/devices.txt"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true) >"$out/gpu.txt" 2>&1
date -u +%Y-%m-%dT%H:%MZ >"$out/date.txt"
