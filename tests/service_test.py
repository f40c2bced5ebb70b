#!/usr/bin/python3
"""lsm serve against OGC API - Processes - Part 1: Core 1.0, on loopback only.

- Every response validates against the standard's schemas
  (../shared/ogcapi-processes-1.0/schemas, python3-jsonschema, python3-yaml).
- OWSLib (python3-owslib) lists and describes every process.
- curl executes metrics asynchronously as the standard's examples do, polls
  the job and downloads the tables: byte for byte `lsm metrics`' tables.
- GDAL reads a label COG through /vsicurl/ (HTTP range requests): the cells of
  `lsm label`'s raster.
- The HTML job page in headless Chromium shows the job and its progress.
- Faults: SIGKILL mid-job and restart (the job failed, nothing partial
  served); DELETE of a running job (work stops, files gone); path traversal
  (../, %2e%2e, a symlink out of the root, an absolute path); unknown process;
  bad input types; an oversized body; a full queue; tokens missing or wrong.
- Load: 200 jobs from 8 concurrent clients on 2 workers, every one
  successful with its own input's tables.

Usage: service_test.py LSM_BINARY SOURCE_DIR [SHARED_DIR]. Prints
'N passed, N failed'; exits non-zero on a failure.
"""
import concurrent.futures
import base64
import json
import random
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import jsonschema
import yaml

LSM, SOURCE = sys.argv[1], sys.argv[2]
SHARED = sys.argv[3] if len(sys.argv) > 3 else os.path.join(SOURCE, "..", "shared")
SCHEMAS = os.path.join(SHARED, "ogcapi-processes-1.0", "schemas")
SAMPLE = os.path.join(SOURCE, "sample_rasters", "nlm_fbm_400x300.tif")
ROUGH = os.path.join(SOURCE, "sample_rasters", "nlm_fbm_1000x800_rough.tif")
ZONES = os.path.join(SOURCE, "tests", "data", "sample_zones.geojson")
AUGUSTA = os.path.join(SHARED, "data", "landcover", "lsm_augusta_nlcd.tif")

results = {"passed": 0, "failed": 0, "skipped": 0}


def check(name, condition, detail=""):
    if condition:
        results["passed"] += 1
        print("ok   " + name)
    else:
        results["failed"] += 1
        print("FAIL " + name + (": " + str(detail) if detail else ""))


