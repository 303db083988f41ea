// Boost.Compute's algorithms on the bench's own device: the OpenCL peers of clperm's sort, scan
// and shuffle in `clperm bench` (variant boost-compute), compiled into the bench where CMake finds
// a C++ compiler and Boost's headers. They run in the bench's process, on its context: a second
// process may not see a GPU that the bench holds open (on an H100, such a program found only the
// CPU's platform).
//
// OP is sort (u32 keys, in place), scan (exclusive scan of u32 items into a second vector) or
// shuffle (random_shuffle of u64 items, in place: Boost.Compute draws the permutation on the host
// and scatters on the device). n u32 (u64) items, copied into the vector worked on before each run
// (outside the time), the median wall-clock time of REPS runs after WARMUP, each ended by finish();
// a run that takes over a quarter of a second ends the timing after three; one over a second is
// timed once, its programs built beforehand by a run on 4096 items (Boost.Compute's shuffle draws
// its permutation on the host: about 4 s at 2^26, not worth repeating). The result of the last run
// is checked (sorted, the host's scan, the same multiset as the input).
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
#include <utility>
#include <vector>

namespace bc = boost::compute;

template <class T> static std::vector<T> random_items(size_t n) {
    std::vector<T> host(n);
    uint64_t z = 0x5eed0009u;
    for (auto &x : host) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        x = T(sizeof(T) == 4 ? z >> 32 : z);
    }
    return host;
}

// The items as a multiset: sums of two mixes of each item, in any order.
static std::pair<uint64_t, uint64_t> multiset_hash(const std::vector<uint64_t> &v) {
    uint64_t a = 0, b = 0;
    for (uint64_t x : v) {
        uint64_t z = x + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        a += z ^ (z >> 31);
        b += (z ^ (z >> 29)) * 0xff51afd7ed558ccdull;
    }
    return {a, b};
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
        if (r < 0 && s <= 1.0) continue;
        /* A run over a second is the measurement, warm-up or not: the programs were built before. */
        times.push_back(s);
        if ((s > 1.0 && times.size() >= 1) || (s > 0.25 && times.size() >= 3)) break;
    }
    *count = int(times.size());
    return median(times);
}

// One size of OP; an empty string or what went wrong.
static std::string measure(const std::string &op, bc::context &ctx, bc::command_queue &q, size_t n, int reps,
                           int warmup, double *seconds, int *runs);

// OP on 4096 items first, so that Boost.Compute builds its programs before the timed runs.
static std::string measure_warm(const std::string &op, bc::context &ctx, bc::command_queue &q, size_t n, int reps,
                                int warmup, double *seconds, int *runs) {
    if (n > 4096) {
        std::string bad = measure(op, ctx, q, 4096, 1, 0, seconds, runs);
        if (!bad.empty()) return bad;
    }
    return measure(op, ctx, q, n, reps, warmup, seconds, runs);
}

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
        return multiset_hash(host) == multiset_hash(got) ? "" : "not a permutation of the input";
    }
    return "unknown op " + op + " (sort, scan or shuffle)";
}

extern "C" int bench_bc_measure(cl_context context, cl_device_id device, const char *op, uint64_t n, int reps,
                                int warmup, double *seconds, char *err, size_t errcap) {
    std::string bad;
    try {
        bc::context ctx(context, true);
        bc::device dev(device, true);
        bc::command_queue q(ctx, dev);
        int runs = 0;
        bad = measure_warm(op, ctx, q, size_t(n), std::max(1, reps), std::max(0, warmup), seconds, &runs);
    } catch (const std::exception &e) {
        bad = e.what();
    }
    if (bad.empty()) return 0;
    std::snprintf(err, errcap, "Boost.Compute: %s", bad.c_str());
    return -1;
}
