#!/usr/bin/python3
"""OpenCV's HOGDescriptor over a whole image, in lsm's dense layout.

usage: opencv_hog_reference.py IMAGE OUT.npy CELL BLOCK BINS SIGNED(0|1)

One detection window covers the image's whole cells; blocks step one cell;
gamma correction off; L2-Hys (OpenCV's only normalisation). OpenCV orders a
block's cells and the window's blocks column-major; they are reordered to
lsm's (and skimage's) [block_row][block_col][cell_row][cell_col][bin].
Exits 3 when OpenCV's Python bindings are missing.
"""
import sys

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"OpenCV's Python bindings are missing ({e})", file=sys.stderr)
    sys.exit(3)

path, out, cell, block, bins, signed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
height, width = image.shape[:2]
cells_x, cells_y = width // cell, height // cell
side = block * cell
hog = cv2.HOGDescriptor((cells_x * cell, cells_y * cell), (side, side), (cell, cell), (cell, cell), bins, 1, -1.0,
                        cv2.HOGDescriptor_L2Hys, 0.2, False, cv2.HOGDescriptor_DEFAULT_NLEVELS, bool(signed))
d = hog.compute(image, (cell, cell), (0, 0), ((0, 0),)).ravel()
blocks_x, blocks_y = cells_x - block + 1, cells_y - block + 1
# OpenCV: [block_col][block_row][cell_col][cell_row][bin]
d = d.reshape(blocks_x, blocks_y, block, block, bins).transpose(1, 0, 3, 2, 4)
np.save(out, d.astype(np.float64))
