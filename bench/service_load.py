#!/usr/bin/python3
"""Load on lsm serve, on loopback: N metrics jobs from C concurrent clients on
W workers; jobs per second, and the latency of status requests meanwhile.

    /usr/bin/python3 bench/service_load.py build/lsm sample_rasters/nlm_fbm_400x300.tif \
        --jobs 200 --clients 8 --workers 2

Several nodes on one shared job store (each job submitted through node i mod
N, its status polled through the next node), inside a throwaway PostgreSQL
cluster:

    pg_virtualenv /usr/bin/python3 bench/service_load.py build/lsm sample_rasters/nlm_fbm_400x300.tif \
        --jobs 300 --clients 8 --workers 2 --nodes 3 --job-store postgresql://

With --attacks, 40 idle connections and 10 clients sending their headers a
byte a second are held open beside the load (issue 47's starvation attack):

    /usr/bin/python3 bench/service_load.py build/lsm sample_rasters/nlm_fbm_400x300.tif \
        --jobs 300 --clients 16 --workers 2 --attacks

Prints one Markdown table row (see bench/RESULTS.md, "lsm serve under load").
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body else None, method=method)
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lsm")
    ap.add_argument("raster")
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2, help="per node")
    ap.add_argument("--nodes", type=int, default=1)
    ap.add_argument("--job-store", default="sqlite")
    ap.add_argument("--attacks", action="store_true", help="hold idle and slow-header connections beside the load")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="lsm_load_")
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    shutil.copy(args.raster, os.path.join(data, "in.tif"))
    ports = [free_port() for _ in range(args.nodes)]
    bases = ["http://127.0.0.1:%d" % p for p in ports]
    base = bases[0]
    servers = [subprocess.Popen([args.lsm, "serve", "--data-root", data, "--work-dir", os.path.join(tmp, "work"),
                                 "--listen", "127.0.0.1:%d" % port, "--workers", str(args.workers),
                                 "--max-queue", str(args.jobs + 10), "--job-store", args.job_store,
                                 "--node-name", "node%d" % i, "-q"])
               for i, port in enumerate(ports)]
    try:
        for port in ports:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.05)
        latencies, stop = [], threading.Event()

        def poll_status():  # a client watching the job list while the load runs
            while not stop.is_set():
                t0 = time.perf_counter()
                call("GET", base + "/jobs?limit=10")
                latencies.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.01)

        def one(i):
            job = call("POST", bases[i % args.nodes] + "/processes/metrics/execution", {"inputs": {"input": "in.tif"}},
                       {"Prefer": "respond-async"})["jobID"]
            while True:
                status = call("GET", bases[(i + 1) % args.nodes] + "/jobs/" + job)["status"]
                if status in ("successful", "failed", "dismissed"):
                    return status
                time.sleep(0.02)

        held = []

        def trickle():  # a header byte a second on each slow connection
            for i in range(100000):
                if stop.is_set():
                    return
                for c in held[40:]:
                    try:
                        c.sendall(b"X")
                    except OSError:
                        pass
                time.sleep(1)

        if args.attacks:
            held += [socket.create_connection(("127.0.0.1", ports[0]), timeout=10) for _ in range(50)]
            for c in held[40:]:
                c.sendall(b"GET /jobs HTTP/1.1\r\nX-Slow: ")
            threading.Thread(target=trickle, daemon=True).start()
        poller = threading.Thread(target=poll_status)
        poller.start()
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
            statuses = list(pool.map(one, range(args.jobs)))
        seconds = time.perf_counter() - start
        stop.set()
        poller.join()
        for c in held:
            c.close()
        ok = statuses.count("successful")
        q = statistics.quantiles(latencies, n=20)
        print("| %s | %d | %d | %d | %d | %d/%d | %.1f | %.1f | %.1f | %.1f |" % (
            args.job_store.split(":")[0], args.nodes, args.jobs, args.clients, args.workers, ok, args.jobs, seconds, args.jobs / seconds,
            statistics.median(latencies), q[18]))
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
