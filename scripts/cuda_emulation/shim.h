// A CPU emulation of the CUDA features two kernels use: threads of a block as std::threads,
// __syncthreads / __syncwarp as barriers, warp shuffles through a per-warp exchange array,
// WMMA fragments as whole 16x16 matrices per lane (the API's semantics, not its layouts).
#pragma once
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
#include <stdexcept>
#include <string>

struct dim3e { unsigned x = 1, y = 1, z = 1; };
inline thread_local dim3e threadIdx, blockIdx;
inline dim3e blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __align__(n) alignas(n)
#define __grid_constant__
#define CUDART_NAN_F NAN

using __half = _Float16;
struct __half2 { _Float16 x, y; };
struct float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline __half2 __floats2half2_rn(float a, float b) { return {(_Float16)a, (_Float16)b}; }
inline float2 __half22float2(__half2 h) { return {(float)h.x, (float)h.y}; }
inline float __half2float(__half h) { return (float)h; }
template <class T> T __ldg(const T* p) { return *p; }
using std::min;
using std::max;

struct WarpCtx {
    std::barrier<> bar{32};
    float exch[32];
};
inline thread_local WarpCtx* tWarp = nullptr;
inline thread_local int tLane = 0;
inline thread_local std::barrier<>* tBlock = nullptr;
inline void __syncwarp(unsigned = 0xffffffffu) { tWarp->bar.arrive_and_wait(); }
inline void __syncthreads() { tBlock->arrive_and_wait(); }
inline float __shfl_xor_sync(unsigned, float v, int offset) {
    tWarp->exch[tLane] = v;
    tWarp->bar.arrive_and_wait();
    const float r = tWarp->exch[tLane ^ offset];
    tWarp->bar.arrive_and_wait();
    return r;
}
inline float __shfl_sync(unsigned, float v, int src) {
    tWarp->exch[tLane] = v;
    tWarp->bar.arrive_and_wait();
    const float r = tWarp->exch[src];
    tWarp->bar.arrive_and_wait();
    return r;
}

namespace nvcuda::wmma {
struct matrix_a {}; struct matrix_b {}; struct accumulator {}; struct row_major {}; struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment { T m[16][16]; };
template <class U, class T, class L, class V> void fill_fragment(fragment<U, 16, 16, 16, T, L>& f, V v) {
    for (auto& r : f.m) for (auto& x : r) x = T(v);
}
template <class U, class T> void load_matrix_sync(fragment<U, 16, 16, 16, T, row_major>& f, const T* p, unsigned ldm) {
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j) f.m[i][j] = p[size_t(i) * ldm + j];
    __syncwarp();
}
template <class U, class T> void load_matrix_sync(fragment<U, 16, 16, 16, T, col_major>& f, const T* p, unsigned ldm) {
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j) f.m[i][j] = p[i + size_t(j) * ldm];
    __syncwarp();
}
template <class LA, class LB>
void mma_sync(fragment<accumulator, 16, 16, 16, float>& d, const fragment<matrix_a, 16, 16, 16, __half, LA>& a,
              const fragment<matrix_b, 16, 16, 16, __half, LB>& b, const fragment<accumulator, 16, 16, 16, float>& c) {
    fragment<accumulator, 16, 16, 16, float> r;
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j) {
        float s = c.m[i][j];
        for (int k = 0; k < 16; ++k) s += float(a.m[i][k]) * float(b.m[k][j]);
        r.m[i][j] = s;
    }
    d = r;
}
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f, unsigned ldm, layout_t layout) {
    __syncwarp();
    if (tLane == 0) {
        for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j) {
            if (layout == mem_row_major) p[size_t(i) * ldm + j] = f.m[i][j]; else p[i + size_t(j) * ldm] = f.m[i][j];
        }
    }
    __syncwarp();
}
} // namespace nvcuda::wmma

inline std::vector<unsigned char> g_sharedStorage;
inline unsigned char* g_shared = nullptr;

// Runs kernel(args...) over the grid, one block at a time, threads as std::threads.
template <class F>
void emulate(dim3e grid, dim3e block, size_t sharedBytes, F kernel) {
    gridDim = grid; blockDim = block;
    const int threads = int(block.x);
    for (unsigned bz = 0; bz < grid.z; ++bz) for (unsigned by = 0; by < grid.y; ++by) for (unsigned bx = 0; bx < grid.x; ++bx) {
        g_sharedStorage.assign(sharedBytes + 256, 0xAB);  // garbage, like real shared memory
        g_shared = g_sharedStorage.data() + (256 - reinterpret_cast<uintptr_t>(g_sharedStorage.data()) % 256) % 256;
        std::barrier<> blockBar(threads);
        std::vector<std::unique_ptr<WarpCtx>> warps;
        for (int w = 0; w < threads / 32; ++w) warps.push_back(std::make_unique<WarpCtx>());
        std::vector<std::thread> ts;
        for (int t = 0; t < threads; ++t) {
            ts.emplace_back([&, t] {
                threadIdx = {unsigned(t), 0, 0}; blockIdx = {bx, by, bz};
                tWarp = warps[t / 32].get(); tLane = t % 32; tBlock = &blockBar;
                kernel();
            });
        }
        for (auto& th : ts) th.join();
    }
}
