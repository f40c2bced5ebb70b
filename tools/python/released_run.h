#pragma once
// Runs an lsm job from Python without holding the interpreter: the work goes
// to a worker thread while the calling thread waits with the GIL released,
// waking every 50 ms to let Python run its signal handlers (Ctrl-C raises
// KeyboardInterrupt there, which sets the run's cancel flag: the engine
// stops at its next tile and removes what it was writing) and to hand the
// latest progress fraction to the caller's callback, on the caller's thread.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "operation_spec.h"

namespace lsm::python {

namespace py = pybind11;

/// Runs work(context) as described above and returns its result. `progress`
/// is None or a callable taking the fraction done (0..1); the lines the run
/// notes ("note: ...", "warning: ...") are appended to `notes`. Throws
/// py::error_already_set for KeyboardInterrupt and for an exception of the
/// callback (the run is cancelled first), else what the work threw.
template <class Result>
Result run_released(const std::function<Result(const ops::RunContext&)>& work, const py::object& progress,
                    std::vector<std::string>& notes) {
  std::atomic<bool> cancel{false};
  std::atomic<double> fraction{-1.0};
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<Result> result;
  std::exception_ptr failure;

  ops::RunContext context;
  context.cancel = &cancel;
  context.quiet = true;  // the caller's callback shows progress, not the terminal
  context.progress = [&fraction](double f) {
    fraction.store(f);
    return true;
  };
  context.note = [&](const std::string& line) {
    const std::lock_guard<std::mutex> lock(mutex);
    notes.push_back(line);
  };
  std::thread worker([&] {
    try {
      result.emplace(work(context));
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_all();
  });

  std::optional<py::error_already_set> python_error;
  double shown = -1.0;
  const auto show_progress = [&] {
    const double f = fraction.load();
    if (progress.is_none() || f <= shown) return;
    shown = f;
    try {
      progress(f);
    } catch (py::error_already_set& e) {
      python_error.emplace(std::move(e));
      cancel = true;
    }
  };
  for (bool ended = false; !ended;) {
    {
      py::gil_scoped_release released;
      std::unique_lock<std::mutex> lock(mutex);
      ended = finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
    }
    if (python_error) continue;  // cancelled: wait for the worker to stop
    if (PyErr_CheckSignals() != 0) {
      python_error.emplace();  // takes Python's pending exception (KeyboardInterrupt)
      cancel = true;
      continue;
    }
    show_progress();
  }
  worker.join();
  if (python_error) throw std::move(*python_error);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace lsm::python
