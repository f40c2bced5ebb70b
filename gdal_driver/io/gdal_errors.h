#pragma once
// GDAL's reason for a failure, for lsm's one error line. GDAL reports a
// failure through CPLError in the thread that met it, which is often one of
// its own decoding threads (GDAL_NUM_THREADS), so the calling thread's
// CPLGetLastErrorMsg() is then empty; lsm's handler remembers failures from
// every thread so that the line still names GDAL's cause
// ("TIFFFillStrip:Read error at scanline 130; got 544 bytes, expected 579").
#include <cpl_error.h>

#include <string>

namespace lsm {

/// GDAL error handler of the lsm program: prints nothing (lsm prints one line
/// of its own) and remembers the first failure (CE_Failure, CE_Fatal) since
/// forget_gdal_failures() for gdal_failure_reason(), from any thread where it
/// is the process's handler, for the calling thread where HeldGdalMessages
/// pushed it. Thread-safe.
void CPL_STDCALL remember_gdal_failure(CPLErr level, CPLErrorNum number, const char* message);

/// What gdal_failure_reason() says when GDAL gave none.
inline const std::string kNoGdalReason = "GDAL gave no reason";

/// Forgets the failures remembered so far: called before an operation that
/// may fail, so that its line names its own cause.
void forget_gdal_failures();

/// GDAL's reason for the failure just seen: the first failure remembered by
/// remember_gdal_failure() as the process's handler, else in this thread
/// under HeldGdalMessages, else the calling thread's last CPLError message,
/// else "GDAL gave no reason". At most 300 characters, one line.
std::string gdal_failure_reason();

/// While alive, GDAL's messages in this thread are remembered, not printed:
/// the driver holds them while it opens and reads, and every reader of an
/// input raster while it reads (its threads may be lsm's own), so that each
/// failure reaches the user once, as lsm's line with GDAL's reason in it.
class HeldGdalMessages {
 public:
  HeldGdalMessages();
  ~HeldGdalMessages();
  HeldGdalMessages(const HeldGdalMessages&) = delete;
  HeldGdalMessages& operator=(const HeldGdalMessages&) = delete;
};

}  // namespace lsm
