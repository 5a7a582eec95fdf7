// cub_peer TYPE N... [SHAPE] [--op sum]: a CUDA peer of `clfold bench` on
// current CCCL's cub::DeviceReduce and cub::DeviceSegmentedReduce, and a
// CUDA streaming read as a second roofline.
//
// For each N it fills the bench's data on the GPU (element i is
// (i % 1000) / 1000, as clfold's bench makes it) and prints one JSON object
// per line and measurement:
//   {"peer": "cub-<determinism>", "type", "n", "best_ms", "median_ms", "e2e_ms", "result"}
// for cub::DeviceReduce::Sum under each determinism requirement CUB knows
// (not_guaranteed, run_to_run, gpu_to_gpu), called through the environment
// API with a memory resource that hands CUB temporary storage allocated
// once (its default resource frees with cudaFree, which synchronises the
// device inside the timed call), and
//   {"peer": "cuda-read", ...}
// for a kernel that only streams the array in: 16-byte __ldg loads, four in
// flight per thread, a grid of 8 blocks of 512 per SM, nothing written but
// a guard. best_ms and median_ms come from CUDA events around the call
// (best and median of 50 after 3 warm-ups); e2e_ms is the median wall time
// of the call and a copy of the value to the host (30 calls), what torch's
// x.sum().item() costs its caller.
//
// SHAPE, as `clfold bench --segments` and `--shape` pass it after the sizes
// (and as bench/peers/cuda_peer.py takes it):
//   --segments FILE.npy      cub::DeviceSegmentedReduce::Sum over the segments
//                            [offsets[s], offsets[s + 1]) of the N elements;
//                            FILE.npy is a 1-d array of uint64 or int64
//                            offsets, nondecreasing, the last at most N
//   --shape RxC --axis 1     the same over the rows (offsets r * C, from a
//                            strided counting iterator), and CUB's fixed-size
//                            overload (segment_size C) where this CUB has it
//   --shape RxC --axis 0     nothing: CUB has no strided segments, so this
//                            peer says so on stderr and prints no row (as
//                            cuda_peer.py does for what its library lacks)
// Each prints {"peer": "cub-segmented" or "cub-segmented-fixed", "type", "n",
// "best_ms", "median_ms", "e2e_ms"} and a cuda-read row. There is no "result",
// as cuda_peer.py gives none for shapes: the results are checked here
// instead, each against the exact sum of its elements within the bound that
// any order of summation meets, and a wrong one is an error (exit 1). CUB's
// temporary storage is allocated once (the two-phase API), and e2e_ms is the
// call and a copy of all the results to the host.
//
// Scans, as `clfold bench --scan` passes them after the sizes:
//   --scan inclusive         cub::DeviceScan::InclusiveSum of the N elements
//   --scan exclusive         cub::DeviceScan::ExclusiveSum
// into an array of NumPy's cumsum type (float, double; int32 and int8 summed
// and written in int64, read through a widening transform iterator, so that
// CUB adds in int64 as NumPy does), each printing
//   {"peer": "cub", "type", "op": "sum", "scan": MODE, "n", "best_ms", "median_ms", "e2e_ms"}
// and a "cuda-copy" row: cudaMemcpyAsync of (input + output bytes) / 2 from
// device to device, which moves as many bytes as the scan must (the roofline
// `clfold bench --scan` holds clfold to). Every output is checked against the
// exact prefix of the bench's data (integers exactly; floats within what any
// order of summation meets, as for segments) before the timing; a wrong one
// is an error (exit 1). e2e_ms is the call and a synchronize: the output
// stays on the device, as clfold's e2e of a scan. TYPE: float, double, int32
// or int8 (int32 and int8 for scans only).
//
// Exit status: 0; 1 for a CUDA or CUB error, an unreadable or refused .npy
// file, bad offsets or a wrong result; 2 for a bad command line.
//
// TYPE: float or double. Build with bench/peers/build-cub-peer.sh, which runs
//   nvcc -O3 -std=c++17 -arch=sm_90 --cudart=static -Xcompiler -Wall,-Wextra
//        -I$CCCL/cub -I$CCCL/thrust -I$CCCL/libcudacxx/include -o cub_peer cub_peer.cu
// (one line; CCCL 3.2 or later for the fixed-size row, CCCL's own checkout
// rather than an older toolkit's copy for the determinism API).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>

