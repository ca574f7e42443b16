// Shared by experiment 2's kernels: the tile shape and the per-tile compute step.
//
// A block of TILE_VEC threads owns one tile of TILE_VEC float4 (4 KiB) at a time; block b
// handles tiles b, b + gridDim.x, b + 2 * gridDim.x, ... so a block works through several
// tiles and there is a next tile to prefetch. The compute step reads the tile reversed, so
// each thread uses another thread's data: the shared-memory round trip is needed, not
// decoration.
#pragma once

#include "chain.cuh"

#define TILE_VEC 256
// Every tile kernel is compiled for TILE_VEC threads and at least TILE_MIN_BLOCKS resident
// blocks per SM (at most 32 registers a thread), so the synchronous and the cp.async
// variants fit the same number of blocks on an SM and run the same number of waves.
#define TILE_MIN_BLOCKS 8
#define TILE_LAUNCH_BOUNDS __launch_bounds__(TILE_VEC, TILE_MIN_BLOCKS)

__device__ __forceinline__ float4 pipelab_tile_step(const float4* tile, int intensity, float a,
                                                    float c) {
    const float4 v = tile[TILE_VEC - 1 - threadIdx.x];
    return make_float4(pipelab_chain(v.w, intensity, a, c), pipelab_chain(v.z, intensity, a, c),
                       pipelab_chain(v.y, intensity, a, c), pipelab_chain(v.x, intensity, a, c));
}
