#!/usr/bin/python3
"""Three `lsm serve` nodes on one PostgreSQL job store (issue 52, item 3).

Run inside a throwaway cluster (ctest does: pg_virtualenv sets PGHOST,
PGPORT, PGUSER, PGPASSWORD), so `--job-store postgresql://` reaches it:

    pg_virtualenv /usr/bin/python3 tests/service_nodes_test.py LSM_BINARY SOURCE_DIR [SHARED_DIR]

- The OGC API - Processes schemas pass through every node.
- 300 metrics jobs from 8 clients, each submitted through one node, polled
  through the next and its table fetched through the third: every job
  successful, its table byte for byte `lsm metrics`', and run exactly once
  (the nodes' logs name each job's start once, across all nodes).
- One node SIGKILLed while it runs jobs: the two others finish every other
  job; the killed node's jobs fail once their lease expires (not re-run),
  with their folders gone.

Prints 'N passed, N failed'; exits non-zero on a failure.
"""
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import service_test as st  # the same argv: LSM_BINARY SOURCE_DIR [SHARED_DIR]
from service_test import check, execute_async, get_json, request, wait_job

LEASE_S = 3


class Node(st.Server):
    """An lsm serve node on the shared store and work folder, its log kept."""

    def __init__(self, name, data, work, log_dir):
        self.log_path = os.path.join(log_dir, name + ".log")
        self.name = name
        super().__init__(data, work, "--job-store", "postgresql://", "--node-name", name, "--workers", "2",
                         "--max-queue", "1000", "--job-lease", str(LEASE_S))

    def start(self):
        if "-q" in self.args:
            self.args.remove("-q")  # the log names each job as it starts
        super().start()

    def streams(self):
        log = open(self.log_path, "a")  # the child keeps its own descriptor
        return log, subprocess.STDOUT

    def errors(self):
        with open(self.log_path) as f:
            return f.read()

    def started_jobs(self):
        with open(self.log_path) as f:
            return re.findall(r"job ([0-9a-f-]{36}) \(\w+\) started on ", f.read())


def main():
    if "PGHOST" not in os.environ:
        print("SKIP: no PostgreSQL cluster (run under pg_virtualenv)")
        return 77
    tmp = tempfile.mkdtemp(prefix="lsm_nodes_")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r = st.results
    print("%d passed, %d failed, %d skipped" % (r["passed"], r["failed"], r["skipped"]))
    return 1 if r["failed"] else 0


def run(tmp):
    data, work, logs = (os.path.join(tmp, d) for d in ("data", "work", "logs"))
    for d in (data, logs):
        os.makedirs(d)
    shutil.copy(st.SAMPLE, os.path.join(data, "sample.tif"))
    shutil.copy(st.ROUGH, os.path.join(data, "rough.tif"))
    nodes = [Node("node%d" % i, data, work, logs) for i in range(3)]
    try:
        check("a second node on the same work folder with its own SQLite store is refused",
              "in use by another lsm serve" in subprocess.run(
                  [st.LSM, "serve", "--data-root", data, "--work-dir", work, "--listen", "127.0.0.1:%d" % st.free_port()],
                  capture_output=True, text=True).stderr)
        have_schemas = os.path.isdir(st.SCHEMAS)
        for node in nodes:
            st.section(st.documents, node.base, have_schemas)
        st.section(load_through_every_node, nodes, data, tmp, have_schemas)
        st.section(node_killed_mid_load, nodes, work)
    finally:
        for node in nodes:
            if node.process.poll() is None:
                node.stop()


