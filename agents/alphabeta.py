"""The numba alpha-beta kernel behind :class:`agents.minimax.MinimaxAgent`.

One call of :func:`search` runs an iterative-deepening principal-variation
search (PVS, fail-soft negamax) from a root state of the rules core
(``checkers_env.core.movegen`` layout) and reports every root move whose
score equals the best one, so that the caller can break ties with its own
seeded generator.

Everything is ``njit(cache=True)`` and nothing recurses: numba cannot cache a
recursive function (it segfaults on load), so the tree walk keeps its own
explicit stack of per-ply arrays. Pieces of the search:

* **Move ordering**: the transposition-table move, then captures (more pieces
  first), promotions, two killer moves per ply and the history heuristic.
* **Transposition table**: ``tt`` is ``int64[size, 3]`` (``size`` a power of
  two), keyed by a Zobrist hash updated incrementally per move. The draw clock
  joins the key only near the draw limit, where it changes the value.
* **Quiescence**: at the horizon a side that must capture keeps capturing
  (all its moves are captures under forced capture); with ``forced_capture``
  off, it may stand pat and searches captures only. A side that is *under*
  capture threat at the horizon gets one ply more (``EV_THREAT_EXT``), so a
  piece left hanging is seen.
* **Limits**: depth, nodes and wall time (checked every 1,024 nodes through a
  tiny object-mode call). The first iteration always finishes so that a move is
  always found; an interrupted iteration is discarded.
* **Draws**: a position whose draw clock has reached the limit scores 0 (the
  side to move is checked for having no legal move first, as ``Board.outcome``
  does); evaluations shrink toward 0 as the clock runs out, so a side that is
  ahead prefers to make progress.

Scores are centipawn-like integers from the side to move: a man is 100. A win
found ``p`` plies from the root scores ``MATE - p``.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from checkers_env.core.bits import lowest_bit, popcount
from checkers_env.core.geometry import NE, NW, SE, SW, step
from checkers_env.core.jit import kernel
from checkers_env.core.movegen import (
    DRAWN,
    M_CAPT,
    M_FROM,
    M_PROMO,
    M_TO,
    MAX_MOVES,
    MOVE_FIELDS,
    MOVER_LOSES,
    P_DRAW_PLIES,
    P_DRAW_RESET_PROMO,
    P_FORCED,
    P_H,
    P_MASK,
    P_PROMO_BLACK,
    P_PROMO_WHITE,
    S_BLACK,
    S_CLOCK,
    S_KINGS,
    S_TURN,
    S_WHITE,
    count_moves,
    generate_moves,
    has_capture,
    judge,
    move_pieces,
)

MAX_PLY = 64
INF = 1 << 40
MATE = 1_000_000
MATE_BOUND = MATE - 1000  # scores beyond this are wins/losses at a known distance
SKIP = -(1 << 61)  # ordering score of a move not to be searched
DONE = -(1 << 62)  # ordering score of a move already searched

# tt columns and flags
T_KEY = 0
T_SCORE = 1
T_INFO = 2  # depth | flag << 8 | (move + 1) << 16
TT_FIELDS = 3
F_EXACT = 0
F_LOWER = 1
F_UPPER = 2

# ``info`` output words
I_BEST = 0  # index of the chosen move in the generator's order (first of the ties)
I_SCORE = 1
I_DEPTH = 2  # deepest completed iteration
I_NODES = 3
I_NMOVES = 4
I_NTIES = 5  # moves with the best score, listed in ``ties``
I_ABORTED = 6  # the last iteration was cut short by a limit
INFO_SIZE = 8

# evaluation weights (``ev`` words); masks are padded-bit bitboards
EV_MAN = 0
EV_KING = 1
EV_BACK = 2  # per own man on its own back row
EV_CENTER = 3  # per man on a centre square
EV_KCENTER = 4  # per king on a centre square
EV_KEDGE = 5  # penalty per king on the edge
EV_MOB = 6  # per plain step available
EV_SUPPORT = 7  # per man with a friend (or the edge) right behind it, per back diagonal
EV_ADV = 8  # per row a man has advanced
EV_RUN = 9  # runaway man: nothing of the opponent's can cross its path
EV_TRADE = 10  # bonus per piece off the board for the side ahead in material
EV_START = 11  # pieces on the board at the start (both sides)
EV_THREAT_EXT = 12  # extend one ply at the horizon when the side to move is under capture threat
EV_M_CENTER = 13
EV_M_EDGE = 14
EV_M_OFFBOARD = 15  # bits 0..62 that are not squares (ghosts and beyond the board)
EV_ROWS = 16  # board size
EV_USE_TT = 17  # 0 turns the transposition table off (tests compare against plain minimax)
EV_ADV_W = 32  # [64] rows advanced by a White man on each bit
EV_ADV_B = EV_ADV_W + 64
EV_CONE_W = EV_ADV_B + 64  # [64] squares that can stop a White man on each bit
EV_CONE_B = EV_CONE_W + 64
EV_SIZE = EV_CONE_B + 64


@kernel(allocates=True)
def _now():
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@kernel
def evaluate(white, black, kings, turn, clock, params, ev):
    """Static score of a quiet position from the side to move's view."""
    h = params[P_H]
    mask = params[P_MASK]
    wm = white & ~kings
    wk = white & kings
    bm = black & ~kings
    bk = black & kings
    nwm = popcount(wm)
    nwk = popcount(wk)
    nbm = popcount(bm)
    nbk = popcount(bk)
    mat_w = nwm * ev[EV_MAN] + nwk * ev[EV_KING]
    mat_b = nbm * ev[EV_MAN] + nbk * ev[EV_KING]
    score = mat_w - mat_b
    # Trading down when ahead makes the extra piece count for more (a classic strategy point).
    if mat_w != mat_b:
        gone = ev[EV_START] - (nwm + nwk + nbm + nbk)
        score += ev[EV_TRADE] * gone if mat_w > mat_b else -ev[EV_TRADE] * gone
    # Back-rank guard: men at home keep the opponent from crowning.
    pos = ev[EV_BACK] * (popcount(wm & params[P_PROMO_BLACK]) - popcount(bm & params[P_PROMO_WHITE]))
    centre = ev[EV_M_CENTER]
    edge = ev[EV_M_EDGE]
    pos += ev[EV_CENTER] * (popcount(wm & centre) - popcount(bm & centre))
    pos += ev[EV_KCENTER] * (popcount(wk & centre) - popcount(bk & centre))
    pos -= ev[EV_KEDGE] * (popcount(wk & edge) - popcount(bk & edge))
    # Mobility: plain steps (kings counted one square per direction).
    empty = mask & ~(white | black)
    mob_w = popcount(step(wm, h, NW) & empty) + popcount(step(wm, h, NE) & empty)
    mob_b = popcount(step(bm, h, SW) & empty) + popcount(step(bm, h, SE) & empty)
    if wk != 0:
        mob_w += popcount(step(wk, h, NW) & empty) + popcount(step(wk, h, NE) & empty)
        mob_w += popcount(step(wk, h, SW) & empty) + popcount(step(wk, h, SE) & empty)
    if bk != 0:
        mob_b += popcount(step(bk, h, NW) & empty) + popcount(step(bk, h, NE) & empty)
        mob_b += popcount(step(bk, h, SW) & empty) + popcount(step(bk, h, SE) & empty)
    pos += ev[EV_MOB] * (mob_w - mob_b)
    # Men in pairs: a man with a friend (or the edge) right behind it cannot be
    # jumped from the front along that diagonal.
    off = ev[EV_M_OFFBOARD]
    own_w = white | off
    own_b = black | off
    sup_w = popcount(wm & step(own_w, h, NE)) + popcount(wm & step(own_w, h, NW))
    back_b = params[P_PROMO_WHITE]  # Black's home row: nothing behind it
    sup_b = popcount(bm & (step(own_b, h, SW) | back_b)) + popcount(bm & (step(own_b, h, SE) | back_b))
    pos += ev[EV_SUPPORT] * (sup_w - sup_b)
    # Advancement and runaway men (a free path to the crown).
    rows = ev[EV_ROWS]
    x = wm
    while x:
        s = lowest_bit(x)
        x &= x - 1
        a = ev[EV_ADV_W + s]
        pos += ev[EV_ADV] * a
        if (ev[EV_CONE_W + s] & black) == 0:
            pos += ev[EV_RUN] + 4 * a * ev[EV_RUN] // (4 * rows)
    x = bm
    while x:
        s = lowest_bit(x)
        x &= x - 1
        a = ev[EV_ADV_B + s]
        pos -= ev[EV_ADV] * a
        if (ev[EV_CONE_B + s] & white) == 0:
            pos -= ev[EV_RUN] + 4 * a * ev[EV_RUN] // (4 * rows)
    score += pos
    draw = params[P_DRAW_PLIES]
    if draw > 0:
        half = draw // 2
        if clock > half:
            remaining = draw - clock
            if remaining < 0:
                remaining = 0
            score = score * remaining // (draw - half)
    return score if turn == 0 else -score


