"""Training and evaluation: each learner's whole loop, the run loop that drives them, the arena.

* :mod:`train.run`: the run loop (folder, budget, resume, logs, periodic
  evaluation); :mod:`train.learner`: the protocol every learner follows;
* :mod:`train.alphazero`: AlphaZero; :mod:`train.ppo`: masked PPO;
* :mod:`train.arena`: matches, openings and ratings;
* command lines: ``python -m train.selfplay`` (``checkers-train``),
  ``python -m train.evaluate`` (``checkers-arena``), ``python -m train.benchmark``.

Importing this package loads nothing heavy and changes no process setting.
"""
