"""The SM clock and board power while each cell is timed.

Under sustained load an H100 runs at its power limit and lowers its SM clock: in one bench
(2026-11-26) it fell from 1965 to 1815 MHz at 671 W of 700, and D=128 S=4k causal ran 408 us
per call in a 20-call burst against 476-484 us in sustained rounds. A record's time is only
comparable with the clock it ran at, so the bench samples both during the run.

:class:`ClockSampler` runs ``nvidia-smi`` in its loop mode (``--loop-ms``) in a child process for
the whole run, its output on a pseudo-terminal so that each line arrives as it is written
(into a pipe, nvidia-smi's output is block-buffered: seconds late). Each timing window is
bracketed with the host's wall clock, and a record gets the medians of the samples whose
timestamps fall inside its windows; nvidia-smi stamps each sample with the same clock.
The query only reads; without nvidia-smi the fields stay None and the bench runs as before.

Power is ``power.draw.instant``: on Ampere and newer ``power.draw`` is a one-second running
average, and a cell's providers take turns in windows of tens of milliseconds, so each would
read its neighbours' power (2026-11-26-h100-q-regs/2-shipped/power_fields.log: 30 ms bursts
with 30 ms idle read ~200 and ~790 W instantaneous, while the average climbed smoothly). On
the H100 both fields and the SM clock refresh every ~100 ms, so a record's medians rest on a
few samples per window. A driver without the field makes nvidia-smi refuse the query: the
fields then stay None.
"""

from __future__ import annotations

import bisect
import datetime
import os
import pty
import statistics
import subprocess
import threading

QUERY = "timestamp,clocks.sm,power.draw.instant"
STAMP_FORMAT = "%Y/%m/%d %H:%M:%S.%f"


def parse_line(line: str) -> tuple[float, float, float] | None:
    """(POSIX seconds, SM MHz, watts) of one ``timestamp,clocks.sm,power.draw.instant`` line
    (``--format=csv,noheader,nounits``), or None for anything else ("[N/A]", a header)."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 3:
        return None
    try:
        when = datetime.datetime.strptime(parts[0], STAMP_FORMAT).timestamp()
        return when, float(parts[1]), float(parts[2])
    except ValueError:
        return None


def summarize(samples: list[tuple[float, float, float]], windows: list[tuple[float, float]],
              count: int | None = None) -> dict:
    """Medians of the samples inside any of ``windows`` ((start, end) host seconds):
    {"sm_mhz": ..., "power_w": ...}, each None without a sample. ``samples`` are in time
    order (as nvidia-smi prints them), so each window is a slice found by bisection (the
    windows do not overlap: cells are timed one at a time); only the first ``count`` are
    read (default: all)."""
    n = len(samples) if count is None else count
    inside = []
    for t0, t1 in windows:
        lo = bisect.bisect_left(samples, t0, hi=n, key=_when)
        inside += samples[lo:bisect.bisect_right(samples, t1, lo=lo, hi=n, key=_when)]
    if not inside:
        return {"sm_mhz": None, "power_w": None}
    return {"sm_mhz": statistics.median(s[1] for s in inside), "power_w": statistics.median(s[2] for s in inside)}


def _when(sample: tuple[float, float, float]) -> float:
    return sample[0]


class ClockSampler:
    """nvidia-smi's samples of one GPU every ``period_ms``, collected by a reader thread.
    ``command`` replaces the nvidia-smi command line (tests)."""

    def __init__(self, gpu: str, period_ms: int = 20, command: list[str] | None = None):
        self.command = command or ["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
                                   f"--loop-ms={period_ms}", "-i", gpu]
        self.samples: list[tuple[float, float, float]] = []
        self._proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> bool:
        """Start sampling; False (and no samples) where the command cannot run."""
        master, slave = pty.openpty()
        try:
            self._proc = subprocess.Popen(self.command, stdout=slave, stderr=subprocess.DEVNULL,
                                          stdin=subprocess.DEVNULL)
        except OSError:
            os.close(master)
            return False
        finally:
            os.close(slave)
        self._reader = threading.Thread(target=self._read, args=(master,), daemon=True)
        self._reader.start()
        return True

    def _read(self, fd: int) -> None:
        with open(fd, encoding="utf-8", errors="replace") as out:
            try:
                for line in out:
                    sample = parse_line(line)
                    if sample is not None:
                        self.samples.append(sample)
            except OSError:  # the pty closes (EIO) once the child exits
                pass

    def stop(self) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        if self._reader is not None:
            self._reader.join(timeout=5)
        self._proc = None

    def window(self, windows: list[tuple[float, float]]) -> dict:
        # The reader thread appends while a cell is summarised: read the samples there are now.
        return summarize(self.samples, windows, len(self.samples))


def now() -> float:
    """Host wall-clock seconds, the clock nvidia-smi stamps its samples with."""
    return datetime.datetime.now().timestamp()
