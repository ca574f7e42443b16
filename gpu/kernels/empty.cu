// An empty kernel with the tile kernels' launch shape (gpu/tiles.py): timed like them, N
// launches queued behind the timer's spin, then run back to back between one event pair,
// it gives the device's own time from one launch to the next (launch, block dispatch,
// completion), printed on its own; the tile figures are not corrected by it.

#include "tile_common.cuh"

extern "C" __global__ void TILE_LAUNCH_BOUNDS pipelab_empty() {}