@kernel
def zobrist_key(white, black, kings, turn, zob):
    """Zobrist hash of a position.

    ``zob`` is ``int64[6, 256]``: ``zob[colour * 2 + is_king, bit]`` per piece,
    ``zob[4, 0]`` for Black to move, ``zob[5, clock]`` for the draw clock.
    """
    key = 0
    x = white
    while x:
        s = lowest_bit(x)
        x &= x - 1
        key ^= zob[(kings >> s) & 1, s]
    x = black
    while x:
        s = lowest_bit(x)
        x &= x - 1
        key ^= zob[2 + ((kings >> s) & 1), s]
    if turn == 1:
        key ^= zob[4, 0]
    return key


@kernel(inline="always")
def _clock_key(key, clock, draw, zob):
    # The clock only changes a value near the draw limit; elsewhere positions
    # that differ only in their clock share an entry.
    if draw > 0 and clock > draw - MAX_PLY:
        return key ^ zob[5, clock & 255]
    return key


@kernel(inline="always")
def _to_tt(score, ply):
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@kernel(inline="always")
def _from_tt(score, ply):
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@kernel(allocates=True)
def search(root, params, ev, zob, tt, bufs, scratch, history, max_depth, max_nodes, time_limit, info, ties):
    """Iterative deepening from ``root``; returns nothing, writes ``info`` and ``ties``.

    ``max_depth`` (plies, >= 1), ``max_nodes`` (0 = no limit) and ``time_limit``
    (seconds, 0 = none) stop the deepening; the first iteration always
    completes. ``bufs`` is ``int64[MAX_PLY, MAX_MOVES, MOVE_FIELDS]``,
    ``history`` ``int64[64, 64]``, ``ties`` ``int64[MAX_MOVES]``. Moves are
    indices into the core generator's order for ``root`` (``Board.legal_moves``
    order). If the root has no legal move, ``info[I_NMOVES]`` is 0.
    """
    t0 = _now()
    draw = params[P_DRAW_PLIES]
    forced = params[P_FORCED]
    reset_promo = params[P_DRAW_RESET_PROMO]
    tt_mask = tt.shape[0] - 1
    threat_ext = ev[EV_THREAT_EXT]
    use_tt = ev[EV_USE_TT]

    sw = np.zeros(MAX_PLY, np.int64)
    sb = np.zeros(MAX_PLY, np.int64)
    sk = np.zeros(MAX_PLY, np.int64)
    st = np.zeros(MAX_PLY, np.int64)
    sc = np.zeros(MAX_PLY, np.int64)
    hk = np.zeros(MAX_PLY, np.int64)
    alpha = np.zeros(MAX_PLY, np.int64)
    beta = np.zeros(MAX_PLY, np.int64)
    alpha0 = np.zeros(MAX_PLY, np.int64)
    best = np.zeros(MAX_PLY, np.int64)
    bestm = np.zeros(MAX_PLY, np.int64)
    depth = np.zeros(MAX_PLY, np.int64)
    nmov = np.zeros(MAX_PLY, np.int64)
    cur = np.zeros(MAX_PLY, np.int64)
    tried = np.zeros(MAX_PLY, np.int64)
    mode = np.zeros(MAX_PLY, np.int64)  # how the current child is searched: 0 full, 1 null window, 2 root re-search
    qonly = np.zeros(MAX_PLY, np.int64)  # only captures are searched here (quiescence without forced capture)
    order = np.zeros((MAX_PLY, MAX_MOVES), np.int64)
    killer = np.full((MAX_PLY, 2), -1, np.int64)

    sw[0] = root[S_WHITE]
    sb[0] = root[S_BLACK]
    sk[0] = root[S_KINGS]
    st[0] = root[S_TURN]
    sc[0] = root[S_CLOCK]
    hk[0] = zobrist_key(sw[0], sb[0], sk[0], st[0], zob)

    n_root = generate_moves(sw[0], sb[0], sk[0], st[0], params, bufs[0], scratch)
    if n_root < 0:
        n_root = scratch[0]
    info[:] = 0
    info[I_NMOVES] = n_root
    if n_root == 0:
        return
    # Root ordering carried between iterations: previous scores, best first.
    root_score = np.zeros(n_root, np.int64)
    root_order = np.arange(n_root)
    for i in range(n_root):
        root_score[i] = popcount(bufs[0, i, M_CAPT]) * 100 + bufs[0, i, M_PROMO] * 50
    iter_ties = np.zeros(n_root, np.int64)
    nodes = 0
    done_best = 0
    done_score = 0
    done_ties = 1
    ties[0] = 0
    aborted = False
    if max_depth > MAX_PLY - 8:
        max_depth = MAX_PLY - 8

    for it in range(1, max_depth + 1):
        # stable sort of the root moves by the previous iteration's scores
        root_order = np.argsort(-root_score, kind="mergesort")
        n_ties = 0
        p = 0
        best[0] = -INF
        bestm[0] = -1
        tried[0] = 0
        entering = False
        returned = False
        value = 0
        while True:
            if entering:
                # ------------------------------------------------ enter node p
                entering = False
                returned = True  # unless the node is set up for its moves below
                nodes += 1
                if (nodes & 1023) == 0 and it > 1:
                    if max_nodes > 0 and nodes >= max_nodes:
                        aborted = True
                        break
                    if time_limit > 0.0 and _now() - t0 >= time_limit:
                        aborted = True
                        break
                w = sw[p]
                b = sb[p]
                k = sk[p]
                t = st[p]
                c = sc[p]
                d = depth[p]
                own = w if t == 0 else b
                opp = b if t == 0 else w
                bufp = bufs[p]
                leaf = False
                extended = False
                if d <= 0 and not has_capture(params, own, opp, k, t):
                    # quiet horizon: count the moves cheaply to see a loss or a draw
                    leaf = True
                    n = count_moves(w, b, k, t, params, bufp, scratch)
                    verdict = judge(n, c, draw)
                    if verdict == MOVER_LOSES:
                        value = -(MATE - p)
                    elif verdict == DRAWN:
                        value = 0
                    elif d == 0 and threat_ext != 0 and p < MAX_PLY - 2 and has_capture(params, opp, own, k, 1 - t):
                        # under capture threat at the horizon: every reply gets searched
                        # (its children at depth -1, so the extension never chains)
                        extended = True
                        leaf = False
                    else:
                        value = evaluate(w, b, k, t, c, params, ev)
                if not leaf:
                    n = generate_moves(w, b, k, t, params, bufp, scratch)
                    if n < 0:
                        n = scratch[0]
                    leaf = True
                    verdict = judge(n, c, draw)
                    if verdict == MOVER_LOSES:
                        value = -(MATE - p)
                    elif verdict == DRAWN:
                        value = 0
                    elif p >= MAX_PLY - 2:
                        value = evaluate(w, b, k, t, c, params, ev)
                    else:
                        leaf = False
                if not leaf:
                    qonly[p] = 0
                    best[p] = -INF
                    if d <= 0 and forced == 0 and not extended:
                        # captures are optional: stand pat, then look at captures only
                        stand = evaluate(w, b, k, t, c, params, ev)
                        best[p] = stand
                        qonly[p] = 1
                        if stand >= beta[p]:
                            value = stand
                            leaf = True
                        elif stand > alpha[p]:
                            alpha[p] = stand
                if not leaf:
                    alpha0[p] = alpha[p]
                    tt_move = -1
                    key = _clock_key(hk[p], c, draw, zob)
                    slot = key & tt_mask
                    if use_tt != 0 and tt[slot, T_KEY] == key:
                        inf = tt[slot, T_INFO]
                        tt_move = (inf >> 16) - 1
                        if tt_move >= n:
                            tt_move = -1
                        if d >= 1 and (inf & 0xFF) >= d:
                            flag = (inf >> 8) & 0xFF
                            ts = _from_tt(tt[slot, T_SCORE], p)
                            if (
                                flag == F_EXACT
                                or (flag == F_LOWER and ts >= beta[p])
                                or (flag == F_UPPER and ts <= alpha[p])
                            ):
                                value = ts
                                leaf = True
                if leaf:
                    p -= 1
                    continue
                # move ordering: TT move, captures (most pieces first), promotions, killers, history
                k0 = killer[p, 0]
                k1 = killer[p, 1]
                for i in range(n):
                    capt = bufp[i, M_CAPT]
                    if i == tt_move:
                        s = 1 << 50
                    elif capt != 0:
                        s = (1 << 45) + popcount(capt) * 1000 + bufp[i, M_PROMO]
                    elif qonly[p] == 1:
                        s = SKIP
                    elif bufp[i, M_PROMO] != 0:
                        s = 1 << 44
                    else:
                        mv = bufp[i, M_FROM] * 64 + bufp[i, M_TO]
                        if mv == k0:
                            s = 1 << 43
                        elif mv == k1:
                            s = 1 << 42
                        else:
                            s = history[bufp[i, M_FROM], bufp[i, M_TO]]
                    order[p, i] = s
                nmov[p] = n
                bestm[p] = -1
                tried[p] = 0
                returned = False
            if returned:
                # ------------------------------------ the child of move cur[p] returned
                returned = False
                j = cur[p]
                score = -value
                if p == 0:
                    if mode[0] == 1 and score >= best[0]:
                        # null window around the best failed high: get the exact score
                        mode[0] = 2
                        alpha[1] = -INF
                        beta[1] = -(best[0] - 1)
                        _prepare_child(1, j, sw, sb, sk, st, sc, hk, bufs, params, zob, reset_promo)
                        depth[1] = it - 1
                        p = 1
                        entering = True
                        continue
                    root_score[j] = score
                    if mode[0] != 1:
                        if score > best[0]:
                            best[0] = score
                            bestm[0] = j
                            n_ties = 0
                        if score == best[0]:
                            iter_ties[n_ties] = j
                            n_ties += 1
                    tried[0] += 1
                else:
                    if mode[p] == 1 and score > alpha[p] and score < beta[p]:
                        # null-window search failed high: search again with the full window
                        mode[p] = 0
                        alpha[p + 1] = -beta[p]
                        beta[p + 1] = -alpha[p]
                        _prepare_child(p + 1, j, sw, sb, sk, st, sc, hk, bufs, params, zob, reset_promo)
                        depth[p + 1] = depth[p] - 1
                        p += 1
                        entering = True
                        continue
                    tried[p] += 1
                    if score > best[p]:
                        best[p] = score
                        bestm[p] = j
                        if score > alpha[p]:
                            alpha[p] = score
                    if best[p] >= beta[p]:
                        bufp = bufs[p]
                        if bufp[j, M_CAPT] == 0:
                            mv = bufp[j, M_FROM] * 64 + bufp[j, M_TO]
                            if killer[p, 0] != mv:
                                killer[p, 1] = killer[p, 0]
                                killer[p, 0] = mv
                            dd = depth[p] if depth[p] > 0 else 0
                            history[bufp[j, M_FROM], bufp[j, M_TO]] += dd * dd
                        if depth[p] >= 1:
                            _store(tt, hk[p], sc[p], draw, zob, tt_mask, best[p], depth[p], F_LOWER, j, p)
                        value = best[p]
                        p -= 1
                        returned = True
                        continue
            # ---------------------------------------------------- next move of p
            if p == 0:
                if tried[0] >= n_root:
                    break
                j = root_order[tried[0]]
                cur[0] = j
                if tried[0] == 0:
                    alpha[1] = -INF
                    beta[1] = INF
                    mode[0] = 0
                else:
                    alpha[1] = -best[0]
                    beta[1] = -(best[0] - 1)
                    mode[0] = 1
                _prepare_child(1, j, sw, sb, sk, st, sc, hk, bufs, params, zob, reset_promo)
                depth[1] = it - 1
                p = 1
                entering = True
                continue
            n = nmov[p]
            j = -1
            top = SKIP
            for i in range(n):
                if order[p, i] > top:
                    top = order[p, i]
                    j = i
            if j < 0:
                # every move tried (or only quiet ones left where only captures count)
                if depth[p] >= 1:
                    flag = F_UPPER if best[p] <= alpha0[p] else F_EXACT
                    _store(tt, hk[p], sc[p], draw, zob, tt_mask, best[p], depth[p], flag, bestm[p], p)
                value = best[p]
                p -= 1
                returned = True
                continue
            order[p, j] = DONE
            cur[p] = j
            if tried[p] == 0:
                alpha[p + 1] = -beta[p]
                beta[p + 1] = -alpha[p]
                mode[p] = 0
            else:
                alpha[p + 1] = -alpha[p] - 1
                beta[p + 1] = -alpha[p]
                mode[p] = 1
            _prepare_child(p + 1, j, sw, sb, sk, st, sc, hk, bufs, params, zob, reset_promo)
            depth[p + 1] = depth[p] - 1
            p += 1
            entering = True
        if aborted:
            break
        done_best = bestm[0]
        done_score = best[0]
        done_ties = n_ties
        for i in range(n_ties):
            ties[i] = iter_ties[i]
        # the best move leads the next iteration, its ties right after it
        root_score[done_best] = best[0] + 1
        info[I_DEPTH] = it
        if done_score > MATE_BOUND or done_score < -MATE_BOUND:
            break  # a forced result: deeper search cannot change it
        if n_root == 1:
            break
        if max_nodes > 0 and nodes >= max_nodes:
            break
        if time_limit > 0.0 and _now() - t0 >= 0.5 * time_limit:
            break  # the next iteration would most likely not finish
    info[I_BEST] = done_best
    info[I_SCORE] = done_score
    info[I_NODES] = nodes
    info[I_NTIES] = done_ties
    info[I_ABORTED] = 1 if aborted else 0


