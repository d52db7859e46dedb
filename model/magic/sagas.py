"""Sagas (MTG 714) and read ahead (702.155): the card pack of a Saga, made from one definition.

``SagaPack(key, name, text, prefix, chapters, ...)`` is a Saga card's :class:`Pack`. Its fields:

* ``<prefix>_hand``: the card is in its controller's hand, and they may cast it (a sorcery's
  timing, 307.1);
* ``<prefix>_on``: it is on the battlefield under its controller's control;
* ``<prefix>_lore``: its lore counters (0 off the battlefield), at most its final chapter
  number plus one (one more than the final chapter needs, for a placement while the final
  chapter waits); a placement beyond that is cut at the bound ``lore`` (``x.within``), never
  clamped;

its kinds: ``<PREFIX>`` (the Saga spell) and ``<PREFIX>_CH<n>`` for each chapter ability
(trait ``triggered``); its bounds: ``<prefix>_lore`` (the lore counters a Saga that starts on
the battlefield has, which a scenario sets with ``counters = {lore = N}``) and, with read ahead,
``<prefix>_choice`` (the number a scenario's ``read_ahead = N`` fixes; 0 leaves the choice to
the controller). Its hooks:

* ``lore`` (714.2b): a placement of ``count`` counters triggers each chapter whose number the
  count crosses, from below it to at least it, so one placement can trigger several; with read
  ahead, as the Saga enters only the chapter whose number is the chosen count triggers
  (702.155a; a later placement is an ordinary one, which gives the same crossings here, since
  every other placement adds one counter);
* ``precombat_main`` (714.3b): as its controller's precombat main phase begins, one more lore
  counter, if it has chapter abilities (the core's rule ``precombat_main`` calls it);
* ``sba_applies`` and ``sba`` (714.4, 704.5s): with lore at least its final chapter number and
  at least one chapter ability, and no chapter ability of it that has triggered and not yet
  left the stack (waiting to be put on the stack, on the stack, or resolving), its controller
  sacrifices it, in the core's one state-based-action rule.

The clauses a mutant or variant binds (``DeriveHook("tag:saga", ...)``): ``waits`` (the
sacrifice waits for the chapters), ``at_least`` (lore at least, not above, the final number),
``every`` (a chapter triggers only when crossed) and ``edition`` (``"2025"``: a Saga without
chapter abilities gets no lore counters and is never sacrificed; ``"before-2025"``: the earlier
rule, under which it is sacrificed at once, its final chapter number being 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from turnproof.model.magic.core import (
    Stage,
    cast_spell,
    fire,
    prio,
    sorcery_timing,
)
from turnproof.model.packs import Field, KindSpec, Pack, hooks
from turnproof.model.rules import BoundSpec, Kind, Rule, rule
from turnproof.model.schema import BoolDomain, IntRange, Term

ROMAN = ("0", "I", "II", "III", "IV", "V", "VI")
EDITIONS = ("2025", "before-2025")


@dataclass(frozen=True)
class Chapter:
    """A chapter ability: its number, its text, and what it does as it resolves
    (``effect(s, x, b, *, me)``; ``None``: nothing the model looks at)."""

    n: int
    text: str
    effect: Callable[..., Any] | None = None


@dataclass(frozen=True)
class SagaSpec:
    """What the core, the properties and the other cards read about a Saga in play
    (``Pack.declares["saga"]``)."""

    key: str
    name: str
    prefix: str
    chapters: tuple[Chapter, ...]
    read_ahead: bool = False

    @property
    def final(self) -> int:
        """The final chapter number: the highest chapter number, 0 without any (714.2d)."""
        return max((c.n for c in self.chapters), default=0)

    @property
    def cap(self) -> int:
        """The most lore counters the model holds on it."""
        return self.final + 1 if self.chapters else 1

    def kind_name(self, n: int) -> str:
        return f"{self.prefix.upper()}_CH{n}"

    def on(self, s: Any) -> Term:
        return getattr(s, f"{self.prefix}_on")

    def lore(self, s: Any) -> Term:
        return getattr(s, f"{self.prefix}_lore")

    def chapter_kinds(self, b: Any) -> tuple[int, ...]:
        return tuple(b.setup.kind_of(self.kind_name(c.n)) for c in self.chapters)


def spec_of(card: Any) -> SagaSpec:
    spec: SagaSpec = card.pack.declares["saga"]
    return spec


def sagas(b: Any) -> list[tuple[Any, SagaSpec]]:
    """The Sagas in play, each with its definition."""
    return [(c, spec_of(c)) for c in b.setup.tagged("saga")]


def has_sagas(setup: Any) -> bool:
    return bool(setup.tagged("saga"))


def is_chapter_of(x: Any, it: Any, kinds: tuple[int, ...]) -> Term:
    return x.Or(*(it.what == k for k in kinds))


def chapter_pending(s: Any, x: Any, b: Any, spec: SagaSpec) -> Term:
    """A chapter ability of the Saga has triggered and not yet left the stack: it waits to be
    put on the stack, is on it, or is resolving (714.4)."""
    ks = spec.chapter_kinds(b)
    if not ks:
        return False
    return x.Or(
        x.seq_any(s.pending, lambda it: is_chapter_of(x, it, ks)),
        x.seq_any(s.stack, lambda it: is_chapter_of(x, it, ks)),
        is_chapter_of(x, s.res, ks),
    )


def put_lore(
    s: Any, x: Any, b: Any, chosen: Mapping[str, Term], count: Term = 1, entering: bool = False
) -> Any:
    """``count`` lore counters on each Saga of ``chosen`` (a Saga's key to the condition under
    which it gets them): the Sagas' ``lore`` hooks (714.2b)."""
    for f in hooks(b, "lore"):
        s = f(s, x, b, chosen=chosen, count=count, entering=entering)
    return s


