#!/usr/bin/env python3
"""A fuzz campaign through lsm's front doors, the size of the one that opened
the hardening issue: mutated GeoTIFFs through `lsm metrics` and `lsm label`,
malformed LSM: connection strings through gdalinfo, boundary option values on
every command, odd --init files. Best run on the sanitizer build
(build-asan/, tools/run_sanitized_tests.sh).

Each run must end with exit 0, or exit 1 and exactly one line
"lsm: error: ..." that names a cause (not ending in ':' or "GDAL gave no
reason"); no sanitizer report, nothing left in the output folder after a
failure, no run past 60 s, no process past 2 GB of resident memory.

  python3 bench/fuzz_campaign.py BUILD_DIR [--seed N] [--files N]
Prints a record (runs, failures by kind, defects) for bench/RESULTS.md and
exits 1 when a defect was found; defects are listed with their inputs kept
in the work folder.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "sample_rasters", "nlm_fbm_400x300.tif")


def empty(folder):
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def asan_preload():
    path = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    return path if os.path.isabs(path) else ""


class Campaign:
    def __init__(self, build, work, rng):
        self.lsm = os.path.join(build, "lsm")
        self.plugins = os.path.join(build, "gdalplugins")
        self.work = work
        self.rng = rng
        self.runs = 0
        self.failures = {}
        self.defects = []
        self.slowest = 0.0
        self.peak = (0.0, "")
        self.env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1",
                        GDAL_DRIVER_PATH=self.plugins)
        self.preload = asan_preload()

    def run(self, args, label, outdir=None, gdal_tool=False):
        env = dict(self.env)
        if gdal_tool and self.preload:
            env["LD_PRELOAD"] = self.preload
        start = time.time()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errf:
            p = subprocess.Popen(args, stdout=out, stderr=errf, env=env)
            deadline = start + 60
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.time() > deadline:
                    p.kill()
                    os.wait4(p.pid, 0)
                    self.defects.append((label, "ran past 60 s", args))
                    return
                time.sleep(0.005)
            p.returncode = os.waitstatus_to_exitcode(status)
            errf.seek(0)
            err = errf.read().decode("utf-8", "replace")
        self.slowest = max(self.slowest, time.time() - start)
        rss_mb = usage.ru_maxrss / 1024
        if rss_mb > self.peak[0]:
            self.peak = (rss_mb, " ".join(args)[:200])
        if rss_mb > 2048:
            self.defects.append((label, "took %.0f MB" % rss_mb, args))
        self.runs += 1
        if "Sanitizer" in err or "runtime error" in err or p.returncode < 0 or p.returncode > 1:
            self.defects.append((label, "crash or sanitizer report (exit %d): %s" % (p.returncode, err[-400:]), args))
            return
        if p.returncode == 0:
            return
        if gdal_tool:
            lsm_lines = [l for l in err.splitlines() if l.startswith("ERROR") and "LSM" in l]
            kind = "driver refusal"
            if len(lsm_lines) > 1:
                self.defects.append((label, "more than one lsm error line: " + err[-400:], args))
        else:
            lines = [l for l in err.splitlines() if l.startswith("lsm: error:")]
            if len(lines) != 1:
                self.defects.append((label, "not one error line: " + err[-400:], args))
                return
            line = lines[0]
            if line.rstrip().endswith(":") or "GDAL gave no reason" in line or "bad_alloc" in line:
                self.defects.append((label, "an error without its cause: " + line, args))
            kind = line[len("lsm: error: "):].split("'")[0][:40].strip()
        self.failures[kind] = self.failures.get(kind, 0) + 1
        if outdir and os.listdir(outdir):
            self.defects.append((label, "a failed run left " + ", ".join(os.listdir(outdir)), args))
        if outdir:
            empty(outdir)

    # ---- inputs
    def variants(self):
        """The sample in several GeoTIFF layouts, the seeds of the mutations."""
        out = []
        for name, opts in [("plain", []), ("lzw_strips", ["-co", "COMPRESS=LZW", "-co", "BLOCKYSIZE=10"]),
                           ("deflate_tiles", ["-co", "COMPRESS=DEFLATE", "-co", "TILED=YES"]),
                           ("int16", ["-ot", "Int16"]), ("float32", ["-ot", "Float32"])]:
            path = os.path.join(self.work, "seed_" + name + ".tif")
            subprocess.run(["gdal_translate", "-q"] + opts + [SAMPLE, path], check=True)
            out.append(path)
        return out

    def mutate(self, data):
        b = bytearray(data)
        kind = self.rng.choice(["flip", "truncate", "tag", "splice"])
        if kind == "flip":
            for _ in range(self.rng.randint(1, 40)):
                i = self.rng.randrange(len(b))
                b[i] ^= 1 << self.rng.randrange(8)
        elif kind == "truncate":
            b = b[: self.rng.randrange(8, len(b))]
        elif kind == "tag":  # the header and first IFD: sizes, offsets, types
            for _ in range(self.rng.randint(1, 6)):
                i = self.rng.randrange(min(len(b), 400))
                b[i] = self.rng.choice([0, 1, 0xFF, 0x7F, 0x80, self.rng.randrange(256)])
        else:
            i, j = sorted(self.rng.sample(range(len(b)), 2))
            b[i:j] = bytes(self.rng.randrange(256) for _ in range(min(j - i, 64)))
        return bytes(b), kind

    def files(self, count):
        seeds = [open(p, "rb").read() for p in self.variants()]
        outdir = os.path.join(self.work, "out")
        os.makedirs(outdir, exist_ok=True)
        for n in range(count):
            data, kind = self.mutate(self.rng.choice(seeds))
            path = os.path.join(self.work, "mutated.tif")
            open(path, "wb").write(data)
            before = open(path, "rb").read()
            self.run([self.lsm, "metrics", path, "--out", os.path.join(outdir, "m"), "-q"], "file/" + kind, outdir)
            self.run([self.lsm, "label", path, os.path.join(outdir, "l.tif"), "-q"], "file/" + kind, outdir)
            if open(path, "rb").read() != before:
                self.defects.append(("file/" + kind, "the input was modified", [path]))
            if len(self.defects) and self.defects[-1][2][-1:] != ["kept"]:
                keep = os.path.join(self.work, "defect_%d.tif" % n)
                shutil.copy(path, keep)
                self.defects[-1] = self.defects[-1][:2] + (self.defects[-1][2] + [keep, "kept"],)
            empty(outdir)

    def connection_strings(self, count):
        ops = ["label", "patchmetric", "kmeans", "gradient", "pyramid", "hog", "fuzzy", "metrics", "x"]
        options = ["band", "neighbors", "metric", "k", "n_init", "radius", "sigma", "level", "cell", "block", "bins",
                   "seeds", "edge_depth", "max_cells", "backend", "adjacency"]
        values = ["1", "0", "-1", "4294967297", "9223372036854775808", "nan", "inf", "1e308", "", "AREA", "8",
                  "1;2", "a" * 300]
        for _ in range(count):
            parts = ["LSM", self.rng.choice(ops)]
            for _ in range(self.rng.randint(0, 4)):
                parts.append(self.rng.choice(options) + "=" + self.rng.choice(values))
            parts.append(self.rng.choice([SAMPLE, "missing.tif", self.work, "", "/vsimem/x", SAMPLE + ":extra"]))
            text = ":".join(parts)
            if self.rng.random() < 0.2:
                text = text * self.rng.randint(2, 50)
            self.run(["gdalinfo", text], "connection string", gdal_tool=True)

    def boundary_options(self):
        describe = subprocess.run([self.lsm, "--describe"], capture_output=True, text=True, env=self.env).stdout
        import json
        commands = json.loads(describe)["commands"]
        outdir = os.path.join(self.work, "opt")
        os.makedirs(outdir, exist_ok=True)
        needs = {"kmeans": ["--k", "3"], "fuzzy": ["--seed", "10,10"], "patchmetric": ["--metric", "AREA"]}
        for name, command in (commands.items() if isinstance(commands, dict) else [(c["name"], c) for c in commands]):
            params = command.get("options") or command.get("parameters")
            for p in params:
                if p.get("type") not in ("integer", "number"):
                    continue
                lo, hi = p.get("minimum"), p.get("maximum")
                values = ["4294967297", "-9223372036854775809", "99999999999999999999", "nan", "inf", "1e308", "-0",
                          "", "0x10", "1e-400"]
                for bound in (lo, hi):
                    if bound is not None:
                        values += [repr(bound), repr(bound - 1), repr(bound + 1)]
                for v in values:
                    args = [self.lsm, name]
                    if name == "synth":
                        args += [os.path.join(outdir, "s.tif"), "--max-cells", "100000000"]
                    elif name == "metrics":
                        args += [SAMPLE, "--out", os.path.join(outdir, "m")]
                    elif name == "pyramid":
                        args += [SAMPLE, os.path.join(outdir, "levels")]
                    else:
                        args += [SAMPLE, os.path.join(outdir, "o.tif")]
                    if p["name"] not in ("k", "seed", "metric"):
                        args += needs.get(name, [])
                    args += ["--" + p["name"], v, "-q"]
                    self.run(args, "option " + name + " --" + p["name"], outdir)
                    empty(outdir)

    def init_files(self):
        cases = {"nan": "nan\n1\n2\n", "inf": "1\ninf\n2\n", "huge": "1e308\n1\n2\n", "tiny": "1e-400\n1\n2\n",
                 "empty": "", "words": "one\ntwo\nthree\n", "too_many": "1\n2\n3\n4\n", "too_few": "1\n",
                 "bands": "1 2\n3 4\n5 6\n", "binary": "\x00\xff\x10" * 100, "comment": "# 1\n# 2\n",
                 "commas": "1,\n,2\n3\n", "long_line": "1 " * 100000, "hex": "0x1\n0x2\n0x3\n",
                 "negative": "-1\n-2\n-3\n", "spaces": "  1  \n\t2\n 3 ", "crlf": "1\r\n2\r\n3\r\n",
                 "big": "1\n2\n3\n" + "#" * (20 << 20), "unicode": "１\n２\n３\n", "plus": "+1\n+2\n+3\n",
                 "nul_inside": "1\x002\n3\n4\n", "exp": "1e3\n2e-3\n3E+1\n", "dot": ".\n..\n...\n",
                 "float_max": "3.4028234e38\n1\n2\n", "beyond_float": "3.5e38\n1\n2\n"}
        outdir = os.path.join(self.work, "init")
        os.makedirs(outdir, exist_ok=True)
        for name, text in cases.items():
            path = os.path.join(self.work, "init_" + name + ".txt")
            open(path, "w", encoding="utf-8", errors="surrogateescape").write(text)
            self.run([self.lsm, "kmeans", SAMPLE, os.path.join(outdir, "k.tif"), "--k", "3", "--init", path, "-q"],
                     "--init " + name, outdir)
            empty(outdir)
        for special in ["/dev/zero", self.work, "/nonexistent"]:
            self.run([self.lsm, "kmeans", SAMPLE, os.path.join(outdir, "k.tif"), "--k", "3", "--init", special, "-q"],
                     "--init " + special, outdir)
            empty(outdir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--files", type=int, default=478)
    ap.add_argument("--strings", type=int, default=320)
    ap.add_argument("--files-only", action="store_true", help="only the mutated GeoTIFFs")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="lsm-campaign-")
    c = Campaign(os.path.abspath(a.build), work, random.Random(a.seed))
    start = time.time()
    c.files(a.files)
    if not a.files_only:
        c.connection_strings(a.strings)
        c.boundary_options()
        c.init_files()
    peak = c.peak[0]
    print("runs: %d in %.0f s (slowest %.1f s); peak resident memory of any run: %.0f MB (%s)" %
          (c.runs, time.time() - start, c.slowest, peak, c.peak[1]))
    print("refusals by kind: " + "; ".join("%s %d" % (k, v) for k, v in sorted(c.failures.items(), key=lambda x: -x[1])[:12]))
    print("defects: %d" % len(c.defects))
    for label, what, args in c.defects[:30]:
        print("  %s: %s\n    %s" % (label, what, " ".join(args)[:300]))
    if peak > 2048:
        print("a run took more than 2 GB")
    if not c.defects:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("inputs kept in " + work)
    sys.exit(1 if c.defects or peak > 2048 else 0)


if __name__ == "__main__":
    main()