#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/__memory_resource/get_memory_resource.h>
#include <cuda/__memory_resource/memory_resource_base.h>
#include <cuda/__memory_resource/properties.h>
#include <cuda/iterator>
#include <cuda/std/__execution/env.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "cub_peer: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

constexpr int RUNS = 50, E2E_RUNS = 30, WARM = 3;

// Element i of the bench's data: (i % 1000) / 1000 for floats, i % 1000 - 500
// for int32, i % 100 - 50 for int8 (src/cli/bench/measure.c).
template <typename T>
__device__ T bench_value(size_t i)
{
    if constexpr (std::is_floating_point_v<T>)
        return (T)(i % 1000) / (T)1000;
    else if constexpr (sizeof(T) == 1)
        return (T)((int)(i % 100) - 50);
    else
        return (T)((int)(i % 1000) - 500);
}

template <typename T>
__global__ void fill(T *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = bench_value<T>(i);
}

// Reads n floats (or doubles, as bytes) 16 bytes at a time; writes only if a
// sum nobody can predict comes out at a value nobody expects.
__global__ void stream_read(const float4 *data, size_t vectors, float *guard)
{
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc = 0;
    for (; v + 3 * threads < vectors; v += 4 * threads) {
        const float4 a = __ldg(data + v), b = __ldg(data + v + threads),
                     c = __ldg(data + v + 2 * threads), d = __ldg(data + v + 3 * threads);
        acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) +
               (d.x + d.y + d.z + d.w);
    }
    for (; v < vectors; v += threads) {
        const float4 a = __ldg(data + v);
        acc += a.x + a.y + a.z + a.w;
    }
    if (acc == -1.0f)
        *guard = acc;
}

struct timing {
    double best_ms, median_ms, e2e_ms;
};

// CUDA-event times of `call`, then its wall time with its `count` values copied back
// (none: with a synchronize).
template <typename Call, typename T>
static timing time_call(Call call, const T *d_out, T *h_out, size_t count = 1)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < WARM; i++)
        call();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> times, walls;
    for (int i = 0; i < RUNS; i++) {
        float ms = 0;
        CHECK(cudaEventRecord(start));
        call();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    for (int i = 0; i < E2E_RUNS; i++) {
        auto t0 = std::chrono::steady_clock::now();
        call();
        if (count > 0)
            CHECK(cudaMemcpy(h_out, d_out, count * sizeof(T), cudaMemcpyDeviceToHost));
        else
            CHECK(cudaDeviceSynchronize());
        auto wall = std::chrono::steady_clock::now() - t0;
        walls.push_back(std::chrono::duration<double, std::milli>(wall).count());
    }
    std::sort(times.begin(), times.end());
    std::sort(walls.begin(), walls.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return {times[0], times[RUNS / 2], walls[E2E_RUNS / 2]};
}

// One JSON row; "result" only where there is one value to give (not for shapes).
static void print(const char *peer, const char *type, size_t n, timing t, const double *result)
{
    std::printf("{\"peer\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"best_ms\": %.6f, "
                "\"median_ms\": %.6f, \"e2e_ms\": %.6f",
                peer, type, n, t.best_ms, t.median_ms, t.e2e_ms);
    if (result != nullptr)
        std::printf(", \"result\": %.17g", *result);
    std::printf("}\n");
    std::fflush(stdout);
}

static void check_cub(const char *peer, cudaError_t err)
{
    if (err != cudaSuccess) {
        std::fprintf(stderr, "cub_peer: %s: %s\n", peer, cudaGetErrorString(err));
        std::exit(1);
    }
}

// CUB's temporary storage, allocated once: its default resource frees with
// cudaFree, which waits for the whole device inside the timed call.
struct preallocated : cuda::mr::memory_resource_base<preallocated> {
    void *buffer = nullptr;
    size_t bytes = 0;

    void *allocate(cuda::stream_ref, size_t n, size_t)
    {
        if (n > bytes)
            throw std::bad_alloc();
        return buffer;
    }
    void deallocate(cuda::stream_ref, void *, size_t, size_t) noexcept {}
    void *allocate_sync(size_t n, size_t alignment)
    {
        return allocate(cuda::stream_ref{cudaStream_t{}}, n, alignment);
    }
    void deallocate_sync(void *, size_t, size_t) noexcept {}
    bool operator==(const preallocated &other) const { return buffer == other.buffer; }
    bool operator!=(const preallocated &other) const { return buffer != other.buffer; }
    friend void get_property(const preallocated &, cuda::mr::device_accessible) noexcept {}
};

template <typename T, typename Determinism>
static void cub_sum(const char *peer, const char *type, const T *d_in, size_t n, T *d_out,
                    Determinism determinism, const preallocated &storage)
{
    auto env = cuda::std::execution::env{
        cuda::execution::require(determinism),
        cuda::std::execution::prop{cuda::mr::get_memory_resource_t{}, storage}};
    T result = 0;
    auto call = [&] { check_cub(peer, cub::DeviceReduce::Sum(d_in, d_out, n, env)); };
    timing t = time_call(call, d_out, &result);
    const double value = (double)result;
    print(peer, type, n, t, &value);
}

// The bench's n elements on the GPU, with 16 bytes to spare for the read's last vector.
template <typename T>
static T *make_data(size_t n)
{
    T *d_in = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(T) + 16));
    fill<<<1024, 256>>>(d_in, n);
    CHECK(cudaGetLastError());
    return d_in;
}

