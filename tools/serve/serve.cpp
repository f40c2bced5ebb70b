#include "serve.h"

#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal_utils.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>

#include "common_parameters.h"
#include "csv_fields.h"
#include "data_roots.h"
#include "execute_request.h"
#include "input_sources.h"
#include "error.h"
#include "job_runner.h"
#include "job_store.h"
#include "html_pages.h"
#include "ogc_documents.h"
#include "users.h"
#include "operation_json.h"

namespace lsm::serve {

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

// A page of a list: `limit` items from `offset`.
struct Paging {
  int64_t offset, limit;
};

// Reads the query's offset (0 to 10^9) and limit (1 to 1000) into `page`,
// keeping its defaults where absent; a value out of range or not a whole
// number is refused, not clamped (OGC API - Processes: 400
// InvalidParameterValue). Returns the problem, or "".
std::string read_paging(const httplib::Request& req, Paging& page) {
  const std::pair<const char*, std::pair<int64_t, int64_t>> fields[] = {{"offset", {0, 1000000000}},
                                                                         {"limit", {1, 1000}}};
  for (const auto& [name, range] : fields) {
    if (!req.has_param(name)) continue;
    const std::string text = req.get_param_value(name);
    const bool digits = !text.empty() && text.size() <= 10 &&
                        std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    const int64_t value = digits ? std::stoll(text) : -1;
    if (!digits || value < range.first || value > range.second)
      return std::string(name) + " must be a whole number from " + std::to_string(range.first) + " to " +
             std::to_string(range.second) + " (got '" + text.substr(0, 40) + "')";
    (std::string(name) == "offset" ? page.offset : page.limit) = value;
  }
  return "";
}

// Reads the job list's filters (OGC API - Processes 1.0, /req/job-list:
// processID and status, each repeated or comma-separated; type, of which
// every job here is "process") into `filter`, and `query` with them for the
// page links. A status that is none of the five is refused (400), as a
// process that does not exist simply matches nothing. Returns the problem, or "".
std::string read_job_filter(const httplib::Request& req, JobFilter& filter, std::string& query) {
  const auto values = [&](const char* name) {
    std::vector<std::string> out;
    for (size_t i = 0; i < req.get_param_value_count(name); ++i) {
      std::stringstream list(req.get_param_value(name, i));
      for (std::string v; std::getline(list, v, ',');)
        if (!v.empty()) out.push_back(v.substr(0, 200));
    }
    return out;
  };
  static const std::vector<std::string> statuses = {"accepted", "running", "successful", "failed", "dismissed"};
  filter.processes = values("processID");
  filter.statuses = values("status");
  for (const std::string& s : filter.statuses)
    if (std::find(statuses.begin(), statuses.end(), s) == statuses.end())
      return "status must be accepted, running, successful, failed or dismissed (got '" + s.substr(0, 40) + "')";
  const std::vector<std::string> types = values("type");
  filter.none = !types.empty() && std::find(types.begin(), types.end(), "process") == types.end();
  if (filter.processes.size() > 100 || filter.statuses.size() > 100) return "at most 100 processID and status values";
  // datetime (/req/job-list/datetime-definition): an instant, or an interval
  // A/B with either end open (".." or empty), on the jobs' created time.
  if (req.has_param("datetime")) {
    const std::string text = req.get_param_value("datetime");
    const size_t slash = text.find('/');
    const std::string from = slash == std::string::npos ? text : text.substr(0, slash);
    const std::string to = slash == std::string::npos ? text : text.substr(slash + 1);
    const auto bound = [](const std::string& t, std::string& out) {
      if (t.empty() || t == "..") return true;
      const std::optional<std::string> normal = normalized_rfc3339(t);
      if (normal) out = *normal;
      return normal.has_value();
    };
    if ((slash == std::string::npos && (from.empty() || from == "..")) || !bound(from, filter.created_from) ||
        !bound(to, filter.created_to) || (from.empty() || from == "..") + (to.empty() || to == "..") == 2)
      return "datetime must be an RFC 3339 date-time or an interval of them, either end open "
             "(2026-11-28T10:00:00Z, 2026-11-28T10:00:00Z/.., ../2026-11-28T12:00:00+01:00; got '" +
             text.substr(0, 80) + "')";
  }
  // minDuration, maxDuration (/req/job-list/duration-definition): whole seconds.
  for (const char* name : {"minDuration", "maxDuration"}) {
    if (!req.has_param(name)) continue;
    const std::string text = req.get_param_value(name);
    const bool digits = !text.empty() && text.size() <= 9 &&
                        std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits) return std::string(name) + " must be a whole number of seconds (got '" + text.substr(0, 40) + "')";
    (std::string(name) == "minDuration" ? filter.min_seconds : filter.max_seconds) = std::stod(text);
  }
  for (const char* name : {"processID", "status", "type", "datetime", "minDuration", "maxDuration"})
    for (size_t i = 0; i < req.get_param_value_count(name); ++i)
      query += std::string("&") + name + "=" + httplib::detail::encode_query_param(req.get_param_value(name, i));
  return "";
}

// Connections the kernel holds for accept(): a burst of clients waits
// there instead of being reset (the kernel caps it at net.core.somaxconn).
constexpr int kListenBacklog = 1024;

struct Options {
  std::string listen = "127.0.0.1:8080";
  std::vector<std::string> data_roots;
  std::string work_dir;
  int workers = 2;
  int64_t max_queue = 100;
  double max_cells = 4e9;
  std::string job_memory = "1G";
  std::string max_output = "16G";
  double job_timeout = 3600;
  double retention = 7 * 24 * 3600;
  std::string token_file;
  std::string public_url;
  int64_t max_body = 1 << 20;
  std::string job_store = "sqlite";
  int http_threads = 64;
  std::string node_name;
  double job_lease = 30;
  std::vector<std::string> remote_inputs;  // --allow-remote-inputs prefixes
  bool quiet = false;
};

// The store is shared by several nodes (PostgreSQL), so is the work folder.
bool shared_store(const std::string& spec) {
  return spec.rfind("postgresql://", 0) == 0 || spec.rfind("postgres://", 0) == 0;
}

const char* kUsage = "usage: lsm serve --data-root DIR [--data-root DIR ...] --work-dir DIR [options]";

