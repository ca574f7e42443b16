// A busy wait the event timer (gpu/timing.py) queues on its stream before a window's begin
// event. While one thread spins here, the host queues the window's N launches behind it, so
// the window opens on a full queue: the device runs the N launches back to back and the
// host's argument packing, cuLaunchKernel and the latency of the first launch all fall
// before the begin event, outside the timed window.
//
// It waits on %globaltimer (nanoseconds, independent of the SM clock, which may still be
// ramping up), and stops after `max_cycles` of clock64() whatever the timer says, so a
// global timer that does not advance cannot hang the stream.
//
// Compiles with NVRTC (CuPy RawModule) and with `nvcc -cubin -arch=sm_80` / sm_90.

extern "C" __global__ void __launch_bounds__(1, 1)
pipelab_spin(unsigned long long nanoseconds, long long max_cycles)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    const long long first_cycle = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds && clock64() - first_cycle < max_cycles);
}
