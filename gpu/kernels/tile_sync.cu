// Experiment 2, synchronous variant: load a tile global -> shared, wait, compute, store,
// wait; one shared buffer, so loading the next tile never overlaps computing this one
// within a block. Launch with blockDim.x == TILE_VEC.

#include "tile_common.cuh"

extern "C" __global__ void TILE_LAUNCH_BOUNDS
tile_sync(const float4* __restrict__ in, float4* __restrict__ out, long long n_tiles,
          int intensity, float a, float c) {
    __shared__ float4 tile[TILE_VEC];
    for (long long t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        tile[threadIdx.x] = in[t * TILE_VEC + threadIdx.x];
        __syncthreads();
        out[t * TILE_VEC + threadIdx.x] = pipelab_tile_step(tile, intensity, a, c);
        __syncthreads();  // nobody overwrites the tile while a thread still reads it
    }
}
