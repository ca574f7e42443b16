// An empty kernel with the tile kernels' launch shape (gpu/tiles.py): timed like them, N
// launches back to back between one event pair, it shows the per-launch cost that the
// tile figures still include (block dispatch, the launch itself), printed on its own.

#include "tile_common.cuh"

extern "C" __global__ void TILE_LAUNCH_BOUNDS pipelab_empty() {}