po::options_description options_of(Options& o) {
  po::options_description desc("lsm serve options");
  desc.add_options()
      ("listen", po::value(&o.listen)->default_value(o.listen), "HOST:PORT to listen on (loopback by default)")
      ("data-root", po::value(&o.data_roots)->composing(), "folder inputs may come from (repeatable; required)")
      ("work-dir", po::value(&o.work_dir), "folder of the job store and the jobs' outputs (required)")
      ("allow-remote-inputs", po::value(&o.remote_inputs)->composing(),
       "URL prefix (http:// or https://) whose datasets inputs may reference, read through GDAL's /vsicurl/ "
       "(repeatable; none: only files under the data roots and inline values)")
      ("workers", po::value(&o.workers)->default_value(o.workers), "jobs run at once (a GPU runs one at a time)")
      ("max-queue", po::value(&o.max_queue)->default_value(o.max_queue), "accepted jobs waiting at most; more get 429")
      ("max-cells", po::value(&o.max_cells)->default_value(o.max_cells), "largest raster a job may take, in cells")
      ("job-memory", po::value(&o.job_memory)->default_value(o.job_memory),
       "memory each job may hold, e.g. 512M or 2G (its run budget; a job's memory-limit may ask for less, not more)")
      ("max-output-bytes", po::value(&o.max_output)->default_value(o.max_output),
       "bytes a job's outputs may take, e.g. 512M or 16G: a raster that would hold more is refused before it is "
       "written, and a job whose folder grows past it is stopped")
      ("job-timeout", po::value(&o.job_timeout)->default_value(o.job_timeout), "seconds a job may run (0: no limit)")
      ("retention", po::value(&o.retention)->default_value(o.retention),
       "seconds finished jobs and their results are kept")
      ("token-file", po::value(&o.token_file),
       "file of users and their bearer tokens, USER:TOKEN[:admin] a line: every request must carry one, and a "
       "user sees only their own jobs (required off loopback)")
      ("max-body", po::value(&o.max_body)->default_value(o.max_body), "largest request body, in bytes")
      ("http-threads", po::value(&o.http_threads)->default_value(o.http_threads),
       "threads serving connections, each holding one while it reads a request or keeps it alive; a quarter of "
       "them at most wait for synchronous executions (4 to 1024)")
      ("public-url", po::value(&o.public_url),
       "URL clients reach the service at, for links (behind a proxy: its https URL; default http://LISTEN)")
      ("job-store", po::value(&o.job_store)->default_value(o.job_store),
       "where jobs are queued and recorded: 'sqlite' (a file in --work-dir, this node alone) or a "
       "postgresql://HOST[:PORT]/DATABASE URI shared by several nodes (the password in ~/.pgpass or PGPASSWORD); "
       "nodes sharing a store share --work-dir and --data-root too (docs/SCALING.md)")
      ("node-name", po::value(&o.node_name), "this node's name in the job store and the log (default: the host name)")
      ("job-lease", po::value(&o.job_lease)->default_value(o.job_lease),
       "seconds a running job's lease lasts without renewal (renewed every third of it): on a shared store, the "
       "job of a node gone that long is failed by another node")
      ("quiet,q", po::bool_switch(&o.quiet), "no log lines")
      ("help,h", "show this help");
  return desc;
}

bool loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
}

std::string new_job_id() {
  static std::mutex mutex;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mutex);
  const uint64_t a = rng(), b = rng();
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return text;
}

bool wants_html(const httplib::Request& req) {
  if (req.has_param("f")) return req.get_param_value("f") == "html";
  const std::string accept = req.get_header_value("Accept");
  return accept.find("text/html") != std::string::npos && accept.find("application/json") == std::string::npos;
}

// Every path the service answers and its methods: another method on one of
// them is a 405 with Allow (cpp-httplib answers 404), as OGC API - Processes
// and HTTP want.
const std::vector<std::pair<std::regex, std::string>>& route_methods() {
  static const std::vector<std::pair<std::regex, std::string>> routes = {
      {std::regex("/|/conformance|/api|/processes|/processes/[^/]+|/jobs"), "GET, HEAD"},
      {std::regex("/processes/[^/]+/execution"), "POST"},
      {std::regex("/jobs/[^/]+"), "GET, HEAD, DELETE"},
      {std::regex("/jobs/[^/]+/dismissal"), "POST"},
      {std::regex("/jobs/[^/]+/results(/[^/]+)?"), "GET, HEAD"}};
  return routes;
}

// The URL clients reach the service at, for every link and Location:
// --public-url (behind a reverse proxy, its https address), else the
// --listen address. Never the request's Host header, which any client sets
// (Host: evil.example would send the next request elsewhere).
std::string public_url_of(const Options& o) {
  std::string url = o.public_url.empty() ? "http://" + o.listen : o.public_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

void send_json(httplib::Response& res, int status, const Json& doc, const char* type = "application/json") {
  res.status = status;
  res.set_content(doc.dump(), type);
}

void send_problem(httplib::Response& res, const std::string& type, int status, const std::string& title,
                  const std::string& detail) {
  send_json(res, status, problem(type, status, title, detail), "application/problem+json");
}

// A document as JSON, or as HTML for a person.
void send_document(const httplib::Request& req, httplib::Response& res, const Json& doc, const std::string& kind,
                   const std::string& title, int status = 200) {
  if (wants_html(req)) {
    res.status = status;
    res.set_content(html_page(title, doc, kind), "text/html; charset=utf-8");
  } else {
    send_json(res, status, doc);
  }
}

// Names every output of the operation inside the job's folder, as its
// declaration says: a table prefix after the operation (metrics.patch.csv),
// a folder after its output ID, a file after the parameter with its suffix.
void set_outputs(ops::ParameterValues& values, const ops::OperationSpec& spec, const std::string& folder) {
  for (const ops::ParameterSpec& p : spec.parameters) {
    if (!p.is_output() || !p.shown_in(ops::kService)) continue;
    const fs::path dir(folder);
    const std::vector<ops::DeclaredFile> files = p.files_made();
    if (p.role == ops::ParameterRole::OutputTablePrefix) values.set(p.name, (dir / spec.name).string());
    else if (p.role == ops::ParameterRole::OutputFolder) values.set(p.name, (dir / files.front().id).string());
    else values.set(p.name, (dir / (p.name + files.front().suffix)).string());
  }
}

// One output of a successful job: a file, or a folder output's files
// (pyramid's levels), each known by its name up to the extension.
struct JobOutput {
  fs::path file;
  std::map<std::string, fs::path> files;  ///< a folder output's files
  bool folder() const { return file.empty(); }
};

// The outputs of a successful job, by output ID: a file's name up to its
// extension, after the table prefix where it has one (metrics.patch.csv:
// patch); a folder's name (levels). Hidden names (temporary files) are not outputs.
std::map<std::string, JobOutput> job_outputs(const std::string& job_folder) {
  std::map<std::string, JobOutput> outputs;
  const auto id_of = [](const fs::path& path) {
    std::string id = path.stem().string();
    if (const size_t dot = id.find('.'); dot != std::string::npos && dot > 0) id = id.substr(dot + 1);
    return id;
  };
  std::error_code ec;
  for (fs::directory_iterator it(job_folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (path.filename().string().rfind('.', 0) == 0) continue;
    std::error_code type_error;
    if (it->is_directory(type_error)) {
      JobOutput folder;
      for (fs::directory_iterator f(path, type_error), fend; !type_error && f != fend; f.increment(type_error))
        if (f->is_regular_file() && f->path().filename().string().rfind('.', 0) != 0)
          folder.files[id_of(f->path())] = f->path();
      outputs[path.filename().string()] = folder;
    } else if (it->is_regular_file(type_error)) {
      outputs[id_of(path)].file = path;
    }
  }
  return outputs;
}

// Output IDs from the query's `outputs` (comma-separated, repeatable); empty when absent.
std::vector<std::string> outputs_param(const httplib::Request& req) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < req.get_param_value_count("outputs"); ++i) {
    std::stringstream list(req.get_param_value("outputs", i));
    for (std::string id; std::getline(list, id, ',');)
      if (!id.empty()) ids.push_back(id.substr(0, 200));
  }
  return ids;
}

