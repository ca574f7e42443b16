"""A small stand-in for CuPy that runs on the CPU, so the CuPy code path's logic (pointer
arithmetic, issue order, events → Schedule, checks, faults) is tested without a device.

Work runs synchronously at issue time; events read the fake device's own clock, which
advances `OP_MS` with each operation and, for a kernel, `MULTIPLY_ADD_MS` for each
element's multiply-add (a spin for as long as it was asked to spin) — never the wall
clock: on a busy machine one launch would look like a thousand. Kernels are emulated in
numpy from their names. It models only what gpu/ calls. Every operation that would run on
the device is logged with the stream it would run on (``cupy.device_ops``), so tests can
check stream order: work on the legacy default stream (`NULL_STREAM`) is not ordered with
work on a non-blocking stream.
"""

from __future__ import annotations

import ctypes
import types
from typing import Any

import numpy as np

from gpu import arith
from gpu.tile_result import TILE

NULL_STREAM = "legacy default stream"
#: Streams entered with ``with stream:``, innermost last (CuPy's current stream).
_ENTERED: list[Any] = []
#: (operation, stream) of every device operation of the fake made last.
_DEVICE_OPS: list[tuple[str, Any]] = []
#: Whether an event reads as done when the host asks (``event.done``). The fake runs work at
#: issue time, but by default it answers as a device still busy with the timer's spin
#: would; True emulates a host too slow to queue a window before the spin ends.
_EVENTS_DONE: list[bool] = [False]
#: Milliseconds of every spin (gpu/kernels/spin.cu) the fake made last was asked for.
_SPINS: list[float] = []


def current_stream() -> Any:
    return _ENTERED[-1] if _ENTERED else NULL_STREAM


#: Device time each operation takes on the fake's clock (ms), and each multiply-add of
#: an element in a kernel.
OP_MS = 0.01
MULTIPLY_ADD_MS = 1e-6
#: The fake device's clock (ms): what events record.
_CLOCK_MS = [0.0]


def _log(operation: str, stream: Any = None) -> None:
    _DEVICE_OPS.append((operation, current_stream() if stream is None else stream))
    if not operation.startswith("event"):
        _CLOCK_MS[0] += OP_MS


