"""Timing helpers shared by the benchmark workers (run under mpiexec)."""
import statistics
import time


def per_op_us(fn, ops, reps=5):
    """Median over `reps` of the µs per call of fn() (called `ops` times)."""
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(ops):
            fn()
        samples.append((time.perf_counter() - t0) / ops * 1e6)
    return round(statistics.median(samples), 3)


def per_batch(fn, items, reps=5):
    """Median seconds of one fn() call that handles `items` items -> items/s."""
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return round(items / statistics.median(samples), 1)