// The streaming read of the same n elements: the roofline of every row before it.
template <typename T>
static void time_read(const char *type, const T *d_in, size_t n)
{
    float *guard = nullptr;
    CHECK(cudaMalloc(&guard, sizeof(float)));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t vectors = n * sizeof(T) / 16; // the whole 16-byte vectors; the rest is noise
    auto read = [&] {
        stream_read<<<sms * 8, 512>>>(reinterpret_cast<const float4 *>(d_in), vectors, guard);
    };
    float unused = 0;
    timing t = time_call(read, guard, &unused);
    const double zero = 0.0;
    print("cuda-read", type, n, t, &zero);
    CHECK(cudaFree(guard));
}

template <typename T>
static void run(const char *type, size_t n)
{
    T *d_out = nullptr;
    T *d_in = make_data<T>(n);
    CHECK(cudaMalloc(&d_out, sizeof(T)));

    // More than any determinism level asks for: the run-to-run size, twice, and 1 MiB.
    preallocated storage;
    size_t run_to_run_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, run_to_run_bytes, d_in, d_out, n));
    storage.bytes = 2 * run_to_run_bytes + (1 << 20);
    CHECK(cudaMalloc(&storage.buffer, storage.bytes));
    namespace det = cuda::execution::determinism;
    cub_sum<T>("cub-not-guaranteed", type, d_in, n, d_out, det::not_guaranteed, storage);
    cub_sum<T>("cub-run-to-run", type, d_in, n, d_out, det::run_to_run, storage);
    cub_sum<T>("cub-gpu-to-gpu", type, d_in, n, d_out, det::gpu_to_gpu, storage);
    CHECK(cudaFree(storage.buffer));

    time_read<T>(type, d_in, n);

    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
}

// ---- The offsets of --segments FILE.npy ----

// A cursor over the .npy header's Python dict literal, as NumPy writes it:
// {'descr': '<u8', 'fortran_order': False, 'shape': (3635,), }
struct header_cursor {
    const char *at, *end;

