// cub_peer TYPE N...: a CUDA peer of `clfold bench` on current CCCL's
// cub::DeviceReduce, and a CUDA streaming read as a second roofline.
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
// TYPE: float or double. Build (bench/peers/build-cub-peer.sh does this):
//   nvcc -O3 -std=c++17 -arch=sm_90 --cudart=static \
//        -I$CCCL/cub -I$CCCL/thrust -I$CCCL/libcudacxx/include -o cub_peer cub_peer.cu
#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>

#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/__memory_resource/get_memory_resource.h>
#include <cuda/__memory_resource/memory_resource_base.h>
#include <cuda/__memory_resource/properties.h>
#include <cuda/std/__execution/env.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
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

template <typename T>
__global__ void fill(T *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = (T)(i % 1000) / (T)1000;
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

// CUDA-event times of `call`, then its wall time with the value copied back.
template <typename Call, typename T>
static timing time_call(Call call, const T *d_out, T *h_out)
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
        CHECK(cudaMemcpy(h_out, d_out, sizeof(T), cudaMemcpyDeviceToHost));
        auto wall = std::chrono::steady_clock::now() - t0;
        walls.push_back(std::chrono::duration<double, std::milli>(wall).count());
    }
    std::sort(times.begin(), times.end());
    std::sort(walls.begin(), walls.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return {times[0], times[RUNS / 2], walls[E2E_RUNS / 2]};
}

static void print(const char *peer, const char *type, size_t n, timing t, double result)
{
    std::printf("{\"peer\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"best_ms\": %.6f, "
                "\"median_ms\": %.6f, \"e2e_ms\": %.6f, \"result\": %.17g}\n",
                peer, type, n, t.best_ms, t.median_ms, t.e2e_ms, result);
    std::fflush(stdout);
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
    auto call = [&] {
        cudaError_t err = cub::DeviceReduce::Sum(d_in, d_out, n, env);
        if (err != cudaSuccess) {
            std::fprintf(stderr, "cub_peer: %s: %s\n", peer, cudaGetErrorString(err));
            std::exit(1);
        }
    };
    timing t = time_call(call, d_out, &result);
    print(peer, type, n, t, (double)result);
}

template <typename T>
static void run(const char *type, size_t n)
{
    T *d_in = nullptr, *d_out = nullptr;
    float *guard = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(T) + 16));
    CHECK(cudaMalloc(&d_out, sizeof(T)));
    CHECK(cudaMalloc(&guard, sizeof(float)));
    fill<<<1024, 256>>>(d_in, n);
    CHECK(cudaGetLastError());

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

    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t vectors = n * sizeof(T) / 16; // the whole 16-byte vectors; the rest is noise
    auto read = [&] {
        stream_read<<<sms * 8, 512>>>(reinterpret_cast<const float4 *>(d_in), vectors, guard);
    };
    float unused = 0;
    timing t = time_call(read, guard, &unused);
    print("cuda-read", type, n, t, 0.0);

    CHECK(cudaFree(guard));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
}

int main(int argc, char **argv)
{
    if (argc < 3 || (std::strcmp(argv[1], "float") != 0 && std::strcmp(argv[1], "double") != 0)) {
        std::fprintf(stderr, "usage: cub_peer float|double N... (CUB %d)\n", CUB_VERSION);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char *end = nullptr;
        size_t n = std::strtoull(argv[i], &end, 10);
        if (end == argv[i] || *end != '\0' || n == 0) {
            std::fprintf(stderr, "cub_peer: bad size \"%s\"\n", argv[i]);
            return 2;
        }
        if (std::strcmp(argv[1], "float") == 0)
            run<float>("float", n);
        else
            run<double>("double", n);
    }
    return 0;
}
