// Occupancy sweep kernel (gpu/occupancy.py): a memory-bound loop whose loads depend on each
// other, so every warp has exactly one load in flight, as in PipeLab's warp model (compute a
// little, wait L cycles for memory, repeat). Bandwidth then grows with the warps resident
// per SM until the memory system saturates: the measured counterpart of min(1, W·C/(C+L)).
//
// Each thread reads one 16-byte uint4 per step (a warp: 512 contiguous bytes), L1 bypassed
// (__ldcg), and steps through the array by the whole grid's thread count, from `start`:
// the host gives every launch the start where the previous one stopped, and sizes `steps`
// so a launch reads at least 4x the L2 (gpu/occupancy.py), so no launch is served from
// what an earlier one left in L2. The next index depends on the loaded value through
// `zero` (0 at run time; the compiler cannot know), so the loads of one thread never
// overlap. Thread 0 of every block records the SM it ran on (%smid), so the host can check
// how many warps each SM really held.
//
// Compiles with NVRTC (CuPy RawModule) and with `nvcc -cubin -arch=sm_80` / sm_90.

extern "C" __global__ void __launch_bounds__(1024, 2)
occupancy_chase(const uint4* __restrict__ data,
                unsigned long long index_mask,  // array length (a power of two) minus one
                int steps,
                unsigned int zero,
                unsigned long long start,  // first element this launch reads (before masking)
                unsigned int* __restrict__ sink,
                unsigned int* __restrict__ block_sm)
{
    const unsigned long long thread =
        (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long index = start + thread;
    unsigned int acc = 0;
#pragma unroll 1
    for (int step = 0; step < steps; ++step) {
        const uint4 value = __ldcg(data + (index & index_mask));
        acc += value.x ^ value.y ^ value.z ^ value.w;
        index += stride + (value.x & zero);  // a dependency on the load: one in flight
    }
    if (acc == 0xFFFFFFFFu && zero == 0xFFFFFFFFu) {
        sink[thread] = acc;  // never true at run time; keeps the loads from being removed
    }
    if (threadIdx.x == 0) {
        unsigned int sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        block_sm[blockIdx.x] = sm;
    }
}