std::string media_type_of(const fs::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".csv") return "text/csv";
  if (ext == ".json") return "application/json";
  if (ext == ".tif") return "image/tiff; application=geotiff; profile=cloud-optimized";
  if (ext == ".gpkg") return "application/geopackage+sqlite3";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

// A CSV table as a JSON array of objects (numbers as numbers, whole ones
// without a fraction as counts are written, empty as null).
Json csv_as_json(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  Json rows = Json::array();
  if (std::getline(in, line)) header = split_csv_line(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split_csv_line(line);  // class names may be quoted
    Json row = Json::object();
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      if (cell.empty()) {
        row[header[i]] = nullptr;
        continue;
      }
      size_t used = 0;
      double x = 0;
      try {
        x = std::stod(cell, &used);
      } catch (...) {
        used = 0;
      }
      if (used == cell.size()) row[header[i]] = ops::number_json(x);
      else row[header[i]] = cell;
    }
    rows.push_back(row);
  }
  return rows;
}

// Jobs left running by a node that is gone failed, before this node's
// workers start: on its own store, every running job (the last server's);
// on a shared one, those whose lease expired. They are not re-run (a client
// that wants them submits again); accepted jobs stay queued and run.
void recover(JobStore& store, const std::string& jobs_dir) {
  const std::string why = store.shared() ? "the node running the job stopped (its lease expired); it was not re-run"
                                         : "the server stopped before the job ended; it was not re-run";
  for (const std::string& id : store.fail_orphans(why)) {
    std::error_code ec;
    fs::remove_all(fs::path(jobs_dir) / id, ec);
  }
}

// What the runner of this node runs with.
RunnerSettings runner_settings(const Options& o, const std::string& node) {
  RunnerSettings s;
  s.workers = o.workers;
  s.timeout_s = o.job_timeout;
  s.jobs_dir = (fs::path(o.work_dir) / "jobs").string();
  s.job_memory = ops::memory_size(o.job_memory);
  s.max_output_bytes = ops::memory_size(o.max_output);
  s.node = node;
  s.lease_s = o.job_lease;
  s.log_jobs = !o.quiet;
  return s;
}

// A raster result as a PNG a page can show: its first band scaled to bytes
// between its minimum and maximum, 480 cells wide (GDAL reads a COG's
// overviews for it). nullopt where GDAL cannot make one.
std::optional<std::string> png_thumbnail(const fs::path& raster) {
  GDALDatasetH src = GDALOpen(raster.c_str(), GA_ReadOnly);
  if (!src) return std::nullopt;
  const char* args[] = {"-of", "PNG", "-ot", "Byte", "-b", "1", "-scale", "-outsize", "480", "0", nullptr};
  GDALTranslateOptions* options = GDALTranslateOptionsNew(const_cast<char**>(args), nullptr);
  const std::string out = "/vsimem/lsm_thumbnail_" + new_job_id() + ".png";
  GDALDatasetH made = GDALTranslate(out.c_str(), src, options, nullptr);
  GDALTranslateOptionsFree(options);
  GDALClose(src);
  if (!made) return std::nullopt;
  GDALClose(made);
  vsi_l_offset size = 0;
  GByte* bytes = VSIGetMemFileBuffer(out.c_str(), &size, TRUE);
  std::string png(reinterpret_cast<const char*>(bytes), static_cast<size_t>(size));
  CPLFree(bytes);
  return png;
}

// The first `rows` lines of a CSV table, split into cells.
Json csv_preview(const fs::path& path, int rows) {
  std::ifstream in(path);
  Json out = Json::array();
  std::string line;
  for (int r = 0; r < rows && std::getline(in, line); ++r) {
    Json cells = Json::array();
    for (const std::string& cell : split_csv_line(line)) cells.push_back(cell);
    out.push_back(cells);
  }
  return out;
}

class Service {
 public:
  Service(const Options& o, Users users, std::unique_ptr<JobStore> store, const std::string& node)
      : options_(o),
        public_url_(public_url_of(o)),
        users_(std::move(users)),
        roots_(o.data_roots),
        sources_(roots_, o.remote_inputs),
        store_(std::move(store)),
        runner_(*store_, [this](const JobRecord& job) { return prepare(job); }, runner_settings(o, node)) {
    std::error_code ec;
    private_folders_ = {o.work_dir, fs::weakly_canonical(o.work_dir, ec).string()};
    runner_.set_message_filter([this](const std::string& m) { return roots_.without_server_paths(m, private_folders_); });
  }

