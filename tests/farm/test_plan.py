"""test_plan.py: the farm's piece planning (tools/farm/cdn_farm/plan.py) on
made-up frame lists: pieces cover every frame once, start at keyframes, and are
at least the asked length but for the last."""
import os
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.environ["CDN_FARM_DIR"])
from cdn_farm import plan  # noqa: E402


class FakeIndex:
    def __init__(self, n, keyframes, step=40, tb=Fraction(1, 1000)):
        self.pts = [21 + step * i for i in range(n)]
        self.keyframes = keyframes
        self.time_base = tb

    @property
    def frames(self):
        return len(self.pts)

    def seconds(self, i):
        return float((self.pts[i] - self.pts[0]) * self.time_base)


class PlanTest(unittest.TestCase):
    def test_cuts_at_keyframes_after_the_length(self):
        # 25 fps, keyframes every 12 frames (0.48 s): pieces of >= 1 s are 2 GOPs and a bit: 36 frames.
        idx = FakeIndex(100, list(range(0, 100, 12)))
        self.assertEqual(plan.split_at_keyframes(idx, 1.0), [(0, 36), (36, 72), (72, 100)])

    def test_covers_every_frame_once(self):
        idx = FakeIndex(250, [0, 7, 30, 31, 90, 200, 249])
        for seconds in (0.01, 0.5, 1, 3, 100):
            pieces = plan.split_at_keyframes(idx, seconds)
            self.assertEqual(pieces[0][0], 0)
            self.assertEqual(pieces[-1][1], 250)
            for (a, b), (c, _) in zip(pieces, pieces[1:]):
                self.assertEqual(b, c)
                self.assertIn(c, idx.keyframes)
                self.assertGreaterEqual(idx.seconds(c) - idx.seconds(a), seconds)

    def test_no_keyframe_but_the_first_is_one_piece(self):
        self.assertEqual(plan.split_at_keyframes(FakeIndex(50, [0]), 0.1), [(0, 50)])

    def test_signature_changes_with_the_arguments(self):
        st = os.stat(__file__)
        a = plan.job_signature("/x.mkv", st, ["--mode", "pipd"], 20)
        self.assertEqual(a, plan.job_signature("/x.mkv", st, ["--mode", "pipd"], 20))
        self.assertNotEqual(a, plan.job_signature("/x.mkv", st, ["--mode", "bm3d"], 20))
        self.assertNotEqual(a, plan.job_signature("/x.mkv", st, ["--mode", "pipd"], 10))


if __name__ == "__main__":
    unittest.main()