    void skip_space()
    {
        while (at < end && (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r'))
            at++;
    }
    bool take(char c)
    {
        skip_space();
        if (at == end || *at != c)
            return false;
        at++;
        return true;
    }
    bool word(const char *w)
    {
        skip_space();
        size_t length = std::strlen(w);
        if ((size_t)(end - at) < length || std::memcmp(at, w, length) != 0)
            return false;
        at += length;
        return true;
    }
    // 'text' or "text", without escapes: NumPy's keys and type strings have none.
    bool string(std::string &out)
    {
        skip_space();
        if (at == end || (*at != '\'' && *at != '"'))
            return false;
        const char quote = *at++, *first = at;
        for (; at < end && *at != quote; at++)
            if (*at == '\\' || *at == '\n')
                return false;
        if (at == end)
            return false;
        out.assign(first, at++);
        return true;
    }
    // A count, with the L that Python 2's NumPy wrote after long ones.
    bool count(uint64_t &out)
    {
        skip_space();
        if (at == end || *at < '0' || *at > '9')
            return false;
        for (out = 0; at < end && *at >= '0' && *at <= '9'; at++) {
            const uint64_t digit = (uint64_t)(*at - '0');
            if (out > (UINT64_MAX - digit) / 10)
                return false;
            out = out * 10 + digit;
        }
        if (at < end && *at == 'L')
            at++;
        return true;
    }
    bool boolean(bool &out)
    {
        out = word("True");
        return out || word("False");
    }
    // A tuple of counts: (), (N,), (N, M), ... but not (N), which is N itself.
    bool shape(std::vector<uint64_t> &dims)
    {
        if (!take('('))
            return false;
        for (;;) {
            uint64_t dim;
            if (take(')'))
                return true; // () or a trailing comma
            if (!count(dim))
                return false;
            dims.push_back(dim);
            if (take(')'))
                return dims.size() > 1;
            if (!take(','))
                return false;
        }
    }
};

struct npy_header {
    std::string descr;
    bool fortran_order = false;
    std::vector<uint64_t> shape;
};

// The header's dict: the keys 'descr', 'fortran_order' and 'shape', each once, in any order.
static bool parse_header(const char *text, size_t size, npy_header &header, std::string &why)
{
    header_cursor cursor{text, text + size};
    bool has_descr = false, has_fortran = false, has_shape = false;
    if (!cursor.take('{')) {
        why = "its header is not a dict";
        return false;
    }
    while (!cursor.take('}')) { // a trailing comma, as NumPy writes, ends with "}" here
        std::string key;
        if (!cursor.string(key) || !cursor.take(':')) {
            why = "malformed header: expected a quoted key and ':'";
            return false;
        }
        bool *seen = key == "descr" ? &has_descr : key == "fortran_order" ? &has_fortran
                   : key == "shape" ? &has_shape : nullptr;
        if (seen == nullptr || *seen) {
            why = "malformed header: key '" + key + (seen ? "' twice" : "' unknown");
            return false;
        }
        *seen = true;
        bool good = seen == &has_descr     ? cursor.string(header.descr)
                  : seen == &has_fortran ? cursor.boolean(header.fortran_order)
                                         : cursor.shape(header.shape);
        if (!good) {
            why = "malformed header: bad value for '" + key + "'";
            return false;
        }
        if (cursor.take(','))
            continue;
        if (!cursor.take('}')) {
            why = "malformed header: expected ',' or '}' after '" + key + "'";
            return false;
        }
        break;
    }
    cursor.skip_space();
    if (cursor.at != cursor.end) {
        why = "malformed header: text after its dict";
        return false;
    }
    if (!has_descr || !has_fortran || !has_shape) {
        why = std::string("malformed header: no '") +
              (!has_descr ? "descr" : !has_fortran ? "fortran_order" : "shape") + "'";
        return false;
    }
    return true;
}

static bool read_file(const char *path, std::vector<unsigned char> &bytes, std::string &why)
{
    std::FILE *file = std::fopen(path, "rb");
    if (file == nullptr) {
        why = std::strerror(errno);
        return false;
    }
    unsigned char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0)
        bytes.insert(bytes.end(), chunk, chunk + got);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed)
        why = "read error";
    return !failed;
}

// Little-endian, whatever the host.
static uint64_t little_endian(const unsigned char *bytes, int count)
{
    uint64_t value = 0;
    for (int k = count - 1; k >= 0; k--)
        value = value << 8 | bytes[k];
    return value;
}

// The offsets of a .npy file: a 1-d array of little-endian uint64 or int64, nondecreasing.
static bool read_offsets(const char *path, std::vector<uint64_t> &offsets, std::string &why)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    std::vector<unsigned char> bytes;
    if (!read_file(path, bytes, why))
        return false;
    if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, sizeof magic) != 0) {
        why = "not a .npy file (it does not start with \\x93NUMPY)";
        return false;
    }
    const unsigned major = bytes[6];
    const size_t start = major == 1 ? 10 : 12; // the header follows its length, 2 or 4 bytes
    if (major < 1 || major > 3) {
        why = "unknown .npy format version " + std::to_string(major) + "." + std::to_string(bytes[7]);
        return false;
    }
    if (bytes.size() < start || little_endian(bytes.data() + 8, (int)start - 8) > bytes.size() - start) {
        why = "truncated header";
        return false;
    }
    const size_t header_size = (size_t)little_endian(bytes.data() + 8, (int)start - 8);
    npy_header header;
    if (!parse_header(reinterpret_cast<const char *>(bytes.data() + start), header_size, header, why))
        return false;
    const bool is_signed = header.descr == "<i8";
    if (!is_signed && header.descr != "<u8") {
        why = "its type is '" + header.descr + "'; offsets are uint64 or int64 ('<u8' or '<i8')";
        return false;
    }
    if (header.shape.size() != 1) {
        why = "its shape has " + std::to_string(header.shape.size()) + " dimensions; offsets are 1-d";
        return false;
    }
    const size_t data = start + header_size, count = header.shape[0];
    if (count > (bytes.size() - data) / 8 || bytes.size() - data != count * 8) {
        why = "it holds " + std::to_string(bytes.size() - data) + " bytes of data where its shape (" +
              std::to_string(count) + ",) needs " + std::to_string(count) + " x 8";
        return false;
    }
    if (count == 0) {
        why = "it holds no offsets; segments need at least one";
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const uint64_t value = little_endian(bytes.data() + data + 8 * i, 8);
        if (is_signed && value >> 63 != 0) {
            why = "offset " + std::to_string(i) + " is negative";
            return false;
        }
        if (i > 0 && value < offsets.back()) {
            why = "offset " + std::to_string(i) + " (" + std::to_string(value) +
                  ") is below the one before it (" + std::to_string(offsets.back()) + ")";
            return false;
        }
        offsets.push_back(value);
    }
    return true;
}

