// A CPU emulation of the CUDA features the kernels use: the threads of a block as fibers
// (ucontext) on one OS thread, switched only at __syncthreads / __syncwarp, which are barriers;
// warp shuffles through a per-warp exchange array; WMMA fragments as whole 16x16 matrices per lane
// (the API's semantics, not its layouts). Fibers make a run deterministic and its time the
// arithmetic's alone (with an OS thread per CUDA thread, every barrier cost two context switches a
// thread, and a loaded 2-core machine took minutes of waiting).
// The scheduler always resumes the first thread that can go on, in ascending thread order in
// even-numbered blocks and descending order in odd-numbered ones: a warp runs as far ahead of the
// others as the barriers allow, so a write that lacks its barrier reaches another warp's shared
// memory before that warp has read it, in one of the two orders. A barrier that not every thread
// reaches (a deadlock on a GPU) stops the run with a message.
#pragma once
#include <setjmp.h>
#include <ucontext.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <stdexcept>
#include <string>

struct dim3e { unsigned x = 1, y = 1, z = 1; };
inline dim3e threadIdx, blockIdx;
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

// The fiber scheduler of one block (see emulate()). A fiber starts from its ucontext (makecontext
// gives it its stack) and then switches with _setjmp/_longjmp, which save only the registers a call
// keeps: swapcontext also saves the signal mask with a system call at every switch, and the
// switches were most of the run.
struct FiberBarrier;
struct FiberJump { jmp_buf at; };
struct FiberBlock {
    jmp_buf scheduler;
    std::vector<ucontext_t> fibers;
    std::vector<FiberJump> resume;         // per thread: where it yielded
    std::vector<unsigned char> started;    // per thread: entered its context in this block
    std::vector<std::vector<unsigned char>> stacks;
    std::vector<const FiberBarrier*> waitingAt;  // per thread: the barrier it waits at, or null
    std::vector<unsigned long long> waitingFor;  // and that barrier's generation when it arrived
    int current = -1;
};
inline FiberBlock* g_block = nullptr;
inline void fiberYield() {
    if (!_setjmp(g_block->resume[size_t(g_block->current)].at)) _longjmp(g_block->scheduler, 1);
}

struct FiberBarrier {
    int expected = 0, arrived = 0;
    unsigned long long generation = 0;
    void arrive_and_wait() {
        if (++arrived == expected) {
            arrived = 0;
            ++generation;
        } else {
            g_block->waitingAt[size_t(g_block->current)] = this;
            g_block->waitingFor[size_t(g_block->current)] = generation;
        }
        fiberYield();  // the scheduler resumes the first thread that can go on
    }
    bool released(unsigned long long since) const { return generation != since; }
};

struct WarpCtx {
    FiberBarrier bar{32};
    float exch[32];
};
inline WarpCtx* tWarp = nullptr;
inline int tLane = 0;
inline FiberBarrier* tBlock = nullptr;
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

// Runs kernel() over the grid, one block at a time, the block's threads as fibers.
template <class F>
void emulate(dim3e grid, dim3e block, size_t sharedBytes, F kernel) {
    gridDim = grid; blockDim = block;
    const int threads = int(block.x);
    constexpr size_t kStack = 256 * 1024;  // per thread: the kernels keep WMMA fragments and small arrays there
    FiberBlock fb;
    fb.fibers.resize(size_t(threads));
    fb.resume.resize(size_t(threads));
    fb.stacks.assign(size_t(threads), std::vector<unsigned char>(kStack));
    static F* body = nullptr;
    body = &kernel;
    static std::vector<bool>* finished = nullptr;
    std::vector<bool> done(static_cast<size_t>(threads), false);
    finished = &done;
    unsigned long long blockNumber = 0;
    for (unsigned bz = 0; bz < grid.z; ++bz) for (unsigned by = 0; by < grid.y; ++by) for (unsigned bx = 0; bx < grid.x; ++bx) {
        g_sharedStorage.assign(sharedBytes + 256, 0xAB);  // garbage, like real shared memory
        g_shared = g_sharedStorage.data() + (256 - reinterpret_cast<uintptr_t>(g_sharedStorage.data()) % 256) % 256;
        FiberBarrier blockBar{threads};
        std::vector<WarpCtx> warps(size_t((threads + 31) / 32));
        blockIdx = {bx, by, bz};
        g_block = &fb;
        done.assign(size_t(threads), false);
        fb.waitingAt.assign(size_t(threads), nullptr);
        fb.waitingFor.assign(size_t(threads), 0);
        fb.started.assign(size_t(threads), 0);
        for (int t = 0; t < threads; ++t) {
            ucontext_t& c = fb.fibers[size_t(t)];
            getcontext(&c);
            c.uc_stack.ss_sp = fb.stacks[size_t(t)].data();
            c.uc_stack.ss_size = kStack;
            c.uc_link = nullptr;  // a fiber never returns: it jumps back to the scheduler
            makecontext(&c, reinterpret_cast<void (*)()>(+[] {
                (*body)();
                (*finished)[size_t(g_block->current)] = true;
                _longjmp(g_block->scheduler, 1);
            }), 0);
        }
        const bool descending = blockNumber++ % 2 == 1;
        for (int remaining = threads; remaining > 0;) {
            int next = -1;
            for (int i = 0; i < threads && next < 0; ++i) {
                const int t = descending ? threads - 1 - i : i;
                const FiberBarrier* at = fb.waitingAt[size_t(t)];
                if (!done[size_t(t)] && (!at || at->released(fb.waitingFor[size_t(t)]))) next = t;
            }
            if (next < 0) {
                std::fprintf(stderr, "emulate: block (%u, %u, %u): %d threads wait at a barrier the others never reach\n",
                             bx, by, bz, remaining);
                std::exit(1);
            }
            fb.waitingAt[size_t(next)] = nullptr;
            threadIdx = {unsigned(next), 0, 0};
            tWarp = &warps[size_t(next / 32)]; tLane = next % 32; tBlock = &blockBar;
            fb.current = next;
            if (!_setjmp(fb.scheduler)) {  // back here when the fiber yields or ends
                if (!fb.started[size_t(next)]) {
                    fb.started[size_t(next)] = 1;
                    setcontext(&fb.fibers[size_t(next)]);
                }
                _longjmp(fb.resume[size_t(next)].at, 1);
            }
            if (done[size_t(next)]) --remaining;
        }
        g_block = nullptr;
    }
}
