// Boost.Compute's algorithms on one OpenCL device: the OpenCL peers of clperm's sort, scan and
// shuffle in `clperm bench` (variant boost-compute), which runs this program when it was built
// (CMake builds it when a C++ compiler and Boost's headers are found).
//
//   clperm_bc_peer OP PLATFORM DEVICE REPS WARMUP N...
//
// OP is sort (u32 keys, in place), scan (exclusive scan of u32 items into a second vector) or
// shuffle (random_shuffle of u64 items, in place: Boost.Compute draws the permutation on the host
// and scatters on the device). PLATFORM and DEVICE are the names the device reports. For each N:
// n u32 (u64) items, copied into the vector worked on before each run (outside the time), the
// median wall-clock time of REPS runs after WARMUP, each ended by finish(); a run that takes over
// a quarter of a second ends the timing after three. The result of the last run is checked (sorted,
// the host's scan, a permutation of the input). Prints "n,seconds,runs" per N, or "error,..." and
// exits 1.
#define BOOST_COMPUTE_DEBUG_KERNEL_COMPILATION 0
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/is_sorted.hpp>
#include <boost/compute/algorithm/random_shuffle.hpp>
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

// A name as OpenCL C would read it: up to its first NUL (NVIDIA's driver pads some with NULs,
// which Boost.Compute keeps in the std::string), without trailing spaces.
static std::string c_name(const std::string &s) {
    std::string t(s.c_str());
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t;
}

template <class T> static std::vector<T> random_items(size_t n) {
    std::vector<T> host(n);
    uint64_t z = 0x5eed0009u;
    for (auto &x : host) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        x = T(sizeof(T) == 4 ? z >> 32 : z);
    }
    return host;
}

static double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

// Times run() (REPS after WARMUP, restore() before each, outside the time): the median seconds
// and the number of timed runs.
template <class Restore, class Run>
static double timed(bc::command_queue &q, int reps, int warmup, Restore restore, Run run, int *count) {
    std::vector<double> times;
    for (int r = -warmup; r < reps; r++) {
        restore();
        q.finish();
        auto t0 = std::chrono::steady_clock::now();
        run();
        q.finish();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r >= 0) times.push_back(s);
        if (s > 0.25 && times.size() >= 3) break;
    }
    *count = int(times.size());
    return median(times);
}

// One size of OP; an empty string or what went wrong.
static std::string measure(const std::string &op, bc::context &ctx, bc::command_queue &q, size_t n, int reps,
                           int warmup, double *seconds, int *runs) {
    if (op == "sort") {
        std::vector<uint32_t> host = random_items<uint32_t>(n);
        bc::vector<uint32_t> pristine(n, ctx), keys(n, ctx);
        bc::copy(host.begin(), host.end(), pristine.begin(), q);
        *seconds = timed(
            q, reps, warmup, [&] { bc::copy(pristine.begin(), pristine.end(), keys.begin(), q); },
            [&] { bc::sort(keys.begin(), keys.end(), q); }, runs);
        return bc::is_sorted(keys.begin(), keys.end(), q) ? "" : "not sorted";
    }
    if (op == "scan") {
        std::vector<uint32_t> host = random_items<uint32_t>(n), got(n);
        bc::vector<uint32_t> in(n, ctx), out(n, ctx);
        bc::copy(host.begin(), host.end(), in.begin(), q);
        *seconds = timed(
            q, reps, warmup, [] {}, [&] { bc::exclusive_scan(in.begin(), in.end(), out.begin(), q); }, runs);
        bc::copy(out.begin(), out.end(), got.begin(), q);
        uint32_t sum = 0;
        for (size_t i = 0; i < n; sum += host[i++])
            if (got[i] != sum) return "wrong scan at item " + std::to_string(i);
        return "";
    }
    if (op == "shuffle") {
        std::vector<uint64_t> host = random_items<uint64_t>(n), got(n);
        bc::vector<uint64_t> pristine(n, ctx), items(n, ctx);
        bc::copy(host.begin(), host.end(), pristine.begin(), q);
        *seconds = timed(
            q, reps, warmup, [&] { bc::copy(pristine.begin(), pristine.end(), items.begin(), q); },
            [&] { bc::random_shuffle(items.begin(), items.end(), q); }, runs);
        bc::copy(items.begin(), items.end(), got.begin(), q);
        std::sort(host.begin(), host.end());
        std::sort(got.begin(), got.end());
        return got == host ? "" : "not a permutation of the input";
    }
    return "unknown op " + op + " (sort, scan or shuffle)";
}

int main(int argc, char **argv) {
    if (argc < 7) {
        std::fprintf(stderr, "usage: %s sort|scan|shuffle PLATFORM DEVICE REPS WARMUP N...\n", argv[0]);
        return 2;
    }
    const std::string op = argv[1], platform = argv[2], device = argv[3];
    const int reps = std::max(1, std::atoi(argv[4])), warmup = std::max(0, std::atoi(argv[5]));
    try {
        std::string seen;
        for (auto &p : bc::system::platforms())
            for (auto &d : p.devices()) {
                seen += (seen.empty() ? "" : "; ") + c_name(p.name()) + " / " + c_name(d.name());
                if (c_name(p.name()) != c_name(platform) || c_name(d.name()) != c_name(device)) continue;
                bc::context ctx(d);
                bc::command_queue q(ctx, d);
                for (int a = 6; a < argc; a++) {
                    const size_t n = std::strtoull(argv[a], nullptr, 10);
                    double s = 0;
                    int runs = 0;
                    std::string bad = measure(op, ctx, q, n, reps, warmup, &s, &runs);
                    if (!bad.empty()) {
                        std::printf("error,%s at n=%zu\n", bad.c_str(), n);
                        return 1;
                    }
                    std::printf("%zu,%.9g,%d\n", n, s, runs);
                    std::fflush(stdout);
                }
                return 0;
            }
        std::printf("error,no device %s / %s among: %s\n", platform.c_str(), device.c_str(), seen.c_str());
    } catch (const std::exception &e) {
        std::printf("error,%s\n", e.what());
    }
    return 1;
}