def skip(name, why):
    results["skipped"] += 1
    print("skip " + name + ": " + why)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, data, work, *extra, port=None):
        self.port = port or free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.args = [LSM, "serve", "--data-root", data, "--work-dir", work, "--listen", "127.0.0.1:%d" % self.port,
                     "-q"] + list(extra)
        self.start()

    def streams(self):
        """Where the server's stdout and stderr go."""
        return subprocess.DEVNULL, subprocess.PIPE

    def errors(self):
        return self.process.stderr.read().decode()

    def start(self):
        out, err = self.streams()
        self.process = subprocess.Popen(self.args, stdout=out, stderr=err)
        if hasattr(out, "close"):
            out.close()  # a log file: the server holds its own descriptor
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError("lsm serve exited: " + self.errors())
                time.sleep(0.05)
        raise RuntimeError("lsm serve did not start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()


def request(method, url, body=None, headers=None, token=None):
    """(status, headers, bytes) of one HTTP request."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def get_json(url, **kw):
    status, headers, body = request("GET", url, **kw)
    return status, json.loads(body) if body else None


# ---- schemas ----
def load_yaml(uri):
    with open(uri[len("file://"):]) as f:
        return yaml.safe_load(f)


def validator(schema_file):
    path = os.path.join(SCHEMAS, schema_file)
    resolver = jsonschema.RefResolver("file://" + path, load_yaml("file://" + path), handlers={"file": load_yaml})
    return jsonschema.Draft4Validator(load_yaml("file://" + path), resolver=resolver)


def valid(name, doc, schema_file):
    errors = sorted(validator(schema_file).iter_errors(doc), key=str)
    check(name + " validates against " + schema_file, not errors, "; ".join(e.message for e in errors[:3]))


def wait_job(base, job, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        status, info = get_json(base + "/jobs/" + job)
        if info and info.get("status") in ("successful", "failed", "dismissed"):
            return info
        time.sleep(0.05)
    return info


def eventually(condition, seconds=30):
    """True once condition() is, polling for up to `seconds`: what a worker
    does after answering (letting go of a folder) takes longer on a loaded or
    sanitized build, and a fixed sleep made the check flaky."""
    deadline = time.time() + seconds
    while not condition():
        if time.time() > deadline:
            return False
        time.sleep(0.05)
    return True


def execute_async(base, process, inputs, **kw):
    status, headers, body = request("POST", base + "/processes/%s/execution" % process, {"inputs": inputs},
                                    headers={"Prefer": "respond-async"}, **kw)
    return status, headers, json.loads(body) if body else None


def main():
    have_schemas = os.path.isdir(SCHEMAS)
    tmp = tempfile.mkdtemp(prefix="lsm_service_")
    try:
        run(tmp, have_schemas)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"], results["skipped"]))
    return 1 if results["failed"] else 0


def run(tmp, have_schemas):
    data, work, outside = (os.path.join(tmp, d) for d in ("data", "work", "outside"))
    os.makedirs(os.path.join(data, "landcover"))
    os.makedirs(outside)
    shutil.copy(SAMPLE, os.path.join(data, "landcover", "sample.tif"))
    shutil.copy(ROUGH, os.path.join(data, "rough.tif"))
    shutil.copy(SAMPLE, os.path.join(outside, "secret.tif"))
    shutil.copy(ZONES, os.path.join(data, "landcover", "zones.geojson"))
    with open(os.path.join(data, "landcover", "corrupt.tif"), "wb") as f:
        f.write(b"II*\0" + b"\xff" * 200)  # a TIFF header, then nothing a reader can use
    subprocess.run(["gdal_translate", "-q", "-ot", "Float32", "-scale", "1", "5", "1.5", "5.5", SAMPLE,
                    os.path.join(data, "landcover", "fractional.tif")], check=True)  # class codes 1.5 ... 5.5
    os.symlink(os.path.join(outside, "secret.tif"), os.path.join(data, "escape.tif"))
    server = Server(data, work, "--workers", "2", "--max-queue", "500")
    base = server.base
    try:
        section(documents, base, have_schemas)
        section(owslib_clients, base)
        section(metrics_end_to_end, base, data)
        section(label_over_vsicurl, base, data, tmp)
        section(window_process, base, data, tmp)
        section(zonal_process, base, data, tmp)
        section(batch_and_change, base, data, tmp)
        section(requested_outputs, base, data, tmp)
        section(fragstats_tables, base, data, tmp)
        section(echo_and_values, base, have_schemas)
        section(inline_inputs, base, data, tmp, work)
        section(pages_for_every_document, base)
        section(html_page, base, data, tmp)
        section(bad_requests, base, have_schemas)
        section(dismiss_running, base, work)
        section(dismissal_races, base, work)
        section(connection_burst, base)
        section(idle_and_slow_clients, base)
        section(load, base, data, tmp)
    finally:
        server.stop()
    section(restart_after_kill, data, work)
    section(tokens, data, tmp)
    section(full_queue, data, tmp)
    section(synchronous_executions, data, tmp)
    section(timeout_and_retention, data, tmp)
    section(output_limit, data, tmp)
    section(full_disk, data, tmp)
    section(bad_options, data, tmp)
    section(second_instance, data, tmp)
    section(public_links, data, tmp)
    section(remote_inputs, data, tmp)


def full_disk(data, tmp):
    """A work dir on a small tmpfs that fills up while a job runs, job store
    included: the job ends, the server keeps serving (it used to abort when
    the store could not record a status), and once space is freed a new job
    runs to its end."""
    work = os.path.join(tmp, "small_disk")
    os.makedirs(work)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", work],
                                           capture_output=True).returncode != 0:
        skip("a full disk during a job", "mounting a tmpfs needs root (mount -t tmpfs)")
        return
    try:
        server = Server(data, work, "--workers", "1")
        try:
            status, headers, info = execute_async(server.base, "synth", {"width": 6000, "height": 6000, "seed": 7,
                                                                         "feature-size": 2})
            check("a job on the small disk is accepted", status == 201, (status, info))
            filler = os.path.join(work, "filler")
            with open(filler, "wb") as f:  # the rest of the disk, while the job runs
                try:
                    while True:
                        f.write(b"\0" * 65536)
                        f.flush()
                except OSError:
                    pass
            if status == 201:
                wait_job(server.base, info["jobID"], limit=30)
            check("the server still answers with its disk full",
                  request("GET", server.base + "/processes")[0] == 200 and server.process.poll() is None,
                  server.process.poll())
            os.remove(filler)
            status, headers, info = execute_async(server.base, "synth", {"width": 64, "height": 64})
            final = wait_job(server.base, info["jobID"], limit=30) if status == 201 else {}
            check("with space again, a new job succeeds", final.get("status") == "successful", (status, final))
        finally:
            server.stop()
    finally:
        subprocess.run(["umount", work], capture_output=True)


def bad_options(data, tmp):
    """Option values that used to overflow, abort or read forever: each is one
    error line and a non-zero exit, and no job store is left behind."""
    tokens = os.path.join(tmp, "tokens.txt")
    with open(tokens, "w") as f:
        f.write("secret\n")
    for option in (["--workers", "65536"], ["--retention", "1e16"], ["--retention", "inf"], ["--job-timeout", "nan"],
                   ["--job-timeout", "1e308"], ["--max-cells", "1e308"], ["--max-queue", "0"],
                   ["--token-file", "/dev/zero"], ["--listen", "192.0.2.1:8080", "--token-file", tokens],
                   ["--job-store", "mysql://user:secret@host/db"], ["--job-lease", "1"], ["--node-name", "a\nb"],
                   ["--http-threads", "2"], ["--http-threads", "100000"],
                   ["--allow-remote-inputs", "ftp://data.example.org/"],
                   ["--allow-remote-inputs", "https://user@data.example.org/"],
                   ["--job-store", "postgresql://user:secret@127.0.0.1:1/lsm"]):
        work = os.path.join(tmp, "bad_options_work")
        done = subprocess.run([LSM, "serve", "--data-root", data, "--work-dir", work] + option,
                              capture_output=True, text=True, timeout=20)
        lines = done.stderr.strip().splitlines()
        check("lsm serve %s: one error line, exit 1, no job store" % " ".join(option),
              done.returncode == 1 and len(lines) == 1 and lines[0].startswith("lsm: error: ")
              and not os.path.exists(work) and "secret" not in done.stderr,
              (done.returncode, done.stderr[:300], os.path.exists(work)))


def second_instance(data, tmp):
    """A second lsm serve on the same port, or on the same work folder, is
    refused at start with one line; the first one keeps serving."""
    work = os.path.join(tmp, "instance_work")
    first = Server(data, work)
    try:
        for name, args in (("the same port", ["--work-dir", os.path.join(tmp, "other_work"),
                                              "--listen", "127.0.0.1:%d" % first.port]),
                           ("the same work folder", ["--work-dir", work, "--listen", "127.0.0.1:%d" % free_port()])):
            done = subprocess.run([LSM, "serve", "--data-root", data] + args, capture_output=True, text=True,
                                  timeout=20)
            check("a second lsm serve on %s is refused" % name,
                  done.returncode == 1 and done.stderr.startswith("lsm: error: ") and
                  ("cannot listen" in done.stderr or "in use by another lsm serve" in done.stderr),
                  (done.returncode, done.stderr[:200]))
        check("the first one still serves", request("GET", first.base + "/processes")[0] == 200)
    finally:
        first.stop()


def public_links(data, tmp):
    """Links and Location come from --public-url (default the --listen
    address), never from the client's Host header."""
    server = Server(data, os.path.join(tmp, "links_work"), "--public-url", "https://maps.example.org/lsm/")
    try:
        status, headers, body = request("POST", server.base + "/processes/synth/execution",
                                        {"inputs": {"width": 16, "height": 16}},
                                        headers={"Prefer": "respond-async", "Host": "evil.example"})
        check("Location is under --public-url, whatever Host says",
              status == 201 and headers.get("Location", "").startswith("https://maps.example.org/lsm/jobs/"),
              (status, headers.get("Location")))
        status, doc = get_json(server.base + "/", headers={"Host": "evil.example"})
        hrefs = [link.get("href", "") for link in doc.get("links", [])]
        check("the landing page's links are under --public-url",
              hrefs and all(h.startswith("https://maps.example.org/lsm/") for h in hrefs), hrefs[:3])
    finally:
        server.stop()


def section(fn, *args):
    """Runs one group of checks; an exception in it is one failure, the rest still run."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - reported, counted, and the run goes on
        import traceback
        traceback.print_exc()
        check(fn.__name__ + " ran to its end", False, repr(e))


def documents(base, have_schemas):
    for path, schema in (("/", "landingPage.yaml"), ("/conformance", "confClasses.yaml"),
                         ("/processes", "processList.yaml")):
        status, doc = get_json(base + path)
        check("GET %s is 200" % path, status == 200, status)
        if have_schemas:
            valid("GET " + path, doc, schema)
    status, doc = get_json(base + "/api")
    check("GET /api is an OpenAPI 3 document", status == 200 and doc.get("openapi", "").startswith("3."), doc)
    params = lambda path, method="get": {p["name"] for p in doc["paths"][path][method].get("parameters", [])}
    check("/api: the job list's filters, paging and the results' outputs",
          params("/jobs") >= {"limit", "offset", "processID", "status", "type"}
          and params("/processes") >= {"limit", "offset"} and "outputs" in params("/jobs/{jobId}/results"),
          (params("/jobs"), params("/jobs/{jobId}/results")))
    codes = doc["paths"]["/processes/{processId}/execution"]["post"]["responses"]
    check("/api: execute's answers, problems included", set(codes) >= {"200", "201", "400", "404", "413", "429", "500"}
          and "security" not in doc, sorted(codes))
    _, processes = get_json(base + "/processes")
    ids = [p["id"] for p in processes["processes"]]
    check("every operation is a process", set(ids) >= {"metrics", "label", "patchmetric", "synth", "kmeans",
                                                        "gradient", "pyramid", "hog", "fuzzy"}, ids)
    for pid in ids:
        status, doc = get_json(base + "/processes/" + pid)
        check("GET /processes/%s is 200" % pid, status == 200, status)
        if have_schemas:
            valid("process " + pid, doc, "process.yaml")
    _, metrics = get_json(base + "/processes/metrics")
    check("metrics' inputs come from the declaration (edge-depth: integer, 1..1000, default 1)",
          metrics["inputs"]["edge-depth"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 1},
          metrics["inputs"].get("edge-depth"))
    check("choices are described with their labels",
          "8: edges and corners, FRAGSTATS' default" in metrics["inputs"]["neighbors"]["description"],
          metrics["inputs"]["neighbors"]["description"])
    check("no server-side path is an input (temp-dir, out)", "temp-dir" not in metrics["inputs"]
          and "output" not in metrics["inputs"], list(metrics["inputs"]))
    status, html = request("GET", base + "/processes/metrics?f=html")[0::2]
    check("a process as HTML", status == 200 and b"<form" in html and b"edge-depth" in html)
    if not have_schemas:
        skip("schemas", SCHEMAS + " missing")


def owslib_clients(base):
    from owslib.ogcapi.processes import Processes
    client = Processes(base)
    listed = client.processes()
    listed = listed["processes"] if isinstance(listed, dict) else listed  # 0.27 returns the document
    check("OWSLib lists the processes", len(listed) >= 9, listed)
    for p in listed:
        described = client.process(p["id"])
        check("OWSLib describes " + p["id"], described.get("id") == p["id"] and "inputs" in described)


def metrics_end_to_end(base, data):
    raster = AUGUSTA if os.path.exists(AUGUSTA) else os.path.join(data, "landcover", "sample.tif")
    if raster == AUGUSTA:
        shutil.copy(AUGUSTA, os.path.join(data, "augusta.tif"))
        reference = "file:augusta.tif"
    else:
        skip("metrics on augusta", AUGUSTA + " missing; the sample raster instead")
        reference = "file:landcover/sample.tif"
    # As the standard's examples do it: curl, Prefer: respond-async, poll, download.
    out = subprocess.run(["curl", "-s", "-i", "-X", "POST", "-H", "Prefer: respond-async", "-H",
                          "Content-Type: application/json", "-d",
                          json.dumps({"inputs": {"input": {"href": reference}}}),
                          base + "/processes/metrics/execution"], capture_output=True, text=True).stdout
    check("curl: 201 Created", out.startswith("HTTP/1.1 201"), out[:200])
    location = [l.split(": ", 1)[1].strip() for l in out.splitlines() if l.lower().startswith("location:")]
    check("curl: a Location header", len(location) == 1, out[:400])
    job = location[0].rsplit("/", 1)[1]
    seen_running = False
    deadline = time.time() + 120
    while time.time() < deadline:
        info = json.loads(subprocess.run(["curl", "-s", location[0]], capture_output=True, text=True).stdout)
        seen_running |= info["status"] in ("accepted", "running")
        if info["status"] in ("successful", "failed"):
            break
        time.sleep(0.05)
    check("the job succeeded", info["status"] == "successful" and info["progress"] == 100, info)
    if os.path.isdir(SCHEMAS):
        valid("statusInfo", info, "statusInfo.yaml")
    _, res = get_json(base + "/jobs/%s/results" % job)
    check("results list the four tables", set(res) == {"patch", "class", "land", "adj"}, res)
    if os.path.isdir(SCHEMAS):
        valid("results", res, "results.yaml")
    local = os.path.join(os.path.dirname(data), "cli")
    subprocess.run([LSM, "metrics", os.path.join(data, reference[5:]), "--out", local, "-q"], check=True)
    for table in ("patch", "class", "land", "adj"):
        served = subprocess.run(["curl", "-s", res[table]["href"]], capture_output=True).stdout
        with open(local + "." + table + ".csv", "rb") as f:
            check("the %s table equals lsm metrics' byte for byte" % table, served == f.read())
    status, rows = get_json(res["class"]["href"] + "?f=json")
    check("a table as JSON", status == 200 and isinstance(rows, list) and "PLAND" in rows[0], rows[:1])
    check("counts as integers (NP 412, not 412.0)", isinstance(rows[0]["NP"], int) and isinstance(rows[0]["TYPE"], int),
          rows[:1])
    _, jobs = get_json(base + "/jobs?limit=5")
    check("the job list pages", len(jobs["jobs"]) <= 5 and any(l["rel"] == "self" for l in jobs["links"]))
    if os.path.isdir(SCHEMAS):
        valid("job list", jobs, "jobList.yaml")
    # /processes?limit (the conformance suite asserts exactly one with limit=1) and its next page.
    _, one = get_json(base + "/processes?limit=1")
    nxt = [l["href"] for l in one["links"] if l["rel"] == "next"]
    check("/processes?limit=1: one process and a next link", len(one["processes"]) == 1 and nxt, one)
    _, second = get_json(nxt[0]) if nxt else (None, {"processes": []})
    check("its next page is the second process", second["processes"] and
          second["processes"][0]["id"] != one["processes"][0]["id"], second)
    for query in ("/jobs?limit=0", "/jobs?limit=1001", "/jobs?offset=-1", "/jobs?limit=5abc", "/processes?limit=x",
                  "/jobs?offset=99999999999"):
        status, headers, body = request("GET", base + query)
        check("%s: 400 InvalidParameterValue, not clamped" % query,
              status == 400 and b"invalid-parameter-value" in body and b"must be a whole number" in body,
              (status, body[:200]))


def monitored_results(headers):
    """The results document of the job a synchronous execution made, through
    its Link: rel=monitor header."""
    links = [l for l in headers.get("Link", "").split(",") if 'rel="monitor"' in l]
    if not links:
        return {}
    return get_json(links[0].split(">")[0].strip(" <") + "/results")[1]


def label_over_vsicurl(base, data, tmp):
    status, headers, body = request("POST", base + "/processes/label/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "neighbors": 4}})
    check("sync execution of a process of one output answers the output itself (/req/core/process-execute-sync-one)",
          status == 200 and body[:4] == b"II*\0" and "cloud-optimized" in headers.get("Content-Type", ""),
          (status, headers.get("Content-Type"), body[:20]))
    check("with a Link rel=monitor to its job", 'rel="monitor"' in headers.get("Link", "")
          and headers.get("Location", "") in headers.get("Link", ""), headers.get("Link"))
    res = monitored_results(headers)
    href = res["output"]["href"]
    check("the label output is a COG", "cloud-optimized" in res["output"]["type"], res)
    local = os.path.join(tmp, "label.tif")
    subprocess.run([LSM, "label", os.path.join(data, "landcover", "sample.tif"), local, "--neighbors", "4", "-q"],
                   check=True)
    remote = subprocess.run(["gdalinfo", "-checksum", "/vsicurl/" + href], capture_output=True, text=True)
    mine = subprocess.run(["gdalinfo", "-checksum", local], capture_output=True, text=True)
    sums = lambda t: [l.strip() for l in t.splitlines() if "Checksum=" in l]
    check("GDAL reads the label COG over /vsicurl/", remote.returncode == 0 and "LAYOUT=COG" in remote.stdout,
          remote.stdout[-300:] + remote.stderr[-300:])
    check("its cells are lsm label's", sums(remote.stdout) and sums(remote.stdout)[0] == sums(mine.stdout)[0],
          (sums(remote.stdout), sums(mine.stdout)))
    status, headers, part = request("GET", href, headers={"Range": "bytes=0-99"})
    check("range requests: 206 with 100 bytes", status == 206 and len(part) == 100, (status, len(part)))


def window_process(base, data, tmp):
    """The moving window as a process: the same bands and cells as the CLI's."""
    status, headers, body = request("POST", base + "/processes/window/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "metrics": "SHDI,PLAND",
                                                "window-cells": 5}})
    check("window: sync execution returns the raster", status == 200 and body[:4] == b"II*\0", body[:300])
    if status != 200:
        return
    href = monitored_results(headers)["output"]["href"]
    local = os.path.join(tmp, "window.tif")
    subprocess.run([LSM, "window", os.path.join(data, "landcover", "sample.tif"), local, "--metrics", "SHDI,PLAND",
                    "--window-cells", "5", "-q"], check=True)
    remote = subprocess.run(["gdalinfo", "-checksum", "/vsicurl/" + href], capture_output=True, text=True)
    mine = subprocess.run(["gdalinfo", "-checksum", local], capture_output=True, text=True)
    sums = lambda t: [l.strip() for l in t.splitlines() if "Checksum=" in l or "Description" in l]
    check("window: every band and cell as the CLI's", sums(remote.stdout) and sums(remote.stdout) == sums(mine.stdout),
          (sums(remote.stdout)[:4], sums(mine.stdout)[:4]))
    status, headers, body = request("POST", base + "/processes/window/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "metrics": "GISFRAG", "window-cells": 5}})
    check("window: a metric lsm does not compute is a 400 that says so",
          status == 400 and b"GISFRAG is a FRAGSTATS metric that lsm does not compute yet" in body, (status, body[:300]))


def zonal_process(base, data, tmp):
    """Zones as a process: a vector layer under the data root gives the CLI's
    tables; a zone layer outside the data root is refused by name."""
    inputs = {"input": "landcover/sample.tif", "zones": "landcover/zones.geojson", "zone-field": "name"}
    status, headers, body = request("POST", base + "/processes/zonal/execution", {"inputs": inputs})
    check("zonal: sync execution returns the results", status == 200, body[:300])
    if status != 200:
        return
    results = json.loads(body)
    local = os.path.join(tmp, "zonal")
    subprocess.run([LSM, "zonal", os.path.join(data, "landcover", "sample.tif"), "--zones",
                    os.path.join(data, "landcover", "zones.geojson"), "--zone-field", "name", "-o", local, "-q"],
                   check=True)
    for table in ("class", "land"):
        served = request("GET", results[table]["href"])[2] if table in results else b""
        with open(local + "." + table + ".csv", "rb") as f:
            check("zonal: the %s table equals lsm zonal's byte for byte" % table, served == f.read(), served[:200])
    status, headers, body = request("POST", base + "/processes/zonal/execution",
                                    {"inputs": dict(inputs, zones="../outside/zones.geojson")})
    check("zonal: zones outside the data root: 400", status == 400 and b"zones" in body, (status, body[:300]))


def batch_and_change(base, data, tmp):
    """A batch (a list of inputs) and a change between two dates as
    processes: the CLI's tables byte for byte."""
    rasters = ["landcover/sample.tif", "rough.tif"]
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": rasters, "level": "land"}})
    check("batch: sync execution returns the results", status == 200, body[:300])
    if status == 200:
        local = os.path.join(tmp, "batch")
        subprocess.run([LSM, "metrics"] + [os.path.join(data, r) for r in rasters] +
                       ["--level", "land", "-o", local, "-q"], check=True)
        served = request("GET", json.loads(body)["land"]["href"])[2]
        with open(local + ".land.csv", "rb") as f:
            check("batch: the land table, a LID per raster, equals lsm metrics' byte for byte", served == f.read(),
                  served[:200])
    later = os.path.join(data, "landcover", "later.tif")
    shutil.copy(os.path.join(data, "landcover", "sample.tif"), later)
    status, headers, body = request("POST", base + "/processes/change/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "later": "landcover/later.tif",
                                                "metrics": "CA,NP,SHDI"}})
    check("change: sync execution returns the four tables", status == 200 and set(json.loads(body)) == {
        "class", "land", "class_change", "land_change"}, body[:300])
    if status == 200:
        served = request("GET", json.loads(body)["land_change"]["href"])[2]
        check("change: a raster against its copy changes by nothing", served == b"NP,SHDI\n0,0\n", served)
    status, headers, body = request("POST", base + "/processes/change/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "later": "rough.tif"}})
    check("change: another grid is a 400 that says so", status == 400 and b"cells, the earlier raster" in body,
          (status, body[:300]))


def fragstats_tables(base, data, tmp):
    """FRAGSTATS' auxiliary tables as inputs: inline text or a file under a
    data root, the same land table as the CLI's; a path outside the roots and
    a metric without its table are 400s."""
    weights = "FSQ_TABLE\nCLASS_LIST_NUMERIC(1, 2, 3, 4, 5, 999)\n" + "".join(
        ",".join("0" if i == k else str(round(0.2 * abs(i - k), 1)) for k in range(6)) + "\n" for i in range(6))
    with open(os.path.join(data, "landcover", "weights.fce"), "w") as f:
        f.write(weights)
    local = os.path.join(tmp, "contrast")
    subprocess.run([LSM, "metrics", os.path.join(data, "landcover", "sample.tif"), "-o", local, "--metrics", "CWED,TECI",
                    "--contrast-table", os.path.join(data, "landcover", "weights.fce"), "--level", "land", "-q"],
                   check=True)
    with open(local + ".land.csv", "rb") as f:
        land_table = f.read()
    for given in ({"value": weights, "mediaType": "text/plain"}, {"href": "file:landcover/weights.fce"},
                  "landcover/weights.fce"):
        status, headers, body = request("POST", base + "/processes/metrics/execution",
                                        {"inputs": {"input": "landcover/sample.tif", "metrics": "CWED,TECI",
                                                    "level": "land", "contrast-table": given},
                                         "outputs": {"land": {}}})
        check("contrast-table %s: the CLI's land table" % json.dumps(given)[:40],
              status == 200 and body == land_table, (status, body[:300], land_table[:300]))
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "metrics": "CWED",
                                                "contrast-table": "/etc/passwd"}})
    check("a table outside the data roots: 400", status == 400 and b"/etc/passwd" in body, (status, body[:300]))
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "metrics": "CWED"}})
    check("CWED without a table: 400 naming the input", status == 400 and
          b"CWED needs FRAGSTATS' edge contrast weights (input contrast-table, a .fce table)" in body,
          (status, body[:300]))
    _, described = get_json(base + "/processes/metrics")
    schema = described.get("inputs", {}).get("similarity-table", {}).get("schema", {})
    check("the process description offers the similarity table as text",
          schema.get("contentMediaType") == "text/plain", described.get("inputs", {}).keys())