// ---- Segments and rows: cub::DeviceSegmentedReduce::Sum ----

// 1000 times the sum of the bench's elements before element i, exactly: (i % 1000) runs 0 to 999.
static uint64_t scaled_prefix(uint64_t i)
{
    const uint64_t r = i % 1000;
    return i / 1000 * 499500 + (r > 0 ? r * (r - 1) / 2 : 0);
}

// Each result against the exact sum of its elements. Each element is k / 1000
// rounded (within u of it), and L terms added in any order come within
// gamma(L - 1) of their sum: (L + 1) u / (1 - (L + 1) u) of the exact sum
// bounds both (the elements are never negative). An empty segment sums to 0.
template <typename T, typename Offset>
static bool results_correct(const char *peer, const T *got, int64_t segments, Offset offset)
{
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    for (int64_t s = 0; s < segments; s++) {
        const uint64_t first = offset(s), end = offset(s + 1);
        const long double exact = (long double)(scaled_prefix(end) - scaled_prefix(first)) / 1000;
        const long double lu = (long double)(end - first + 1) * u;
        const long double bound = lu < 0.5L ? lu / (1 - lu) * exact : exact;
        if (!(std::fabs((long double)got[s] - exact) <= bound)) {
            std::fprintf(stderr,
                         "cub_peer: %s: segment %lld [%llu, %llu) sums to %.17g, not %.17Lg "
                         "(within %.3Lg)\n",
                         peer, (long long)s, (unsigned long long)first, (unsigned long long)end,
                         (double)got[s], exact, bound);
            return false;
        }
    }
    return true;
}

// Times `reduce(temp, bytes)`, one cub::DeviceSegmentedReduce call through
// the two-phase API, with its temporary storage allocated once; checks its
// results first. offset(s) is where segment s starts, for the check.
template <typename T, typename Reduce, typename Offset>
static void cub_segmented(const char *peer, const char *type, size_t n, int64_t segments,
                          const T *d_out, Reduce reduce, Offset offset)
{
    size_t bytes = 0;
    void *temp = nullptr;
    check_cub(peer, reduce(nullptr, bytes));
    CHECK(cudaMalloc(&temp, bytes > 0 ? bytes : 1));
    auto call = [&] {
        size_t temp_bytes = bytes;
        check_cub(peer, reduce(temp, temp_bytes));
    };
    std::vector<T> results((size_t)segments + 1); // + 1: never empty
    call();
    CHECK(cudaMemcpy(results.data(), d_out, (size_t)segments * sizeof(T), cudaMemcpyDeviceToHost));
    if (!results_correct(peer, results.data(), segments, offset))
        std::exit(1);
    timing t = time_call(call, d_out, results.data(), (size_t)segments);
    print(peer, type, n, t, nullptr);
    CHECK(cudaFree(temp));
}

template <typename T>
static void run_segments(const char *type, size_t n, const std::vector<uint64_t> &offsets)
{
    const int64_t segments = (int64_t)offsets.size() - 1;
    uint64_t *d_offsets = nullptr;
    T *d_out = nullptr;
    T *d_in = make_data<T>(n);
    CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(uint64_t)));
    CHECK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(uint64_t),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_out, (size_t)std::max<int64_t>(segments, 1) * sizeof(T)));
    cub_segmented<T>(
        "cub-segmented", type, n, segments, d_out,
        [&](void *temp, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, segments, d_offsets,
                                                   d_offsets + 1);
        },
        [&](int64_t s) { return offsets[(size_t)s]; });
    time_read<T>(type, d_in, n);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_offsets));
    CHECK(cudaFree(d_in));
}