  void expire() {
    for (const std::string& id : store_->ended_before(rfc3339_seconds_ago(options_.retention))) {
      std::error_code ec;
      fs::remove_all(runner_.folder(id), ec);
      store_->remove(id);
    }
  }

  std::string store_description() const { return store_->describe(); }

  void routes(httplib::Server& svr) {
    svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      // cpp-httplib 0.11 bounds a body by --max-body only when it comes with
      // a Content-Length: a chunked one is read whole, however large. This
      // runs before any of the body is read, so such a request is refused
      // at once (RFC 9112: a server may require a length, 411).
      const std::string encoding = req.get_header_value("Transfer-Encoding");
      if (!encoding.empty() && encoding != "identity") {
        res.set_header("Connection", "close");
        send_problem(res, "about:blank", 411, "Length Required",
                     "a request body must come with Content-Length (Transfer-Encoding '" + encoding.substr(0, 40) +
                         "' is not accepted), at most --max-body bytes");
        return httplib::Server::HandlerResponse::Handled;
      }
      if (users_.authenticate(req.get_header_value("Authorization"))) return httplib::Server::HandlerResponse::Unhandled;
      res.set_header("WWW-Authenticate", "Bearer");
      send_problem(res, "about:blank", 401, "Unauthorized", "a bearer token from --token-file is required");
      return httplib::Server::HandlerResponse::Handled;
    });
    svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 404)  // a path the service has, asked with another method
        for (const auto& [path, allow] : route_methods())
          if (std::regex_match(req.path, path)) {
            res.status = 405;
            res.set_header("Allow", allow);
            break;
          }
      const std::string title = res.status == 404   ? "Not Found"
                                : res.status == 405 ? "Method Not Allowed"
                                : res.status == 413 ? "Payload Too Large"
                                : res.status == 400 ? "Bad Request"
                                                    : "Error";
      const std::string detail = res.status == 413 ? "the request body is larger than --max-body" : title;
      send_problem(res, "about:blank", res.status, title, detail);
    });
    // A problem answered to a person's browser is a page, wherever it was
    // made (handlers, the error handler, the pre-routing checks).
    svr.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (res.status < 400 || !wants_html(req) || res.get_header_value("Content-Type") != "application/problem+json")
        return;
      const Json doc = Json::parse(res.body, nullptr, false);
      if (!doc.is_object()) return;
      res.headers.erase("Content-Type");
      res.set_content(html_problem(res.status, doc.value("title", "Error"), doc.value("detail", "")),
                      "text/html; charset=utf-8");
      if (res.has_header("Content-Length")) {  // cpp-httplib has counted the problem document's bytes
        res.headers.erase("Content-Length");
        res.set_header("Content-Length", std::to_string(res.body.size()));
      }
    });
    svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
      std::string what = "internal error";
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = x.what();
      } catch (...) {
      }
      send_problem(res, "about:blank", 500, "Internal Server Error", what);
    });

    svr.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
      send_document(req, res, landing_page(public_url_), "landing", "lsm: landscape metrics");
    });
    svr.Get("/conformance", [](const httplib::Request& req, httplib::Response& res) {
      send_document(req, res, conformance(), "conformance", "Conformance");
    });
    svr.Get("/api", [this](const httplib::Request& req, httplib::Response& res) {
      const Json api = open_api(public_url_, users_.enabled());
      if (wants_html(req)) return send_document(req, res, api, "api", "API");
      send_json(res, 200, api, "application/vnd.oai.openapi+json;version=3.0");
    });
    svr.Get("/processes", [this](const httplib::Request& req, httplib::Response& res) {
      Paging page{0, 1000};
      if (const std::string problem = read_paging(req, page); !problem.empty())
        return send_problem(res, exception_type::kInvalidParameter, 400, "Bad Request", problem);
      send_document(req, res, process_list(public_url_, page.offset, page.limit), "processes", "Processes");
    });
    svr.Get(R"(/processes/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const ops::Operation* op = find_service_operation(req.matches[1]);
      if (!op) return send_problem(res, exception_type::kNoSuchProcess, 404, "No such process",
                                   "no process '" + std::string(req.matches[1]) + "'");
      send_document(req, res, process_description(op->spec, public_url_), "process", "Process " + op->spec.name);
    });
    svr.Post(R"(/processes/([^/]+)/execution)",
             [this](const httplib::Request& req, httplib::Response& res) { execute(req, res); });
    svr.Get("/jobs", [this](const httplib::Request& req, httplib::Response& res) {
      Paging page{0, 50};
      if (const std::string problem = read_paging(req, page); !problem.empty())
        return send_problem(res, exception_type::kInvalidParameter, 400, "Bad Request", problem);
      JobFilter filter;
      std::string query;
      if (const std::string problem = read_job_filter(req, filter, query); !problem.empty())
        return send_problem(res, exception_type::kInvalidParameter, 400, "Bad Request", problem);
      const User user = user_of(req);
      if (!user.admin) filter.owner = user.name;
      send_document(req, res,
                    job_list(store_->list(filter, page.offset, page.limit), public_url_, page.offset, page.limit,
                             store_->count(filter), query),
                    "jobs", "Jobs");
    });
    svr.Get(R"(/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const std::optional<JobRecord> job = visible_job(req, req.matches[1]);
      if (!job) return no_such_job(res, req.matches[1]);
      Json doc = status_info(*job, public_url_);
      if (wants_html(req)) {  // the page shows what the job was given
        const Json request = Json::parse(job->request, nullptr, false);
        if (request.is_object() && request.contains("inputs")) doc["inputs"] = request["inputs"];
      }
      if (wants_html(req) && job->status == "successful") {  // the page shows the results themselves
        const std::string job_url = public_url_ + "/jobs/" + job->id;
        std::vector<RequestedOutput> linked = requested_of(*job);
        for (RequestedOutput& o : linked) o.by_value = false;  // the page links to them
        doc["results"] = results_document(job->id, job_url, linked);
        const std::map<std::string, JobOutput> outputs = job_outputs(runner_.folder(job->id));
        for (const auto& [id, output] : outputs)
          if (doc["results"].contains(id) && !output.folder() && output.file.extension() == ".csv")
            doc["previews"][id] = csv_preview(output.file, 12);
      }
      send_document(req, res, doc, "job", "Job " + job->id);
    });
    // The job page's button: a plain form cannot send DELETE.
    svr.Post(R"(/jobs/([^/]+)/dismissal)", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string id = req.matches[1];
      const std::optional<JobRecord> job = visible_job(req, id);
      if (!job || job->status == "dismissed" || !runner_.dismiss(id)) return no_such_job(res, id);
      res.status = 303;
      res.set_header("Location", public_url_ + "/jobs/" + id + "?f=html");
    });
    svr.Delete(R"(/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string id = req.matches[1];
      const std::optional<JobRecord> job = visible_job(req, id);
      if (!job || job->status == "dismissed" || !runner_.dismiss(id)) return no_such_job(res, id);  // dismissed meanwhile
      send_json(res, 200, status_info(*store_->find(id), public_url_));
    });
    svr.Get(R"(/jobs/([^/]+)/results)", [this](const httplib::Request& req, httplib::Response& res) {
      const std::optional<JobRecord> job = finished_job(req, res, req.matches[1]);
      if (!job) return;
      // /req/core/job-results-param-outputs: only the outputs named, each one the job has.
      std::vector<RequestedOutput> outputs = requested_of(*job);
      const std::vector<std::string> ids = ids_of(outputs);
      const std::vector<std::string> asked = outputs_param(req);
      for (const std::string& id : asked)
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
          return send_problem(res, exception_type::kInvalidParameter, 400, "Bad Request",
                              "job " + job->id + " has no output '" + id + "' (outputs=)");
      if (!asked.empty())
        outputs.erase(std::remove_if(outputs.begin(), outputs.end(),
                                     [&](const RequestedOutput& o) {
                                       return std::find(asked.begin(), asked.end(), o.id) == asked.end();
                                     }),
                      outputs.end());
      send_results(req, res, job->id, outputs);
    });
    svr.Get(R"(/jobs/([^/]+)/results/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const std::optional<JobRecord> job = finished_job(req, res, req.matches[1]);
      if (!job) return;
      send_output(req, res, *job, req.matches[2]);
    });
  }

 private:
  // A claimed job's run, from its stored request: the checks execute()
  // made, made again by whichever node claimed it.
  PreparedJob prepare(const JobRecord& job) {
    const ops::Operation* op = find_service_operation(job.process);
    if (!op) throw Error(ErrorKind::BadInput, "no process '" + job.process + "' on this node");
    ops::ParameterValues values = read_execute_request(*op, job.request, sources_, runner_.folder(job.id));
    // A remote input is read as it is now, not as GDAL cached it for an
    // earlier job (its /vsicurl/ cache lives as long as the process).
    for (const ops::ParameterSpec& p : op->spec.parameters)
      if (p.is_input())
        for (const std::string& dataset : values.texts(p.name))
          if (dataset.rfind("/vsicurl/", 0) == 0) VSICurlPartialClearCache(dataset.c_str());
    set_outputs(values, op->spec, runner_.folder(job.id));
    values.check_required();
    values.set("max-cells", std::to_string(static_cast<long long>(options_.max_cells)));
    return PreparedJob(*op, std::move(values));
  }

  // The user the request's token names (the pre-routing handler let only
  // known tokens through).
  User user_of(const httplib::Request& req) const {
    return users_.authenticate(req.get_header_value("Authorization")).value_or(User{});
  }

  // Job `id` if the request's user may see it: another user's job is "no
  // such job" to them, as one that does not exist (its ID says nothing).
  std::optional<JobRecord> visible_job(const httplib::Request& req, const std::string& id) const {
    std::optional<JobRecord> job = store_->find(id);
    if (job && !Users::may_see(user_of(req), job->owner)) return std::nullopt;
    return job;
  }

  void no_such_job(httplib::Response& res, const std::string& id) {
    send_problem(res, exception_type::kNoSuchJob, 404, "No such job", "no job '" + id + "'");
  }

  // A failed job's exception: 400 where it failed on what the client sent
  // (an unusable input or value), 500 where the server failed.
  void send_failure(httplib::Response& res, const JobRecord& job) {
    if (job.client_fault)
      return send_problem(res, exception_type::kInvalidParameter, 400, "Bad Request", job.message);
    send_problem(res, exception_type::kFailed, 500, "Job failed", job.message);
  }

  // The outputs job `job` was asked for (all its process declares where
  // the request named none).
  std::vector<RequestedOutput> requested_of(const JobRecord& job) const {
    const ops::Operation* op = find_service_operation(job.process);
    return op ? requested_outputs(op->spec, job.request) : std::vector<RequestedOutput>{};
  }
  static std::vector<std::string> ids_of(const std::vector<RequestedOutput>& outputs) {
    std::vector<std::string> ids;
    for (const RequestedOutput& o : outputs) ids.push_back(o.id);
    return ids;
  }

  // The results document of job `id` (at `job_url`): each of `asked` it
  // has, by reference (its link and media type; a folder output's link
  // lists its files) or by value (transmissionMode "value": text as it is,
  // JSON as JSON, other bytes in base64). Throws lsm::Error(BadInput) for a
  // value larger than kMaxValueBytes.
  Json results_document(const std::string& id, const std::string& job_url,
                        const std::vector<RequestedOutput>& asked) const {
    Json results = Json::object();
    const std::map<std::string, JobOutput> outputs = job_outputs(runner_.folder(id));
    for (const RequestedOutput& output : asked) {
      const auto it = outputs.find(output.id);
      if (it == outputs.end()) continue;  // an output this run did not make
      const std::string type = it->second.folder() ? "application/json" : media_type_of(it->second.file);
      if (!output.by_value || it->second.folder()) {  // a folder's value would be its listing of links anyway
        results[output.id] = {{"href", job_url + "/results/" + output.id}, {"type", type}};
        continue;
      }
      results[output.id] = output_value(output.id, it->second.file, type);
    }
    return results;
  }

  // The most bytes one output is sent by value in a results document.
  static constexpr uintmax_t kMaxValueBytes = 64u << 20;

  // The results document of job `id`, or 413 where an output asked for by
  // value is too large to be sent so.
  void send_results(const httplib::Request& req, httplib::Response& res, const std::string& id,
                    const std::vector<RequestedOutput>& outputs) {
    Json doc;
    try {
      doc = results_document(id, public_url_ + "/jobs/" + id, outputs);
    } catch (const Error& e) {
      return send_problem(res, "about:blank", 413, "Payload Too Large", e.what());
    }
    send_document(req, res, doc, "results", "Results of job " + id);
  }

  // One output by value (qualifiedInputValue of results.yaml).
  static Json output_value(const std::string& id, const fs::path& file, const std::string& type) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(file, ec);
    if (ec || size > kMaxValueBytes)
      throw Error(ErrorKind::BadInput, "output '" + id + "' holds " + std::to_string(ec ? 0 : size) +
                                           " bytes, more than the 64 MiB sent by value: ask for it by reference");
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Json value = {{"mediaType", type}};
    if (type.rfind("application/json", 0) == 0) {
      value["value"] = Json::parse(bytes, nullptr, false);  // our own output: valid JSON
    } else if (type.rfind("text/", 0) == 0) {
      value["value"] = bytes;
    } else {
      char* encoded = CPLBase64Encode(static_cast<int>(bytes.size()), reinterpret_cast<const GByte*>(bytes.data()));
      value["value"] = std::string(encoded);
      CPLFree(encoded);
      value["encoding"] = "base64";
    }
    return value;
  }

  // One output of a finished job as its own response: a file streamed (a
  // CSV as JSON with ?f=json), a folder output as the list of its files'
  // links; also each file of a folder output by its own name (level_00).
  void send_output(const httplib::Request& req, httplib::Response& res, const JobRecord& job, const std::string& id) {
    const std::vector<std::string> ids = ids_of(requested_of(job));
    const std::map<std::string, JobOutput> outputs = job_outputs(runner_.folder(job.id));
    const std::string job_url = public_url_ + "/jobs/" + job.id;
    fs::path file;
    for (const std::string& requested : ids) {
      const auto it = outputs.find(requested);
      if (it == outputs.end()) continue;
      if (requested == id && it->second.folder()) {
        Json listing = Json::object();
        for (const auto& [name, path] : it->second.files)
          listing[name] = {{"href", job_url + "/results/" + name}, {"type", media_type_of(path)}};
        return send_json(res, 200, listing);
      }
      if (requested == id) file = it->second.file;
      else if (it->second.folder() && it->second.files.count(id)) file = it->second.files.at(id);
    }
    if (file.empty())
      return send_problem(res, exception_type::kNoSuchJob, 404, "No such output",
                          "job " + job.id + " has no output '" + id + "'");
    if (req.has_param("f") && req.get_param_value("f") == "json" && file.extension() == ".csv")
      return send_json(res, 200, csv_as_json(file));
    if (req.has_param("f") && req.get_param_value("f") == "png" && file.extension() == ".tif") {
      const std::optional<std::string> png = png_thumbnail(file);
      if (!png)
        return send_problem(res, "about:blank", 500, "Internal Server Error", "no thumbnail of output '" + id + "'");
      return res.set_content(*png, "image/png");
    }
    serve_file(file, res);
  }

  // The job if it succeeded; else the problem is sent and nullopt returned.
  std::optional<JobRecord> finished_job(const httplib::Request& req, httplib::Response& res, const std::string& id) {
    const std::optional<JobRecord> job = visible_job(req, id);
    if (!job || job->status == "dismissed") {
      no_such_job(res, id);
      return std::nullopt;
    }
    if (job->status == "failed") {
      send_failure(res, *job);
      return std::nullopt;
    }
    if (job->status != "successful") {
      send_problem(res, exception_type::kResultNotReady, 404, "Result not ready",
                   "job " + id + " is " + job->status + " (" + std::to_string(job->progress) + " %)");
      return std::nullopt;
    }
    return job;
  }

  // A file, streamed; cpp-httplib answers range requests (GDAL's /vsicurl/) from it.
  static void serve_file(const fs::path& path, httplib::Response& res) {
    const auto size = static_cast<size_t>(fs::file_size(path));
    auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
    res.set_content_provider(size, media_type_of(path),
                             [in](size_t offset, size_t length, httplib::DataSink& sink) {
                               std::vector<char> buffer(std::min<size_t>(length, 1 << 20));
                               in->clear();
                               in->seekg(static_cast<std::streamoff>(offset));
                               in->read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
                               const std::streamsize got = in->gcount();
                               if (got <= 0) return false;
                               sink.write(buffer.data(), static_cast<size_t>(got));
                               return true;
                             });
  }

  void execute(const httplib::Request& req, httplib::Response& res) {
    const ops::Operation* op = find_service_operation(req.matches[1]);
    if (!op)
      return send_problem(res, exception_type::kNoSuchProcess, 404, "No such process",
                          "no process '" + std::string(req.matches[1]) + "'");
    // A process page's form (a person in a browser): its fields become the
    // execute request, the job runs asynchronously and the answer is its page.
    const bool from_form =
        req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
    const auto problem = [&](const std::string& type, int status, const std::string& title, const std::string& detail) {
      if (!from_form) return send_problem(res, type, status, title, detail);
      res.status = status;
      res.set_content(html_problem(status, title, detail), "text/html; charset=utf-8");
    };
    std::string body = req.body;
    if (from_form) {
      httplib::Params fields;
      httplib::detail::parse_query_text(req.body, fields);
      try {
        body = execute_request_from_form(process_description(op->spec, public_url_), fields).dump();
      } catch (const Error& e) {
        return problem(exception_type::kInvalidParameter, 400, "Bad Request", e.what());
      }
    }
    const std::string id = new_job_id();
    const std::string folder = runner_.folder(id);
    // Inline datasets are written to the job's folder now, and the stored
    // request names them instead: it is all a node needs to run the job.
    // Whatever refuses the job below takes the folder with it.
    struct FolderUntilAccepted {
      std::string path;
      bool accepted = false;
      ~FolderUntilAccepted() {
        std::error_code ec;
        if (!accepted) fs::remove_all(path, ec);
      }
    } written{folder};
    std::optional<ops::ParameterValues> read;
    std::vector<RequestedOutput> requested;
    bool document = false;
    try {
      nlohmann::json request = parse_execute_request(body);
      try {
        sources_.write_inline_values(op->spec, request, folder);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::Io) throw;
        return problem("about:blank", 500, "Internal Server Error", "the server cannot store the job's inline inputs");
      }
      body = request.dump();
      read.emplace(read_execute_request(*op, body, sources_, folder));
      requested = requested_outputs(op->spec, body);
      document = wants_document(body);
      ops::ParameterValues& values = *read;
      set_outputs(values, op->spec, folder);
      values.check_required();
      ops::run_budget(values, runner_.job_context(id));  // a memory-limit above --job-memory: refused now
      const double cells = ops::cells_of_run(values);
      // The job checks the limit again as it starts (every front end's runs do).
      values.set("max-cells", std::to_string(static_cast<long long>(options_.max_cells)));
      if (cells > options_.max_cells) {
        std::ostringstream text;
        text << "the input has " << cells << " cells, more than this server's --max-cells " << options_.max_cells;
        return problem(exception_type::kInvalidParameter, 413, "Payload Too Large", text.str());
      }
    } catch (const Error& e) {
      return problem(exception_type::kInvalidParameter, 400, "Bad Request",
                     roots_.without_server_paths(e.what(), private_folders_));
    }
    JobRecord job;
    job.id = id;
    job.process = op->spec.name;
    job.status = "accepted";
    job.message = "queued";
    job.created = job.updated = now_rfc3339();
    job.request = body;  // validated, inline values replaced by job: references
    job.owner = user_of(req).name;
    if (!store_->insert_within(job, options_.max_queue)) {
      res.set_header("Retry-After", "5");
      return problem("about:blank", 429, "Too Many Requests",
                     "the queue holds --max-queue " + std::to_string(options_.max_queue) + " jobs; retry later");
    }
    written.accepted = true;
    runner_.wake();
    const std::string location = public_url_ + "/jobs/" + id;
    if (from_form) {
      res.status = 303;  // See Other: the job's page
      res.set_header("Location", location + "?f=html");
      return;
    }
    const bool async = req.get_header_value("Prefer").find("respond-async") != std::string::npos;
    // Synchronous: the request waits for the job (the queue and the workers
    // apply as for any job) and gets the results document. At most a
    // quarter of the serving threads wait so; past that a synchronous
    // request is answered as an asynchronous one (201 and Location, no
    // Preference-Applied: RFC 7240 lets a server not apply a preference),
    // so that waiting clients never hold the threads that serve status,
    // pages and downloads.
    SyncSlot slot(sync_waiting_, max_sync_waiting());
    if (async || !slot.held()) {
      res.set_header("Location", location);
      if (async) res.set_header("Preference-Applied", "respond-async");
      return send_json(res, 201, status_info(*store_->find(id), public_url_));
    }
    const auto limit = std::chrono::seconds(options_.job_timeout > 0 ? static_cast<int64_t>(options_.job_timeout) + 60 : 86400);
    runner_.wait(id, limit);
    const std::optional<JobRecord> done = store_->find(id);
    res.set_header("Location", location);
    // /req/core/job-results-success-sync: the job a synchronous execution made.
    res.set_header("Link", "<" + location + ">; rel=\"monitor\"; type=\"application/json\"");
    if (done && done->status == "successful") {
      // /req/core/process-execute-sync-one: one output asked for is the
      // response itself (response "raw", the default); several, or
      // response "document", the results document.
      if (requested.size() == 1 && !document) return send_output(req, res, *done, requested.front().id);
      return send_results(req, res, id, requested);
    }
    if (done && done->status == "failed") return send_failure(res, *done);
    send_json(res, 201, status_info(*done, public_url_));
  }

  // One of the synchronous executions allowed to wait at once, while held.
  class SyncSlot {
   public:
    SyncSlot(std::atomic<int>& waiting, int most) : waiting_(waiting), held_(++waiting <= most) {
      if (!held_) --waiting_;
    }
    ~SyncSlot() {
      if (held_) --waiting_;
    }
    bool held() const { return held_; }

   private:
    std::atomic<int>& waiting_;
    bool held_;
  };
  int max_sync_waiting() const { return std::max(1, options_.http_threads / 4); }

  std::atomic<int> sync_waiting_{0};
  Options options_;
  std::string public_url_;  // public_url_of(options_)
  std::vector<std::string> private_folders_;  // the work folder, as given and canonical: never shown to clients
  Users users_;
  DataRoots roots_;
  InputSources sources_;  // refers to roots_
  std::unique_ptr<JobStore> store_;
  JobRunner runner_;
};

}  // namespace

