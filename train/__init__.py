"""Training and evaluation entry points: the arena (``python -m train.evaluate``), ratings, openings."""

import agents as _agents  # noqa: E402,F401  (sets OMP_WAIT_POLICY before any module here imports torch)
