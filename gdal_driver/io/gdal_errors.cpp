#include "gdal_errors.h"

#include <mutex>

namespace lsm {

namespace {

std::mutex failure_mutex;
// From threads without a handler of their own (GDAL's decoding threads) while
// remember_gdal_failure() is the process's handler (the lsm program); guarded
// by failure_mutex.
std::string first_failure;
// From this thread while a HeldGdalMessages is alive (the driver in a host).
thread_local std::string first_failure_here;
// The user data of the handler HeldGdalMessages pushes: how the handler tells
// a held thread from the process's handler.
char held_marker;

std::string one_line(std::string text) {
  // GDAL's decoding threads name their private in-memory copy of the block
  // ("/vsimem/decompress_0x...tif:Using code not yet in table"): not the user's file.
  if (text.rfind("/vsimem/decompress_", 0) == 0 && text.find(':') != std::string::npos)
    text = text.substr(text.find(':') + 1);
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  // libtiff ends some messages with a colon and no detail ("ZIPDecode:ZLib error:").
  while (!text.empty() && (text.back() == ':' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

void CPL_STDCALL remember_gdal_failure(CPLErr level, CPLErrorNum, const char* message) {
  if (level < CE_Failure || !message || !*message) return;
  if (CPLGetErrorHandlerUserData() == &held_marker) {
    if (first_failure_here.empty()) first_failure_here = message;
    return;
  }
  std::lock_guard<std::mutex> lock(failure_mutex);
  if (first_failure.empty()) first_failure = message;
}

void forget_gdal_failures() {
  std::lock_guard<std::mutex> lock(failure_mutex);
  first_failure.clear();
  first_failure_here.clear();
  CPLErrorReset();
}

std::string gdal_failure_reason() {
  {
    // The decoding thread's message is the root cause ("TIFFFillStrip:Read
    // error at scanline 130"); the reading thread only saw its consequence.
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (!first_failure.empty()) return one_line(first_failure);
  }
  if (!first_failure_here.empty()) return one_line(first_failure_here);
  const char* last = CPLGetLastErrorMsg();
  if (last && *last) return one_line(last);
  return kNoGdalReason;
}

}  // namespace lsm

namespace lsm {

HeldGdalMessages::HeldGdalMessages() {
  first_failure_here.clear();
  CPLPushErrorHandlerEx(remember_gdal_failure, &held_marker);
}

HeldGdalMessages::~HeldGdalMessages() { CPLPopErrorHandler(); }

}  // namespace lsm