def requested_outputs(base, data, tmp):
    """The execute request's outputs (/req/core/process-execute-default-outputs,
    -sync-one, -sync-many-json) and /results?outputs= (/req/core/job-results-param-outputs)."""
    local = os.path.join(tmp, "outputs")
    subprocess.run([LSM, "metrics", os.path.join(data, "landcover", "sample.tif"), "-o", local, "-q"], check=True)
    with open(local + ".class.csv", "rb") as f:
        class_table = f.read()
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": "landcover/sample.tif"}, "outputs": {"class": {}}})
    check("one output asked for: the class table itself, as lsm metrics writes it",
          status == 200 and headers.get("Content-Type", "").startswith("text/csv") and body == class_table,
          (status, headers.get("Content-Type"), body[:100]))
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": "landcover/sample.tif"},
                                     "outputs": {"class": {"transmissionMode": "reference"}, "land": {}}})
    doc = json.loads(body) if status == 200 else {}
    check("two outputs asked for: a results document of those two", set(doc) == {"class", "land"}, (status, body[:300]))
    if os.path.isdir(SCHEMAS) and doc:
        valid("results of two outputs", doc, "results.yaml")
    job = headers.get("Location", "").rsplit("/", 1)[-1]
    check("the job's results list only those", set(get_json(base + "/jobs/%s/results" % job)[1]) == {"class", "land"})
    check("an output not asked for is not served", request("GET", base + "/jobs/%s/results/patch" % job)[0] == 404)
    status, all_outputs = get_json(base + "/jobs/%s/results?outputs=land" % job)
    check("/results?outputs=land: only land", status == 200 and set(all_outputs) == {"land"}, all_outputs)
    status, headers, body = request("GET", base + "/jobs/%s/results?outputs=patch" % job)
    check("/results?outputs= naming an output the job has not: 400", status == 400 and b"patch" in body, (status, body))
    for outputs, why in (({"nope": {}}, b"has no output 'nope' (its outputs: patch, class, land, adj, tidy)"),
                         ({"class": {"format": {"mediaType": "application/xml"}}}, b"available as text/csv only"),
                         ([], b"'outputs' must be an object")):
        status, headers, body = request("POST", base + "/processes/metrics/execution",
                                        {"inputs": {"input": "landcover/sample.tif"}, "outputs": outputs})
        check("outputs %s: 400 that says why" % json.dumps(outputs), status == 400 and why in body, (status, body[:300]))
    # A folder output (pyramid's levels) is one output: a list of its files' links.
    status, headers, body = request("POST", base + "/processes/pyramid/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "scale": 2, "levels": 4}},
                                    headers={"Prefer": "respond-async"})
    info = wait_job(base, json.loads(body)["jobID"])
    _, results = get_json(base + "/jobs/%s/results" % info["jobID"])
    check("pyramid: its results are its declared output, levels", set(results) == {"levels"}
          and results["levels"]["type"] == "application/json", results)
    _, levels = get_json(results["levels"]["href"]) if "levels" in results else (None, {})
    check("levels lists every level", sorted(levels)[:2] == ["level_00", "level_01"], levels)
    check("a level is served by its own name", "level_01" in levels and
          request("GET", levels["level_01"]["href"])[2][:4] == b"II*\0")


