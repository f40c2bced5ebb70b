#include "row_range_scan.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "byte_message.h"
#include "error.h"
#include "gdal_class_raster.h"
#include "row_ranges.h"
#include "tile_scheduler.h"

namespace lsm::ops {

namespace {

// What rank 0 asks of the others: stop, or scan their range of this grid.
struct ScanRequest {
  bool stop = true;
  ScanRecipe recipe;
  ScanOptions options;  // tile sizes: the grid's, planned by rank 0
};

// A request's fields as bytes and back, in a fixed order (every rank runs this binary).
std::vector<uint8_t> encode(const ScanRequest& r) {
  ByteWriter b;
  b.value(static_cast<uint8_t>(r.stop));
  if (r.stop) return std::move(b.bytes);
  b.text(r.recipe.path);
  b.value(static_cast<int32_t>(r.recipe.band));
  b.value(static_cast<uint8_t>(r.recipe.nodata.has_value()));
  b.value(r.recipe.nodata.value_or(0.0));
  b.value(static_cast<int32_t>(r.recipe.backend));
  b.value(static_cast<int32_t>(r.options.rule));
  b.value(r.options.tile_width);
  b.value(r.options.tile_height);
  b.value(r.options.max_strip_cells);
  b.value(r.options.max_patch_array_bytes);
  b.text(r.options.temp_dir);
  return std::move(b.bytes);
}

ScanRequest decode(const std::vector<uint8_t>& bytes) {
  ByteReader b{bytes, "a scan request"};
  ScanRequest r;
  r.stop = b.value<uint8_t>() != 0;
  if (r.stop) return r;
  r.recipe.path = b.text();
  r.recipe.band = b.value<int32_t>();
  const bool has_nodata = b.value<uint8_t>() != 0;
  const double nodata = b.value<double>();
  if (has_nodata) r.recipe.nodata = nodata;
  r.recipe.backend = static_cast<Backend>(b.value<int32_t>());
  r.options.rule = static_cast<NeighbourRule>(b.value<int32_t>());
  r.options.tile_width = b.value<int64_t>();
  r.options.tile_height = b.value<int64_t>();
  r.options.max_strip_cells = b.value<int64_t>();
  r.options.max_patch_array_bytes = b.value<uint64_t>();
  r.options.temp_dir = b.text();
  return r;
}

// This rank's range of the request's grid, from `raster` (the request's,
// opened by this rank): negative codes read as nodata and noted (rank 0
// tells the job, which reads the border itself).
RowRangeSummary scan_range_of(GdalClassRaster& raster, const ScanRequest& r, TileLabeler* labeler, int rank, int ranks,
                              const ProgressFn& progress) {
  if (r.recipe.nodata) raster.set_nodata(*r.recipe.nodata);
  raster.take_border_codes(ClassRasterSource::BorderCodes::AsNodata);
  std::unique_ptr<TileLabeler> own;
  if (!labeler) labeler = (own = make_labeler(r.recipe.backend)).get();
  const TileGrid grid = plan_tiles(raster.info(), r.options.tile_width, r.options.tile_height, r.options.max_strip_cells);
  const auto range = tile_row_ranges(grid, ranks)[static_cast<size_t>(rank)];
  RowRangeSummary s = scan_row_range(raster, *labeler, r.options, grid, range.first, range.second, progress);
  s.met_border = raster.met_border_codes();
  return s;
}

// A range that failed: its message and kind travel instead of its patches.
RowRangeSummary failed(const std::exception& e) {
  RowRangeSummary s;
  s.error = e.what();
  const auto* error = dynamic_cast<const Error*>(&e);
  s.error_kind = error ? error->kind() : ErrorKind::Internal;
  return s;
}

}  // namespace

ScanRecipe scan_recipe(const ParameterValues& v, const std::string& input, Backend backend) {
  ScanRecipe r;
  r.path = input;
  r.band = static_cast<int>(v.integer("band"));
  if (v.spec().find("nodata") && v.given("nodata")) r.nodata = v.number("nodata");
  r.backend = backend;
  return r;
}

PatchTable scan_in_ranks(RankTransport& ranks, const ScanRecipe& recipe, TileLabeler& labeler,
                         const ScanOptions& options, const ProgressFn& progress) {
  // The grid is rank 0's to plan (its labeler's tile width), every rank's to use.
  GdalClassRaster raster(recipe.path, recipe.band);
  const RasterInfo info = raster.info();
  const TileGrid grid = plan_tiles(info, options.tile_width ? options.tile_width : labeler.preferred_tile_width(info.width),
                                   options.tile_height, options.max_strip_cells);
  ScanRequest request;
  request.stop = false;
  request.recipe = recipe;
  request.options = options;
  request.options.tile_width = grid.tile_width;
  request.options.tile_height = grid.tile_height;
  ranks.broadcast(encode(request));
  // Rank 0 scans its own range too; its failure waits for the others' summaries,
  // so that no rank is left waiting.
  RowRangeSummary own;
  try {
    own = scan_range_of(raster, request, &labeler, 0, ranks.size(), progress);
  } catch (const std::exception& e) {
    own = failed(e);
  }
  const std::vector<std::vector<uint8_t>> gathered = ranks.gather(serialize_summary(own));
  std::vector<RowRangeSummary> summaries;
  for (const std::vector<uint8_t>& bytes : gathered) summaries.push_back(deserialize_summary(bytes));
  for (size_t r = 0; r < summaries.size(); ++r)
    if (!summaries[r].error.empty())
      throw Error(summaries[r].error_kind, r == 0 ? summaries[r].error : "rank " + std::to_string(r) + ": " + summaries[r].error);
  // The landscape border was nodata to every rank, as to one process's
  // scan; the job reads it itself (rank 0: the second pass is its own).
  const bool met_border =
      std::any_of(summaries.begin(), summaries.end(), [](const RowRangeSummary& s) { return s.met_border; });
  PatchTable table = merge_row_ranges(info, options.rule, grid, std::move(summaries));
  table.ranks_met_border = met_border;
  return table;
}

std::function<PatchTable(ClassRasterSource&, TileLabeler&, const ScanOptions&, const ProgressFn&)> scan_across_ranks(
    RankTransport& ranks, ScanRecipe recipe) {
  return [&ranks, recipe](ClassRasterSource&, TileLabeler& labeler, const ScanOptions& options,
                          const ProgressFn& progress) { return scan_in_ranks(ranks, recipe, labeler, options, progress); };
}

void use_host_gpu_share(const RankTransport& ranks) { use_gpu_share_of_host_rank(ranks.host_rank(), ranks.host_ranks()); }

int serve_row_range_scans(RankTransport& ranks) {
  for (;;) {
    const ScanRequest request = decode(ranks.broadcast({}));
    if (request.stop) return 0;
    RowRangeSummary s;
    try {
      GdalClassRaster raster(request.recipe.path, request.recipe.band);
      s = scan_range_of(raster, request, nullptr, ranks.rank(), ranks.size(), {});
    } catch (const std::exception& e) {
      s = failed(e);
    }
    ranks.gather(serialize_summary(s));
  }
}

void stop_row_range_scans(RankTransport& ranks) { ranks.broadcast(encode(ScanRequest{})); }

}  // namespace lsm::ops
