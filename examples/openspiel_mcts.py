"""OpenSpiel's MCTSBot playing international draughts (checkers_env.openspiel) against OpenSpiel's random bot.

    python examples/openspiel_mcts.py --games 4 --simulations 100
    python examples/openspiel_mcts.py --smoke           # seconds: the test suite runs this

``import checkers_env.openspiel`` registers every variant with OpenSpiel
(``checkers_env_<variant>``); from then on the game is an ordinary
``pyspiel`` game, and any OpenSpiel algorithm or bot plays it. One OpenSpiel
action is one leg in this project's action encoding, so a multi-capture is
several consecutive actions of the same player.
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="international")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=100, help="MCTS simulations a leg")
    parser.add_argument("--max-moves", type=int, default=150, help="whole moves before a game is a draw")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a tiny budget")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.simulations, args.max_moves = 2, 4, 8

    import pyspiel
    from open_spiel.python.algorithms import evaluate_bots, mcts
    from open_spiel.python.bots import uniform_random

    import checkers_env.openspiel  # noqa: F401  (registers checkers_env_<variant> with pyspiel)

    game = pyspiel.load_game(f"checkers_env_{args.variant}", {"max_moves": args.max_moves})
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    mcts_bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=args.simulations, evaluator=evaluator,
                            random_state=rng)  # fmt: skip
    score = 0.0
    for k in range(args.games):
        random_bot = uniform_random.UniformRandomBot(1 - k % 2, rng)
        bots = [mcts_bot, random_bot] if k % 2 == 0 else [random_bot, mcts_bot]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        mine = returns[k % 2]
        score += (mine + 1) / 2
        print(f"game {k + 1}: MCTS played {'first' if k % 2 == 0 else 'second'}, its return {mine:+.0f}")
    print(f"MCTS ({args.simulations} simulations a leg) scored {score:.1f}/{args.games} against random play")


if __name__ == "__main__":
    main()