def echo_and_values(base, have_schemas):
    """The echo process (the conformance suite's) and outputs by value
    (transmissionMode "value"): /req/core/process-execute-sync-raw-value-one,
    -sync-document, job-results-async-document."""
    _, echo = get_json(base + "/processes/echo")
    check("echo: a process whose outputs go by value or reference",
          echo.get("outputTransmission") == ["value", "reference"] and set(echo["outputs"]) == {"string-output", "echo"},
          echo.get("outputTransmission"))
    _, conformance = get_json(base + "/conformance")
    check("the ogc-process-description conformance class is declared",
          "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description" in conformance["conformsTo"])
    inputs = {"string-input": "teststring", "double-input": 2.25, "integer-input": [3, 1, 2], "boolean-input": True}
    given_back = dict(inputs)
    status, headers, body = request("POST", base + "/processes/echo/execution",
                                    {"inputs": inputs, "outputs": {"string-output": {"transmissionMode": "value"}}})
    check("raw, one output by value: the value itself", status == 200 and body == b"teststring"
          and headers.get("Content-Type", "").startswith("text/plain"), (status, headers.get("Content-Type"), body[:200]))
    status, headers, body = request("POST", base + "/processes/echo/execution",
                                    {"inputs": inputs, "response": "document",
                                     "outputs": {"string-output": {"transmissionMode": "value"},
                                                 "echo": {"transmissionMode": "value"}}})
    doc = json.loads(body) if status == 200 else {}
    check("document, both by value: each value in the results document",
          doc.get("string-output", {}).get("value") == "teststring" and doc.get("echo", {}).get("value") == given_back
          and doc["echo"].get("mediaType") == "application/json", (status, body[:400]))
    if have_schemas and doc:
        # Only the JSON value: in 1.0's schemas a string value matches both
        # inputValueNoObject's string and its binaryInputValue (a string of
        # format byte), so no string value can pass their oneOf.
        valid("results by value", {"echo": doc["echo"]}, "results.yaml")
    status, headers, body = request("POST", base + "/processes/echo/execution",
                                    {"inputs": inputs, "response": "document", "outputs": {"echo": {}}})
    doc = json.loads(body) if status == 200 else {}
    check("document, one output by reference: its link", set(doc) == {"echo"} and "href" in doc["echo"]
          and get_json(doc["echo"]["href"])[1] == given_back, (status, body[:300]))
    status, headers, body = request("POST", base + "/processes/echo/execution",
                                    {"inputs": inputs, "outputs": {"echo": {"transmissionMode": "value"}}},
                                    headers={"Prefer": "respond-async"})
    job = json.loads(body)["jobID"] if status == 201 else ""
    wait_job(base, job)
    _, results = get_json(base + "/jobs/%s/results" % job)
    check("asynchronous, by value: /results holds the value", results.get("echo", {}).get("value") == given_back,
          results)
    for body, why in (({"inputs": inputs, "response": "both"}, b"'response' must be 'raw' or 'document'"),
                      ({"inputs": inputs, "outputs": {"echo": {"transmissionMode": "inline"}}},
                       b"transmissionMode must be 'value' or 'reference'"),
                      ({"inputs": {"double-input": 1}}, b"string-input"),
                      ({"inputs": dict(inputs, **{"integer-input": ["x"]})}, b"integer-input")):
        status, headers, answer = request("POST", base + "/processes/echo/execution", body)
        check("echo %s: 400 that says why" % json.dumps(body)[:80], status == 400 and why in answer, (status, answer[:300]))


def inline_inputs(base, data, tmp, work):
    """Datasets inline in the request (/req/core/job-creation-input-inline,
    -input-binary): a base64 raster and a GeoJSON zone layer give the tables
    the same files give by reference; the stored request names the written
    file, never a refused job's."""
    sample = os.path.join(data, "landcover", "sample.tif")
    with open(sample, "rb") as f:
        encoded = base64.b64encode(f.read()).decode()
    local = os.path.join(tmp, "inline_reference")
    subprocess.run([LSM, "metrics", sample, "-o", local, "-q"], check=True)
    with open(local + ".class.csv", "rb") as f:
        class_table = f.read()
    for name, value in (("mediaType and encoding beside the value (1.0)",
                         {"value": encoded, "mediaType": "image/tiff; application=geotiff", "encoding": "base64"}),
                        ("inside format (the conformance suite's form)",
                         {"value": encoded, "format": {"mediaType": "image/tiff", "encoding": "base64"}})):
        status, headers, body = request("POST", base + "/processes/metrics/execution",
                                        {"inputs": {"input": value}, "outputs": {"class": {}}})
        check("an inline base64 raster, %s: the class table of the file" % name,
              status == 200 and body == class_table, (status, body[:200]))
    job = headers.get("Location", "").rsplit("/", 1)[-1]
    check("the inline raster lies in the job's hidden .inputs folder, not among its outputs",
          os.listdir(os.path.join(work, "jobs", job, ".inputs")) == ["input-1.tif"]
          and set(get_json(base + "/jobs/%s/results" % job)[1]) == {"class"})
    with open(os.path.join(data, "landcover", "zones.geojson")) as f:
        zones = json.load(f)
    local = os.path.join(tmp, "inline_zones")
    subprocess.run([LSM, "zonal", sample, "--zones", os.path.join(data, "landcover", "zones.geojson"),
                    "--zone-field", "name", "-o", local, "-q"], check=True)
    with open(local + ".land.csv", "rb") as f:
        land_table = f.read()
    status, headers, body = request("POST", base + "/processes/zonal/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "zone-field": "name",
                                                "zones": {"value": zones, "mediaType": "application/geo+json"}},
                                     "outputs": {"land": {}}})
    check("inline GeoJSON zones: the land table of the zone file", status == 200 and body == land_table,
          (status, body[:200]))
    before = set(os.listdir(os.path.join(work, "jobs")))
    for value, why in (({"value": "not base64!", "encoding": "base64"}, b"input input: the inline value is not base64"),
                       ({"value": base64.b64encode(b"hello").decode(), "encoding": "base64"}, b"not a raster"),
                       ({"value": encoded, "encoding": "gzip"}, b"encoding 'gzip' is not supported"),
                       ({"value": 12}, b"must be base64 text or a GeoJSON object"),
                       ({"href": "job:.inputs/input-1.tif"}, b"is not an inline input of this job"),
                       ({"href": "job:../../jobs.sqlite"}, b"is not an inline input of this job"),
                       ({"href": "https://example.org/x.tif"}, b"this server reads no remote inputs")):
        status, headers, body = request("POST", base + "/processes/metrics/execution", {"inputs": {"input": value}})
        check("input %s: 400 that says why" % json.dumps(value)[:60], status == 400 and why in body, (status, body[:300]))
    # A metric asked for without its distance: the service names its input, not a command-line option.
    status, headers, body = request("POST", base + "/processes/metrics/execution",
                                    {"inputs": {"input": "landcover/sample.tif", "metrics": "PROX_MN"}})
    check("PROX_MN without a search radius: 400 naming the input", status == 400
          and b"PROX needs FRAGSTATS' search radius (input search-radius, in metres)" in body, (status, body[:300]))
    check("a refused job leaves no folder", set(os.listdir(os.path.join(work, "jobs"))) == before,
          set(os.listdir(os.path.join(work, "jobs"))) - before)


