"""CUDA-event timing for the GPU scripts (crosscheck.py, torch_e2e.py,
torch_sweep.py): fn() run reps times, each between two events on the current
stream, the elapsed times in ms, sorted; and their summary as the scripts
record it."""
import statistics


def event_times_ms(fn, reps):
    import torch
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return sorted(ts)


def summary(ts):
    """median, p10 and p90 (ms) of sorted times, and how many"""
    return {"median_ms": statistics.median(ts), "p10_ms": ts[len(ts) // 10], "p90_ms": ts[(9 * len(ts)) // 10],
            "reps": len(ts)}
