#pragma once
// The FRAGSTATS distribution statistics (MN, AM, MD, RA, SD, CV; "Distribution
// statistics" in the FRAGSTATS 4.2 documentation) of a sequence that is
// replayed rather than held: sums in passes over the sequence, in its order,
// and the exact median by radix selection on the values' bits (16 bits per
// pass), so memory does not grow with the number of values. Results are
// bit-identical to distribution() on the same values in the same order.
#include <cstdint>
#include <functional>

#include "fragstats_metrics.h"

namespace lsm {

/// Replays every (value, weight) pair of a sequence, always in the same order.
using PairReplay = std::function<void(const std::function<void(double, double)>&)>;

/// distribution() of the replayed values with their weights (AM's weights).
/// Pairs with a NaN value are left out when `skip_nan` (ENN of classes with
/// one patch). Up to `max_in_memory` values are gathered and handed to
/// distribution(); more are computed in passes.
Distribution streamed_distribution(const PairReplay& replay, bool skip_nan, uint64_t max_in_memory);

}  // namespace lsm