def remote_inputs(data, tmp):
    """http(s) references where the operator allows them (--allow-remote-inputs
    PREFIX, read through GDAL's /vsicurl/): a raster another job made, served
    by this server, gives the tables the downloaded file gives; URLs outside
    the prefix are refused, a look-alike host included."""
    work = os.path.join(tmp, "remote_work")
    port = free_port()
    prefix = "http://127.0.0.1:%d/jobs/" % port
    server = Server(data, work, "--allow-remote-inputs", prefix, port=port)
    try:
        base = server.base
        status, headers, body = request("POST", base + "/processes/synth/execution",
                                        {"inputs": {"width": 300, "height": 200, "seed": 5}})
        check("synth made a raster to read remotely", status == 200 and body[:4] == b"II*\0", status)
        url = headers.get("Location", "") + "/results/output"
        downloaded = os.path.join(tmp, "remote_synth.tif")
        with open(downloaded, "wb") as f:
            f.write(body)
        local = os.path.join(tmp, "remote_reference")
        subprocess.run([LSM, "metrics", downloaded, "-o", local, "-q"], check=True)
        with open(local + ".land.csv", "rb") as f:
            land_table = f.read()
        status, headers, body = request("POST", base + "/processes/metrics/execution",
                                        {"inputs": {"input": {"href": url}}, "outputs": {"land": {}}})
        check("a remote raster under the prefix: the land table of the downloaded file",
              status == 200 and body == land_table, (status, body[:300]))
        status, headers, body = request("POST", base + "/processes/echo/execution",
                                        {"inputs": {"string-input": "x", "raster-input": {"href": url}},
                                         "outputs": {"echo": {"transmissionMode": "value"}}})
        described = json.loads(body).get("raster-input", {}) if status == 200 else {}
        check("echo describes the remote raster", described.get("width") == 300 and described.get("height") == 200,
              (status, body[:300]))
        for href in ("http://127.0.0.1:%d/processes" % port, "http://127.0.0.1:%d.evil.example/jobs/x.tif" % port,
                     "https://127.0.0.1:%d/jobs/x.tif" % port):
            status, headers, body = request("POST", base + "/processes/metrics/execution",
                                            {"inputs": {"input": {"href": href}}})
            check("%s: outside the allowed prefix, 400" % href, status == 400
                  and b"lies outside the URLs this server may read" in body, (status, body[:300]))
        status, headers, body = request("POST", base + "/processes/metrics/execution",
                                        {"inputs": {"input": {"href": prefix + "no-such-job/results/output"}}})
        check("a remote URL that answers 404: 400 naming it", status == 400 and b"no-such-job" in body,
              (status, body[:300]))
    finally:
        server.stop()


def pages_for_every_document(base):
    """The html conformance class: /conformance, /api, results and errors
    render for a person too (?f=html or a browser's Accept)."""
    status, html = request("GET", base + "/conformance?f=html")[0::2]
    check("/conformance as HTML", status == 200 and b"conf/core" in html and b"<html" in html)
    status, html = request("GET", base + "/api?f=html")[0::2]
    check("/api as HTML: every path with its parameters and answers",
          status == 200 and b"GET /jobs</code>" in html and b"minDuration" in html and b"429" in html)
    status, headers, body = request("POST", base + "/processes/echo/execution",
                                    {"inputs": {"string-input": "<b>shown</b>"}, "response": "document",
                                     "outputs": {"string-output": {"transmissionMode": "value"}, "echo": {}}})
    job = headers.get("Location", "").rsplit("/", 1)[-1]
    status, html = request("GET", base + "/jobs/%s/results?f=html" % job)[0::2]
    check("results as HTML: a value shown (escaped), a reference linked",
          status == 200 and b"&lt;b&gt;shown&lt;/b&gt;" in html and b"/results/echo\">download" in html, html[-600:])
    status, headers, html = request("GET", base + "/jobs/no-such-job", headers={"Accept": "text/html"})
    check("an error for a browser is a page", status == 404 and headers.get("Content-Type", "").startswith("text/html")
          and b"no job 'no-such-job'" in html, (status, html[:300]))
    status, headers, body = request("GET", base + "/jobs/no-such-job")
    check("the same error for a client is a problem document",
          status == 404 and headers.get("Content-Type") == "application/problem+json", headers.get("Content-Type"))


def html_page(base, data, tmp):
    status, headers, info = execute_async(base, "synth", {"width": 3000, "height": 3000, "octaves": 16})
    job = info["jobID"]
    status, html = request("GET", base + "/jobs/%s?f=html" % job)[0::2]
    check("the job page as HTML", status == 200 and job.encode() in html and b"<progress" in html)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("the job page in headless Chromium", "chromium is not installed (tools/setup.sh installs it)")
        wait_job(base, job)
        return
    shot = os.path.join(tmp, "job.png")
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          base + "/jobs/%s?f=html" % job], capture_output=True, text=True, timeout=120).stdout
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=900,500",
                    "--screenshot=" + shot, base + "/jobs/%s?f=html" % job], capture_output=True, timeout=120)
    check("Chromium renders the job, its status and progress", job in dom and "Status:" in dom and "%" in dom,
          dom[:300])
    check("Chromium's screenshot of the job page", os.path.exists(shot) and os.path.getsize(shot) > 1000)
    if os.environ.get("LSM_SERVICE_SCREENSHOT"):
        shutil.copy(shot, os.environ["LSM_SERVICE_SCREENSHOT"])
    wait_job(base, job)
    pages_a_person_finishes_a_task_on(base, chromium, tmp)


def form_post(url, fields):
    """POST `fields` as a browser's form does (application/x-www-form-urlencoded)."""
    body = urllib.parse.urlencode(fields).encode()
    return request("POST", url, body, headers={"Content-Type": "application/x-www-form-urlencoded",
                                               "Accept": "text/html"})


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def pages_a_person_finishes_a_task_on(base, chromium, tmp):
    """A process page's form runs the process; the job page shows its
    results (tables, raster thumbnails) and a button that cancels or deletes
    it; a mistake in the form is an HTML page that says what was wrong."""
    status, html = request("GET", base + "/processes/metrics?f=html")[0::2]
    check("a process page has a form that executes it, the required input marked",
          status == 200 and b'<form method="post" action="/processes/metrics/execution">' in html
          and b'title="required"' in html and b'<select id="neighbors" name="neighbors">' in html, html[:300])
    opener = urllib.request.build_opener(NoRedirect)
    post = urllib.request.Request(base + "/processes/metrics/execution", data=urllib.parse.urlencode(
        {"input": "landcover/sample.tif", "level": "class,land", "metrics": "CA,PLAND,NP,SHDI", "edge-depth": "1"}).encode(),
        method="POST", headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        opener.open(post, timeout=60)
        location, code = "", 200
    except urllib.error.HTTPError as e:
        location, code = e.headers.get("Location", ""), e.code
    check("the form's submission: 303 See Other to the job's page", code == 303 and location.endswith("?f=html"),
          (code, location))
    job = location.split("/jobs/")[-1].split("?")[0]
    wait_job(base, job)
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", location],
                         capture_output=True, text=True, timeout=120).stdout
    check("the finished job's page shows its tables (Chromium)", "Results" in dom and "<th>PLAND</th>" in dom
          and "<th>SHDI</th>" in dom and "Delete this job" in dom, dom[:400])
    shot = os.path.join(tmp, "job_results.png")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1000,900", "--screenshot=" + shot, location], capture_output=True, timeout=120)
    check("Chromium's screenshot of the results page", os.path.exists(shot) and os.path.getsize(shot) > 5000)
    status, headers, body = request("POST", base + "/processes/label/execution", {"inputs": {"input": "landcover/sample.tif"}},
                                    headers={"Prefer": "respond-async"})
    label_job = json.loads(body)["jobID"]
    wait_job(base, label_job)
    html = request("GET", base + "/jobs/%s?f=html" % label_job)[2]
    png = request("GET", base + "/jobs/%s/results/output?f=png" % label_job)
    check("a raster result is shown as a thumbnail, a PNG GDAL renders", b'class="thumb"' in html
          and png[0] == 200 and png[1].get("Content-Type") == "image/png" and png[2][:8] == b"\x89PNG\r\n\x1a\n",
          (png[0], png[1].get("Content-Type")))
    status, headers, _ = request("POST", base + "/jobs/%s/dismissal" % label_job, b"")
    check("the page's delete button: 303 back to the page, the job dismissed",
          get_json(base + "/jobs/" + label_job)[1]["status"] == "dismissed", status)
    status, headers, body = form_post(base + "/processes/metrics/execution", {"input": "landcover/sample.tif",
                                                                            "edge-depth": "deep"})
    check("a mistake in the form: a 400 page that says what was wrong", status == 400
          and headers.get("Content-Type", "").startswith("text/html") and b"edge-depth" in body
          and b"whole number" in body, (status, body[:300]))
    status, headers, body = form_post(base + "/processes/metrics/execution", {"input": "landcover/nope.tif"})
    check("a file that is not there: a 400 page naming it", status == 400 and b"nope.tif" in body
          and headers.get("Content-Type", "").startswith("text/html"), (status, body[:300]))
    status, headers, body = form_post(base + "/processes/metrics/execution", {"input": "landcover/sample.tif",
                                                                            "edge-dept": "2"})
    check("a field the process has no input for: a 400 page naming it", status == 400
          and b"has no input 'edge-dept'" in body, (status, body[:300]))
    opener = urllib.request.build_opener(NoRedirect)
    form = urllib.parse.urlencode({"string-input": "from a form", "integer-input": "3, 1,2"}).encode()
    try:
        opener.open(urllib.request.Request(base + "/processes/echo/execution", form, method="POST"), timeout=60)
        location = ""
    except urllib.error.HTTPError as e:
        location = e.headers.get("Location", "")
    job = location.split("/jobs/")[-1].split("?")[0]
    wait_job(base, job)
    _, echoed = get_json(base + "/jobs/%s/results/echo" % job) if job else (None, {})
    check("a list typed in one field (several integers): each a value", echoed and echoed.get("integer-input") == [3, 1, 2]
          and echoed.get("string-input") == "from a form", (location, echoed))
    html = request("GET", base + "/jobs/%s?f=html" % job)[2]
    check("the job's page shows its inputs and how long it ran", b"<h2>Inputs</h2>" in html and b"from a form" in html
          and b"<th>duration</th><td>" in html and b" s</td>" in html, html[-800:])
    html = request("GET", base + "/processes/metrics?f=html")[2]
    check("a process page shows a request that runs it from a script", b"From a script" in html
          and b"/processes/metrics/execution" in html and b"file:landcover/example.tif" in html)


