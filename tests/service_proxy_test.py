#!/usr/bin/python3
"""lsm serve behind nginx terminating TLS, on loopback (issue 47, item 4).

nginx (Debian's nginx-light) listens with a throwaway self-signed
certificate and proxies to lsm serve, which runs with users' tokens and
`--public-url https://…` — the deployment docs/SERVICE.md describes, with
the same proxy settings:

- every link and Location is the proxy's https address;
- an async metrics job runs through the proxy, its table fetched byte for
  byte as `lsm metrics` writes it;
- range requests pass (206), and GDAL reads a label COG through /vsicurl/
  over https with the bearer token (GDAL_HTTP_HEADERS);
- the proxy keeps no token check of its own: a request without one is the
  service's 401, another user's job its 404;
- a body over nginx's client_max_body_size is nginx's 413;
- 100 idle and 20 slow-header connections to nginx leave status requests
  answered within a second, with lsm serve on only 8 serving threads
  (which those clients would hold directly).

Usage: service_proxy_test.py LSM_BINARY SOURCE_DIR [SHARED_DIR]. Exits 77
(skip) without nginx or openssl.
"""
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import service_test as st  # the same argv: LSM_BINARY SOURCE_DIR [SHARED_DIR]
from service_test import check

# The location block of docs/SERVICE.md, "Behind a reverse proxy".
NGINX_CONF = """
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {prefix}/body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  server {{
    listen 127.0.0.1:{proxy_port} ssl;
    ssl_certificate {prefix}/cert.pem;
    ssl_certificate_key {prefix}/key.pem;
    location / {{
      proxy_pass http://127.0.0.1:{lsm_port};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 3700s;
      client_max_body_size 1m;
    }}
  }}
}}
"""


def main():
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if not nginx or not shutil.which("openssl"):
        print("SKIP: no nginx or openssl (tools/setup.sh --with-proxy installs nginx-light)")
        return 77
    tmp = tempfile.mkdtemp(prefix="lsm_proxy_")
    try:
        run(tmp, nginx)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r = st.results
    print("%d passed, %d failed, %d skipped" % (r["passed"], r["failed"], r["skipped"]))
    return 1 if r["failed"] else 0