def load_through_every_node(nodes, data, tmp, have_schemas):
    expected = {}
    for ref in ("sample.tif", "rough.tif"):
        out = os.path.join(tmp, "cli_" + ref)
        subprocess.run([st.LSM, "metrics", os.path.join(data, ref), "--out", out, "-q", "--level", "land"], check=True)
        with open(out + ".land.csv", "rb") as f:
            expected[ref] = f.read()

    def one(i):
        ref = "sample.tif" if i % 2 else "rough.tif"
        submit, poll, fetch = (nodes[(i + k) % 3] for k in range(3))
        status, _, info = execute_async(submit.base, "metrics", {"input": ref, "level": "land"})
        if status != 201:
            return i, None, status
        done = wait_job(poll.base, info["jobID"], 300)
        if done["status"] != "successful":
            return i, None, done
        got = request("GET", fetch.base + "/jobs/%s/results/land" % info["jobID"])[2]
        return i, (info["jobID"], got == expected[ref]), done

    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(one, range(300)))
    seconds = time.time() - start
    failures = [o for o in outcomes if o[1] is None]
    check("300 jobs through 3 nodes from 8 clients: all successful", not failures, failures[:3])
    check("each table, fetched through a third node, is lsm metrics' byte for byte",
          all(o[1][1] for o in outcomes if o[1]))
    ids = {o[1][0] for o in outcomes if o[1]}
    started = collections.Counter(j for node in nodes for j in node.started_jobs())
    check("every job ran exactly once, on one node", all(started[j] == 1 for j in ids),
          [(j, started[j]) for j in ids if started[j] != 1][:5])
    check("every node ran jobs", all(set(node.started_jobs()) & ids for node in nodes),
          [len(node.started_jobs()) for node in nodes])
    print("load: 300 metrics jobs, 8 clients, 3 nodes x 2 workers: %.1f s, %.1f jobs/s" % (seconds, 300 / seconds))
    if have_schemas:
        for node in nodes:
            _, info = get_json(node.base + "/jobs/" + next(iter(ids)))
            st.valid("statusInfo through " + node.name, info, "statusInfo.yaml")
            _, jobs = get_json(node.base + "/jobs?limit=20")
            st.valid("job list through " + node.name, jobs, "jobList.yaml")


def node_killed_mid_load(nodes, work):
    victim, survivors = nodes[2], nodes[:2]
    before = set(victim.started_jobs())
    jobs = []
    for i in range(12):  # a second or more of work each, more than the workers take at once
        status, _, info = execute_async(survivors[i % 2].base, "synth",
                                        {"width": 2500, "height": 2500, "octaves": 12, "seed": i})
        check("synth job %d accepted" % i, status == 201, status)
        jobs.append(info["jobID"])
    deadline = time.time() + 60
    while time.time() < deadline and not (set(victim.started_jobs()) - before) & set(jobs):
        time.sleep(0.02)
    victim.kill()
    # The store says which node claimed each job (the log may miss a job
    # claimed just before the kill).
    claimed_by = dict(line.split("|") for line in subprocess.run(
        ["psql", "-Atc", "SELECT id, split_part(node, ':', 1) FROM lsm_jobs"], capture_output=True, text=True,
        check=True).stdout.split())
    on_victim = {j for j in jobs if claimed_by.get(j) == victim.name}
    check("the killed node was running jobs", on_victim, victim.started_jobs()[-3:])
    ended = {j: wait_job(survivors[0].base, j, 300) for j in jobs}
    check("every job ends", all(e["status"] in ("successful", "failed") for e in ended.values()),
          [e for e in ended.values() if e["status"] not in ("successful", "failed")][:2])
    killed = {j for j, e in ended.items() if e["status"] == "failed"}
    check("the jobs the killed node ran, and only those, failed: lease expired, not re-run",
          killed and killed <= on_victim and all("lease" in ended[j].get("message", "") for j in killed),
          [(j in on_victim, ended[j].get("message")) for j in killed][:3])
    check("the others' jobs are successful", all(ended[j]["status"] == "successful" for j in set(jobs) - on_victim))
    check("the failed jobs' folders are gone", all(not os.path.exists(os.path.join(work, "jobs", j)) for j in killed))
    ran = collections.Counter(j for node in nodes for j in node.started_jobs())
    check("no job ran twice", all(ran[j] == 1 for j in set(jobs) - on_victim) and all(ran[j] <= 1 for j in jobs),
          [(j, ran[j]) for j in jobs if ran[j] != 1][:3])
    status, info = get_json(survivors[1].base + "/jobs/" + next(iter(killed)) + "/results/output")
    check("a failed job's results: a 500 through any node", status == 500, status)


if __name__ == "__main__":
    sys.exit(main())
