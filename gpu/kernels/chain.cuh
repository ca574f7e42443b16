// The arithmetic both experiments (and the CPU backend, in numpy) apply to every element:
// y <- a * y + c * x, `intensity` times, starting from y = x. With a < 1 rounding errors
// are damped, and the result x * (a^n + c * (1 - a^n) / (1 - a)) still depends on x, so a
// chunk that is lost, swapped or stale fails the check against numpy.
#pragma once

__device__ __forceinline__ float pipelab_chain(float x, int intensity, float a, float c) {
    const float cx = c * x;
    float y = x;
    for (int k = 0; k < intensity; ++k) {
        y = fmaf(a, y, cx);
    }
    return y;
}
