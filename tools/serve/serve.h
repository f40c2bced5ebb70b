#pragma once
// `lsm serve`: the raster-processing service, OGC API - Processes - Part 1:
// Core 1.0 over HTTP (docs/SERVICE.md). Every operation of the operation
// layer that the service shows is a process; jobs run in-process and are
// kept in a SQLite job store in --work-dir, so they survive restarts.
#include <string>
#include <vector>

namespace lsm::serve {

/// Runs the server until SIGINT/SIGTERM; returns the exit code. Throws
/// lsm::Error(BadInput) for bad options (a missing --data-root, a public
/// --listen address without --token-file, ...).
int run_serve(const std::vector<std::string>& args);

}  // namespace lsm::serve
