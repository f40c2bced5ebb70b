#pragma once
// The lsm subcommands; each takes the arguments after its name and returns
// the exit code. Errors are thrown as lsm::Error and reported by main().
#include <string>
#include <vector>

namespace lsm::cli {
int run_metrics(const std::vector<std::string>& args);
int run_label(const std::vector<std::string>& args);
int run_synth(const std::vector<std::string>& args);
int run_kmeans(const std::vector<std::string>& args);
int run_gradient(const std::vector<std::string>& args);
int run_pyramid(const std::vector<std::string>& args);
int run_hog(const std::vector<std::string>& args);
int run_fuzzy(const std::vector<std::string>& args);
}  // namespace lsm::cli
