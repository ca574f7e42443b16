// Experiment 1's kernel (the "compute" stage): the arithmetic chain on one chunk, in place.
// A grid-stride loop so any grid size covers any chunk.

#include "chain.cuh"

extern "C" __global__ void stream_chain(float* data, long long n, int intensity, float a,
                                        float c) {
    const long long stride = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        data[i] = pipelab_chain(data[i], intensity, a, c);
    }
}