@kernel
def _prepare_child(q, j, sw, sb, sk, st, sc, hk, bufs, params, zob, reset_promo):
    """Write the state after move ``j`` of ply ``q - 1`` into ply ``q``."""
    p = q - 1
    frm = bufs[p, j, M_FROM]
    to = bufs[p, j, M_TO]
    capt = bufs[p, j, M_CAPT]
    promo = bufs[p, j, M_PROMO]
    w = sw[p]
    b = sb[p]
    k = sk[p]
    t = st[p]
    key = hk[p] ^ zob[4, 0]
    was_king = (k >> frm) & 1
    side = 2 * t
    key ^= zob[side + was_king, frm]
    key ^= zob[side + (1 if (was_king == 1 or promo == 1) else 0), to]
    x = capt
    other = 2 - side
    while x:
        s = lowest_bit(x)
        x &= x - 1
        key ^= zob[other + ((k >> s) & 1), s]
    w, b, k = move_pieces(w, b, k, t, frm, to, capt, promo)
    sw[q] = w
    sb[q] = b
    sk[q] = k
    st[q] = 1 - t
    if capt != 0 or (promo == 1 and reset_promo == 1):
        sc[q] = 0
    else:
        sc[q] = sc[p] + 1
    hk[q] = key


@kernel
def _store(tt, hkey, clock, draw, zob, tt_mask, score, depth, flag, move, ply):
    key = _clock_key(hkey, clock, draw, zob)
    slot = key & tt_mask
    tt[slot, T_KEY] = key
    tt[slot, T_SCORE] = _to_tt(score, ply)
    tt[slot, T_INFO] = (depth & 0xFF) | (flag << 8) | ((move + 1) << 16)


def new_buffers() -> np.ndarray:
    """Per-ply move buffers for :func:`search` (pages are only touched when used)."""
    return np.zeros((MAX_PLY, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)


def new_zobrist() -> np.ndarray:
    """The fixed Zobrist table (the same in every process, so hashes are reproducible)."""
    rng = np.random.default_rng(0x5EED_C0DE)
    return rng.integers(-(1 << 62), 1 << 62, size=(6, 256), dtype=np.int64)
