#pragma once
// `lsm --describe`: a JSON description of every command, built from the
// commands' own option descriptions (each command runs with describing on:
// its parse() reports its options instead of parsing, and it returns before
// any work). The QGIS provider (tools/qgis/) generates its algorithms from it.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace lsm::cli {

/// One command of the lsm tool: its name, one-line summary and entry point.
struct CommandEntry {
  std::string name;
  std::string summary;
  int (*run)(const std::vector<std::string>& args);
};

/// While describing, parse() hands its options here and returns false.
bool describing();
void describe_options(const boost::program_options::options_description& desc,
                      const boost::program_options::positional_options_description& positional,
                      const std::string& usage);

/// The JSON document: {"program": "lsm", "version": ..., "commands": [{"name",
/// "summary", "usage", "parameters": [{"name", "type", "required", "default",
/// "choices", "multiple", "positional", "help", "output"}]}]}.
std::string describe_commands(const std::vector<CommandEntry>& commands);

}  // namespace lsm::cli
