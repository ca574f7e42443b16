// Experiment 2, pipelined variants: cp.async (sm_80+) prefetches the next STAGES - 1 tiles
// into a ring of shared buffers while the block computes on the current one.
//
// The copies go through <cuda_pipeline.h> (__pipeline_memcpy_async, __pipeline_commit,
// __pipeline_wait_prior). NVRTC needs -I<CUDA include> to find that header; where no
// toolkit headers exist the loader defines PIPELAB_PTX_CP_ASYNC and the same three steps
// are issued as the PTX instructions the header wraps. Launch with blockDim.x == TILE_VEC.

#include "tile_common.cuh"

#ifdef PIPELAB_PTX_CP_ASYNC
__device__ __forceinline__ void pipelab_copy16(void* shared_dst, const void* global_src) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src)
                 : "memory");
}
__device__ __forceinline__ void pipelab_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int PRIOR>
__device__ __forceinline__ void pipelab_wait_prior() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PRIOR) : "memory");
}
#else
#include <cuda_pipeline.h>
__device__ __forceinline__ void pipelab_copy16(void* shared_dst, const void* global_src) {
    __pipeline_memcpy_async(shared_dst, global_src, 16);
}
__device__ __forceinline__ void pipelab_commit() { __pipeline_commit(); }
template <int PRIOR>
__device__ __forceinline__ void pipelab_wait_prior() {
    __pipeline_wait_prior(PRIOR);
}
#endif

template <int STAGES>
__device__ __forceinline__ void tile_async_body(const float4* __restrict__ in,
                                                float4* __restrict__ out, long long n_tiles,
                                                int intensity, float a, float c) {
    __shared__ float4 ring[STAGES][TILE_VEC];
    const long long first = blockIdx.x;
    const long long stride = gridDim.x;
    const long long count = first < n_tiles ? (n_tiles - first + stride - 1) / stride : 0;

    // Prologue: start loading the first STAGES - 1 tiles (an empty group where there are
    // fewer tiles, so the group count the wait below relies on stays the same).
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < count) {
            pipelab_copy16(&ring[s][threadIdx.x], &in[(first + s * stride) * TILE_VEC + threadIdx.x]);
        }
        pipelab_commit();
    }
    for (long long k = 0; k < count; ++k) {
        // Prefetch tile k + STAGES - 1 into the buffer tile k - 1 used (freed by the
        // trailing __syncthreads of the previous iteration).
        const long long ahead = k + STAGES - 1;
        if (ahead < count) {
            pipelab_copy16(&ring[ahead % STAGES][threadIdx.x],
                           &in[(first + ahead * stride) * TILE_VEC + threadIdx.x]);
        }
        pipelab_commit();
        pipelab_wait_prior<STAGES - 1>();  // tile k's group has landed (this thread's part)
        __syncthreads();                   // ... and every other thread's part
        out[(first + k * stride) * TILE_VEC + threadIdx.x] =
            pipelab_tile_step(ring[k % STAGES], intensity, a, c);
        __syncthreads();
    }
}

extern "C" __global__ void TILE_LAUNCH_BOUNDS
tile_async2(const float4* __restrict__ in, float4* __restrict__ out, long long n_tiles,
            int intensity, float a, float c) {
    tile_async_body<2>(in, out, n_tiles, intensity, a, c);
}

extern "C" __global__ void TILE_LAUNCH_BOUNDS
tile_async3(const float4* __restrict__ in, float4* __restrict__ out, long long n_tiles,
            int intensity, float a, float c) {
    tile_async_body<3>(in, out, n_tiles, intensity, a, c);
}
