// lsm label INPUT OUTPUT.tif: the patch-ID raster (UInt32, 0 = nodata), with
// IDs equal to the PIDs of lsm metrics' patch table.
#include "cli_common.h"
#include "commands.h"
#include "gdal_class_raster.h"
#include "geotiff_output.h"

namespace lsm::cli {

int run_label(const std::vector<std::string>& args) {
  PatchOptions o;
  std::string output;
  po::options_description desc("lsm label options");
  desc.add_options()
      ("input", po::value(&o.input)->required(), "input raster (any format GDAL reads)")
      ("output", po::value(&output)->required(), "output GeoTIFF of patch IDs");
  add_patch_options(desc, o);
  add_raster_output_options(desc);
  po::positional_options_description pos;
  pos.add("input", 1).add("output", 1);
  if (!parse(args, desc, pos, "usage: lsm label INPUT OUTPUT.tif [options]")) return 0;

  ScanOptions scan = o.scan_options();
  scan.keep_patch_ids = true;
  GdalClassRaster source(o.input, o.band);
  auto labeler = make_labeler(parse_backend(o.backend));
  const RasterInfo info = source.info();
  GeoTiffOutput out(output, info.width, info.height, GDT_UInt32, georeference_of(source.dataset()), 0.0);
  const ProgressFn progress = terminal_progress(o.quiet);
  const PatchTable table = scan_patches(source, *labeler, scan, scaled_progress(progress, 0.0, 0.5));
  GeoTiffLabelSink sink(out);
  write_patch_ids(source, *labeler, table, sink, scaled_progress(progress, 0.5, 1.0));
  out.commit();
  return 0;
}

}  // namespace lsm::cli