def bad_requests(base, have_schemas):
    def problem(name, method, path, body, expected, headers=None):
        status, hdrs, raw = request(method, base + path, body, headers=headers)
        doc = json.loads(raw) if raw else {}
        check(name + ": %d" % expected, status == expected, (status, raw[:200]))
        check(name + ": a problem document", hdrs.get("Content-Type", "").startswith("application/problem+json")
              and "detail" in doc, (hdrs.get("Content-Type"), raw[:200]))
        if have_schemas:
            valid(name, doc, "exception.yaml")
        return doc

    label = "/processes/label/execution"
    for name, ref in (("../ traversal", "../outside/secret.tif"), ("encoded traversal", "%2e%2e/outside/secret.tif"),
                      ("file:// traversal", "file://%s/../outside/secret.tif" % "x"),
                      ("symlink out of the root", "escape.tif"), ("absolute path outside", "/etc/passwd"),
                      ("missing file", "nothing.tif")):
        doc = problem(name, "POST", label, {"inputs": {"input": {"href": ref}}}, 400)
        check(name + " is refused by name", "input" in doc.get("detail", ""), doc)
        check(name + ": no server path in the message", "/tmp" not in doc.get("detail", ""), doc)
    # A job that fails on a corrupt input says which input, as the client named it.
    status, hdrs, raw = request("POST", base + label, {"inputs": {"input": "landcover/corrupt.tif"}})
    detail = json.loads(raw).get("detail", "") if raw else ""
    check("a failed job's message names the input as the client did, without the server's folders",
          "landcover/corrupt.tif" in detail and "/tmp" not in detail, (status, detail))
    check("a corrupt input is a 400, not a 500", status == 400, (status, detail))
    # Fractional class codes are found while the job reads: the job fails,
    # on what the client sent — a 400 (sync) and a 400 for its results (async).
    status, hdrs, raw = request("POST", base + label, {"inputs": {"input": "landcover/fractional.tif"}})
    check("a job that fails on the client's input is a 400, not a 500",
          status == 400 and b"non-integer value" in raw, (status, raw[:300]))
    status, hdrs, raw = request("POST", base + label, {"inputs": {"input": "landcover/fractional.tif"}},
                                headers={"Prefer": "respond-async"})
    failed = wait_job(base, json.loads(raw)["jobID"]) if status == 201 else {}
    status, hdrs, raw = request("GET", base + "/jobs/%s/results" % failed.get("jobID"))
    check("its results (async): 400 with the reason", failed.get("status") == "failed" and status == 400
          and b"non-integer value" in raw, (failed, status, raw[:200]))
    problem("unknown process", "POST", "/processes/nope/execution", {"inputs": {}}, 404)
    for method, path, allow in (("DELETE", "/processes", "GET, HEAD"), ("POST", "/jobs", "GET, HEAD"),
                                ("GET", label, "POST"), ("PUT", "/jobs/00000000-0000-4000-8000-000000000000",
                                                         "GET, HEAD, DELETE")):
        status, hdrs, raw = request(method, base + path)
        check("%s %s: 405 with Allow: %s" % (method, path, allow), status == 405 and hdrs.get("Allow") == allow,
              (status, hdrs.get("Allow")))
    problem("unknown job", "GET", "/jobs/00000000-0000-4000-8000-000000000000", None, 404)
    problem("malformed JSON", "POST", label, b"{not json", 400)
    problem("bad input type", "POST", label, {"inputs": {"input": "landcover/sample.tif", "neighbors": "six"}}, 400)
    doc = problem("value out of choices", "POST", label, {"inputs": {"input": "landcover/sample.tif", "neighbors": 6}}, 400)
    check("the CLI's message for a bad value", "neighbors must be 4 or 8" in doc.get("detail", ""), doc)
    problem("unknown input", "POST", label, {"inputs": {"input": "landcover/sample.tif", "colour": 1}}, 400)
    problem("missing required input", "POST", label, {"inputs": {}}, 400)
    doc = problem("'input' for 'inputs'", "POST", "/processes/synth/execution", {"input": {"width": 10}}, 400)
    check("the unknown member is named", "unknown member 'input'" in doc.get("detail", ""), doc)
    doc = problem("a server-side path", "POST", label, {"inputs": {"input": "landcover/sample.tif", "temp-dir": "/"}}, 400)
    check("a trusted input is refused as such", "names a path on the server" in doc.get("detail", ""), doc)
    doc = problem("memory above the job's budget", "POST", label,
                  {"inputs": {"input": "landcover/sample.tif", "memory-limit": "2G"}}, 400)
    check("the job budget is named", "more than the 1.00 GiB a run may hold here" in doc.get("detail", ""), doc)
    doc = problem("a broken rule", "POST", "/processes/gradient/execution",
                  {"inputs": {"input": "landcover/sample.tif", "grey": True, "band": 1}}, 400)
    check("the rule's one line", "input grey and input band exclude each other" in doc.get("detail", ""), doc)
    problem("oversized body", "POST", label, b"{" + b" " * (2 << 20) + b"}", 413)
    # 100 000 nested arrays in a 200 KB body (in a seed, and in a member that is
    # ignored): refused with a 400, and the service still answers.
    deep = b"[" * 100000 + b"]" * 100000
    for name, body in (("a seed nested 100 000 deep", b'{"inputs": {"seed-cell": ' + deep + b"}}"),
                       ("an unknown member nested 100 000 deep", b'{"x": ' + deep + b', "inputs": {}}')):
        doc = problem(name, "POST", "/processes/fuzzy/execution", body, 400)
        check(name + " is refused for its depth", "levels deep" in doc.get("detail", ""), doc)
    check("the service answers after the deep bodies", request("GET", base + "/processes")[0] == 200)
    # A chunked body is not bounded by --max-body in cpp-httplib: refused
    # before it is read (the client keeps sending 64 MiB; the answer comes first).
    host, port = base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(b"POST /processes/label/execution HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
        conn.sendall(chunk)
        answer = b""
        try:  # the answer comes before the rest of the body is sent
            while b"\r\n\r\n" not in answer:
                part = conn.recv(4096)
                if not part:
                    break
                answer += part
        except OSError:
            pass
        try:
            for _ in range(63):  # the rest of 64 MiB, which the server does not read
                conn.sendall(chunk)
        except OSError:
            pass  # it closed the connection
    check("a chunked body is refused with 411 before it is read", answer.startswith(b"HTTP/1.1 411"), answer[:200])
    check("the service answers after the chunked body", request("GET", base + "/processes")[0] == 200)
    problem("too many cells", "POST", "/processes/synth/execution", {"inputs": {"width": 100000, "height": 100000}}, 413)


def dismiss_running(base, work):
    status, headers, info = execute_async(base, "synth", {"width": 8000, "height": 8000, "octaves": 16})
    job = info["jobID"]
    deadline = time.time() + 30
    while time.time() < deadline and get_json(base + "/jobs/" + job)[1]["status"] != "running":
        time.sleep(0.02)
    status, headers, body = request("DELETE", base + "/jobs/" + job)
    check("DELETE a running job: 200, dismissed", status == 200 and json.loads(body)["status"] == "dismissed", body)
    check("its files are gone", eventually(lambda: not os.path.exists(os.path.join(work, "jobs", job))))
    info = get_json(base + "/jobs/" + job)[1]
    check("the dismissed job stays dismissed", info["status"] == "dismissed", info)
    check("its results are not served", request("GET", base + "/jobs/%s/results" % job)[0] == 404)


def dismissal_races(base, work):
    """200 submit-then-dismiss pairs from 8 clients, each DELETE at a random
    moment of its job's life (queued, starting, running, finishing, done):
    every job a DELETE answered 'dismissed' for ends dismissed, with no
    results and no folder, and none is left accepted or running."""
    rng = random.Random(47)
    delays = [rng.choice([0, 0, 0.002, 0.01, 0.03, 0.08]) for _ in range(200)]

    def pair(i):
        status, headers, info = execute_async(base, "synth", {"width": 96 + i % 64, "height": 80, "seed": i})
        if status != 201:
            return None, status, None
        time.sleep(delays[i])
        answer, headers, body = request("DELETE", base + "/jobs/" + info["jobID"])
        return info["jobID"], answer, json.loads(body).get("status") if body else None

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        pairs = list(pool.map(pair, range(200)))
    check("200 submissions accepted", all(p[0] for p in pairs), [p for p in pairs if not p[0]][:3])
    check("every DELETE answered 200 dismissed", all(p[1] == 200 and p[2] == "dismissed" for p in pairs if p[0]),
          [p for p in pairs if p[1] != 200][:3])
    deadline = time.time() + 60
    final = {}
    while time.time() < deadline:
        final = {p[0]: get_json(base + "/jobs/" + p[0])[1]["status"] for p in pairs if p[0]}
        if not any(s in ("accepted", "running") for s in final.values()):
            break
        time.sleep(0.2)
    wrong = {j: s for j, s in final.items() if s != "dismissed"}
    check("every dismissed job ends dismissed (none running, none successful)", not wrong, list(wrong.items())[:5])
    def folders_left():  # a worker that still held a job lets go of its folder when it ends
        return [j for j in final if os.path.exists(os.path.join(work, "jobs", j))]
    eventually(lambda: not folders_left())
    check("no dismissed job keeps a folder", not folders_left(), folders_left()[:5])
    served = [j for j in list(final)[:20] if request("GET", base + "/jobs/%s/results" % j)[0] != 404]
    check("no dismissed job's results are served", not served, served)


def listen_drops():
    """The kernel's count of connections a full listen queue dropped (TcpExt
    ListenDrops of this network namespace), or None where it cannot be read."""
    try:
        with open("/proc/net/netstat") as f:
            header, values = [line.split() for line in f if line.startswith("TcpExt:")][:2]
        return int(values[header.index("ListenDrops")])
    except (OSError, ValueError, IndexError):
        return None


def connection_burst(base):
    """200 clients connect at once: every one is answered and none of their
    connections is dropped by a full listen queue (a backlog of 5 drops the
    rest of a burst: the client tries again after 1 s, 3 s ...). The drops are
    the kernel's own count, not a time limit, which a slow (sanitized, loaded)
    server would miss without dropping anything."""
    host, port = base.split("//")[1].split(":")
    barrier = threading.Barrier(200)

    def one(i):
        try:
            barrier.wait(20)
            with socket.create_connection((host, int(port)), timeout=60) as s:
                s.sendall(b"GET /conformance HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return s.recv(12)
        except OSError as e:
            return repr(e)

    drops_before = listen_drops()
    with concurrent.futures.ThreadPoolExecutor(200) as pool:
        answers = list(pool.map(one, range(200)))
    drops = listen_drops() - drops_before if drops_before is not None else None
    bad = [a for a in answers if a != b"HTTP/1.1 200"]
    check("200 simultaneous connections: every one answered, none reset", not bad, (len(bad), bad[:3]))
    if drops is None:
        skip("no connection of the burst dropped by a full listen queue", "/proc/net/netstat cannot be read")
    else:
        check("no connection of the burst dropped by a full listen queue", drops == 0, "%d dropped" % drops)


def poll_times(base, count=20):
    """Seconds each of `count` status requests takes, one after another."""
    times = []
    for _ in range(count):
        start = time.time()
        status = request("GET", base + "/jobs?limit=1")[0]
        times.append(time.time() - start if status == 200 else 999)
    return times


def idle_and_slow_clients(base):
    """40 idle connections and 10 clients sending their headers a byte a
    second hold a serving thread each (--http-threads 64): status requests
    are still answered within a second."""
    host, port = base.split("//")[1].split(":")
    held, stop = [], threading.Event()
    for _ in range(40):
        held.append(socket.create_connection((host, int(port)), timeout=10))
    slow = [socket.create_connection((host, int(port)), timeout=10) for _ in range(10)]

    def trickle():
        for i in range(60):
            if stop.is_set():
                return
            for s in slow:
                try:
                    s.sendall(b"GET /jobs HTTP/1.1\r\nX-Slow: "[i:i + 1] or b"a")
                except OSError:
                    pass
            time.sleep(1)

    writer = threading.Thread(target=trickle)
    writer.start()
    try:
        time.sleep(0.5)
        times = poll_times(base)
        check("40 idle and 10 slow-header connections: 20 status requests each answered within 1 s",
              max(times) < 1.0, ["%.2f" % t for t in times])
    finally:
        stop.set()
        writer.join()
        for s in held + slow:
            s.close()


def synchronous_executions(data, tmp):
    """--http-threads 8: at most 2 synchronous executions wait at once; a
    third and fourth, sent together, are answered as asynchronous ones (201,
    Location, no Preference-Applied), and status requests are answered
    within a second meanwhile."""
    server = Server(data, os.path.join(tmp, "work_sync"), "--workers", "1", "--http-threads", "8")
    try:
        barrier = threading.Barrier(4)

        def execute(i):
            barrier.wait(20)
            status, headers, body = request("POST", server.base + "/processes/synth/execution",
                                            {"inputs": {"width": 3000, "height": 3000, "octaves": 12, "seed": i}})
            # 200: the one output itself (a raster); 201: the job's status
            return (status, headers.get("Preference-Applied"), headers.get("Location"),
                    json.loads(body) if status == 201 else {"raster": body[:4]})

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            running = [pool.submit(execute, i) for i in range(4)]
            time.sleep(1.0)
            times = poll_times(server.base)
            outcomes = [f.result() for f in running]
        check("while synchronous executions wait, status requests are answered within 1 s", max(times) < 1.0,
              ["%.2f" % t for t in times])
        statuses = sorted(o[0] for o in outcomes)
        check("4 synchronous executions at once, 2 may wait: 2 results (200), 2 answered as async (201)",
              statuses == [200, 200, 201, 201] and all(o[3]["raster"] == b"II*\0" for o in outcomes if o[0] == 200),
              [(o[0], o[1]) for o in outcomes])
        check("those answered async carry a Location and no Preference-Applied",
              all(o[2] and o[1] is None and o[3]["status"] in ("accepted", "running") for o in outcomes if o[0] == 201),
              [o for o in outcomes if o[0] == 201])
        check("their jobs run to the end", all(wait_job(server.base, o[3]["jobID"], 300)["status"] == "successful"
                                                for o in outcomes if o[0] == 201))
    finally:
        server.stop()


def load(base, data, tmp):
    """200 jobs, 8 clients, 2 workers: all successful, none mixed up."""
    expected = {}
    for name, ref in (("sample", "landcover/sample.tif"), ("rough", "rough.tif")):
        out = os.path.join(tmp, "load_" + name)
        subprocess.run([LSM, "metrics", os.path.join(data, ref), "--out", out, "-q", "--level", "land"], check=True)
        with open(out + ".land.csv", "rb") as f:
            expected[ref] = f.read()

    def one(i):
        ref = "landcover/sample.tif" if i % 2 else "rough.tif"
        status, headers, info = execute_async(base, "metrics", {"input": ref, "level": "land"})
        if status != 201:
            return ref, None, status
        done = wait_job(base, info["jobID"], 300)
        if done["status"] != "successful":
            return ref, None, done
        land = request("GET", base + "/jobs/%s/results/land" % info["jobID"])[2]
        return ref, land, done

    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(one, range(200)))
    seconds = time.time() - start
    failures = [o for o in outcomes if o[1] is None]
    check("200 concurrent jobs all successful", not failures, failures[:3])
    check("every job has its own input's table", all(o[1] == expected[o[0]] for o in outcomes if o[1] is not None))
    print("load: 200 metrics jobs, 8 clients, 2 workers: %.1f s, %.1f jobs/s" % (seconds, 200 / seconds))


def restart_after_kill(data, work):
    server = Server(data, work, "--workers", "1")
    status, headers, info = execute_async(server.base, "synth", {"width": 8000, "height": 8000, "octaves": 16})
    job = info["jobID"]
    deadline = time.time() + 30
    while time.time() < deadline and get_json(server.base + "/jobs/" + job)[1]["status"] != "running":
        time.sleep(0.02)
    server.kill()
    server.start()
    info = get_json(server.base + "/jobs/" + job)[1]
    check("after SIGKILL and restart the job is failed", info["status"] == "failed"
          and "server stopped" in info.get("message", ""), info)
    check("nothing partial is served", request("GET", server.base + "/jobs/%s/results/output" % job)[0] in (404, 500))
    check("no partial file is left", not os.path.exists(os.path.join(work, "jobs", job)))
    _, jobs = get_json(server.base + "/jobs?limit=1000")
    check("finished jobs survive the restart", sum(j["status"] == "successful" for j in jobs["jobs"]) >= 200,
          len(jobs["jobs"]))
    server.stop()


def tokens(data, tmp):
    token_file = os.path.join(tmp, "tokens")
    with open(token_file, "w") as f:
        f.write("# USER:TOKEN[:admin], one per line\nsecret-one\nana:token-of-ana\nben:token-of-ben\n"
                "ops:token-of-ops:admin\n")
    server = Server(data, os.path.join(tmp, "work_tokens"), "--token-file", token_file)
    try:
        check("no token: 401", request("GET", server.base + "/processes")[0] == 401)
        check("a wrong token: 401", request("GET", server.base + "/processes", token="nope")[0] == 401)
        check("a token's prefix: 401", request("GET", server.base + "/processes", token="token-of-an")[0] == 401)
        api = get_json(server.base + "/api", token="token-of-ana")[1]
        check("/api with tokens: the bearer security scheme, 401 on every path",
              api.get("components", {}).get("securitySchemes", {}).get("bearer", {}).get("scheme") == "bearer"
              and all("401" in op["responses"] for path in api["paths"].values() for op in path.values()),
              api.get("components"))
        check("a bare token (the older file form): 200",
              request("GET", server.base + "/processes", token="secret-one")[0] == 200)
        # Users see and dismiss only their own jobs; an admin sees everybody's.
        jobs = {}
        for user in ("ana", "ben"):
            for seed in (1, 2):
                status, _, info = execute_async(server.base, "synth", {"width": 50, "height": 40, "seed": seed},
                                                token="token-of-" + user)
                check("%s's job %d accepted" % (user, seed), status == 201, (status, info))
                jobs.setdefault(user, []).append(info["jobID"])
        for user, ids in jobs.items():
            for job in ids:
                wait_job_as(server.base, job, "token-of-" + user)
        listed = {u: {j["jobID"] for j in get_json(server.base + "/jobs", token="token-of-" + u)[1]["jobs"]}
                  for u in ("ana", "ben", "ops")}
        check("a user's job list holds their jobs alone", listed["ana"] == set(jobs["ana"])
              and listed["ben"] == set(jobs["ben"]), listed)
        check("an admin's job list holds everybody's", listed["ops"] >= set(jobs["ana"]) | set(jobs["ben"]), listed)
        other = jobs["ben"][0]
        for method, path in (("GET", ""), ("GET", "/results"), ("GET", "/results/output"), ("DELETE", "")):
            status, _, body = request(method, server.base + "/jobs/" + other + path, token="token-of-ana")
            check("%s another user's job%s: 404 no such job" % (method, path), status == 404 and b"no-such-job" in body,
                  (status, body[:120]))
        check("the owner still has it", get_json(server.base + "/jobs/" + other, token="token-of-ben")[1]["status"]
              == "successful")
        check("an admin reads it", request("GET", server.base + "/jobs/" + other + "/results/output",
                                           token="token-of-ops")[0] == 200)
        check("an admin dismisses it", request("DELETE", server.base + "/jobs/" + other, token="token-of-ops")[0] == 200)
        # The job list's filters (/req/job-list): status and processID, kept in the page links.
        _, page = get_json(server.base + "/jobs?status=successful&processID=synth&limit=1", token="token-of-ana")
        check("status and processID filter the list", len(page["jobs"]) == 1 and page["jobs"][0]["jobID"] in jobs["ana"]
              and any("status=successful" in l["href"] and "processID=synth" in l["href"]
                      for l in page["links"] if l["rel"] == "next"), page)
        _, none = get_json(server.base + "/jobs?processID=label", token="token-of-ana")
        check("a process without jobs: an empty list", none["jobs"] == [], none)
        _, typed = get_json(server.base + "/jobs?type=process", token="token-of-ana")
        _, other_type = get_json(server.base + "/jobs?type=wps", token="token-of-ana")
        _, either = get_json(server.base + "/jobs?type=wps,process", token="token-of-ana")
        check("type: every job is of type process", len(typed["jobs"]) == 2 and other_type["jobs"] == []
              and len(either["jobs"]) == 2, (len(typed["jobs"]), other_type, len(either["jobs"])))
        _, dismissed = get_json(server.base + "/jobs?status=dismissed,successful", token="token-of-ops")
        check("statuses comma-separated", {j["status"] for j in dismissed["jobs"]} == {"dismissed", "successful"},
              dismissed)
        _, recent = get_json(server.base + "/jobs?datetime=" + time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                  time.gmtime(time.time() - 3600)) + "/..", token="token-of-ana")
        _, old = get_json(server.base + "/jobs?datetime=../2000-01-01T00:00:00Z", token="token-of-ana")
        check("datetime: jobs created within the interval", len(recent["jobs"]) == 2 and old["jobs"] == [],
              (len(recent["jobs"]), old))
        _, quick = get_json(server.base + "/jobs?maxDuration=600", token="token-of-ana")
        _, slow = get_json(server.base + "/jobs?minDuration=600", token="token-of-ana")
        check("minDuration, maxDuration: the jobs' run times", len(quick["jobs"]) == 2 and slow["jobs"] == [],
              (len(quick["jobs"]), slow))
        for query in ("datetime=yesterday", "datetime=../..", "minDuration=-1", "maxDuration=1.5"):
            status, _, body = request("GET", server.base + "/jobs?" + query, token="token-of-ana")
            check("/jobs?%s: 400 InvalidParameterValue" % query, status == 400 and b"invalid-parameter-value" in body,
                  (status, body[:200]))
        status, _, body = request("GET", server.base + "/jobs?status=finished", token="token-of-ana")
        check("an unknown status: 400 InvalidParameterValue", status == 400 and b"invalid-parameter-value" in body,
              (status, body[:200]))
    finally:
        server.stop()
    for bad, why in (("ana:\n", "a token is"), ("a b:token-x\n", "a user name"), ("ana:tok:root\n", ":admin"),
                     ("ana:same-token\nben:same-token\n", "already given")):
        with open(token_file, "w") as f:
            f.write(bad)
        refused = subprocess.run([LSM, "serve", "--data-root", data, "--work-dir", os.path.join(tmp, "w_bad_tokens"),
                                  "--listen", "127.0.0.1:%d" % free_port(), "--token-file", token_file],
                                 capture_output=True, text=True, timeout=30)
        check("token file %r: one error line naming line and problem" % bad,
              refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1 and why in refused.stderr
              and "line" in refused.stderr, refused.stderr)
    refused = subprocess.run([LSM, "serve", "--data-root", data, "--work-dir", os.path.join(tmp, "w"), "--listen",
                              "0.0.0.0:%d" % free_port()], capture_output=True, text=True, timeout=30)
    check("off loopback without tokens the server refuses to start",
          refused.returncode != 0 and "--token-file" in refused.stderr, refused.stderr)


