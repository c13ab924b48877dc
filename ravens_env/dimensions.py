"""Sizes and masses of every procedural object, in metres and kilograms.

Kept apart from `assets.py` (which builds the shapes in PyBullet) so that code that only
reasons about scenes — the scene graph, the question language, the VQA service — can use them
without importing the simulator.
"""

BLOCK_SIZE = 0.04  # metres, edge of a cube block
BLOCK_MASS = 0.05  # kg
BOWL_MASS = 0.1  # kg
BOWL_RADIUS = 0.062  # metres, rim outer radius (bowl is ~12.4 cm wide)
BOWL_HEIGHT = 0.04  # metres, rim top
BOWL_FLOOR = 0.006  # metres, floor top; a block in a bowl has its centre at 0.026
BOWL_FLOOR_RADIUS = 0.045  # metres, where the wall starts
STAND_SIZE = (0.07, 0.17, 0.01)  # metres (x, y, z) full extents of the pyramid stand
TABLE_RGBA = (0.36, 0.35, 0.33, 1.0)
ARM_RGBA = (0.72, 0.73, 0.75, 1.0)
ARM_DARK_RGBA = (0.2, 0.2, 0.22, 1.0)

# Arm dimensions (metres): shoulder height, upper arm, forearm, wrist-pitch axis to suction tip.
ARM_SHOULDER_HEIGHT = 0.40
ARM_UPPER = 0.50
ARM_FORE = 0.50
ARM_TOOL = 0.12