// The rows of rows x cols: segments at r * cols, from a strided counting iterator (no offsets
// read from memory), and where this CUB has it, its overload for segments of one size.
template <typename T>
static void run_rows(const char *type, size_t rows, size_t cols)
{
    const size_t n = rows * cols;
    const int64_t segments = (int64_t)rows;
    T *d_out = nullptr;
    T *d_in = make_data<T>(n);
    CHECK(cudaMalloc(&d_out, rows * sizeof(T)));
    auto starts = cuda::make_strided_iterator(cuda::make_counting_iterator<int64_t>(0),
                                              (int64_t)cols);
    auto offset = [&](int64_t s) { return (uint64_t)s * cols; };
    cub_segmented<T>(
        "cub-segmented", type, n, segments, d_out,
        [&](void *temp, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, segments, starts,
                                                   starts + 1);
        },
        offset);
#if CUB_VERSION >= 300200 // the fixed-size overloads came with CCCL 3.2
    if (cols <= (size_t)INT_MAX)
        cub_segmented<T>(
            "cub-segmented-fixed", type, n, segments, d_out,
            [&](void *temp, size_t &bytes) {
                return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, segments, (int)cols);
            },
            offset);
#endif
    time_read<T>(type, d_in, n);
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
}

// ---- Scans: cub::DeviceScan::InclusiveSum and ExclusiveSum ----

// The exact sum of the bench's first m elements.
template <typename T>
static long double exact_prefix(uint64_t m)
{
    if constexpr (std::is_floating_point_v<T>)
        return (long double)scaled_prefix(m) / 1000;
    const int64_t period = sizeof(T) == 1 ? 100 : 1000, offset = period / 2;
    const int64_t q = (int64_t)(m / period), r = (int64_t)(m % period);
    auto block = [&](int64_t t) { return t * (t - 1) / 2 - offset * t; };
    return (long double)(q * block(period) + block(r));
}

// Each output against its exact prefix: integers exactly, floats within gamma(m) of the
// prefix for m terms (the elements are never negative: the prefix is their sum of |x|).
template <typename T, typename OutT>
static bool scan_correct(const OutT *got, size_t n, bool exclusive)
{
    const long double u = std::is_floating_point_v<OutT> ? std::numeric_limits<OutT>::epsilon() / 2 : 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t m = exclusive ? i : i + 1;
        const long double exact = exact_prefix<T>(m), mu = (long double)(m + 1) * u;
        const long double bound = mu < 0.5L ? mu / (1 - mu) * std::fabs(exact) : std::fabs(exact);
        if (!(std::fabs((long double)got[i] - exact) <= bound)) {
            std::fprintf(stderr, "cub_peer: %s scan: output %zu is %.17Lg, not %.17Lg (within %.3Lg)\n",
                         exclusive ? "exclusive" : "inclusive", i, (long double)got[i], exact, bound);
            return false;
        }
    }
    return true;
}

static void print_scan(const char *peer, const char *type, bool exclusive, size_t n, timing t)
{
    std::printf("{\"peer\": \"%s\", \"type\": \"%s\", \"op\": \"sum\", \"scan\": \"%s\", "
                "\"n\": %zu, \"best_ms\": %.6f, \"median_ms\": %.6f, \"e2e_ms\": %.6f}\n",
                peer, type, exclusive ? "exclusive" : "inclusive", n, t.best_ms, t.median_ms, t.e2e_ms);
    std::fflush(stdout);
}

// Reads an element as the scan's output type: CUB then adds in it (int8 and int32 in int64).
template <typename OutT>
struct widen {
    template <typename T>
    __host__ __device__ OutT operator()(T value) const
    {
        return (OutT)value;
    }
};