class FakeArray:
    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    @property
    def data(self) -> FakePointer:
        return FakePointer(self.array)

    def __getitem__(self, index: Any) -> FakeArray:
        if isinstance(index, FakeArray):
            _log("gather")
        return FakeArray(self.array[_unwrap(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        _log("scatter")
        self.array[_unwrap(index)] = _unwrap(value)

    def __len__(self) -> int:
        return len(self.array)


def _unwrap(value: Any) -> Any:
    return value.array if isinstance(value, FakeArray) else value


class FakePointer:
    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def copy_from_host_async(self, mem: ctypes.c_void_p, size: int, stream: Any = None) -> None:
        assert size <= self.array.nbytes
        _log("copy host to device", stream)
        ctypes.memmove(self.array.ctypes.data, mem.value, size)

    def copy_to_host_async(self, mem: ctypes.c_void_p, size: int, stream: Any = None) -> None:
        assert size <= self.array.nbytes
        _log("copy device to host", stream)
        ctypes.memmove(mem.value, self.array.ctypes.data, size)

    def copy_from_device_async(self, src: FakePointer, size: int, stream: Any = None) -> None:
        _log("copy device to device", stream)
        ctypes.memmove(self.array.ctypes.data, src.array.ctypes.data, size)


class FakeStream:
    def __init__(self, non_blocking: bool = False) -> None:
        self.non_blocking = non_blocking

    def __enter__(self) -> FakeStream:
        _ENTERED.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        assert _ENTERED and _ENTERED[-1] is self, "streams left in another order"
        _ENTERED.pop()

    def wait_event(self, event: FakeEvent) -> None:
        return None

    def synchronize(self) -> None:
        return None


class FakeEvent:
    def __init__(self) -> None:
        self.ms = 0.0

    def record(self, stream: Any = None) -> None:
        _log(f"event record {id(self)}", stream)
        self.ms = _CLOCK_MS[0]

    def synchronize(self) -> None:
        return None

    @property
    def done(self) -> bool:
        return _EVENTS_DONE[0]


#: Static shared memory each tile kernel declares (bytes), as ptxas reports it.
STATIC_SHARED = {"tile_sync": 4096, "tile_async2": 8192, "tile_async3": 12288}
#: The fake device's SM: shared memory, what CUDA reserves per block, thread and block limits.
SHARED_PER_SM = 228 * 1024
SHARED_OPTIN = 227 * 1024
RESERVED_PER_BLOCK = 1024
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32
L2_BYTES = 50 * 1024 * 1024
#: Every kernel the fake made, by the pointer the occupancy API receives.
_KERNELS: dict[int, FakeKernel] = {}
#: (kernel name, grid, block, dynamic shared memory) of every launch of the fake made last.
_LAUNCHES: list[tuple[str, tuple[int, ...], tuple[int, ...], int]] = []


class FakeKernel:
    """Emulates gpu/kernels' entry points; ``broken`` makes results wrong on purpose.

    Like CuPy's RawKernel it has ``kernel.ptr``, ``shared_size_bytes`` and a settable
    ``max_dynamic_shared_size_bytes``, and takes ``shared_mem=`` at launch (checked against
    that maximum, as the driver does).
    """

    def __init__(self, name: str, broken: bool) -> None:
        self.name = name
        self.broken = broken
        self.launches: list[tuple[Any, Any]] = []
        self.shared_mem: list[int] = []
        self.shared_size_bytes = STATIC_SHARED.get(name, 0)
        self.max_dynamic_shared_size_bytes = 48 * 1024
        self.kernel = types.SimpleNamespace(ptr=id(self))
        _KERNELS[id(self)] = self

    def __call__(
        self,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: tuple[Any, ...],
        shared_mem: int = 0,
    ) -> None:
        self.launches.append((grid, block))
        self.shared_mem.append(shared_mem)
        _LAUNCHES.append((self.name, tuple(grid), tuple(block), shared_mem))
        _log(f"kernel {self.name}")
        if self.name == "pipelab_spin":
            assert grid == (1,) and block == (1,) and shared_mem == 0
            nanoseconds, max_cycles = args
            assert isinstance(nanoseconds, np.uint64) and isinstance(max_cycles, np.int64)
            assert 0 < int(nanoseconds) <= int(max_cycles)
            _SPINS.append(int(nanoseconds) / 1e6)
            _CLOCK_MS[0] += int(nanoseconds) / 1e6
            return
        assert all(g >= 1 for g in grid) and block == (256,)
        assert shared_mem <= self.max_dynamic_shared_size_bytes, "too much dynamic shared memory"
        if self.name == "pipelab_empty":
            assert args == ()
            return
        if self.name == "stream_chain":
            buffer, count, intensity, a, c = args
            assert isinstance(a, np.float32) and isinstance(c, np.float32)
            view = buffer.array[: int(count)]
            arith.chain_numpy(view, int(intensity), np.empty(arith.BLOCK, np.float32))
            _CLOCK_MS[0] += len(view) * (int(intensity) + 1) * MULTIPLY_ADD_MS
        else:
            source, target, tiles, intensity, a, c = args
            n = int(tiles) * TILE
            tiles_in = source.array[:n].reshape(-1, TILE)[:, ::-1].reshape(-1).copy()
            arith.chain_numpy(tiles_in, int(intensity), np.empty(arith.BLOCK, np.float32))
            target.array[:n] = tiles_in
            _CLOCK_MS[0] += n * (int(intensity) + 1) * MULTIPLY_ADD_MS
        if self.broken:
            target_array = buffer.array if self.name == "stream_chain" else target.array
            target_array[:1] += 1.0


class FakeModule:
    def __init__(self, cupy: types.SimpleNamespace, code: str, options: tuple[str, ...]) -> None:
        self.cupy = cupy
        self.code = code
        self.options = options
        cupy.compiled.append((code, options))

    def compile(self) -> None:
        only_if = self.cupy.compile_error_if
        if self.cupy.compile_error and (
            not only_if or only_if in " ".join(self.options) + self.code
        ):
            raise self.cupy.CompileException(self.cupy.compile_error)

    def get_function(self, name: str) -> FakeKernel:
        assert f'"C" __global__ void {name}(' in self.code.replace("\n", " ") or name in self.code
        return FakeKernel(name, self.cupy.broken)


class OutOfMemoryError(Exception):
    pass


class CompileException(Exception):
    def get_message(self) -> str:
        return str(self.args[0])


def make_fake_cupy(
    *,
    major: int = 9,
    minor: int = 0,
    device_count: int | Exception = 1,
    broken: bool = False,
    compile_error: str = "",
    compile_error_if: str = "",
    oom: bool = False,
) -> tuple[types.ModuleType, types.ModuleType]:
    """(cupy, cupyx) modules to put into sys.modules."""
    cupy: Any = types.ModuleType("cupy")
    cupy.compiled = []
    cupy.broken = broken
    cupy.compile_error = compile_error
    #: Fail only compiles whose options or code contain this text ("" = every compile).
    cupy.compile_error_if = compile_error_if
    cupy.CompileException = CompileException
    cupy.freed = []
    _DEVICE_OPS.clear()
    _LAUNCHES.clear()
    _SPINS.clear()
    _EVENTS_DONE[0] = False
    cupy.device_ops = _DEVICE_OPS
    cupy.launches = _LAUNCHES
    cupy.spins = _SPINS

    def events_read_done(done: bool) -> None:
        _EVENTS_DONE[0] = done

    cupy.events_read_done = events_read_done

    def get_device_count() -> int:
        if isinstance(device_count, Exception):
            raise device_count
        return device_count

    attributes = {
        38: L2_BYTES,
        39: THREADS_PER_SM,
        81: SHARED_PER_SM,
        97: SHARED_OPTIN,
        106: BLOCKS_PER_SM,
        111: RESERVED_PER_BLOCK,
    }

    def device_get_attribute(attribute: int, device: int) -> int:
        cupy.attribute_reads.append(attribute)
        return attributes[attribute]

    def occupancy(pointer: int, threads: int, dynamic: int) -> int:
        kernel = _KERNELS[pointer]
        shared = dynamic + kernel.shared_size_bytes + RESERVED_PER_BLOCK
        return min(BLOCKS_PER_SM, THREADS_PER_SM // threads, SHARED_PER_SM // shared)

    cupy.attribute_reads = []
    properties = {
        "name": b"Fake GPU",
        "major": major,
        "minor": minor,
        "totalGlobalMem": 8 << 30,
        "multiProcessorCount": 4,
        "asyncEngineCount": 2,
    }
    runtime = types.SimpleNamespace(
        getDeviceCount=get_device_count,
        getDeviceProperties=lambda index: dict(properties),
        deviceGetAttribute=device_get_attribute,
        cudaDevAttrL2CacheSize=38,  # CuPy exports the names; the others use the numbers
    )

    class Device:
        id = 0

        def __init__(self, index: int = 0) -> None:
            self.id = index

        def synchronize(self) -> None:
            return None

    cupy.cuda = types.SimpleNamespace(
        runtime=runtime,
        Device=Device,
        Stream=FakeStream,
        Event=FakeEvent,
        get_elapsed_time=lambda a, b: b.ms - a.ms,
        get_cuda_path=lambda: None,
        driver=types.SimpleNamespace(occupancyMaxActiveBlocksPerMultiprocessor=occupancy),
    )
    cupy.cuda.memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)

    def empty(shape: Any, dtype: Any = np.float32) -> FakeArray:
        if oom:
            raise OutOfMemoryError("Out of memory allocating 1,073,741,824 bytes")
        return FakeArray(np.full(shape, np.nan, dtype=dtype))

    class Pool:
        def free_all_blocks(self) -> None:
            cupy.freed.append(True)

    cupy.empty = empty
    cupy.empty_like = lambda a: FakeArray(np.full_like(a.array, np.nan))

    def asarray(host: Any) -> FakeArray:
        if oom:
            empty(0)
        _log("copy host to device")
        return FakeArray(np.array(host, copy=True))

    def asnumpy(array: FakeArray) -> np.ndarray:
        _log("copy device to host")
        return np.array(array.array, copy=True)

    cupy.asarray = asarray
    cupy.asnumpy = asnumpy
    cupy.RawModule = lambda code, options=(): FakeModule(cupy, code, tuple(options))
    cupy.get_default_memory_pool = Pool
    cupy.get_default_pinned_memory_pool = Pool
    cupyx: Any = types.ModuleType("cupyx")
    cupyx.empty_pinned = lambda shape, dtype=np.float32: np.full(shape, np.nan, dtype=dtype)
    return cupy, cupyx
