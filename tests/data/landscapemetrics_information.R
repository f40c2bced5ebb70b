# landscapemetrics' information-theory metrics (lsm_l_ent, lsm_l_condent,
# lsm_l_joinent, lsm_l_mutinf, lsm_l_relmutinf with their defaults: 4
# neighbours, ordered pairs, log2) of the shared land-cover rasters, as the
# reference of tests/test_landscapemetrics_reference.cpp. Written by
#   Rscript tests/data/landscapemetrics_information.R ../shared/data/landcover/*.tif \
#     > tests/data/landscapemetrics_information.csv
# with landscapemetrics 2.x built from its public source
# (r-spatialecology/landscapemetrics; set-up in bench/zonal_peers.py) and
# R_LIBS pointing at it.
suppressMessages({library(terra); library(landscapemetrics)})
metrics <- c("lsm_l_ent", "lsm_l_condent", "lsm_l_joinent", "lsm_l_mutinf", "lsm_l_relmutinf")
cat("raster,metric,value\n")
for (path in commandArgs(trailingOnly = TRUE)) {
  v <- suppressWarnings(calculate_lsm(rast(path), what = metrics))
  for (i in seq_len(nrow(v))) cat(sprintf("%s,%s,%.17g\n", basename(path), toupper(v$metric[i]), v$value[i]))
}
