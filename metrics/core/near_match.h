#pragma once
// The name a user probably meant: for one clear error line that answers a
// typo ("unknown metric 'SHDII'; did you mean SHDI?").
#include <string>
#include <vector>

namespace lsm {

/// The candidate nearest to `word` by edit distance (insertions, deletions,
/// substitutions and swaps of neighbouring letters, case-insensitive), when
/// it is near enough to be a typo: at most 1 edit for words of up to 4
/// letters, 2 for longer ones. Empty when none is, or when two are equally
/// near (a guess would mislead).
std::string near_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace lsm