def wait_job_as(base, job, token, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        info = get_json(base + "/jobs/" + job, token=token)[1]
        if info and info.get("status") in ("successful", "failed", "dismissed"):
            return info
        time.sleep(0.05)
    return info


def full_queue(data, tmp):
    server = Server(data, os.path.join(tmp, "work_queue"), "--workers", "1", "--max-queue", "3")
    try:
        # The one worker busy with a long job, then simultaneous submissions:
        # exactly --max-queue of them wait, every other gets 429.
        status, headers, info = execute_async(server.base, "synth", {"width": 8000, "height": 8000, "octaves": 16})
        first = info["jobID"]
        deadline = time.time() + 30
        while time.time() < deadline and get_json(server.base + "/jobs/" + first)[1]["status"] != "running":
            time.sleep(0.02)
        barrier = threading.Barrier(6)

        def submit(i):
            barrier.wait(10)
            status, headers, info = execute_async(server.base, "synth", {"width": 4000, "height": 4000, "seed": i})
            return status, headers.get("Retry-After")

        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            statuses = list(pool.map(submit, range(6)))
        check("a full queue under 6 simultaneous submissions: exactly 3 accepted, 3 refused with 429 and Retry-After",
              sorted(s for s, r in statuses) == [201, 201, 201, 429, 429, 429]
              and all(r for s, r in statuses if s == 429), statuses)
    finally:
        server.stop()


def timeout_and_retention(data, tmp):
    """A job past --job-timeout is cancelled and failed; ended jobs go after --retention."""
    work = os.path.join(tmp, "work_limits")
    server = Server(data, work, "--workers", "1", "--job-timeout", "1", "--retention", "4")
    try:
        status, headers, info = execute_async(server.base, "synth", {"width": 12000, "height": 12000, "octaves": 16})
        done = wait_job(server.base, info["jobID"], 60)
        check("a job past --job-timeout fails", done["status"] == "failed" and "job-timeout" in done.get("message", ""),
              done)
        check("and leaves no files", not os.path.exists(os.path.join(work, "jobs", info["jobID"])))
        status, headers, body = request("POST", server.base + "/processes/label/execution",
                                        {"inputs": {"input": "landcover/sample.tif"}})
        job = headers.get("Location", "").rsplit("/", 1)[-1]
        check("a quick job succeeds under the time-out", status == 200 and job, (status, body[:200]))
        check("its results are there", os.path.isdir(os.path.join(work, "jobs", job)))
        deadline = time.time() + 30
        while time.time() < deadline and request("GET", server.base + "/jobs/" + job)[0] != 404:
            time.sleep(0.25)
        check("after --retention the job is gone", request("GET", server.base + "/jobs/" + job)[0] == 404)
        check("and so are its files", not os.path.exists(os.path.join(work, "jobs", job)))
    finally:
        server.stop()


def output_limit(data, tmp):
    """--max-output-bytes: a raster that would hold more is refused before it
    is written (400); outputs that together grow past it fail the job (400)
    and leave no files; what fits runs."""
    work = os.path.join(tmp, "work_output_limit")
    server = Server(data, work, "--workers", "1", "--max-output-bytes", "1M")
    try:
        status, headers, body = request("POST", server.base + "/processes/synth/execution",
                                        {"inputs": {"width": 3000, "height": 3000}})
        check("a raster over --max-output-bytes: 400 before it is written",
              status == 400 and b"would hold" in body and b"more than the limit" in body, (status, body[:300]))
        # 31 pyramid levels of the 400 x 300 sample: each under 1 MiB (0.5 MB uncompressed), 1.6 MB together.
        status, headers, info = execute_async(server.base, "pyramid", {"input": "landcover/sample.tif"})
        done = wait_job(server.base, info["jobID"], 60) if status == 201 else {}
        check("outputs that grow past --max-output-bytes fail the job",
              done.get("status") == "failed" and "max-output-bytes" in done.get("message", ""), done)
        check("and leave no files", not os.path.exists(os.path.join(work, "jobs", info["jobID"])))
        status, headers, body = request("GET", server.base + "/jobs/%s/results" % info["jobID"])
        check("its results: 400 (what the client asked for is more than this server keeps)", status == 400,
              (status, body[:200]))
        status, headers, body = request("POST", server.base + "/processes/label/execution",
                                        {"inputs": {"input": "landcover/sample.tif"}})
        check("a job whose outputs fit runs", status == 200, (status, body[:200]))
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
