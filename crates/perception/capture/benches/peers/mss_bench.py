"""Peer benchmark for deft-capture: python-mss full-screen grabs converted to RGB.

Usage: mss_bench.py SAMPLES [BACKEND]   (DISPLAY must name the display to grab)
Grabs the first monitor once to warm up, then SAMPLES times, each grab followed by the
conversion to RGB bytes that mss users do (`ScreenShot.rgb`), and prints one line:
`mss VERSION backend=B size=WxH median_ms=M min_ms=N`.
"""

import statistics
import sys
import time

import mss

samples = int(sys.argv[1]) if len(sys.argv) > 1 else 20
backend = sys.argv[2] if len(sys.argv) > 2 else "default"

with mss.mss(backend=backend) as sct:
    monitor = sct.monitors[1]
    _ = sct.grab(monitor).rgb
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        shot = sct.grab(monitor)
        rgb = shot.rgb
        times.append((time.perf_counter() - start) * 1e3)
    assert len(rgb) == shot.width * shot.height * 3

print(
    f"mss {mss.__version__} backend={backend} size={shot.width}x{shot.height} "
    f"median_ms={statistics.median(times):.3f} min_ms={min(times):.3f}"
)