// One scan of n elements of T into OutT, checked, then timed; and the copy of as many bytes.
template <typename T, typename OutT>
static void run_scan(const char *type, size_t n, bool exclusive)
{
    T *d_in = make_data<T>(n);
    OutT *d_out = nullptr;
    void *temp = nullptr;
    size_t bytes = 0;
    CHECK(cudaMalloc(&d_out, n * sizeof(OutT)));
    auto in = cuda::make_transform_iterator(d_in, widen<OutT>{});
    auto scan = [&](void *storage, size_t &storage_bytes) {
        return exclusive ? cub::DeviceScan::ExclusiveSum(storage, storage_bytes, in, d_out, (int64_t)n)
                         : cub::DeviceScan::InclusiveSum(storage, storage_bytes, in, d_out, (int64_t)n);
    };
    check_cub("cub", scan(nullptr, bytes));
    CHECK(cudaMalloc(&temp, bytes > 0 ? bytes : 1));
    auto call = [&] {
        size_t temp_bytes = bytes;
        check_cub("cub", scan(temp, temp_bytes));
    };
    std::vector<OutT> got(n + 1); // + 1: never empty
    call();
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(OutT), cudaMemcpyDeviceToHost));
    if (!scan_correct<T>(got.data(), n, exclusive))
        std::exit(1);
    print_scan("cub", type, exclusive, n, time_call(call, d_out, got.data(), 0));

    // The roofline: a device-to-device copy of (in + out) / 2 bytes, from the output's buffer.
    const size_t copied = n * (sizeof(T) + sizeof(OutT)) / 2;
    void *d_copy = nullptr;
    CHECK(cudaMalloc(&d_copy, copied > 0 ? copied : 1));
    auto copy = [&] { CHECK(cudaMemcpyAsync(d_copy, d_out, copied, cudaMemcpyDeviceToDevice)); };
    print_scan("cuda-copy", type, exclusive, n, time_call(copy, d_out, got.data(), 0));
    CHECK(cudaFree(d_copy));
    CHECK(cudaFree(temp));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
}

// ---- The command line ----

enum class shape { whole, segments, rows, scan };

struct command {
    const char *type = nullptr;
    std::vector<size_t> sizes;
    shape kind = shape::whole;
    const char *offsets_path = nullptr;
    size_t rows = 0, cols = 0;
    int axis = -1;
    bool exclusive = false;
};

// A count: digits only, not 0.
static bool parse_count(const char *text, size_t &out)
{
    char *end = nullptr;
    if (*text < '0' || *text > '9')
        return false;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    out = (size_t)value;
    return *end == '\0' && errno == 0 && value > 0;
}

// "RxC".
static bool parse_matrix(const char *text, size_t &rows, size_t &cols)
{
    std::string row_text(text), col_text;
    const size_t x = row_text.find('x');
    if (x == std::string::npos)
        return false;
    col_text = row_text.substr(x + 1);
    row_text.resize(x);
    return parse_count(row_text.c_str(), rows) && parse_count(col_text.c_str(), cols) &&
           rows <= SIZE_MAX / cols;
}

static const char *const usage = "usage: cub_peer float|double N... [--segments FILE.npy | "
                                 "--shape RxC --axis 0|1] [--op sum]\n"
                                 "       cub_peer float|double|int32|int8 N... --scan "
                                 "inclusive|exclusive [--op sum] (CUB %d)\n";

static bool is_float_type(const char *type)
{
    return std::strcmp(type, "float") == 0 || std::strcmp(type, "double") == 0;
}