int run_serve(const std::vector<std::string>& args) {
  Options o;
  po::options_description desc = options_of(o);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(ErrorKind::BadInput, std::string(e.what()) + " (see --help)");
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << desc << "\n";
    return 0;
  }
  if (o.data_roots.empty()) throw Error(ErrorKind::BadInput, "lsm serve needs --data-root DIR (the folders inputs may come from)");
  if (o.work_dir.empty()) throw Error(ErrorKind::BadInput, "lsm serve needs --work-dir DIR (the job store and outputs)");
  // Bounds that keep every derived quantity in range (threads, std::chrono
  // durations, the retention cut-off in int64 seconds) and refuse NaN.
  if (o.workers < 1 || o.workers > 256) throw Error(ErrorKind::BadInput, "--workers must be 1 to 256");
  if (o.http_threads < 4 || o.http_threads > 1024) throw Error(ErrorKind::BadInput, "--http-threads must be 4 to 1024");
  try {
    ops::memory_size(o.job_memory);
  } catch (const Error& e) {
    throw Error(ErrorKind::BadInput, "--job-memory " + std::string(e.what()));
  }
  try {
    ops::memory_size(o.max_output);
  } catch (const Error& e) {
    throw Error(ErrorKind::BadInput, "--max-output-bytes " + std::string(e.what()));
  }
  if (o.max_queue < 1 || o.max_queue > 1000000) throw Error(ErrorKind::BadInput, "--max-queue must be 1 to 1000000");
  if (!(o.max_cells >= 1 && o.max_cells <= 1e15))
    throw Error(ErrorKind::BadInput, "--max-cells must be 1 to 1e15 cells");
  if (!(o.job_timeout >= 0 && o.job_timeout <= 1e7))
    throw Error(ErrorKind::BadInput, "--job-timeout must be 0 (no limit) to 1e7 seconds");
  if (o.job_store != "sqlite" && !shared_store(o.job_store))  // only up to "://": a password may follow
    throw Error(ErrorKind::BadInput, "--job-store must be 'sqlite' or a postgresql:// URI (got '" +
                                         o.job_store.substr(0, std::min<size_t>(o.job_store.find("://"), 40)) + "')");
  if (!(o.job_lease >= 2 && o.job_lease <= 3600))
    throw Error(ErrorKind::BadInput, "--job-lease must be 2 to 3600 seconds");
  if (o.node_name.size() > 200 || o.node_name.find_first_of("\r\n\t") != std::string::npos)
    throw Error(ErrorKind::BadInput, "--node-name must be one line of at most 200 characters");
  if (!(o.retention >= 1 && o.retention <= 1e9))
    throw Error(ErrorKind::BadInput, "--retention must be 1 to 1e9 seconds");
  if (!o.public_url.empty() && ((o.public_url.rfind("http://", 0) != 0 && o.public_url.rfind("https://", 0) != 0) ||
                                 o.public_url.size() > 2000 ||
                                 o.public_url.find_first_of(" \t\r\n\"<>") != std::string::npos))
    throw Error(ErrorKind::BadInput, "--public-url must be an http:// or https:// URL without spaces or quotes");
  if (o.max_body < 1 || o.max_body > (int64_t(1) << 30))
    throw Error(ErrorKind::BadInput, "--max-body must be 1 to 1073741824 bytes");
  const size_t colon = o.listen.rfind(':');
  int port = 0;
  try {
    port = colon == std::string::npos ? -1 : std::stoi(o.listen.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) throw Error(ErrorKind::BadInput, "--listen must be HOST:PORT, not '" + o.listen + "'");
  check_remote_prefixes(o.remote_inputs);
  // A remote input that stops answering must not hold a worker for ever
  // (GDAL's default is no time-out); an operator's setting wins.
  if (!CPLGetConfigOption("GDAL_HTTP_TIMEOUT", nullptr)) CPLSetConfigOption("GDAL_HTTP_TIMEOUT", "60");
  const std::string host = o.listen.substr(0, colon);
  Users users = o.token_file.empty() ? Users() : Users(o.token_file);
  if (!users.enabled() && !loopback(host))
    throw Error(ErrorKind::BadInput, "--listen " + o.listen + " is not a loopback address: give --token-file");
  // The port first: a --listen that cannot be bound leaves no job store behind.
  httplib::Server svr;
  svr.set_payload_max_length(static_cast<size_t>(o.max_body));
  svr.new_task_queue = [threads = o.http_threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a
  // second lsm serve on the same port starts silently and takes half the
  // connections.
  int listening_socket = -1;
  svr.set_socket_options([&listening_socket](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening_socket = sock;  // the last one made is the one bound
  });
  if (!svr.bind_to_port(host.c_str(), port))
    throw Error(ErrorKind::Io, "cannot listen on " + o.listen + " (in use, or not an address of this machine)");
  // Debian's cpp-httplib 0.11 listens with a backlog of 5, compiled into the
  // library: a burst of connections beyond it is reset. Listening again on
  // the bound socket sets a deeper backlog (Linux takes the new value).
  if (listening_socket < 0 || ::listen(listening_socket, kListenBacklog) != 0)
    throw Error(ErrorKind::Io, std::string("cannot set the listen backlog: ") + std::strerror(errno));
  // A shared store first: a database that cannot be reached leaves no work folder behind.
  const bool shared = shared_store(o.job_store);
  std::unique_ptr<JobStore> store = shared ? open_job_store(o.job_store, o.work_dir) : nullptr;
  std::error_code ec;
  fs::create_directories(fs::path(o.work_dir) / "jobs", ec);
  if (!fs::is_directory(fs::path(o.work_dir) / "jobs"))
    throw Error(ErrorKind::Io, "cannot create the work folder '" + o.work_dir + "'");
  // One server a work folder with its own SQLite store: a second one would
  // take the first one's running jobs for interrupted ones, fail them and
  // delete their folders. The nodes of a shared store share the folder
  // (a shared lock), and keep a server with its own store out of it. The
  // lock goes with the process, however it ends.
  const int lock_fd = ::open((fs::path(o.work_dir) / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || ::flock(lock_fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0)
    throw Error(ErrorKind::Io, "the work folder '" + o.work_dir + "' is in use by another lsm serve" +
                                   (shared ? " with its own job store" : ""));
  if (!store) store = open_job_store(o.job_store, o.work_dir);
  // Unique per process: a node restarted under the same name must not
  // renew the leases of the jobs its last process left.
  if (o.node_name.empty()) {
    char host[256] = {};
    o.node_name = ::gethostname(host, sizeof host - 1) == 0 ? host : "node";
  }
  const std::string node = o.node_name + ":" + std::to_string(::getpid()) + ":" + new_job_id().substr(0, 8);

  // SIGINT/SIGTERM end the server through a thread that waits for them
  // (blocked everywhere else), so the shutdown runs outside a signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  recover(*store, (fs::path(o.work_dir) / "jobs").string());
  Service service(o, std::move(users), std::move(store), node);
  service.expire();
  service.routes(svr);

  std::mutex janitor_mutex;
  std::condition_variable janitor_wake;
  bool stopping = false;
  std::thread janitor([&] {  // results expire after --retention
    std::unique_lock<std::mutex> lock(janitor_mutex);
    const auto period = std::chrono::milliseconds(static_cast<int64_t>(std::min(60.0, o.retention / 2) * 1000) + 1);
    while (!janitor_wake.wait_for(lock, period, [&] { return stopping; })) service.expire();
  });
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    svr.stop();
  });
  if (!o.quiet) {
    std::cout << "lsm serve: listening on http://" << o.listen << "/ (data roots:";
    for (const std::string& r : o.data_roots) std::cout << " " << r;
    std::cout << "; work folder " << o.work_dir << "; job store " << service.store_description() << "; node " << node
              << ")" << std::endl;
  }
  svr.listen_after_bind();
  {
    std::lock_guard<std::mutex> lock(janitor_mutex);
    stopping = true;
  }
  janitor_wake.notify_all();
  janitor.join();
  if (svr.is_running()) svr.stop();
  pthread_kill(stopper.native_handle(), SIGTERM);  // if the stop came from elsewhere
  stopper.join();
  return 0;
}

}  // namespace lsm::serve