def run(tmp, nginx):
    prefix, data = os.path.join(tmp, "nginx"), os.path.join(tmp, "data")
    os.makedirs(prefix)
    os.makedirs(data)
    shutil.copy(st.SAMPLE, os.path.join(data, "sample.tif"))
    cert, key = os.path.join(prefix, "cert.pem"), os.path.join(prefix, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as f:
        f.write("ana:token-of-ana\nben:token-of-ben\n")
    proxy_port = st.free_port()
    public = "https://127.0.0.1:%d" % proxy_port
    server = st.Server(data, os.path.join(tmp, "work"), "--token-file", tokens, "--public-url", public,
                       "--http-threads", "8")
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(prefix=prefix, proxy_port=proxy_port, lsm_port=server.port))
    proxy = subprocess.Popen([nginx, "-p", prefix, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        context = ssl.create_default_context(cafile=cert)
        if not wait_for(lambda: https(public + "/", context, token="token-of-ana")[0] == 200):
            check("nginx answers", False, proxy.stderr.read().decode() if proxy.poll() is not None else "no answer")
            return
        through_the_proxy(public, context, data, tmp, cert)
        idle_and_slow_clients_held_by_nginx(public, proxy_port, context)
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)
        server.stop()


def https(url, context, token=None, method="GET", body=None, headers=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if isinstance(body, dict) else body,
                                 method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=120, context=context) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()
    except (urllib.error.URLError, ConnectionError):
        return 0, {}, b""


def wait_for(condition, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def through_the_proxy(public, context, data, tmp, cert):
    status, _, body = https(public + "/", context, token="token-of-ana")
    links = [l["href"] for l in json.loads(body)["links"]]
    check("the landing page's links are the proxy's https address", links and all(l.startswith(public) for l in links),
          links[:3])
    status, headers, body = https(public + "/processes/metrics/execution", context, token="token-of-ana",
                                  method="POST", body={"inputs": {"input": "sample.tif"}},
                                  headers={"Prefer": "respond-async"})
    location = headers.get("Location", "")
    check("execute through the proxy: 201 with an https Location", status == 201 and location.startswith(public + "/jobs/"),
          (status, location))
    job = location.rsplit("/", 1)[1]
    info = {}
    deadline = time.time() + 120
    while time.time() < deadline:
        info = json.loads(https(location, context, token="token-of-ana")[2])
        if info.get("status") in ("successful", "failed"):
            break
        time.sleep(0.1)
    check("the job succeeds", info.get("status") == "successful", info)
    _, _, body = https(location + "/results", context, token="token-of-ana")
    results = json.loads(body)
    check("result links are the proxy's", all(r["href"].startswith(public) for r in results.values()), results)
    cli = os.path.join(tmp, "cli")
    subprocess.run([st.LSM, "metrics", os.path.join(data, "sample.tif"), "--out", cli, "-q"], check=True)
    served = https(results["class"]["href"], context, token="token-of-ana")[2]
    with open(cli + ".class.csv", "rb") as f:
        check("the class table through the proxy equals lsm metrics' byte for byte", served == f.read())
    status, headers, part = https(results["patch"]["href"], context, token="token-of-ana", headers={"Range": "bytes=0-9"})
    check("a range request passes the proxy: 206 and 10 bytes", status == 206 and len(part) == 10, (status, len(part)))
    check("without a token: the service's 401", https(location, context)[0] == 401)
    check("another user's job: 404", https(location, context, token="token-of-ben")[0] == 404)
    status, _, _ = https(public + "/processes/metrics/execution", context, token="token-of-ana", method="POST",
                         body=b"{" + b" " * (2 << 20) + b"}")
    check("a body over client_max_body_size: 413", status == 413, status)
    # GDAL over https with the token and the throwaway certificate (GDAL 3.6 takes
    # the CA bundle from SSL_CERT_FILE).
    status, headers, body = https(public + "/processes/label/execution", context, token="token-of-ana", method="POST",
                                  body={"inputs": {"input": "sample.tif"}}, headers={"Prefer": "respond-async"})
    label_job = headers.get("Location", "")
    wait_for(lambda: json.loads(https(label_job, context, token="token-of-ana")[2]).get("status") == "successful", 120)
    env = dict(os.environ, GDAL_HTTP_HEADERS="Authorization: Bearer token-of-ana", SSL_CERT_FILE=cert,
               GDAL_DISABLE_READDIR_ON_OPEN="EMPTY_DIR")
    info = subprocess.run(["gdalinfo", "-json", "/vsicurl/" + label_job + "/results/output"], env=env,
                          capture_output=True, text=True)
    size = json.loads(info.stdout)["size"] if info.returncode == 0 else info.stderr[-300:]
    check("GDAL reads the label COG through the proxy over https", size == [400, 300], size)


def idle_and_slow_clients_held_by_nginx(public, proxy_port, context):
    held = [socket.create_connection(("127.0.0.1", proxy_port), timeout=10) for _ in range(100)]
    slow = []
    for _ in range(20):
        s = context.wrap_socket(socket.create_connection(("127.0.0.1", proxy_port), timeout=10),
                                server_hostname="127.0.0.1")
        s.sendall(b"GET /jobs HTTP/1.1\r\n")
        slow.append(s)
    try:
        times = []
        for i in range(20):
            for s in slow:  # a header byte a round
                s.sendall(b"X")
            start = time.time()
            status = https(public + "/jobs?limit=1", context, token="token-of-ana")[0]
            times.append(time.time() - start if status == 200 else 999)
            time.sleep(0.1)
        check("100 idle and 20 slow-header connections to nginx: status answered within 1 s (lsm on 8 threads)",
              max(times) < 1.0, ["%.2f" % t for t in times])
    finally:
        for s in held + slow:
            s.close()


if __name__ == "__main__":
    sys.exit(main())
