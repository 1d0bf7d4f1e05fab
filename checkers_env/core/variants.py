"""Rule variants as data.

A variant is a frozen :class:`Rules` value. Every rule of ``docs/RULES.md``
is one field, documented next to the rule it encodes; the engine reads fields
and never variant names. This module is the only place that names variants.

Derived variants are made with :func:`dataclasses.replace` (or
``Rules.replace``), e.g. the "no mandatory capture" house rule::

    >>> from checkers_env.core.variants import get_rules
    >>> house = get_rules("american").replace(forced_capture=False)
    >>> house.forced_capture
    False

Invalid combinations fail at construction with :class:`RulesError`.
"""

from __future__ import annotations

import dataclasses
import enum
import numbers
from dataclasses import dataclass

from .colors import Color
from .errors import RulesError, UnknownVariantError

__all__ = [
    "MidCapturePromotion",
    "Rules",
    "VARIANTS",
    "AMERICAN",
    "RUSSIAN",
    "BRAZILIAN",
    "SPANISH",
    "ITALIAN",
    "CZECH",
    "INTERNATIONAL",
    "POOL",
    "get_rules",
    "variant_names",
]


class MidCapturePromotion(enum.IntEnum):
    """What happens to a man that reaches the far row during a capture."""

    ENDS_MOVE = 0
    """Crowned at once and the move ends there (american, spanish, italian, czech)."""
    CONTINUES_AS_KING = 1
    """Crowned at once and goes on capturing as a king in the same move (russian)."""
    ONLY_IF_MOVE_ENDS_THERE = 2
    """Goes on capturing as a man; crowned only if the move ends on the far row
    (brazilian, international, pool)."""

    def __repr__(self) -> str:
        # Evaluates back, so that repr(Board(...)) with this override does too.
        return f"MidCapturePromotion.{self.name}"


