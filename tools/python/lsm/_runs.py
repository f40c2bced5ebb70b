"""What every run from Python shares: its progress display and its notes."""
import logging
import sys
import warnings

log = logging.getLogger("lsm")


class LsmWarning(UserWarning):
    """A warning of lsm's about its input (a raster without a CRS, say)."""


def progress_callback(progress, description):
    """The engine's progress callback for ``progress``.

    None or False: none. True: a tqdm bar where tqdm is installed, else GDAL's
    terminal progress (0...10...100 - done.) on stderr. A callable: called
    with the fraction done (0 to 1) on the calling thread; an exception it
    raises cancels the run and propagates.
    """
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    if progress is not True:
        raise TypeError("progress takes True, False, None or a callable, not %r" % (progress,))
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _TerminalProgress()
    return _TqdmProgress(tqdm, description)


class _TqdmProgress:
    def __init__(self, tqdm, description):
        self.bar = tqdm(total=100, desc=description, unit="%", leave=True)

    def __call__(self, fraction):
        self.bar.update(round(fraction * 100) - self.bar.n)
        if fraction >= 1:
            self.bar.close()


class _TerminalProgress:
    """GDAL's terminal progress on stderr: a digit each 10 %, a dot each 2.5 %."""

    def __init__(self):
        self.tick = -1

    def __call__(self, fraction):
        tick = int(min(max(fraction, 0.0), 1.0) * 40)
        while self.tick < tick:
            self.tick += 1
            sys.stderr.write(str(self.tick // 4 * 10) if self.tick % 4 == 0 else ".")
        if tick == 40:
            sys.stderr.write(" - done.\n")
            self.tick = 41
        sys.stderr.flush()


def pass_on_notes(notes, hidden=()):
    """The run's notes: warnings as LsmWarning, notes to the 'lsm' logger.

    Lines that name one of ``hidden`` (the temporary files of arrays) are
    dropped: they are about files the caller never made.
    """
    for line in notes:
        if any(h in line for h in hidden):
            continue
        if line.startswith("warning: "):
            warnings.warn(line[len("warning: "):], LsmWarning, stacklevel=3)
        else:
            log.info(line)