// TYPE N... [--segments FILE | --shape RxC --axis A | --scan MODE]: 0, or 2 with a message.
static int parse_command(int argc, char **argv, command &cmd)
{
    if (argc < 3 || (!is_float_type(argv[1]) && std::strcmp(argv[1], "int32") != 0 &&
                     std::strcmp(argv[1], "int8") != 0)) {
        std::fprintf(stderr, usage, CUB_VERSION);
        return 2;
    }
    cmd.type = argv[1];
    int i = 2;
    for (; i < argc && std::strncmp(argv[i], "--", 2) != 0; i++) {
        size_t n = 0;
        if (!parse_count(argv[i], n)) {
            std::fprintf(stderr, "cub_peer: bad size \"%s\"\n", argv[i]);
            return 2;
        }
        cmd.sizes.push_back(n);
    }
    const int rest = argc - i;
    if (rest == 2 && std::strcmp(argv[i], "--segments") == 0) {
        cmd.kind = shape::segments;
        cmd.offsets_path = argv[i + 1];
    } else if (rest == 4 && std::strcmp(argv[i], "--shape") == 0 &&
               std::strcmp(argv[i + 2], "--axis") == 0) {
        cmd.kind = shape::rows;
        if (!parse_matrix(argv[i + 1], cmd.rows, cmd.cols)) {
            std::fprintf(stderr, "cub_peer: --shape takes RxC (counts), not \"%s\"\n", argv[i + 1]);
            return 2;
        }
        cmd.axis = std::strcmp(argv[i + 3], "0") == 0 ? 0 : std::strcmp(argv[i + 3], "1") == 0 ? 1 : -1;
        if (cmd.axis < 0) {
            std::fprintf(stderr, "cub_peer: --axis takes 0 or 1, not \"%s\"\n", argv[i + 3]);
            return 2;
        }
    } else if (rest == 2 && std::strcmp(argv[i], "--scan") == 0 &&
               (std::strcmp(argv[i + 1], "inclusive") == 0 ||
                std::strcmp(argv[i + 1], "exclusive") == 0)) {
        cmd.kind = shape::scan;
        cmd.exclusive = std::strcmp(argv[i + 1], "exclusive") == 0;
    } else if (rest != 0) {
        std::fprintf(stderr, usage, CUB_VERSION);
        return 2;
    }
    if (cmd.sizes.empty() || (cmd.kind != shape::scan && !is_float_type(cmd.type))) {
        std::fprintf(stderr, usage, CUB_VERSION);
        return 2;
    }
    for (size_t n : cmd.sizes) {
        if (cmd.kind == shape::rows && n != cmd.rows * cmd.cols) {
            std::fprintf(stderr, "cub_peer: size %zu is not that of --shape %zux%zu\n", n,
                         cmd.rows, cmd.cols);
            return 2;
        }
    }
    return 0;
}

template <typename T>
static int run_command(const command &cmd, const std::vector<uint64_t> &offsets)
{
    for (size_t n : cmd.sizes) {
        if (cmd.kind == shape::whole) {
            run<T>(cmd.type, n);
        } else if (cmd.kind == shape::rows) {
            run_rows<T>(cmd.type, cmd.rows, cmd.cols);
        } else if (offsets.back() > n) {
            std::fprintf(stderr, "cub_peer: %s: the last offset (%llu) passes the end of the %zu "
                         "elements\n", cmd.offsets_path, (unsigned long long)offsets.back(), n);
            return 1;
        } else {
            run_segments<T>(cmd.type, n, offsets);
        }
    }
    return 0;
}

// --scan: each size's scan, its output of NumPy's cumsum type.
static int run_scans(const command &cmd)
{
    for (size_t n : cmd.sizes) {
        if (std::strcmp(cmd.type, "float") == 0)
            run_scan<float, float>(cmd.type, n, cmd.exclusive);
        else if (std::strcmp(cmd.type, "double") == 0)
            run_scan<double, double>(cmd.type, n, cmd.exclusive);
        else if (std::strcmp(cmd.type, "int32") == 0)
            run_scan<int32_t, int64_t>(cmd.type, n, cmd.exclusive);
        else
            run_scan<int8_t, int64_t>(cmd.type, n, cmd.exclusive);
    }
    return 0;
}

int main(int argc, char **argv)
{
    // `--op OP` comes last where clfold bench asks for an argmin or argmax: this peer sums only.
    if (argc >= 4 && std::strcmp(argv[argc - 2], "--op") == 0) {
        if (std::strcmp(argv[argc - 1], "sum") != 0) {
            std::fprintf(stderr, "cub_peer: times sums only, not %s\n", argv[argc - 1]);
            return 2;
        }
        argc -= 2;
    }
    command cmd;
    std::vector<uint64_t> offsets;
    std::string why;
    int status = parse_command(argc, argv, cmd);
    if (status != 0)
        return status;
    if (cmd.kind == shape::scan)
        return run_scans(cmd);
    if (cmd.kind == shape::rows && cmd.axis == 0) {
        std::fprintf(stderr, "cub_peer: CUB has no segmented reduce down columns; axis 0 not timed\n");
        return 0;
    }
    if (cmd.kind == shape::segments && !read_offsets(cmd.offsets_path, offsets, why)) {
        std::fprintf(stderr, "cub_peer: %s: %s\n", cmd.offsets_path, why.c_str());
        return 1;
    }
    if (std::strcmp(cmd.type, "float") == 0)
        return run_command<float>(cmd, offsets);
    return run_command<double>(cmd, offsets);
}