def _controller_of_res(s: Any, x: Any, b: Any, **_: Any) -> Term:
    """the resolving Saga's controller"""
    return s.res.ctrl


def SagaPack(  # noqa: N802 - a factory named for what it makes
    key: str,
    name: str,
    text: str,
    prefix: str,
    chapters: tuple[Chapter, ...],
    *,
    read_ahead: bool = False,
    fields: tuple[Field, ...] = (),
    abstract: bool = False,
    sources: tuple[str, ...] = (),
    module: str = "",
) -> Pack:
    """The pack of a Saga card (see the module docstring)."""
    spec = SagaSpec(key, name, prefix, chapters, read_ahead)
    kind = prefix.upper()
    on, lore, hand = f"{prefix}_on", f"{prefix}_lore", f"{prefix}_hand"
    start_lore, choice = f"{prefix}_lore", f"{prefix}_choice"

    def starts_on(b: Any) -> bool:
        return b.setup.card(key).zone != "hand"

    def lore_placed(
        s: Any,
        x: Any,
        b: Any,
        *,
        me: Any,
        chosen: Mapping[str, Term],
        count: Term,
        entering: bool,
        every: bool = False,
    ) -> Any:
        cond = chosen.get(key)
        if cond is None:
            return s
        before = spec.lore(s)
        after = before + count
        x.within(x.Or(x.Not(cond), after <= spec.cap), "lore")
        t = s.replace(**{lore: x.If(cond, after, before)})
        for ch in chapters:
            if entering and read_ahead:  # 702.155a: only the chosen chapter
                crosses = after == ch.n
            elif every:  # a wrong engine: a chapter triggers at every placement past it
                crosses = after >= ch.n
            else:  # 714.2b: from below its number to at least it
                crosses = x.And(before < ch.n, after >= ch.n)
            t = fire(t, x, b, x.And(cond, crosses), me.controller, b.setup.kind_of(kind_name(ch)))
        return t

    def kind_name(ch: Chapter) -> str:
        return spec.kind_name(ch.n)

    def main_begins(s: Any, x: Any, b: Any, *, me: Any, p: Term, edition: str = "2025") -> Any:
        if not chapters and edition == "2025":  # 714.3b: only Sagas with chapter abilities
            return s
        return put_lore(s, x, b, {key: x.And(spec.on(s), p == me.controller)})

    def done(
        s: Any,
        x: Any,
        b: Any,
        *,
        me: Any,
        waits: bool = True,
        at_least: bool = True,
        edition: str = "2025",
    ) -> Term:
        if not chapters and edition == "2025":  # 714.4: at least one chapter ability
            return False
        n = spec.lore(s)
        reached = n >= spec.final if at_least else n > spec.final
        cond = x.And(spec.on(s), reached)
        if waits:
            cond = x.And(cond, x.Not(chapter_pending(s, x, b, spec)))
        return cond

    def sacrifice(s: Any, x: Any, b: Any, *, me: Any, t: Any, **clauses: Any) -> Any:
        gone = done(s, x, b, me=me, **clauses)
        return t.replace(
            **{on: x.If(gone, False, getattr(t, on)), lore: x.If(gone, 0, getattr(t, lore))}
        )

    @rule(
        "MTG 601.2",
        f"a player casts {name}, a Saga (an enchantment spell: their main phase, an empty "
        "stack, 307.1); they keep priority (117.3c)",
        kind=Kind.CHOICE,
        decider=prio,
        when={"stage": Stage.PRIORITY},
        name=f"cast_{prefix}",
    )
    def cast_saga(s: Any, x: Any, b: Any, *, me: Any) -> Any:
        x.require(me.controls(s.prio))
        x.require(getattr(s, hand))
        x.require(sorcery_timing(s, x, b, s.prio))
        return cast_spell(s.replace(**{hand: False}), x, b, b.setup.kind_of(kind))

    def enters(s: Any, x: Any, b: Any, *, me: Any) -> Any:
        """it enters the battlefield with a lore counter (714.3a), and chapter I triggers"""
        return put_lore(s.replace(**{on: True}), x, b, {key: True}, 1, entering=True)

    rules: tuple[Rule, ...] = (cast_saga,)
    resolve: dict[str, Callable[..., Any]] = {}
    resolves_itself: tuple[str, ...] = ()
    bounds = [
        BoundSpec(
            start_lore,
            1,
            0,
            spec.cap,
            f"lore counters on {name} as the scenario starts, when it starts on the battlefield",
        )
    ]
    if read_ahead:
        bounds.append(
            BoundSpec(
                choice,
                0,
                0,
                spec.final,
                f"the number {name}'s controller chooses as it enters (read ahead, 702.155a); "
                "0: any of them",
            )
        )

        @rule(
            "MTG 702.155a",
            f"{name} resolves and enters the battlefield: its controller chooses a number from 1 "
            f"to {spec.final} (read ahead); it enters with that many lore counters, and only the "
            "chapter with that number triggers (714.3a)",
            kind=Kind.CHOICE,
            decider=_controller_of_res,
            params={"n": tuple(range(1, spec.final + 1))},
            when={"stage": Stage.RESOLVING},
            name=f"enter_{prefix}",
        )
        def enter_ahead(s: Any, x: Any, b: Any, n: int, *, me: Any) -> Any:
            x.require(s.res.what == b.setup.kind_of(kind))
            fixed = b[choice]
            x.require(x.Or(fixed == 0, fixed == n))
            t = s.replace(**{on: True}, stage=Stage.RESOLVED)
            return put_lore(t, x, b, {key: True}, n, entering=True)

        rules += (enter_ahead,)
        resolves_itself = (kind,)
    else:
        resolve[kind] = enters
    for ch in chapters:
        if ch.effect is not None:
            resolve[kind_name(ch)] = ch.effect
    roman = ", ".join(ROMAN[c.n] for c in chapters) or "none"
    return Pack(
        key=key,
        name=name,
        text=text,
        kinds=(
            KindSpec(kind, f"{name} (a Saga spell)"),
            *(
                KindSpec(
                    kind_name(ch), f"{name}'s chapter {ROMAN[ch.n]}: {ch.text}", ("triggered",)
                )
                for ch in chapters
            ),
        ),
        fields=(
            Field(
                hand,
                BoolDomain(),
                f"{name} is in its controller's hand, to be cast",
                lambda b: not starts_on(b),
            ),
            Field(
                on,
                BoolDomain(),
                f"{name} is on the battlefield (its chapters: {roman})",
                starts_on,
            ),
            Field(
                lore,
                IntRange(0, spec.cap),
                f"lore counters on {name} (714.3a; final chapter {spec.final})",
                lambda b: b[start_lore] if starts_on(b) else 0,
            ),
            *fields,
        ),
        bounds=tuple(bounds),
        rules=rules,
        resolve=resolve,
        resolves_itself=resolves_itself,
        hooks={
            "lore": lore_placed,
            "precombat_main": main_begins,
            "sba_applies": done,
            "sba": sacrifice,
        },
        zones=("battlefield", "hand"),
        counters={"lore": start_lore},
        choices={"read_ahead": choice} if read_ahead else {},
        abstract=abstract,
        sources=sources,
        tags=("saga", "read ahead") if read_ahead else ("saga",),
        each=False,
        module=module,
        declares={"saga": spec},
    )
