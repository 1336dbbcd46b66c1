"""Exhibition: Twentieth Century (Cwali): placement checks, game flow and scoring.

Rules: shared/spec/games/exhibition.md; log lines, spot names and the score sheet: docs/exhibition.md.
``board`` (the board file and a game's layout), ``cards`` (card facts as the rules see them),
``options`` (the decision flags), ``rules`` (placement checks), ``score`` (final scoring and the
``companion score exhibition`` document), ``state``/``actions``/``engine`` (the game flow),
``autoplay`` (a seeded robot that plays whole legal games: demo table, benchmarks, tests).
"""