@dataclass(frozen=True)
class Rules:
    """Every rule that distinguishes one variant from another.

    Fields are positive, rule-shaped statements; the comment on each names the
    clause of ``docs/RULES.md`` it encodes.
    """

    name: str
    """Canonical variant name (``"american"``, ``"russian"``, ...)."""

    board_size: int = 8
    """Squares along one side: 8 (32 playable squares) or 10 (50)."""

    first_player: Color = Color.WHITE
    """The colour that moves first (``"white"``/``"black"`` are accepted and
    stored as the :class:`~checkers_env.core.colors.Color`). White's men
    always start on the low ranks (the high square numbers of the
    international numbering), so this only says who opens."""

    men_capture_backwards: bool = False
    """Men may capture backwards (they never move backwards quietly)."""

    kings_fly: bool = False
    """Kings move and capture any distance along a free diagonal ("flying
    king"); otherwise one square at a time in all four directions."""

    men_capture_kings: bool = True
    """Men may jump kings (False in italian)."""

    capture_most_pieces: bool = False
    """Among captures, the player must take the greatest number of pieces
    (a king counts as one piece)."""

    capture_with_king_first: bool = False
    """After ``capture_most_pieces``: a capture made with a king beats one made
    with a man (italian rule 1; czech: if a king can capture, a king must)."""

    capture_most_kings: bool = False
    """Then: the sequence that captures the most kings (spanish, italian)."""

    capture_kings_earliest: bool = False
    """Then: the sequence that meets a king earliest (italian rule 3)."""

    mid_capture_promotion: MidCapturePromotion = MidCapturePromotion.ENDS_MOVE
    """What a man reaching the far row during a capture does."""

    remove_captured_at_end: bool = True
    """Jumped pieces stay on the board as obstacles until the move is complete
    ("Turkish strike" rule); they can never be jumped twice. When False they
    vanish at once (american; only matters with flying kings)."""

    forced_capture: bool = True
    """Capturing is mandatory. ``False`` is the "no mandatory capture" house
    rule (8x8 only): captures may be declined, but a capture once begun is
    completed and the priority rules still choose among captures."""

    draw_plies: int = 80
    """The game is drawn after this many plies in a row without a capture (or
    promotion, see below): 40 moves a side is 80 plies, 25 is 50 plies.
    ``0`` disables the rule."""

    draw_counter_resets_on_promotion: bool = True
    """The draw counter also resets on every promotion (the 8x8 variants)."""

    repetition_draw: int = 0
    """If positive, the game is drawn when the same position (pieces and side
    to move) occurs this many times (e.g. 3). Off by default: tournament rules, not
    in the rule sources (docs/RULES.md)."""

    pdn_game_type: str = "21,B,8,8,N1,0"
    """PDN 3.0 ``GameType`` tag value: type number, first colour, width,
    height, notation code, invert flag (FMJD PDN 3.0 standard, "GameType tag")."""

    notation: str = "numeric"
    """How the variant's community writes squares: ``"numeric"`` (1..32/50) or
    ``"algebraic"`` (a1..h8, files from White's left, ranks from White's side)."""

    numbering_origin: str = "top-left"
    """Where numeric square 1 lies on the a1-dark reference board seen from
    White, numbering running away from that corner along rows, then rows
    away from that side: ``"top-left"`` (square 1 = b8: international,
    american), ``"top-right"`` (h8, counting right to left: italian, whose real
    board is the mirror image), ``"bottom-left"`` (a1, counting left to right
    and upwards: spanish, also a mirrored board). See notation.py."""

    def __post_init__(self) -> None:
        _check_field_types(self)
        problems = []
        if self.board_size not in (8, 10):
            problems.append(f"board_size must be 8 or 10, got {self.board_size!r}")
        try:
            object.__setattr__(self, "first_player", Color.parse(self.first_player))
        except ValueError as exc:
            problems.append(f"first_player: {exc}")
        if not self.forced_capture and self.board_size != 8:
            problems.append("the no-mandatory-capture house rule (forced_capture=False) applies to 8x8 variants only")
        if self.capture_kings_earliest and not self.capture_most_kings and not self.capture_most_pieces:
            problems.append(
                "capture_kings_earliest refines capture_most_pieces/capture_most_kings and needs one of them"
            )
        if self.draw_plies < 0:
            problems.append(f"draw_plies must be >= 0, got {self.draw_plies}")
        if self.repetition_draw < 0 or self.repetition_draw == 1:
            problems.append(f"repetition_draw must be 0 (off) or at least 2, got {self.repetition_draw}")
        if self.numbering_origin not in ("top-left", "top-right", "bottom-left", "bottom-right"):
            problems.append(f"numbering_origin must be a corner such as 'top-left', got {self.numbering_origin!r}")
        if self.notation not in ("numeric", "algebraic"):
            problems.append(f"notation must be 'numeric' or 'algebraic', got {self.notation!r}")
        try:
            MidCapturePromotion(self.mid_capture_promotion)
        except ValueError:
            problems.append(f"mid_capture_promotion must be one of {[m.name for m in MidCapturePromotion]}")
        else:
            object.__setattr__(self, "mid_capture_promotion", MidCapturePromotion(self.mid_capture_promotion))
        if problems:
            raise RulesError(f"invalid rules {self.name!r}: " + "; ".join(problems))

    @property
    def squares(self) -> int:
        """Number of playable squares (32 or 50)."""
        return self.board_size * self.board_size // 2

    @property
    def squares_per_row(self) -> int:
        """Playable squares in one row (4 or 5)."""
        return self.board_size // 2

    @property
    def men_per_side(self) -> int:
        """Men each side starts with (12 or 20)."""
        return self.squares_per_row * (self.board_size // 2 - 1)

    def replace(self, **changes) -> Rules:
        """A copy with some fields changed (validated). Unknown fields raise
        :class:`RulesError` naming the known ones."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise RulesError(f"unknown rule field(s) {unknown}; known fields: {sorted(known - {'name'})}")
        return dataclasses.replace(self, **changes)

    def overrides(self) -> dict:
        """Fields that differ from the named variant this was derived from."""
        base = VARIANTS.get(self.name)
        if base is None:
            return {}
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "name" and getattr(self, f.name) != getattr(base, f.name)
        }


def _check_field_types(rules: Rules) -> None:
    """Refuse a field of the wrong type with :class:`RulesError` naming it and the type expected.

    Without this, ``draw_plies="80"`` or ``board_size=8.0`` failed later with a
    built-in ``TypeError`` or passed as something else (``forced_capture="no"``
    is true). Bools must be ``bool``; ints any integer but a bool (numpy ints
    are stored as ``int``); the enum its member or its int value.
    ``first_player`` is checked by value in ``__post_init__``.
    """
    problems = []
    for f in dataclasses.fields(rules):
        if f.name == "first_player":
            continue
        value = getattr(rules, f.name)
        kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        if kind == "bool":
            ok = isinstance(value, bool)
            expected = "a bool (True or False)"
        elif kind in ("int", "MidCapturePromotion"):
            ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
            if ok and kind == "int" and type(value) is not int:
                object.__setattr__(rules, f.name, int(value))
            expected = "an int" if kind == "int" else "a MidCapturePromotion (or its int value)"
        elif kind == "str":
            ok = isinstance(value, str)
            expected = "a str"
        else:
            continue
        if not ok:
            problems.append(f"{f.name} must be {expected}, got {type(value).__name__} {value!r}")
    if problems:
        raise RulesError(f"invalid rules {rules.name!r}: " + "; ".join(problems))


# American checkers / English draughts (WCDF rules and the online rule pages): Black moves
# first, short kings, men capture forwards only, free choice among captures.
AMERICAN = Rules(
    name="american",
    first_player=Color.BLACK,
    remove_captured_at_end=False,
    pdn_game_type="21,B,8,8,N1,0",
)

# Russian draughts (shashki): men capture backwards, flying kings, free choice,
# a man crowned mid-capture continues as a king.
RUSSIAN = Rules(
    name="russian",
    men_capture_backwards=True,
    kings_fly=True,
    mid_capture_promotion=MidCapturePromotion.CONTINUES_AS_KING,
    pdn_game_type="25,W,8,8,A0,0",
    notation="algebraic",
)

# Brazilian draughts: international rules on 8x8 (most pieces, flying kings,
# crowned only if the capture ends on the far row).
BRAZILIAN = Rules(
    name="brazilian",
    men_capture_backwards=True,
    kings_fly=True,
    capture_most_pieces=True,
    mid_capture_promotion=MidCapturePromotion.ONLY_IF_MOVE_ENDS_THERE,
    pdn_game_type="26,W,8,8,A0,0",
    notation="algebraic",
)

# Spanish draughts: flying kings, men capture forwards only, most pieces then
# most kings. Played on the mirrored board (h1 playable); square 1 is White's
# bottom-right square h1, counting right to left and upwards (PDN "N1,1";
# Federacao Portuguesa de Damas, Damas Classicas rules, sections 3 and 7;
# rhalbersma/dctl spanish.hpp).
SPANISH = Rules(
    name="spanish",
    kings_fly=True,
    capture_most_pieces=True,
    capture_most_kings=True,
    pdn_game_type="24,W,8,8,N1,1",
    numbering_origin="bottom-left",
)

# Italian draughts: short kings, men may not capture kings, most pieces, then
# capture with a king, then most kings, then the king met earliest. Mirrored
# board (h1 playable), square 1 = a8 counting left to right, top to bottom
# (FID Regolamento Tecnico, Capo I, art. 2.3-2.4; PDN "N2,1").
ITALIAN = Rules(
    name="italian",
    men_capture_kings=False,
    capture_most_pieces=True,
    capture_with_king_first=True,
    capture_most_kings=True,
    capture_kings_earliest=True,
    pdn_game_type="22,W,8,8,N2,1",
    numbering_origin="top-right",
)

# Czech draughts: flying kings, men capture forwards only, a king must capture
# if any king can; no most-pieces rule. a1 dark, algebraic notation (Ceska
# federace damy, full rules section 2.4 and 2.6; PDN "A0,0").
CZECH = Rules(
    name="czech",
    kings_fly=True,
    capture_with_king_first=True,
    pdn_game_type="29,W,8,8,A0,0",
    notation="algebraic",
)

# International draughts (10x10): men capture backwards, flying kings, most
# pieces, crowned only if the capture ends on the far row, 25 moves a side
# without capture.
INTERNATIONAL = Rules(
    name="international",
    board_size=10,
    men_capture_backwards=True,
    kings_fly=True,
    capture_most_pieces=True,
    mid_capture_promotion=MidCapturePromotion.ONLY_IF_MOVE_ENDS_THERE,
    draw_plies=50,
    draw_counter_resets_on_promotion=False,
    pdn_game_type="20,W,10,10,N2,0",
)

# Pool checkers (American pool, GameType 23, Black first as in PDN
# "23,B,8,8,N1,0"): russian rules except that a man crossing the far row
# mid-capture goes on as a man; no most-pieces rule.
POOL = Rules(
    name="pool",
    men_capture_backwards=True,
    kings_fly=True,
    mid_capture_promotion=MidCapturePromotion.ONLY_IF_MOVE_ENDS_THERE,
    first_player=Color.BLACK,
    pdn_game_type="23,B,8,8,N1,0",
)

VARIANTS: dict[str, Rules] = {
    r.name: r for r in (AMERICAN, RUSSIAN, BRAZILIAN, SPANISH, ITALIAN, CZECH, INTERNATIONAL, POOL)
}
"""The named variants, by canonical name."""

ALIASES: dict[str, str] = {
    "english": "american",
    "checkers": "american",
    "english_draughts": "american",
    "shashki": "russian",
    "standard": "international",
    "international_draughts": "international",
    "10x10": "international",
    "american_pool": "pool",
    "pool_checkers": "pool",
}
"""Other names accepted by :func:`get_rules`."""


def variant_names() -> list[str]:
    """Canonical names of the named variants."""
    return list(VARIANTS)


def get_rules(variant: str | Rules = "american", **overrides) -> Rules:
    """The :class:`Rules` for a variant name (or alias), with optional field overrides.

    Raises :class:`UnknownVariantError` (a ``ValueError``) listing the known
    names when ``variant`` is not one of them.
    """
    if isinstance(variant, Rules):
        rules = variant
    else:
        if not isinstance(variant, str):
            raise UnknownVariantError(f"variant must be a name or Rules, got {type(variant).__name__}")
        key = variant.strip().lower().replace("-", "_").replace(" ", "_")
        key = ALIASES.get(key, key)
        if key not in VARIANTS:
            known = ", ".join(list(VARIANTS) + sorted(ALIASES))
            raise UnknownVariantError(f"unknown variant {variant!r}; known variants: {known}")
        rules = VARIANTS[key]
    return rules.replace(**overrides) if overrides else rules
