"""Rasters handed to lsm from Python: arrays, paths and open datasets."""
import os

import numpy

# Read in place by the engine (numpy's dtype: lsm's CellType).
IN_PLACE = (numpy.uint8, numpy.uint16, numpy.int16, numpy.int32)
NO_CLASS = numpy.iinfo(numpy.int32).min  # the engine's mark of a cell outside the landscape


def dataset_path(raster):
    """The file behind an open rasterio or GDAL dataset, else None."""
    name = getattr(raster, "name", None)  # rasterio
    if name is None and hasattr(raster, "GetDescription"):  # osgeo.gdal.Dataset
        name = raster.GetDescription()
    if isinstance(name, str) and os.path.exists(name):
        return name
    return None


def is_dataset(raster):
    return hasattr(raster, "read") and hasattr(raster, "res") or hasattr(raster, "ReadAsArray")


def dataset_array(raster, band):
    """A dataset without a file (GDAL's MEM, rasterio's MemoryFile): its band, cell size and nodata value."""
    if hasattr(raster, "ReadAsArray"):  # osgeo.gdal
        b = raster.GetRasterBand(band)
        transform = raster.GetGeoTransform()
        return b.ReadAsArray(), (abs(transform[1]), abs(transform[5])), b.GetNoDataValue()
    return raster.read(band), tuple(abs(r) for r in raster.res), raster.nodata


def class_codes(array):
    """``array`` as class codes the engine reads in place: a 2-D array of
    uint8, uint16, int16 or int32 whose rows are contiguous (a copy only
    where that is not so already).

    Other integer types are converted where every value fits int32; floats
    where every value is whole (NaN cells become nodata); booleans are read
    as 0 and 1; a masked array's masked cells become nodata. Raises
    ValueError for a shape that is not 2-D, values that are not class codes,
    TypeError for a dtype that holds no numbers.
    """
    mask = numpy.ma.getmaskarray(array) if numpy.ma.isMaskedArray(array) else None
    a = numpy.asarray(array.data if mask is not None else array)
    if a.ndim != 2:
        raise ValueError("a landscape is a 2-D array of class codes (rows, columns), not %d-D of shape %s"
                         % (a.ndim, a.shape))
    if a.size == 0:
        raise ValueError("a landscape needs at least one row and one column, not shape %s" % (a.shape,))
    kind = a.dtype.kind
    if kind == "b":
        a = a.view(numpy.uint8)
    elif kind == "f":
        finite = numpy.isfinite(a)
        whole = finite & (a == numpy.floor(a))
        if not numpy.all(whole | numpy.isnan(a)):
            row, column = numpy.argwhere(~(whole | numpy.isnan(a)))[0]
            raise ValueError("the array holds %r at row %d, column %d: class codes are whole numbers (a float "
                             "array is read where every value is whole; NaN is nodata)" % (a[row, column], row, column))
        if finite.any() and (a[finite].min() <= NO_CLASS or a[finite].max() > numpy.iinfo(numpy.int32).max):
            raise ValueError("the array holds values outside the int32 range of class codes")
        a = numpy.where(finite, a, NO_CLASS).astype(numpy.int32)
    elif kind in "iu":
        if a.dtype.type not in IN_PLACE:
            if a.size and (a.min() <= NO_CLASS or a.max() > numpy.iinfo(numpy.int32).max):
                raise ValueError("the array of %s holds values outside the int32 range of class codes" % a.dtype)
            a = a.astype(numpy.int32)
    else:
        raise TypeError("a landscape is an array of integer class codes, not of %s" % a.dtype)
    if mask is not None and mask.any():
        a = numpy.where(mask, NO_CLASS, a.astype(numpy.int32))
    if a.strides[1] != a.itemsize or a.strides[0] % a.itemsize:
        a = numpy.ascontiguousarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a
