#!/usr/bin/python3
# test_figures.py: the report's figures (tools/eval/harness/draw.py, matplotlib),
# checked on the PNG files they write:
# - plot: each point's dot is drawn in its series' colour where its values say
#   (log x: equal ratios give equal distances; larger y is higher), labels lie
#   inside the axes and off each other and off the dots, even when crowded;
#   bad input (no points, x <= 0) raises ValueError;
# - montage: every crop appears pixel for pixel, zoomed by repeating pixels, at
#   the place it was given; the overview carries the red region mark; the
#   figure is wide enough for its title and footer; mixed sizes raise.
import os
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'eval'))
from harness import draw  # noqa: E402


def rgb(hex_colour):
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


class Figures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix='cdn-figures-')
        self.png = os.path.join(self.tmp.name, 'f.png')

    def tearDown(self):
        self.tmp.cleanup()

    def read(self):
        self.assertFalse(os.path.exists(self.png + '.part'))
        return draw.read_rgb(self.png)

    def test_plot_points_land_where_their_values_say(self):
        points = [('fast', 'A', 1.0, 20.0), ('slow', 'B', 100.0, 30.0), ('middle', 'B', 10.0, 25.0)]
        lay = draw.plot(self.png, 't', points, 'ms', 'dB', hlines=[(18.0, 'noisy')], footer=['GPU: x', 'CPU: y'])
        img = self.read()
        self.assertEqual(img.shape[:2], (620, 960))
        self.assertEqual(lay['colours'][0], draw.PALETTE[0])
        self.assertEqual(lay['colours'][1], draw.PALETTE[1])
        for (x, y), c in zip(lay['points'], lay['colours']):
            self.assertTrue((img[int(round(y)), int(round(x))] == rgb(c)).all(), (x, y, c))
        (x0, y0), (x1, y1), (x2, y2) = lay['points']
        self.assertGreater(x1, x0)
        self.assertLess(y1, y0)                       # higher quality is higher up
        self.assertAlmostEqual(x2 - x0, x1 - x2, delta=1.0)   # log axis: 1, 10, 100 evenly spaced
        self.assertAlmostEqual(y0 - y2, y2 - y1, delta=1.0)   # linear y: 20, 25, 30 evenly spaced
        ax = lay['axes']
        for x, y in lay['points']:
            self.assertTrue(ax[0] < x < ax[2] and ax[1] < y < ax[3])

    def test_plot_labels_stay_inside_and_apart_when_crowded(self):
        points = [(f'method number {i}', 'ABCD'[i % 4], 1.0 + 0.05 * i, 30.0 + 0.1 * i) for i in range(8)]
        points += [('far', 'A', 1000.0, 20.0)]
        lay = draw.plot(self.png, 't', points, 'ms', 'dB')
        ax, labels = lay['axes'], lay['labels']
        for b in labels:
            self.assertTrue(ax[0] <= b[0] and b[2] <= ax[2] and ax[1] <= b[1] and b[3] <= ax[3], b)
        overlaps = [(i, j) for i in range(len(labels)) for j in range(i) if _overlap(labels[i], labels[j])]
        self.assertEqual(overlaps, [])
        dots_hit = [(i, k) for i, b in enumerate(labels) for k, (x, y) in enumerate(lay['points'])
                    if b[0] < x < b[2] and b[1] < y < b[3]]
        self.assertEqual(dots_hit, [])

    def test_plot_refuses_what_a_log_axis_cannot_show(self):
        with self.assertRaises(ValueError):
            draw.plot(self.png, 't', [('bad', 'C', 0.0, 25.0)], 'ms', 'dB')
        with self.assertRaises(ValueError):
            draw.plot(self.png, 't', [], 'ms', 'dB')
        self.assertFalse(os.path.exists(self.png))

    def test_montage_shows_every_crop_pixel_for_pixel(self):
        rng = np.random.default_rng(7)
        tiles = [(rng.integers(0, 170, (16, 12, 3), dtype=np.uint8), ['name', 'PSNR']) for _ in range(4)]  # no red
        overview = np.full((40, 80, 3), 200, dtype=np.uint8)
        title = 'a title much wider than three columns of small tiles, to see the figure grow'
        lay = draw.montage(self.png, title, tiles, zoom=2, columns=3, overview=overview, region=(8, 8, 24, 16),
                           footer=['GPU: x', 'CPU: y'])
        img = self.read()
        self.assertEqual(img.shape[1::-1], lay['size'])
        self.assertGreater(lay['size'][0], 3 * 24 + 200)        # the title decides the width
        self.assertEqual(lay['tile_size'], (24, 32))
        for (t, _), (x, y) in zip(tiles, lay['tiles']):
            shown = img[y:y + 32, x:x + 24]
            self.assertTrue((shown == np.repeat(np.repeat(t, 2, axis=0), 2, axis=1)).all(), (x, y))
        # 5 cells (overview + 4 tiles) in 3 columns: tiles 0 and 1 beside the overview, tile 2 below it
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = lay['tiles']
        self.assertTrue(y0 == y1 and y2 == y3 > y0 + 32 and x2 == 10 and x0 < x1 and x3 == x0)
        red = (img[..., 0] > 180) & (img[..., 1] < 90) & (img[..., 2] < 90)
        self.assertGreater(red[:, :lay['tiles'][0][0]].sum(), 40)   # the region's mark, on the overview only
        self.assertEqual(red[:, lay['tiles'][0][0]:].sum(), 0)

    def test_montage_refuses_mixed_sizes(self):
        tiles = [(np.zeros((16, 16, 3), np.uint8), ['a']), (np.zeros((8, 8, 3), np.uint8), ['b'])]
        with self.assertRaises(ValueError):
            draw.montage(self.png, 't', tiles)
        with self.assertRaises(ValueError):
            draw.montage(self.png, 't', [])


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


if __name__ == '__main__':
    unittest.main(verbosity=2)
