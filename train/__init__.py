"""Training and evaluation entry points: the arena (``python -m train.evaluate``), ratings, openings."""
