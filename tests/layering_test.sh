#!/usr/bin/env bash
# Holds the layering of docs/ENGINE.md ("Layers"): each layer includes only
# what lies below it.
#   core and engine (metrics/, image_algos/, cuda/): no GDAL, no JSON or
#     argument library, no front end; only metrics/backends/ chooses CUDA
#   operations (gdal_driver/operations/): no GDAL type in its headers
#   front ends (tools/, gdal_driver/plugin/): the operation layer, not the
#     engine's algorithms
# and the engine tests link without GDAL. Usage: layering_test.sh SOURCE_DIR ENGINE_TEST_BINARY
set -uo pipefail
src=$1 engine_tests=$2
failures=0
fail() { echo "layering: $*"; failures=$((failures + 1)); }

# Quoted and angled includes of the files under a folder, as "file: header".
includes() { grep -HoE '^#include [<"][^>"]+[>"]' "$@" 2>/dev/null | sed -E 's/#include [<"]([^>"]+)[>"]/\1/'; }

while IFS= read -r line; do
  fail "$line: the core includes no GDAL, JSON or argument-parsing header"
done < <(includes $(find "$src/metrics" "$src/image_algos" "$src/cuda" -name '*.h' -o -name '*.cpp' -o -name '*.cu') |
         grep -E ':(gdal|cpl_|ogr_|nlohmann/|boost/program_options)')

while IFS= read -r line; do
  fail "$line: only metrics/backends chooses the CUDA backend"
done < <(includes $(find "$src/metrics" "$src/image_algos" -path '*/backends' -prune -o \( -name '*.h' -o -name '*.cpp' \) -print) |
         grep -E ':(cuda_runtime|[a-z_]+_cuda\.h|device_pool\.h)')

while IFS= read -r line; do
  fail "$line: the operation layer's headers hold no GDAL type"
done < <(includes "$src"/gdal_driver/operations/*.h | grep -E ':(gdal|cpl_|ogr_)')

# The CLI, the service and the Python module render operations: they include
# the operation layer (landscape_tables.h: the in-memory landscape), error.h, gdal_errors.h (GDAL's reasons), csv_fields.h (the tables'
# CSV, read back by the service), atomic_output.h (the signal handler) and huge_page_malloc.h (the
# program's start: its malloc on huge pages), their own headers,
# GDAL's, Boost's, SQLite's, libpq's, cpp-httplib's, nlohmann-json's and pybind11's, and POSIX's
# (signals, the work folder's lock, socket options); the CLI under mpirun also MPI's header, the
# transport it implements for the operation layer and that layer's loop of the other ranks.
own_headers=$(cd "$src/tools" && find . -name '*.h' -printf '%f\n' | sed 's/\./\\./g' | paste -sd'|')
while IFS= read -r line; do
  fail "$line: the front ends hold no algorithm: they include the operation layer only"
done < <(includes $(find "$src/tools" -name '*.cpp' -o -name '*.h') |
         grep -vE ":(${own_headers}|command_line\.h|operation_spec\.h|operations\.h|operation_json\.h|landscape_tables\.h|pybind11/.*|common_parameters\.h|rank_transport\.h|row_range_scan\.h|mpi\.h|error\.h|gdal_errors\.h|csv_fields\.h|atomic_output\.h|huge_page_malloc\.h|cpl_[a-z_]+\.h|gdal\.h|gdal_utils\.h|boost/.*|nlohmann/.*|httplib\.h|sqlite3\.h|libpq-fe\.h|unistd\.h|pthread\.h|signal\.h|sys/(file|socket)\.h|fcntl\.h|[a-z_]+)$")

# The driver renders operations too: beside the operation layer only GDAL's
# headers, the GDAL I/O helpers (environment, errors, georeferencing), the
# raster interfaces, its own, and as the CLI atomic_output.h, signal.h and
# unistd.h (the handler that removes temporaries when a signal ends a tool).
while IFS= read -r line; do
  fail "$line: the driver holds no algorithm: it includes the operation layer only"
done < <(includes "$src"/gdal_driver/plugin/*.cpp "$src"/gdal_driver/plugin/*.h |
         grep -vE ":(connection\.h|derived_raster\.h|operation_spec\.h|operations\.h|error\.h|gdal_environment\.h|gdal_errors\.h|geotiff_output\.h|raster\.h|atomic_output\.h|signal\.h|unistd\.h|gdal[a-z_]*\.h|cpl_[a-z_]+\.h|ogr[a-z_]*\.h|[a-z_]+)$")

# No front end names an operation: what each one does with an operation is
# in its declaration (outputs, how the driver serves it), so a new operation
# needs no front-end code. Operation names are the specs' `s.name = "..."`.
names=$(grep -ho 's\.name = "[a-z]*"' "$src"/gdal_driver/operations/*_operation.cpp | sed -E 's/.*"([a-z]+)"/\1/' | paste -sd'|')
while IFS= read -r line; do
  fail "$line: a front end names an operation; declare what it needs in the operation's spec"
done < <(grep -HnE "[\"'](${names})[\"']" $(find "$src/tools" "$src/gdal_driver/plugin" -name '*.cpp' -o -name '*.h' -o -name '*.py') |
         grep -vE "^[^:]+:[0-9]+: *(//|#)")

while IFS= read -r line; do
  fail "$line: the driver does not include the CLI"
done < <(includes "$src"/gdal_driver/plugin/*.cpp "$src"/gdal_driver/plugin/*.h | grep -E ':(command_line\.h|cli_)')

if ldd "$engine_tests" | grep -q libgdal; then fail "$engine_tests links GDAL"; fi

if ((failures)); then
  echo "layering: $failures violation(s)"
  exit 1
fi
echo "layering: every layer includes only what lies below it; the engine tests link without GDAL"
