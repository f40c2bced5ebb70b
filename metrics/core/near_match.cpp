#include "near_match.h"

#include <algorithm>
#include <cctype>

namespace lsm {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring).
size_t edits(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string near_match(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 64) return "";
  const std::string w = lower(word);
  const size_t allowed = w.size() <= 4 ? 1 : 2;
  std::string best;
  size_t best_edits = allowed + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    const size_t e = edits(w, lower(c));
    if (e < best_edits) {
      best = c;
      best_edits = e;
      tie = false;
    } else if (e == best_edits && lower(c) != lower(best)) {
      tie = true;
    }
  }
  return best_edits <= allowed && !tie ? best : "";
}

}  // namespace lsm
