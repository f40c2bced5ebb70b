#pragma once
// Process-wide GDAL settings for streaming: registers the drivers, lets GDAL
// decompress on all cores (GDAL_NUM_THREADS=ALL_CPUS) and caps GDAL's block
// cache at 64 MB. The scheduler reads each block row about once, so a large
// cache only raises peak memory (GDAL's default is 5% of RAM). Settings the
// user made through GDAL_NUM_THREADS or GDAL_CACHEMAX are kept.
namespace lsm {
void prepare_gdal_for_streaming();
/// Makes prepare_gdal_for_streaming() a no-op: for the plugin driver, whose
/// host process (gdal_translate, QGIS) owns GDAL's settings.
void leave_gdal_settings_to_host();
}  // namespace lsm
