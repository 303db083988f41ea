// Boost.Compute's sort of u32 keys on one OpenCL device: the OpenCL peer of clperm's device-wide
// sort in `clperm bench` (op sort, variant boost-compute), which runs this program when it was
// built (CMake builds it when a C++ compiler and Boost's headers are found).
//
//   clperm_bc_sort PLATFORM DEVICE REPS WARMUP N...
//
// PLATFORM and DEVICE are the names the device reports. For each N: n random u32 keys, copied
// into the vector that is sorted before each run (outside the time), the median wall-clock time
// of REPS sorts after WARMUP, each ended by finish(). Prints "n,seconds" per N, or "error,..." and
// exits 1.
#define BOOST_COMPUTE_DEBUG_KERNEL_COMPILATION 0
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/is_sorted.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bc = boost::compute;

int main(int argc, char **argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: %s PLATFORM DEVICE REPS WARMUP N...\n", argv[0]);
        return 2;
    }
    const std::string platform = argv[1], device = argv[2];
    const int reps = std::max(1, std::atoi(argv[3])), warmup = std::max(0, std::atoi(argv[4]));
    try {
        for (auto &p : bc::system::platforms())
            for (auto &d : p.devices()) {
                if (p.name() != platform || d.name() != device) continue;
                bc::context ctx(d);
                bc::command_queue q(ctx, d);
                for (int a = 5; a < argc; a++) {
                    const size_t n = std::strtoull(argv[a], nullptr, 10);
                    std::vector<uint32_t> host(n);
                    uint64_t z = 0x5eed0009u;
                    for (auto &x : host) {
                        z = z * 6364136223846793005ull + 1442695040888963407ull;
                        x = uint32_t(z >> 32);
                    }
                    bc::vector<uint32_t> pristine(n, ctx), keys(n, ctx);
                    bc::copy(host.begin(), host.end(), pristine.begin(), q);
                    std::vector<double> times;
                    for (int r = -warmup; r < reps; r++) {
                        bc::copy(pristine.begin(), pristine.end(), keys.begin(), q);
                        q.finish();
                        auto t0 = std::chrono::steady_clock::now();
                        bc::sort(keys.begin(), keys.end(), q);
                        q.finish();
                        auto t1 = std::chrono::steady_clock::now();
                        if (r >= 0) times.push_back(std::chrono::duration<double>(t1 - t0).count());
                    }
                    if (!bc::is_sorted(keys.begin(), keys.end(), q)) {
                        std::printf("error,not sorted at n=%zu\n", n);
                        return 1;
                    }
                    std::sort(times.begin(), times.end());
                    double median = times.size() % 2 ? times[times.size() / 2]
                                                     : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
                    std::printf("%zu,%.9g\n", n, median);
                    std::fflush(stdout);
                }
                return 0;
            }
        std::printf("error,no device %s / %s\n", platform.c_str(), device.c_str());
    } catch (const std::exception &e) {
        std::printf("error,%s\n", e.what());
    }
    return 1;
}
